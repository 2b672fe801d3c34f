"""Citation quality, contradiction rate and factual grounding of a cited answer, judged by
the NLI cross-encoder (`backends.nli`).

Definitions (each computed over the answer's CLAIM sentences; CONFLICT and ABSTAIN sentences
carry no factual information and are left out, as CONFLICTS §4 leaves them out):

- citation recall (ALCE, Gao et al. 2023, as used by ConRAG): the share of sentences whose
  cited passages, concatenated, entail the sentence; a sentence without citations scores 0.
- citation precision (ALCE): the share of citations that are precise. A citation is not
  precise when its sentence is not entailed by all its citations together, or when the
  citation alone does not entail the sentence while the remaining citations still do (it is
  redundant to the support).
- citation leakage (ConRAG): the share of citations, over every sentence, that point to a
  passage the A-stage tagged irrelevant.
- factual grounding (CONFLICTS §4, after FACTS): each sentence is "supported" (entailed by
  at least one packet passage), "contradictory" (contradicted by at least one and entailed
  by none), or "unsupported"; non-claim sentences are "no factual information". The score
  is supported / sentences with factual information.
- contradiction rate (ConRAG's contradiction-to-evidence): contradictory / sentences with
  factual information. A sentence that reports one side of a dispute is entailed by that
  side's passage and so is not counted, even though the other side contradicts it.

"Entailed" means the NLI label (argmax) is entailment; "contradicted" that it is
contradiction. All pairs of one answer go to the NLI back-end in a single batch."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from conflictdesk.backends.base import NLI
from conflictdesk.generation.types import AnswerSentence, SentenceRole
from conflictdesk.types import NLIScores, Tag

SUPPORTED, UNSUPPORTED, CONTRADICTORY, NO_FACT = (
    "supported",
    "unsupported",
    "contradictory",
    "no factual information",
)


@dataclass(frozen=True)
class SentenceCitations:
    """ALCE's per-sentence judgment: joint entailment and which citations are precise."""

    index: int
    entailed: bool
    precise: tuple[int, ...]
    imprecise: tuple[int, ...]
    leaked: tuple[int, ...]


@dataclass(frozen=True)
class CitationReport:
    precision: float | None  # None when no claim sentence cites anything
    recall: float | None  # None when the answer has no claim sentence
    leakage: float | None  # None when nothing is cited
    n_claims: int
    n_citations: int
    sentences: tuple[SentenceCitations, ...]


@dataclass(frozen=True)
class GroundingReport:
    labels: tuple[str, ...]  # one per answer sentence, in order
    grounding: float | None  # supported / factual sentences; None without factual sentences
    contradiction_rate: float | None


def _claims(sentences: Sequence[AnswerSentence]) -> list[tuple[int, AnswerSentence]]:
    return [(i, s) for i, s in enumerate(sentences) if s.role is SentenceRole.CLAIM]


class _Judge:
    """Collects (premise, hypothesis) pairs, runs them in one NLI batch, answers lookups."""

    def __init__(self, nli: NLI) -> None:
        self.nli = nli
        self.pending: list[tuple[str, str]] = []
        self.scores: dict[tuple[str, str], NLIScores] = {}

    def want(self, premise: str, hypothesis: str) -> None:
        pair = (premise, hypothesis)
        if pair not in self.scores and pair not in self.pending:
            self.pending.append(pair)

    def run(self) -> None:
        if self.pending:
            for pair, score in zip(self.pending, self.nli.classify(self.pending), strict=True):
                self.scores[pair] = score
            self.pending = []

    def label(self, premise: str, hypothesis: str) -> str:
        return self.scores[(premise, hypothesis)].label


def _joined(ids: Sequence[int], passages: Mapping[int, str]) -> str:
    return "\n".join(passages[i] for i in ids)


def _check_cites(sentences: Sequence[AnswerSentence], passages: Mapping[int, str]) -> None:
    unknown = sorted({c for s in sentences for c in s.cites if c not in passages})
    if unknown:
        raise ValueError(f"answer cites passage ids not in the packet: {unknown}")


def citation_quality(
    sentences: Sequence[AnswerSentence],
    passages: Mapping[int, str],
    nli: NLI,
    tags: Mapping[int, Tag] | None = None,
) -> CitationReport:
    """ALCE citation precision and recall plus ConRAG's leakage; see the module docstring."""
    _check_cites(sentences, passages)
    tags = tags or {}
    judge = _Judge(nli)
    claims = _claims(sentences)
    for _, sentence in claims:
        cites = list(dict.fromkeys(sentence.cites))
        if cites:
            judge.want(_joined(cites, passages), sentence.text)
        if len(cites) > 1:
            for cite in cites:
                judge.want(passages[cite], sentence.text)
                judge.want(_joined([c for c in cites if c != cite], passages), sentence.text)
    judge.run()
    checks = [_judge_sentence(i, s, passages, judge, tags) for i, s in claims]
    all_cites = [c for s in sentences for c in s.cites]
    n_leaked = sum(1 for c in all_cites if tags.get(c) is Tag.IRRELEVANT)
    n_claim_cites = sum(len(c.precise) + len(c.imprecise) for c in checks)
    n_precise = sum(len(c.precise) for c in checks)
    return CitationReport(
        precision=n_precise / n_claim_cites if n_claim_cites else None,
        recall=sum(c.entailed for c in checks) / len(checks) if checks else None,
        leakage=n_leaked / len(all_cites) if all_cites else None,
        n_claims=len(checks),
        n_citations=n_claim_cites,
        sentences=tuple(checks),
    )


def _judge_sentence(
    index: int,
    sentence: AnswerSentence,
    passages: Mapping[int, str],
    judge: _Judge,
    tags: Mapping[int, Tag],
) -> SentenceCitations:
    cites = list(dict.fromkeys(sentence.cites))
    entailed = bool(cites) and judge.label(_joined(cites, passages), sentence.text) == "entailment"
    precise: list[int] = []
    imprecise: list[int] = []
    for cite in cites:
        if not entailed:
            imprecise.append(cite)
            continue
        if len(cites) == 1:
            precise.append(cite)
            continue
        alone = judge.label(passages[cite], sentence.text) == "entailment"
        rest = [c for c in cites if c != cite]
        redundant = not alone and judge.label(_joined(rest, passages), sentence.text) == (
            "entailment"
        )
        (imprecise if redundant else precise).append(cite)
    leaked = tuple(c for c in cites if tags.get(c) is Tag.IRRELEVANT)
    return SentenceCitations(index, entailed, tuple(precise), tuple(imprecise), leaked)


def factual_grounding(
    sentences: Sequence[AnswerSentence], passages: Mapping[int, str], nli: NLI
) -> GroundingReport:
    """CONFLICTS §4 factual grounding and ConRAG's contradiction rate against the packet."""
    judge = _Judge(nli)
    claims = _claims(sentences)
    for _, sentence in claims:
        for text in passages.values():
            judge.want(text, sentence.text)
    judge.run()
    labels = [NO_FACT] * len(sentences)
    for index, sentence in claims:
        found = [judge.label(text, sentence.text) for text in passages.values()]
        if "entailment" in found:
            labels[index] = SUPPORTED
        elif "contradiction" in found:
            labels[index] = CONTRADICTORY
        else:
            labels[index] = UNSUPPORTED
    factual = [label for label in labels if label != NO_FACT]
    return GroundingReport(
        labels=tuple(labels),
        grounding=factual.count(SUPPORTED) / len(factual) if factual else None,
        contradiction_rate=factual.count(CONTRADICTORY) / len(factual) if factual else None,
    )
