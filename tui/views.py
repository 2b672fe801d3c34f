"""Engine results and stored runs turned into the screens' view models (see desk.py).

Stored runs keep the shape the CLI writes: ask → {"record", "analysis", "answer"};
score → the ScoreResult dict; regenerate → the Regeneration dict, each with its input."""

from __future__ import annotations

from typing import Any

from conflictdesk.stages import SHOWN_AS

Json = dict[str, Any]


def _json(value: Any) -> Any:
    if hasattr(value, "to_json"):
        return value.to_json()
    if isinstance(value, (list, tuple)):
        return [_json(v) for v in value]
    return value


def passage_json(passage: Any) -> Json:
    from conflictdesk.analysis.types import passage_to_json

    out = passage_to_json(passage)
    order = (passage.metadata or {}).get("order")
    if order is not None:
        out["ord"] = order
    return out


def stage_partial(stage: str, value: Any) -> tuple[str, Json] | None:
    """One analysis event as (shown stage, partial view model); None for events not shown."""
    if stage not in SHOWN_AS:
        return None
    shown, key = SHOWN_AS[stage]
    return shown, {key: _json(value)}


def ask_view(run_input: Json, output: Json) -> Json:
    """An ask run as the Ask screen's view model. Passages of inline documents lose their
    document id: it is an index into the request's list, not a stored document."""
    view = {
        **output.get("analysis", {}),
        "answer": output.get("answer"),
        "query": run_input.get("query", output.get("analysis", {}).get("query", "")),
        "collection": run_input.get("collection"),
    }
    if "documents" in run_input:
        view["passages"] = [{**p, "document_id": None} for p in view.get("passages") or []]
    return view


def _documents(raw: Any) -> list[Json]:
    docs = []
    for doc in raw or []:
        docs.append({"title": None, "text": doc} if isinstance(doc, str) else dict(doc))
    return docs


def score_view(run_input: Json, output: Json) -> Json:
    return {
        **output,
        "response": run_input.get("response", ""),
        "documents": _documents(run_input.get("documents")),
    }


def regenerate_view(run_input: Json, output: Json) -> Json:
    """The revised response with its scores; the original when nothing was regenerated."""
    before = output.get("before") or {}
    after = output.get("after")
    shown = after if output.get("regenerated") and after else before
    view = {
        **shown,
        "method": output.get("method"),
        "question": run_input.get("question"),
        "documents": _documents(run_input.get("documents")),
        "selected_claim": output.get("selected_claim"),
        "before": {"cs_c": before.get("cs_c"), "cs_r": before.get("cs_r")},
    }
    if output.get("regenerated"):
        view.update(
            response=output.get("revised_response") or "",
            regenerated_from=run_input.get("response", ""),
        )
    else:
        view.update(response=run_input.get("response", ""), regenerated=False)
    return view


VIEWS = {"ask": ask_view, "score": score_view, "regenerate": regenerate_view}


def run_view(kind: str, run_input: Json, output: Json) -> Json:
    if kind not in VIEWS:
        return {"kind": kind, "input": run_input, "output": output}
    return VIEWS[kind](run_input, output)
