"""The analysis pipeline: the order of the stages lives here and only here.

embed → tag → cluster → kappa → packet → pairs → classify → resolve. `on_event(stage,
result)` is called after each stage with that stage's result (for "embed": the tuple
(passages with relevance, vectors, query similarity by id, relevance method)) so the TUI can
stream progress; `options.cancel` (anything with `is_set()`,
e.g. a threading.Event) is checked between stages."""

from __future__ import annotations

import dataclasses
import functools
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from conflictdesk.analysis.answer_rank import AnswerRanker, load_answer_ranker
from conflictdesk.analysis.classify import classify_conflict
from conflictdesk.analysis.cluster import cluster_passages
from conflictdesk.analysis.conflict_call import (
    call_by_pairs,
    call_conflict,
    claim_evidence,
    verdict_model_for,
)
from conflictdesk.analysis.kappa import DELTA, conflict_score
from conflictdesk.analysis.packet import (
    B_IRRELEVANT,
    K_PRIME,
    MAX_PER_CLUSTER,
    TAU,
    build_packet,
    split_evidence,
)
from conflictdesk.analysis.pairs import detect_pairs, feature_nli
from conflictdesk.analysis.resolve import AuthorityTable, resolve
from conflictdesk.analysis.span_reader import SpanReader, load_span_reader
from conflictdesk.analysis.tag import tag_passages
from conflictdesk.analysis.type_model import TypeModel, load_type_model
from conflictdesk.analysis.types import Analysis, ConflictVerdict
from conflictdesk.analysis.wording import asked_question
from conflictdesk.backends.base import Backends, Embedder, JudgmentCache
from conflictdesk.backends.manifest import models_dir
from conflictdesk.errors import ConflictDeskError, UsageError
from conflictdesk.stages import ANALYSIS_STAGES
from conflictdesk.types import Passage

STAGES = ANALYSIS_STAGES


class AnalysisCancelled(ConflictDeskError):
    """The caller set the cancel flag; raised between stages."""


class CancelFlag(Protocol):
    def is_set(self) -> bool: ...


@dataclass(frozen=True)
class AnalysisOptions:
    """The papers' hyper-parameters (ConRAG k′, τ, m, δ; ConflictRAG τ_c) and switches."""

    k_prime: int = K_PRIME
    tau: float = TAU
    max_per_cluster: int = MAX_PER_CLUSTER
    b_irr: int = B_IRRELEVANT
    delta: float = DELTA
    tau_c: float | None = None  # None: the pair model's calibrated τ_c, else 0.7
    use_llm: bool = True  # use the GGUF model for pair refinement and typing when configured
    classifier: str = "model"  # without an LLM: "model" (the trained type model) | "rules"
    # Who picks a wh-question's leading answer: "rules" (the rule's votes, the default) or
    # "model" (the trained answer ranker, opt-in: on QACC dev and the RAMDocs EVAL half it
    # raised lead answer recall but lowered gold citation precision slightly, so it is not
    # the default; figures in conflictdesk/analysis/answer_rank.py).
    ranker: str = "rules"
    # Who reads each passage's answer span in a wh-question: "rules" (the span nearest the
    # question's words, `claims.passage_answer`) or "model" (the trained span reader,
    # `span_reader.py`).
    reader: str = "rules"
    # Who makes the question-level conflict call (conflictdesk/analysis/conflict_call.py):
    # "pairs" (default: the type classifier, or a pair the detector flags as conflicting),
    # "type" (the type classifier alone) or "model" (the verdict model, opt-in).
    verdict: str = "pairs"
    type_model: TypeModel | None = None  # None: the shipped one (models/manifest.json)
    # Which NLI tiers tag and judge pairs: False (default) the labelling cascade's first tier,
    # the MiniLM, alone; True the whole cascade (MPNet below the band). On `ask`'s development
    # sets the cascade was no better (conflict F1 0.649 vs 0.661 on the RAMDocs EVAL half,
    # 0.204 vs 0.218 on 150 QACC dev questions) at 2.4-2.8x the time, so it is opt-in here;
    # claim x document labelling (`detect`, `score`) keeps it (docs/model_report.md).
    cascade: bool = False
    # Whether a yes/no or declarative query's statement is read by the whole labelling cascade
    # when tagging (one reading a passage, which stage 1 reuses as its stances); wh-questions'
    # answer claims stay with the tier above. On ConflictQA development pairs the cascade's
    # stances separate conflicting sides far better (AUC 0.89 vs 0.74); measured in
    # docs/model_report.md ("Statements read by the cascade").
    statement_tags: bool = True
    authority: AuthorityTable = field(default_factory=AuthorityTable)
    cancel: CancelFlag | None = None


EventHandler = Callable[[str, Any], None]


class _Run:
    """Times stages, reports them and honours cancellation."""

    def __init__(self, on_event: EventHandler | None, cancel: CancelFlag | None) -> None:
        self.on_event, self.cancel = on_event, cancel
        self.timings: dict[str, float] = {}

    def stage(self, name: str, work: Callable[[], Any]) -> Any:
        """Run `work`, time it and report its result to `on_event`."""
        if self.cancel is not None and self.cancel.is_set():
            raise AnalysisCancelled(f"analysis cancelled before stage {name!r}")
        started = time.perf_counter()
        result = work()
        self.timings[name] = (time.perf_counter() - started) * 1000.0
        if self.on_event is not None:
            self.on_event(name, result)
        return result


def embed_passages(
    query: str,
    passages: Sequence[Passage],
    embedder: Embedder,
    known: Mapping[int, np.ndarray],
    query_vector: np.ndarray | None = None,
) -> np.ndarray:
    """Rows: the query, then each passage; `query_vector` and vectors in `known` are reused,
    the rest embedded in one call (none when everything is known)."""
    missing = [p for p in passages if p.id not in known]
    texts = ([] if query_vector is not None else [query]) + [p.text for p in missing]
    fresh = embedder.embed(texts) if texts else np.zeros((0, 0), dtype=np.float32)
    first = 0 if query_vector is not None else 1
    by_id = {p.id: fresh[i + first] for i, p in enumerate(missing)}
    query_row = np.asarray(query_vector, dtype=np.float32) if first == 0 else fresh[0]
    rows = [query_row] + [
        np.asarray(known[p.id], dtype=np.float32) if p.id in known else by_id[p.id]
        for p in passages
    ]
    return np.vstack(rows)


@functools.cache
def default_type_model() -> TypeModel:
    """The shipped CONFLICTS type model, loaded and verified once per process."""
    return load_type_model(models_dir())


@functools.cache
def default_answer_ranker() -> AnswerRanker:
    """The shipped answer ranker, loaded and verified once per process."""
    return load_answer_ranker(models_dir())


@functools.cache
def default_span_reader() -> SpanReader:
    """The shipped span reader, loaded and verified once per process."""
    return load_span_reader(models_dir())


def _span_reader(opts: AnalysisOptions) -> SpanReader | None:
    if opts.reader not in ("model", "rules"):
        raise UsageError(f"reader must be 'model' or 'rules', not {opts.reader!r}")
    return default_span_reader() if opts.reader == "model" else None


def _answer_ranker(opts: AnalysisOptions) -> AnswerRanker | None:
    if opts.ranker not in ("model", "rules"):
        raise UsageError(f"ranker must be 'model' or 'rules', not {opts.ranker!r}")
    return default_answer_ranker() if opts.ranker == "model" else None


def _type_model(opts: AnalysisOptions) -> TypeModel | None:
    """The type model the options ask for; None for the rule classifier."""
    if opts.classifier == "rules":
        return None
    if opts.classifier != "model":
        raise UsageError(f"classifier must be 'model' or 'rules', not {opts.classifier!r}")
    return opts.type_model or default_type_model()


def probe_mismatch(model: TypeModel | None, embedder_id: str) -> str | None:
    """Why the type model cannot read this embedder's vectors (its subjectivity probe was
    trained on another embedder's), or None when it can."""
    if model is None or model.probe is None:
        return None
    if embedder_id.split("@", 1)[0] == model.probe.embedder:
        return None
    return f"type model {model.model_id} reads {model.probe.embedder} vectors, not {embedder_id}"


def _classify(query, packet, tagging, clusters, score, detection, *, opts, llm, cache, vectors,
              query_vector, embedder_id: str) -> ConflictVerdict:  # fmt: skip
    """The classify stage; the rule classifier, saying why, when the type model cannot read
    the configured embedder's vectors."""
    model = _type_model(opts) if llm is None else None
    why_not = probe_mismatch(model, embedder_id)
    verdict = classify_conflict(
        query, packet, tagging, clusters, score, detection, llm=llm, cache=cache,
        tau=opts.tau, type_model=None if why_not else model, vectors=vectors,
        query_vector=query_vector,
    )  # fmt: skip
    if why_not:
        return dataclasses.replace(verdict, method=f"{verdict.method} ({why_not})")
    return verdict


def with_relevance(
    passages: Sequence[Passage], similarity: dict[int, float]
) -> tuple[list[Passage], str]:
    """Keep retrieval scores; when none is positive (inline documents), use the embedding
    cosine between query and passage instead. Returns the passages and the method used."""
    if any(p.relevance > 0 for p in passages):
        return list(passages), "retrieval"
    rescored = [dataclasses.replace(p, relevance=max(similarity[p.id], 0.0)) for p in passages]
    return rescored, "embedding-cosine"


def analysis_backends(backends: Backends, cascade: bool) -> Backends:
    """`backends` with the NLI role the analysis uses: the cascade's first tier unless
    `cascade` (AnalysisOptions.cascade); unchanged without a cascade."""
    first = feature_nli(backends)
    return (
        backends if cascade or first is backends.nli else dataclasses.replace(backends, nli=first)
    )


def analyze(
    query: str,
    passages: Sequence[Passage],
    backends: Backends,
    *,
    cache: JudgmentCache | None = None,
    on_event: EventHandler | None = None,
    options: AnalysisOptions | None = None,
    passage_vectors: Mapping[int, np.ndarray] | None = None,
    query_vector: np.ndarray | None = None,
) -> Analysis:
    """Run every analysis stage on `passages` (the retrieved k) for `query`.

    `passage_vectors` (passage id → vector from `backends.embedder`, e.g. the store's index)
    and `query_vector` (the one retrieval made) spare re-embedding; only the rest is embedded."""
    opts = options or AnalysisOptions()
    labelling_nli = backends.nli  # the cascade: it reads statements (tags, stage-1 stances)
    backends = analysis_backends(backends, opts.cascade)
    if not query.strip():
        raise UsageError("empty query")
    if not passages:
        raise UsageError("no passages to analyse")
    if len({p.id for p in passages}) != len(passages):
        raise UsageError("passage ids must be unique")
    run = _Run(on_event, opts.cancel)
    llm = backends.llm if opts.use_llm else None
    asked = asked_question(query)  # the question in the form the reader reads (wording.py)
    if asked != query:
        query_vector = None  # retrieval embedded the words as typed

    query_row: list[np.ndarray] = []  # the asked question's vector, for the type model

    def embed() -> tuple[list[Passage], np.ndarray, dict[int, float], str]:
        vectors = embed_passages(
            asked, passages, backends.embedder, passage_vectors or {}, query_vector
        )
        cosine = vectors[1:] @ vectors[0]
        similarity = {p.id: float(c) for p, c in zip(passages, cosine, strict=True)}
        scored, how = with_relevance(passages, similarity)
        query_row.append(vectors[0])
        return scored, vectors[1:], similarity, how

    scored, vectors, similarity, relevance_method = run.stage("embed", embed)
    tagging = run.stage(
        "tag",
        lambda: tag_passages(
            asked,
            scored,
            backends.nli,
            similarity=similarity,
            cache=cache,
            ranker=_answer_ranker(opts),
            reader=_span_reader(opts),
            statement_nli=labelling_nli if opts.statement_tags else None,
        ),
    )
    clusters = run.stage(
        "cluster", lambda: cluster_passages(scored, tagging, backends.embedder, embeddings=vectors)
    )
    score = run.stage("kappa", lambda: conflict_score(tagging.tags, clusters, delta=opts.delta))
    packet = run.stage(
        "packet",
        lambda: build_packet(
            scored,
            tagging,
            clusters,
            score,
            k_prime=opts.k_prime,
            tau=opts.tau,
            max_per_cluster=opts.max_per_cluster,
            b_irr=opts.b_irr,
        ),
    )
    by_id = {p.id: p for p in scored}
    packet_passages = [by_id[pid] for pid in packet.passage_ids]
    detection = run.stage(
        "pairs",
        lambda: detect_pairs(
            asked,
            split_evidence(packet_passages, tagging)[0],
            tagging,
            backends,
            tau_c=opts.tau_c,
            cache=cache,
            use_llm=opts.use_llm,
            statement_nli=labelling_nli,
        ),
    )
    verdict = run.stage(
        "classify",
        lambda: _classify(
            asked,
            packet_passages,
            tagging,
            clusters,
            score,
            detection,
            opts=opts,
            llm=llm,
            cache=cache,
            vectors={p.id: v for p, v in zip(scored, vectors, strict=True)},
            query_vector=query_row[0],
            embedder_id=str(getattr(backends.embedder, "model_id", "")),
        ),
    )
    call_model = verdict_model_for(opts.verdict)
    if opts.verdict == "pairs":
        verdict = call_by_pairs(verdict, detection.pairs)
    if call_model is not None:
        evidence = None
        if call_model.evidence == "claim":
            evidence = claim_evidence(asked, tagging.frame.leading, scored, backends.nli, cache)
        verdict = call_conflict(verdict, tagging.tags, len(scored), call_model, evidence)
    resolution = run.stage(
        "resolve",
        lambda: resolve(
            packet_passages,
            tagging,
            clusters,
            detection,
            verdict,
            authority=opts.authority,
        ),
    )
    methods = {
        **backends.methods(),
        "relevance": relevance_method,
        "tag": f"{tagging.method} ({tagging.frame.form.value}, claim from {tagging.frame.method})",
        "pairs": detection.method,
        "classify": verdict.method,
        "resolve": resolution.rule,
        **({"query": f"read as: {asked}"} if asked != query else {}),
    }
    return Analysis(
        query,
        tuple(scored),
        tagging,
        clusters,
        score,
        packet,
        detection,
        verdict,
        resolution,
        methods,
        dict(run.timings),
        reworded=asked if asked != query else "",
    )
