"""The ConflictScore use cases of the Desk: detect, score and regenerate, each result stored
as a run (input: what was asked; output: `{"id", **result.to_json()}`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from conflictdesk.analysis.pipeline import CancelFlag
from conflictdesk.app.wire import Cancelled
from conflictdesk.errors import LLM_HINT, CapabilityError, UsageError
from conflictdesk.scoring.label import DEFAULT_LABELLER, LABELLERS, TWO_STAGE_THRESHOLD
from conflictdesk.scoring.pipeline import VARIANTS
from conflictdesk.scoring.variants import SALIENT_K
from conflictdesk.types import Document

if TYPE_CHECKING:
    from conflictdesk.backends.base import Backends, JudgmentCache
    from conflictdesk.scoring.results import Detection, ScoreResult
    from conflictdesk.store import Store

Json = dict[str, Any]
__all__ = [
    "DEFAULT_LABELLER",
    "LABELLERS",
    "SALIENT_K",
    "TWO_STAGE_THRESHOLD",
    "VARIANTS",
    "ScoringOptions",
    "answer_claim_of",
]


def answer_claim_of(question: str, answer: str) -> str:
    """The claim that `answer` answers `question`, in the answer form the default labeller
    reads with its answer-aware features ("The answer to the question Q? is A."); a question
    without a question mark gets one."""
    from conflictdesk.analysis.claims import answer_claim

    asked = " ".join(question.split())
    if not asked.endswith("?"):
        asked = asked.rstrip(".") + "?"
    return answer_claim(asked, " ".join(answer.split()).rstrip("."))


@dataclass(frozen=True)
class ScoringOptions:
    """How claims are made and labelled (see `conflictdesk score --help`)."""

    labeller: str = DEFAULT_LABELLER
    threshold: float = TWO_STAGE_THRESHOLD
    gate: bool = True
    decomposer: str = "auto"
    variant: str = "full"
    salient_k: int = SALIENT_K
    use_cache: bool = True
    prune: bool = False  # embedder-based pair pruning before the cross-encoder
    verdict: str = "rule"  # detect's decision: the paper's rule or the verdict model (opt-in)

    def __post_init__(self) -> None:
        if not 0.0 < self.threshold <= 1.0:
            raise UsageError("--threshold must be in (0, 1]")
        if self.salient_k < 1:
            raise UsageError("--salient-k must be at least 1")
        if self.verdict not in ("rule", "model"):
            raise UsageError(f"--verdict must be rule or model, not {self.verdict!r}")


@dataclass(frozen=True)
class StoredResult:
    """A scoring result as stored: the run's id and its output JSON."""

    run_id: int
    output: Json

    def to_json(self) -> Json:
        return {"run_id": self.run_id, "output": self.output}

    @classmethod
    def from_json(cls, value: Json) -> StoredResult:
        return cls(int(value["run_id"]), dict(value["output"]))


class ScoringUseCases:
    """Mixed into `Desk`, which provides `store` and `backends(roles)`."""

    store: Store

    def backends(self, roles: Sequence[str]) -> Backends:
        raise NotImplementedError

    def scoring_backends(self, kind: str, options: ScoringOptions) -> Backends:
        """The roles each command needs; regenerate refuses to start without a GGUF."""
        backends = self.backends(scoring_roles(kind, options))
        if kind == "regenerate" and backends.llm is None:
            raise CapabilityError(f"regenerate needs an LLM (a GGUF model or a server): {LLM_HINT}")
        return backends

    def _cache(self, options: ScoringOptions) -> Any:
        return self.store.cache if options.use_cache else None

    def _save(
        self, kind: str, run_input: Json, result: Any, run_id: Any, cancel: CancelFlag | None
    ) -> StoredResult:
        """Store the run, unless `cancel` was set while the model worked."""
        if cancel is not None and cancel.is_set():
            raise Cancelled(f"{kind} cancelled: nothing stored")
        output = {"id": run_id, **result.to_json()}
        return StoredResult(self.store.save_run(kind, run_input, output, output.get("method")),
                            output)  # fmt: skip

    def detect(self, claim: str, documents: Sequence[Document], options: ScoringOptions, *,
               run_input: Json | None = None, run_id: Any = None,
               cancel: CancelFlag | None = None) -> StoredResult:  # fmt: skip
        """ConflictBench's task: is the claim both supported and contradicted?"""
        backends = self.scoring_backends("detect", options)
        result = detect_result(claim, documents, options, backends, self._cache(options))
        asked = run_input or {"claim": claim, "documents": [d.to_json() for d in documents]}
        return self._save("detect", asked, result, run_id, cancel)

    def score(self, response: str, documents: Sequence[Document], options: ScoringOptions, *,
              run_input: Json | None = None, run_id: Any = None,
              cancel: CancelFlag | None = None) -> StoredResult:  # fmt: skip
        """ConflictScore's CS-C and CS-R of a response against its documents."""
        backends = self.scoring_backends("score", options)
        result = score_result(response, documents, options, backends, self._cache(options))
        asked = run_input or {"response": response, "documents": [d.to_json() for d in documents]}
        return self._save("score", asked, result, run_id, cancel)

    def regenerate(self, question: str, response: str, documents: Sequence[Document],
                   options: ScoringOptions, *, run_input: Json | None = None,
                   run_id: Any = None, cancel: CancelFlag | None = None) -> StoredResult:  # fmt: skip
        """ConflictScore §6: the most conflicted claim and its evidence fed back to the GGUF."""
        from conflictdesk.scoring.regenerate import regenerate

        result = regenerate(
            question, response, list(documents), self.scoring_backends("regenerate", options),
            cache=self._cache(options), decomposer=options.decomposer,
            labeller=options.labeller, threshold=options.threshold, gate=options.gate, prune=options.prune,
        )  # fmt: skip
        asked = run_input or {"question": question, "response": response,
                              "documents": [d.to_json() for d in documents]}  # fmt: skip
        return self._save("regenerate", asked, result, run_id, cancel)


def scoring_roles(kind: str, options: ScoringOptions) -> tuple[str, ...]:
    """The back-end roles `detect`, `score` or `regenerate` loads for these options."""
    llm = ["llm"] if options.labeller in ("llm", "two-stage") else []
    embedder = ["embedder"] if options.prune else []
    roles = {"detect": ["nli", *llm, *embedder],
             "score": ["nli", "llm"]
             + (["embedder"] if options.variant == "salient" or options.prune else []),
             "regenerate": ["nli", "llm", *embedder]}[kind]  # fmt: skip
    return tuple(roles)


def detect_result(claim: str, documents: Sequence[Document], options: ScoringOptions,
                  backends: Backends, cache: JudgmentCache | None) -> Detection:  # fmt: skip
    """The detection itself, on given back-ends (the Desk's, or a Ray actor's)."""
    from conflictdesk.scoring.pipeline import detect

    return detect(
        claim, list(documents), backends, cache=cache, labeller=options.labeller,
        threshold=options.threshold, gate=options.gate, prune=options.prune,
        verdict=options.verdict,
    )  # fmt: skip


def score_result(response: str, documents: Sequence[Document], options: ScoringOptions,
                 backends: Backends, cache: JudgmentCache | None) -> ScoreResult:  # fmt: skip
    """ConflictScore itself, on given back-ends (the Desk's, or a Ray actor's)."""
    from conflictdesk.scoring.pipeline import score_response

    return score_response(
        response, list(documents), backends, cache=cache, decomposer=options.decomposer,
        labeller=options.labeller, variant=options.variant, salient_k=options.salient_k,
        threshold=options.threshold, gate=options.gate, prune=options.prune,
    )  # fmt: skip
