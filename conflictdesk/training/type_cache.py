"""The typed cases' pipeline results, cached on disk so cross-validation reruns in seconds.

Each case runs through `analyze` once (no LLM, the rule classifier, whose type is kept as a
baseline); what the type model reads (`Evidence`, with the passage vectors) is pickled under
`.train/`. The cache key covers the case, the back-ends' model ids and the source of the
analysis modules (all but the ones that only read the evidence), so a change to any of them recomputes."""

from __future__ import annotations

import hashlib
import json
import pickle
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from conflictdesk.analysis.typing_features import Evidence
from conflictdesk.types import ConflictType

if TYPE_CHECKING:
    from conflictdesk.training.types import TypedCase

# Modules that only read the evidence: a change to them does not change what is cached.
READERS_OF_EVIDENCE = frozenset(
    {"typing_features.py", "evidence_signals.py", "type_model.py", "feature_words.py"}
)


@dataclass(frozen=True)
class CaseEvidence:
    """One case's evidence, the rule classifier's type and the gold type."""

    id: str
    evidence: Evidence
    rule_type: ConflictType
    gold: ConflictType


def stage_fingerprint(backends: Any) -> str:
    """Hash of the model ids and the analysis stages' source."""
    import conflictdesk.analysis as analysis_pkg

    base = Path(analysis_pkg.__file__).parent
    digest = hashlib.sha256()
    for role in ("embedder", "nli", "pair"):
        backend = getattr(backends, role, None)
        digest.update(str(getattr(backend, "model_id", None)).encode())
    for path in sorted(base.glob("*.py")):
        if path.name not in READERS_OF_EVIDENCE:
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def _case_key(case: TypedCase, fingerprint: str) -> str:
    blob = json.dumps(
        [case.id, case.query, [p.text for p in case.passages], [p.date for p in case.passages]]
    )
    return hashlib.sha256((fingerprint + blob).encode()).hexdigest()[:24]


def run_case(case: TypedCase, backends: Any) -> CaseEvidence:
    """`analyze` one case (no LLM, rule classifier) and keep what the type model reads."""
    from conflictdesk.analysis.pipeline import AnalysisOptions, analyze

    seen: dict[str, Any] = {}
    options = AnalysisOptions(use_llm=False, classifier="rules")
    a = analyze(
        case.query,
        list(case.passages),
        backends,
        options=options,
        on_event=lambda stage, result: seen.setdefault(stage, result),
    )
    scored, vectors = seen["embed"][0], seen["embed"][1]
    by_id = {p.id: np.asarray(v, dtype=np.float32) for p, v in zip(scored, vectors, strict=True)}
    packet = [a.passage(pid) for pid in a.packet.passage_ids]
    query_vector = backends.embedder.embed([a.asked])[0]
    evidence = Evidence(
        a.asked, packet, a.tagging, a.clusters, a.score, a.detection, by_id, query_vector
    )
    return CaseEvidence(case.id, evidence, a.verdict.type, case.gold)


def cached_evidence(
    cases: Sequence[TypedCase], backends: Any, path: Path, *, log: Any = None
) -> list[CaseEvidence]:
    """Every case's evidence, from `path` where its key matches, else computed and saved."""
    log = log or (lambda message: print(message, file=sys.stderr))
    store: dict[str, CaseEvidence] = {}
    if path.exists():
        store = pickle.loads(path.read_bytes())
    fingerprint = stage_fingerprint(backends)
    keys = [_case_key(case, fingerprint) for case in cases]
    fresh = 0
    for n, (case, key) in enumerate(zip(cases, keys, strict=True)):
        if key not in store:
            store[key] = run_case(case, backends)
            fresh += 1
            if fresh % 10 == 0:
                log(f"  analysed {n + 1}/{len(cases)} cases")
                _save(store, path)
    if fresh or len(store) != len(set(keys)):
        _save({key: store[key] for key in keys}, path)  # stale entries dropped
    return [store[key] for key in keys]


def _save(store: dict[str, CaseEvidence], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_bytes(pickle.dumps(store))
    tmp.replace(path)
