"""Resolution by conflict type (ConflictRAG type-adaptive resolution, CONFLICTS behaviours).

outdated → newest first (metadata date, else the latest date in the text); misinformation →
Entropy-TOPSIS over authority, recency, relevance, specificity and consistency (ConflictRAG
eq. 4 weights, TOPSIS closeness); both rank the evidence (passages tagged Support or Refute
or holding a candidate answer). Conflicting opinions → every viewpoint (a cluster's passages
of one stance) with its sources, taken in turn so none leads; complementary → consolidate,
one passage per partial answer in turn, the best-supported answer first; no conflict →
direct, by relevance. The other packet passages come last, by relevance. All criteria are
computed without an LLM."""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

import numpy as np

from conflictdesk.analysis import text as tx
from conflictdesk.analysis.dates import passage_date
from conflictdesk.analysis.packet import split_evidence
from conflictdesk.analysis.tag import relevance_weights
from conflictdesk.analysis.types import (
    Cluster,
    ConflictVerdict,
    PairDetection,
    Resolution,
    Tagging,
    ViewPoint,
)
from conflictdesk.types import ConflictType, Passage, Tag

CRITERIA = ("authority", "recency", "relevance", "specificity", "consistency")
NEUTRAL = 0.5

DEFAULT_AUTHORITY: dict[str, float] = {
    ".gov": 0.9,
    ".edu": 0.85,
    ".int": 0.9,
    "who.int": 0.95,
    "nih.gov": 0.95,
    "cdc.gov": 0.95,
    "nature.com": 0.9,
    "science.org": 0.9,
    "thelancet.com": 0.9,
    "nejm.org": 0.9,
    "bmj.com": 0.9,
    "cochrane": 0.9,
    "pubmed": 0.85,
    "reuters": 0.85,
    "apnews": 0.85,
    "bbc.": 0.8,
    "nytimes": 0.75,
    "theguardian": 0.75,
    "britannica": 0.8,
    "wikipedia": 0.7,
    "blog": 0.3,
    "blogspot": 0.3,
    "wordpress": 0.3,
    "medium.com": 0.35,
    "reddit": 0.25,
    "quora": 0.25,
    "forum": 0.25,
    "facebook": 0.2,
    "twitter": 0.2,
    "x.com": 0.2,
    "tiktok": 0.15,
    "rumor": 0.2,
    "satire": 0.1,
    "tabloid": 0.2,
}


@dataclass(frozen=True)
class AuthorityTable:
    """Source credibility: the highest weight of the keys found in a passage's source, url or
    title (case-insensitive; a key must start at a word boundary unless it starts with ".",
    so "x.com" does not match "fox.com"); `neutral` when none matches."""

    weights: Mapping[str, float] = field(default_factory=lambda: dict(DEFAULT_AUTHORITY))
    neutral: float = NEUTRAL

    @classmethod
    def from_file(cls, path: Path) -> AuthorityTable:
        """A JSON object {"weights": {key: weight}, "neutral"?: float}."""
        data = json.loads(Path(path).read_text("utf-8"))
        return cls(dict(data["weights"]), float(data.get("neutral", NEUTRAL)))

    def score(self, passage: Passage) -> float:
        haystack = " ".join(x for x in (passage.source, passage.url, passage.title) if x).lower()
        hits = [w for key, w in self.weights.items() if _key_matches(key.lower(), haystack)]
        return max(hits) if hits else self.neutral


def _key_matches(key: str, haystack: str) -> bool:
    boundary = "" if key.startswith(".") else r"(?<![a-z0-9])"
    return re.search(boundary + re.escape(key), haystack) is not None


def entropy_weights(matrix: np.ndarray) -> np.ndarray:
    """ConflictRAG eq. 4: p_ij = x_ij / Σ_i x_ij, E_j = −(1/ln m) Σ_i p_ij ln p_ij (0 ln 0 = 0),
    w_j = (1 − E_j) / Σ_k (1 − E_k). A column summing to 0 has E_j = 1 (no information);
    when no column discriminates (all E = 1) the weights are equal."""
    x = np.asarray(matrix, dtype=np.float64)
    m, n = x.shape
    if m < 2:
        return np.full(n, 1.0 / n)
    sums = x.sum(axis=0)
    entropy = np.ones(n)
    for j in range(n):
        if sums[j] <= 0:
            continue
        p = x[:, j] / sums[j]
        logs = np.where(p > 0, np.log(np.where(p > 0, p, 1.0)), 0.0)
        entropy[j] = -(p * logs).sum() / math.log(m)
    diversity = 1.0 - entropy
    total = diversity.sum()
    return diversity / total if total > 1e-12 else np.full(n, 1.0 / n)


def topsis(matrix: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Closeness C_i = D_i⁻ / (D_i⁺ + D_i⁻) with vector normalisation r_ij = x_ij / √Σ_i x_ij²,
    v_ij = w_j r_ij, ideal = column max, anti-ideal = column min (all criteria are benefits).
    A zero column normalises to 0; a row at both distances 0 gets 0.5."""
    x = np.asarray(matrix, dtype=np.float64)
    norms = np.sqrt((x**2).sum(axis=0))
    r = np.divide(x, norms, out=np.zeros_like(x), where=norms > 0)
    v = r * np.asarray(weights, dtype=np.float64)
    ideal, anti = v.max(axis=0), v.min(axis=0)
    d_plus = np.sqrt(((v - ideal) ** 2).sum(axis=1))
    d_minus = np.sqrt(((v - anti) ** 2).sum(axis=1))
    total = d_plus + d_minus
    return np.divide(d_minus, total, out=np.full_like(total, 0.5), where=total > 0)


def _recency(passages: Sequence[Passage], dates: Mapping[int, date]) -> list[float]:
    """Min–max scaled date (1 newest, 0 oldest); undated or all equal → neutral 0.5."""
    known = [d.toordinal() for d in dates.values()]
    if len(set(known)) < 2:
        return [NEUTRAL] * len(passages)
    low, high = min(known), max(known)
    return [
        (dates[p.id].toordinal() - low) / (high - low) if p.id in dates else NEUTRAL
        for p in passages
    ]


def _consistency(
    passages: Sequence[Passage], tagging: Tagging, detection: PairDetection
) -> list[float]:
    """Mean agreement with the other passages: 1 − P(conflict) for a judged pair, else from
    tags (1 same stance, 0 opposite, 0.5 when either is Irrelevant)."""
    tags = tagging.by_id()
    judged = {frozenset((p.i, p.j)): p.conflict_prob for p in detection.pairs}
    out = []
    for a in passages:
        scores = []
        for b in passages:
            if a.id == b.id:
                continue
            key = frozenset((a.id, b.id))
            if key in judged:
                scores.append(1.0 - judged[key])
            elif Tag.IRRELEVANT in (tags[a.id].tag, tags[b.id].tag):
                scores.append(0.5)
            else:
                scores.append(1.0 if tags[a.id].tag is tags[b.id].tag else 0.0)
        out.append(sum(scores) / len(scores) if scores else NEUTRAL)
    return out


def criteria_matrix(
    passages: Sequence[Passage],
    tagging: Tagging,
    detection: PairDetection,
    authority: AuthorityTable,
    dates: Mapping[int, date],
) -> np.ndarray:
    """X (m × 5) in [0, 1], columns in CRITERIA order."""
    rel = relevance_weights(passages)
    spec = [tx.specificity(p.text) for p in passages]
    top_spec = max(spec, default=0.0)
    columns = [
        [authority.score(p) for p in passages],
        _recency(passages, dates),
        [rel[p.id] for p in passages],
        [s / top_spec if top_spec > 0 else NEUTRAL for s in spec],
        _consistency(passages, tagging, detection),
    ]
    return np.array(columns, dtype=np.float64).T


def passage_dates(passages: Sequence[Passage], tagging: Tagging) -> dict[int, tuple[date, str]]:
    """Each passage's date and its origin; a passage's own answer span is not its date."""
    tags = tagging.by_id()
    out = {}
    for p in passages:
        answer = tags[p.id].answer if p.id in tags else None
        found = passage_date(p, {answer.lower()} if answer else set())
        if found is not None:
            out[p.id] = found
    return out


def resolve(
    packet: Sequence[Passage],
    tagging: Tagging,
    clusters: Sequence[Cluster],
    detection: PairDetection,
    verdict: ConflictVerdict,
    *,
    authority: AuthorityTable | None = None,
) -> Resolution:
    """Order the packet by the rule the conflict type calls for (module docstring)."""
    kind = verdict.type
    if kind is ConflictType.OUTDATED:
        return _by_recency(packet, tagging)
    if kind is ConflictType.MISINFORMATION:
        return _by_topsis(packet, tagging, detection, authority or AuthorityTable())
    if kind is ConflictType.CONFLICTING_OPINIONS:
        views, rest = _viewpoints(packet, tagging, clusters, by="tag")
        return Resolution(
            "viewpoints",
            _round_robin(views) + tuple(rest),
            f"{len(views)} viewpoints presented in turn, none ranked first on merit",
            viewpoints=views,
        )
    if kind is ConflictType.COMPLEMENTARY:
        views, rest = _viewpoints(packet, tagging, clusters, by="answer")
        return Resolution(
            "consolidate",
            _round_robin(views) + tuple(rest),
            f"{len(views)} partial answers consolidated",
            viewpoints=views,
        )
    rel = relevance_weights(packet)
    tags = tagging.by_id()
    evidence, rest = split_evidence(packet, tagging)
    ranking = sorted(
        (p.id for p in evidence), key=lambda pid: (tags[pid].tag is not Tag.SUPPORT, -rel[pid])
    )
    return Resolution(
        "direct",
        tuple(ranking + rest),
        "no conflict: supporting passages first, then other evidence, by relevance",
    )


def _by_recency(packet: Sequence[Passage], tagging: Tagging) -> Resolution:
    dated = passage_dates(packet, tagging)
    rel = relevance_weights(packet)
    evidence, rest = split_evidence(packet, tagging)
    ranking = (
        sorted(
            (p.id for p in evidence),
            key=lambda pid: (
                pid not in dated,
                -(dated[pid][0].toordinal() if pid in dated else 0),
                -rel[pid],
            ),
        )
        + rest
    )
    origins = _origin_summary(v[1] for v in dated.values())
    return Resolution(
        "recency",
        tuple(ranking),
        f"evidence newest first (dates from {origins}; undated after), passages without "
        "an answer last",
        dates={pid: d.isoformat() for pid, (d, _) in dated.items()},
    )


def _origin_summary(origins: Iterable[str]) -> str:
    counts = Counter(origins)
    return ", ".join(f"{k} ×{v}" for k, v in sorted(counts.items())) or "nowhere"


def _by_topsis(
    packet: Sequence[Passage],
    tagging: Tagging,
    detection: PairDetection,
    authority: AuthorityTable,
) -> Resolution:
    evidence, rest = split_evidence(packet, tagging)
    if len(evidence) < 2:
        evidence, rest = list(packet), []
    dated = {pid: d for pid, (d, _) in passage_dates(evidence, tagging).items()}
    matrix = criteria_matrix(evidence, tagging, detection, authority, dated)
    weights = entropy_weights(matrix)
    closeness = topsis(matrix, weights)
    order = sorted(range(len(evidence)), key=lambda i: (-closeness[i], i))
    top = ", ".join(f"{c}={w:.2f}" for c, w in zip(CRITERIA, weights, strict=True))
    ids = [p.id for p in evidence]
    return Resolution(
        "entropy_topsis",
        tuple(ids[i] for i in order) + tuple(rest),
        f"evidence most credible first by Entropy-TOPSIS (weights {top}), passages without "
        "an answer last",
        criteria=CRITERIA,
        weights=tuple(float(w) for w in weights),
        scores={ids[i]: float(closeness[i]) for i in range(len(ids))},
        matrix={ids[i]: tuple(float(x) for x in matrix[i]) for i in range(len(ids))},
        dates={pid: d.isoformat() for pid, d in dated.items()},
    )


def _viewpoints(
    packet: Sequence[Passage], tagging: Tagging, clusters: Sequence[Cluster], *, by: str
) -> tuple[tuple[ViewPoint, ...], list[int]]:
    """(viewpoints, rest). The evidence passages are grouped by cluster and, within a
    cluster, by tag (`by="tag"`, opinions: a cluster mixing Support and Refute holds two
    views) or by the answer they hold (`by="answer"`, complementary). Members and views are
    ordered by relevance, except that partial answers come by how many passages hold them
    (the best-supported first: RAMDocs EVAL `ask` lead answer recall 0.521 -> 0.543, no other
    figure moved); the rest are the packet passages outside any view."""
    rel = relevance_weights(packet)
    tags = tagging.by_id()
    evidence, rest = split_evidence(packet, tagging)
    cluster_of = {pid: c.id for c in clusters for pid in c.members}
    groups: dict[tuple[int, str], list[int]] = {}
    for passage in sorted(evidence, key=lambda p: -rel[p.id]):
        t = tags[passage.id]
        label = t.tag.value if by == "tag" or not t.answer else f"answer:{t.answer.lower()}"
        groups.setdefault((cluster_of.get(passage.id, -1), label), []).append(passage.id)
    views = [
        ViewPoint(cluster, tuple(ids), tags[ids[0]].tag) for (cluster, _), ids in groups.items()
    ]
    if by == "answer":  # stable: equal support keeps the relevance order
        views.sort(key=lambda v: -len(v.passage_ids))
    return tuple(views), rest


def _round_robin(viewpoints: Sequence[ViewPoint]) -> tuple[int, ...]:
    ranking: list[int] = []
    depth = max((len(v.passage_ids) for v in viewpoints), default=0)
    for level in range(depth):
        ranking += [v.passage_ids[level] for v in viewpoints if level < len(v.passage_ids)]
    return tuple(ranking)
