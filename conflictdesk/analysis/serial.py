"""Rebuild an `Analysis` from its `to_json()` form, so a stored answer shows without rerunning.

Floats come back rounded to the 6 decimals `to_json` writes."""

from __future__ import annotations

from typing import Any

from conflictdesk.analysis.types import (
    Analysis,
    Candidate,
    ClaimFrame,
    Cluster,
    ConflictPair,
    ConflictScore,
    ConflictVerdict,
    Packet,
    PairDetection,
    PassageTag,
    QueryForm,
    Resolution,
    Stance,
    Tagging,
    ViewPoint,
)
from conflictdesk.errors import InputError
from conflictdesk.types import ConflictType, PairType, Passage, Tag


def analysis_from_json(blob: dict[str, Any]) -> Analysis:
    """The inverse of `Analysis.to_json()`; a malformed blob raises InputError."""
    try:
        return Analysis(
            query=blob["query"],
            passages=tuple(_passage(p) for p in blob["passages"]),
            tagging=_tagging(blob["tagging"]),
            clusters=tuple(_cluster(c) for c in blob["clusters"]),
            score=_score(blob["score"]),
            packet=_packet(blob["packet"]),
            detection=_detection(blob["detection"]),
            verdict=_verdict(blob["verdict"]),
            resolution=_resolution(blob["resolution"]),
            methods=dict(blob.get("methods", {})),
            timings={k: float(v) for k, v in blob.get("timings", {}).items()},
            reworded=str(blob.get("reworded", "")),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise InputError(f"not a stored analysis: {exc!r}") from exc


def _passage(p: dict[str, Any]) -> Passage:
    return Passage(
        id=int(p["id"]), text=p["text"], document_id=p.get("document_id"), title=p.get("title"),
        date=p.get("date"), source=p.get("source"), url=p.get("url"),
        relevance=float(p.get("relevance", 0.0)),
    )  # fmt: skip


def _tagging(t: dict[str, Any]) -> Tagging:
    f = t["frame"]
    frame = ClaimFrame(
        f["query"],
        QueryForm(f["form"]),
        f["hypothesis"],
        tuple(
            Candidate(c["text"], c["kind"], tuple(c["passage_ids"]), float(c["score"]))
            for c in f.get("candidates", [])
        ),
        f.get("leading"),
        f.get("method", "rule"),
    )
    tags = tuple(
        PassageTag(
            int(x["passage_id"]),
            Tag(x["tag"]),
            float(x["confidence"]),
            float(x["scores"]["entailment"]),
            float(x["scores"]["neutral"]),
            float(x["scores"]["contradiction"]),
            x.get("key_sentence", ""),
            x.get("answer"),
            float(x.get("topicality", 1.0)),
            x.get("method", "nli"),
        )
        for x in t["tags"]
    )
    return Tagging(frame, tags, t["method"])


def _cluster(c: dict[str, Any]) -> Cluster:
    return Cluster(
        int(c["id"]), tuple(c["members"]), Tag(c["dominant_tag"]), float(c["confidence"]),
        {k: float(v) for k, v in c.get("mass", {}).items()},
    )  # fmt: skip


def _score(s: dict[str, Any]) -> ConflictScore:
    return ConflictScore(
        float(s["kappa"]), float(s["cluster_kappa"]), float(s["u_support"]),
        float(s["u_refute"]), float(s["u_irrelevant"]), float(s["cluster_u_support"]),
        float(s["cluster_u_refute"]), float(s["margin"]), Stance(s["stance"]),
        float(s.get("delta", 0.1)),
    )  # fmt: skip


def _packet(p: dict[str, Any]) -> Packet:
    return Packet(
        tuple(p["passage_ids"]), p["mode"], float(p["kappa"]),
        {k: int(v) for k, v in p.get("budgets", {}).items()}, int(p["k_prime"]),
        float(p["tau"]), int(p["max_per_cluster"]),
    )  # fmt: skip


def _optional(value: Any) -> float | None:
    return None if value is None else float(value)


def _detection(d: dict[str, Any]) -> PairDetection:
    pairs = tuple(
        ConflictPair(
            int(p["i"]),
            int(p["j"]),
            float(p["conflict_prob"]),
            bool(p["conflict"]),
            PairType(p["type"]),
            p["stage"],
            _optional(p.get("stage1_prob")),
            _optional(p.get("stage1_confidence")),
            p.get("rationale", ""),
            tuple(float(x) for x in p.get("nli", ())),
        )
        for p in d["pairs"]
    )
    return PairDetection(pairs, float(d["tau_c"]), d["method"])


def _verdict(v: dict[str, Any]) -> ConflictVerdict:
    return ConflictVerdict(
        ConflictType(v["type"]),
        v["rationale"],
        v["method"],
        dict(v.get("signals", {})),
        _optional(v.get("confidence")),
        bool(v.get("uncertain", False)),
    )


def _resolution(r: dict[str, Any]) -> Resolution:
    return Resolution(
        rule=r["rule"],
        ranking=tuple(r["ranking"]),
        rationale=r["rationale"],
        criteria=tuple(r.get("criteria", ())),
        weights=tuple(float(w) for w in r.get("weights", ())),
        scores={int(k): float(v) for k, v in r.get("scores", {}).items()},
        matrix={int(k): tuple(float(x) for x in v) for k, v in r.get("matrix", {}).items()},
        dates={int(k): v for k, v in r.get("dates", {}).items()},
        viewpoints=tuple(
            ViewPoint(int(v["cluster_id"]), tuple(v["passage_ids"]), Tag(v["tag"]))
            for v in r.get("viewpoints", ())
        ),
    )
