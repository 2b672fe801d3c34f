"""A diagnostic, not a product path: can the embedded models tell QACC's contradicting
contexts from its irrelevant ones? (`scripts/probe_qacc.py` prints the report.)

On QACC a context CONTRADICTS the claim "The answer to the question Q is A" when annotators
listed it for another answer B, and IRRELEVANT when they listed it for none. Measured: the ROC
AUC of each score the claim-level labeller has (gold CONTRADICTS against gold IRRELEVANT
pairs), and conflict detection after answer-aware rules that turn an IRRELEVANT judgment into
CONTRADICTS (`own_answer_rule`, `corroborated_rule`), beside the claim-only string match and
always-conflict."""

from __future__ import annotations

import bisect
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from conflictdesk.analysis import text as tx
from conflictdesk.analysis.claims import (
    answer_claim,
    answer_kind,
    answer_spans,
    passage_answer,
)
from conflictdesk.config import Settings
from conflictdesk.evaluation import cases as cs
from conflictdesk.training.claims import contains

Labels = list[str]


def roc_auc(positive: Sequence[float], negative: Sequence[float]) -> float | None:
    """P(score of a random positive > score of a random negative), ties counting half."""
    if not positive or not negative:
        return None
    ranked = sorted(negative)
    wins = sum(
        bisect.bisect_left(ranked, p) + 0.5 * (bisect.bisect_right(ranked, p) - bisect.bisect_left(ranked, p))
        for p in positive
    )  # fmt: skip
    return wins / (len(positive) * len(negative))


def span_kind(answer: str) -> str:
    """The kind of the first date/number/entity span in `answer`; "any" when it has none."""
    spans = answer_spans(answer, "any", "")
    return spans[0][3] if spans else "any"


class CaseView:
    """One case with the model's judgments and the per-context facts the rules read."""

    def __init__(self, case: cs.Case, judgments: Sequence[Any]) -> None:
        self.case = case
        self.labels = [j.relation.value for j in judgments]
        self.probabilities = [j.probabilities for j in judgments]  # None when gated
        idf = tx.idf_weights(list(case.documents))
        self.ranked = [tx.ranked_sentences(case.question, d, idf) for d in case.documents]
        self.overlap = [
            tx.overlap_score(case.question, r[0], idf) if r else 0.0 for r in self.ranked
        ]
        self.has_answer = [contains(d, case.answer) for d in case.documents]

    def open(self, k: int) -> bool:
        """An ungated context the model called IRRELEVANT and that never names A."""
        return (
            self.labels[k] == "IRRELEVANT"
            and self.probabilities[k] is not None
            and not self.has_answer[k]
        )


def own_answer_rule(view: CaseView, nli: Any) -> Labels:
    case, labels = view.case, list(view.labels)
    kind = answer_kind(case.question)
    checks = []
    for k, text in enumerate(case.documents):
        if kind == "sentence" or not view.open(k):
            continue
        found = passage_answer(case.question, kind, view.ranked[k], tx.midsentence_capitals(text))
        if found and not cs.same_answer(found[1], case.answer):
            checks.append((k, answer_claim(case.question, found[1])))
    if checks:
        scores = nli.classify([(case.documents[k], claim) for k, claim in checks])
        for (k, _), score in zip(checks, scores, strict=True):
            if score.label == "entailment":
                labels[k] = "CONTRADICTS"
    return labels


def corroborated_rule(view: CaseView, min_contexts: int, top: int) -> Labels:
    case, labels = view.case, list(view.labels)
    kind = span_kind(case.answer)
    spans = []
    for k, text in enumerate(case.documents):
        known = tx.midsentence_capitals(text)
        keys = {
            key: surface
            for sentence in view.ranked[k][:top]
            for _, key, surface, found in answer_spans(sentence, "any", case.question, known)
            if kind in ("any", found)
        }
        spans.append(keys)
    counts = Counter(key for keys in spans for key in keys)
    for k, keys in enumerate(spans):
        if view.open(k) and any(
            counts[key] >= min_contexts and not cs.same_answer(surface, case.answer)
            for key, surface in keys.items()
        ):
            labels[k] = "CONTRADICTS"
    return labels


def detection(cases: Sequence[cs.Case], rows: Sequence[Labels]) -> dict[str, float]:
    predicted = ["SUPPORTS" in row and "CONTRADICTS" in row for row in rows]
    metrics = cs.detection_metrics([c.conflict for c in cases], predicted)
    return {k: round(metrics[k], 3) for k in ("precision", "recall", "f1")}


def separability(views: Sequence[CaseView]) -> dict[str, Any]:
    scores: dict[str, Callable[[CaseView, int], float]] = {
        "p_contradiction": lambda v, k: v.probabilities[k][1],
        "1-p_neutral": lambda v, k: 1.0 - v.probabilities[k][2],
        "key_sentence_overlap": lambda v, k: v.overlap[k],
    }
    out: dict[str, Any] = {}
    for name, score in scores.items():
        by_gold: dict[str, list[float]] = {"CONTRADICTS": [], "IRRELEVANT": []}
        for view in views:
            for k, gold in enumerate(view.case.gold):
                if gold in by_gold and view.probabilities[k] is not None:
                    by_gold[gold].append(score(view, k))
        auc = roc_auc(by_gold["CONTRADICTS"], by_gold["IRRELEVANT"])
        out[name] = None if auc is None else round(auc, 3)
    out["pairs"] = {
        g: sum(v.case.gold.count(g) for v in views) for g in ("CONTRADICTS", "IRRELEVANT")
    }
    return out


def probe(name: str, cases: Sequence[cs.Case], predict: Any, nli: Any) -> dict[str, Any]:
    views = [CaseView(case, predict(case)) for case in cases]
    rows: dict[str, list[Labels]] = {
        "model": [v.labels for v in views],
        "own-answer": [own_answer_rule(v, nli) for v in views],
    }
    for n in (2, 3):
        for top in (1, 2):
            rows[f"corroborated(n={n}, top={top})"] = [corroborated_rule(v, n, top) for v in views]
    rows["claim-only baseline"] = [cs.claim_match(c) for c in cases]
    rows["always conflict"] = [["SUPPORTS", "CONTRADICTS"] for _ in cases]
    return {
        "slice": name,
        "cases": len(cases),
        "conflicts": sum(c.conflict for c in cases),
        "separability_auc": separability(views),
        "detection": {label: detection(cases, r) for label, r in rows.items()},
    }


def detect_predictor(settings: Settings, labeller: str = "nli", gate: bool = True) -> tuple[
    Callable[[cs.Case], list[Any]], str, Any]:  # fmt: skip
    """`detect()` on the embedded NLI model (and the GGUF when the labeller needs one): the
    per-case judgments, the NLI model's id and the NLI back-end."""
    from conflictdesk.backends.registry import load_backends
    from conflictdesk.scoring import detect

    roles = ("nli",) if labeller in ("nli", "fusion") else ("nli", "llm")
    backends = load_backends(settings, roles=roles)

    def predict(case: cs.Case) -> list[Any]:
        result = detect(case.claim, list(case.documents), backends, labeller=labeller, gate=gate)
        return list(result.claim.judgments)

    return predict, backends.nli.model_id, backends.nli


SLICES = ("QACC train (seen in training)", "QACC dev", "RAMDocs EVAL half")


def load_slices() -> list[tuple[str, list[cs.Case]]]:
    ramdocs = [c for c in cs.load_cases("ramdocs", "dev") if c.half == "eval"]
    found = (cs.load_cases("qacc", "train"), cs.load_cases("qacc", "dev"), ramdocs)
    return list(zip(SLICES, found, strict=True))


def probe_report(settings: Settings, limit: int | None = None) -> dict[str, Any]:
    """The probe on every slice (first `limit` cases of each)."""
    predict, model_id, nli = detect_predictor(settings)
    return {"model": model_id,
            "slices": [probe(n, cases[:limit], predict, nli) for n, cases in load_slices()]}  # fmt: skip
