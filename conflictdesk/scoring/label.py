"""Evidence evaluation: every claim against every document as SUPPORTS / CONTRADICTS /
IRRELEVANT (ConflictScore §3, step 2).

Four labellers:
- "fusion" (default, see DEFAULT_LABELLER): for claims in the answer form, the
  cross-encoder's probabilities (the document windows against the claim as written, which
  decide SUPPORTS, and against the claim reworded as "Q? A.") fused with answer-aware reading
  features by a small trained regression (`conflictdesk.scoring.fusion`); other claims as
  "nli".
- "nli": the NLI cross-encoder with the document as premise and the claim as
  hypothesis; entailment → SUPPORTS, contradiction → CONTRADICTS, neutral → IRRELEVANT (argmax).
  Documents longer than the encoder's window are windowed by the back-end.
- "llm": the paper's Table 7 prompt, read as a distribution over the three labels
  (`Generator.score_labels`); a document longer than LLM_WINDOW_CHARS is cut into sentence
  windows and the window with the strongest evidence decides, as the encoder's rule does.
- "two-stage": the encoder labels every pair; pairs whose confidence is below
  TWO_STAGE_THRESHOLD go to the LLM.
Before any of them, the relevance gate (on by default) labels IRRELEVANT the pairs whose
claim and document share no content word, so no model is asked about unrelated text.

Partial support (§3, Table 7 rule 1): a document supports a claim if it supports any part of
it. The LLM reads that rule in its prompt. The encoder cannot, so a claim that the rule-based
splitter cuts into several parts is also judged part by part (`partial_support`)."""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass

from conflictdesk.backends.base import NLI, Backends, Generator
from conflictdesk.errors import LLM_HINT, CapabilityError, ModelOutputError, UsageError
from conflictdesk.scoring.cache import Ledger
from conflictdesk.scoring.fusion import FusionModel, pair_features
from conflictdesk.scoring.prompts import LABEL_TABLE7, fill
from conflictdesk.scoring.prune import PRUNE_BELOW, pruned_cells
from conflictdesk.scoring.reading import is_answer_claim
from conflictdesk.scoring.results import RELATIONS, Judgment
from conflictdesk.text import split_claims, split_sentences
from conflictdesk.types import Document, NLIScores, Relation
from conflictdesk.vocabulary import content_stems

LABELLERS = ("fusion", "nli", "llm", "two-stage")
# The fusion labeller is the default (it labels claims in the answer form "The answer to the
# question Q is A."; other claims go to the encoder alone, as the method says). Its "split"
# structure (the encoder keeps SUPPORTS, a regression fitted on the training cases decides
# CONTRADICTS against IRRELEVANT at a threshold chosen by grouped cross-validation on them)
# over the labelling cascade's scores beats the encoder alone and the claim-only string match
# on both held-out sets: RAMDocs eval half conflict F1 0.848 vs 0.827, relation macro-F1 0.798
# vs 0.778; QACC dev 0.309 vs 0.264, 0.617 vs 0.616 (scripts/train_fusion.py,
# docs/fusion_report.md; the QACC macro-F1 margin is within noise).
DEFAULT_LABELLER = "fusion"
NLI_STAGE = "label-nli"
LLM_STAGE = "label-table7"
LLM_LABELS = tuple(r.value for r in RELATIONS)
# Characters of document per Table 7 call: with the prompt (~2,400 characters) this stays well
# inside a 4,096-token context.
LLM_WINDOW_CHARS = 6000
# Pairs the encoder labels with a confidence (max probability) below this go to the LLM in the
# two-stage mode. Measured by `scripts/eval_conflictscore.py --calibrate` for
# conflictdesk-nli-minilm-int8@df387abf as the lowest threshold at which the pairs the encoder
# keeps are >= 90% correct: 0.34 on the training cases (RAMDocs train half + QACC train, 3,686
# ungated pairs; optimistic, the encoder saw them) and 0.72 on SNLI dev (2,000 pairs, never
# trained on); the larger is kept. At 0.72 the encoder keeps about 86% of the training-case
# pairs (95.4% correct) and 36% of SNLI dev (90.2% correct). No reported figure (RAMDocs eval
# half, QACC dev) was used. Re-measure when the NLI model changes (it was 0.68 for @eb288e7e).
TWO_STAGE_THRESHOLD = 0.72


@dataclass(frozen=True)
class Labelling:
    """Judgments indexed [claim][document] and a description of the labeller that made them."""

    judgments: tuple[tuple[Judgment, ...], ...]
    method: str


def document_text(document: Document) -> str:
    """What a labeller reads of a document: its title (when given) and its text."""
    if document.title and document.title.strip() and document.title not in document.text:
        return f"{document.title.strip()}. {document.text}"
    return document.text


def claim_parts(claim: str) -> list[str]:
    """Hypotheses that judge `claim`: the claim, plus its parts when the splitter finds
    several; a claim of several sentences is judged by its parts alone (too long to be one
    NLI hypothesis)."""
    parts = split_claims(claim)
    if len(parts) <= 1:
        return [claim]
    if len(split_sentences(claim)) > 1:
        return parts
    return [claim, *parts]


def nli_judgment(scores: NLIScores) -> Judgment:
    """entailment → SUPPORTS, contradiction → CONTRADICTS, neutral → IRRELEVANT, by argmax."""
    probabilities = (scores.entailment, scores.contradiction, scores.neutral)
    best = max(range(3), key=lambda i: probabilities[i])
    return Judgment(RELATIONS[best], probabilities[best], probabilities, "nli")


def partial_support(judgments: Sequence[Judgment]) -> Judgment:
    """Table 7's decision rules over a claim and its parts: SUPPORTS if any part is supported,
    else CONTRADICTS if any is contradicted, else IRRELEVANT; the most confident judgment with
    the winning relation is kept."""
    for relation in RELATIONS:
        matching = [j for j in judgments if j.relation is relation]
        if matching:
            return max(matching, key=lambda j: j.confidence or 0.0)
    raise ValueError("partial_support needs at least one judgment")


Cell = tuple[int, int]  # (claim index, document index)
GATE_JUDGMENT = Judgment(Relation.IRRELEVANT, None, None, "gate")
PRUNE_JUDGMENT = Judgment(Relation.IRRELEVANT, None, None, "pruned")


def shares_content(claim: str, text: str) -> bool:
    """The relevance gate: does the document share at least one content word with the claim
    (`conflictdesk.vocabulary.content_stems`)? A document that shares none says nothing about the
    claim's who/what/when, so the pair is IRRELEVANT without a model call."""
    return bool(content_stems(claim) & content_stems(text))


def label_claims(
    claims: Sequence[str],
    documents: Sequence[Document],
    backends: Backends,
    *,
    labeller: str = DEFAULT_LABELLER,
    ledger: Ledger | None = None,
    threshold: float = TWO_STAGE_THRESHOLD,
    gate: bool = True,
    prune: bool = False,
) -> Labelling:
    """Judge every claim against every document with the chosen labeller; with `gate`, pairs
    that share no content word are IRRELEVANT without a model call, and with `prune` so are
    pairs whose best sentence the bi-encoder finds too far from the claim
    (`conflictdesk.scoring.prune`); the method says how many of each."""
    if labeller not in LABELLERS:
        raise UsageError(f"labeller must be one of {', '.join(LABELLERS)}, not {labeller!r}")
    ledger = ledger or Ledger()
    texts = [document_text(d) for d in documents]
    cells = [(i, j) for i in range(len(claims)) for j in range(len(texts))]
    gated = {(i, j) for i, j in cells if gate and not shares_content(claims[i], texts[j])}
    open_cells = [cell for cell in cells if cell not in gated]
    judged: dict[Cell, Judgment] = dict.fromkeys(gated, GATE_JUDGMENT)
    pruned: set[Cell] = set()
    if prune:
        pruned = pruned_cells(claims, texts, open_cells, backends.embedder, ledger=ledger)
        open_cells = [cell for cell in open_cells if cell not in pruned]
        judged |= dict.fromkeys(pruned, PRUNE_JUDGMENT)
    if labeller == "fusion":
        answer_form = {i for i, claim in enumerate(claims) if is_answer_claim(claim)}
        fused = [cell for cell in open_cells if cell[0] in answer_form]
        plain = [cell for cell in open_cells if cell[0] not in answer_form]
        method = f"nli({backends.nli.model_id})"
        if fused:
            fusion = _require_fusion(backends)
            judged |= label_with_fusion(claims, texts, fused, backends.nli, fusion, ledger)
            method = f"fusion({fusion.model_id} over nli({backends.nli.model_id}))"
            if fusion.fitted_on and fusion.fitted_on != backends.nli.model_id:
                method += f" [fitted on the scores of {fusion.fitted_on}]"
        judged |= label_with_nli(claims, texts, plain, backends.nli, ledger)
        others = len({i for i, _ in plain})
        if others:
            method += (
                f"; fusion reads claims in the answer form only: {others} of {len(claims)} "
                "labelled by the encoder alone"
            )
    elif labeller == "nli":
        judged |= label_with_nli(claims, texts, open_cells, backends.nli, ledger)
        method = f"nli({backends.nli.model_id})"
    else:
        llm = _require_llm(backends, labeller)
        before = dict(getattr(llm, "label_rules", {}))
        if labeller == "llm":
            pairs = [(claims[i], texts[j]) for i, j in open_cells]
            judged |= dict(zip(open_cells, label_with_llm(pairs, llm, ledger), strict=True))
            method = f"llm-table7({llm.model_id})"
        else:
            two_stage, method = _two_stage(claims, texts, open_cells, backends.nli, llm, ledger,
                                           threshold)  # fmt: skip
            judged |= two_stage
        method += label_rules_used(before, getattr(llm, "label_rules", {}))
    if gate:
        method += f"; gate: {len(gated)} of {len(cells)} pairs share no content word (IRRELEVANT)"
    if prune:
        method += (
            f"; pruned: {len(pruned)} of {len(cells)} pairs below cosine {PRUNE_BELOW} "
            f"({backends.embedder.model_id}, IRRELEVANT)"
        )
    grid = tuple(tuple(judged[(i, j)] for j in range(len(texts))) for i in range(len(claims)))
    return Labelling(grid, method)


def label_rules_used(before: dict[str, int], after: dict[str, int]) -> str:
    """ "; label scores by R (n), ..." for the scoring rules the LLM ran since `before` (a
    server's "logprobs" or "generation", a GGUF's "first-token" or "full-label")."""
    used = {rule: n - before.get(rule, 0) for rule, n in after.items() if n > before.get(rule, 0)}
    return "; label scores by " + ", ".join(f"{r} ({n})" for r, n in used.items()) if used else ""


def _require_fusion(backends: Backends) -> FusionModel:
    if backends.fusion is None:
        raise CapabilityError(
            "the 'fusion' labeller needs models/fusion (see `conflictdesk models list`); "
            "pass --labeller nli to label with the cross-encoder alone"
        )
    return backends.fusion


def label_with_fusion(
    claims: Sequence[str],
    texts: Sequence[str],
    cells: Sequence[Cell],
    nli: NLI,
    fusion: FusionModel,
    ledger: Ledger,
) -> dict[Cell, Judgment]:
    """Fusion judgments of the (claim, document) cells; the NLI requests go through the
    ledger's cache like the encoder labeller's."""
    pairs = [(claims[i], texts[j]) for i, j in cells]
    if not pairs:
        return {}

    def classify(requests: list[tuple[str, str]]) -> dict[tuple[str, str], NLIScores]:
        return _cached_nli(requests, nli, ledger)

    siblings = {claim: list(texts) for claim in claims}
    features = pair_features(pairs, classify, siblings)
    probabilities = fusion.probabilities(features)
    decisions = fusion.relations(features)
    out = {}
    for cell, row, best in zip(cells, probabilities, decisions, strict=True):
        triple = (float(row[0]), float(row[1]), float(row[2]))
        out[cell] = Judgment(RELATIONS[best], triple[best], triple, "fusion")
    return out


def _require_llm(backends: Backends, labeller: str) -> Generator:
    if backends.llm is None:
        raise CapabilityError(
            f"the {labeller!r} labeller needs an LLM (a GGUF model or a server): "
            f"{LLM_HINT} (the default 'nli' labeller needs none)"
        )
    return backends.llm


def _two_stage(
    claims: Sequence[str],
    texts: Sequence[str],
    cells: Sequence[Cell],
    nli: NLI,
    llm: Generator,
    ledger: Ledger,
    threshold: float,
) -> tuple[dict[Cell, Judgment], str]:
    judged = label_with_nli(claims, texts, cells, nli, ledger)
    uncertain = [cell for cell in cells if (judged[cell].confidence or 0.0) < threshold]
    pairs = [(claims[i], texts[j]) for i, j in uncertain]
    judged |= dict(zip(uncertain, label_with_llm(pairs, llm, ledger), strict=True))
    method = (
        f"two-stage(nli({nli.model_id}) where confidence >= {threshold:.2f}, "
        f"else llm-table7({llm.model_id}); {len(uncertain)} of {len(cells)} pairs to the LLM)"
    )
    return judged, method


def label_with_nli(
    claims: Sequence[str], texts: Sequence[str], cells: Sequence[Cell], nli: NLI, ledger: Ledger
) -> dict[Cell, Judgment]:
    """Encoder judgments of the (claim, document) cells, with the partial-support rule over
    claim parts; all uncached pairs go to the encoder in one call."""
    parts = {claim: claim_parts(claim) for claim in claims}
    pairs = list(dict.fromkeys((texts[j], h) for i, j in cells for h in parts[claims[i]]))
    scores = _cached_nli(pairs, nli, ledger)
    return {
        (i, j): partial_support([nli_judgment(scores[(texts[j], h)]) for h in parts[claims[i]]])
        for i, j in cells
    }


def _cached_nli(
    pairs: list[tuple[str, str]], nli: NLI, ledger: Ledger
) -> dict[tuple[str, str], NLIScores]:
    scores: dict[tuple[str, str], NLIScores] = {}
    keys = {pair: Ledger.key(*pair) for pair in pairs}
    for pair in pairs:
        cached = ledger.get(NLI_STAGE, nli.model_id, keys[pair])
        if cached is not None:
            scores[pair] = NLIScores(**cached)
    misses = [pair for pair in pairs if pair not in scores]
    if misses:
        start = time.perf_counter()
        fresh = nli.classify(misses)
        ms = (time.perf_counter() - start) * 1000 / len(misses)
        for pair, result in zip(misses, fresh, strict=True):
            scores[pair] = result
            ledger.put(NLI_STAGE, nli.model_id, keys[pair], result.to_json(), ms)
    return scores


def label_with_llm(
    pairs: Sequence[tuple[str, str]], llm: Generator, ledger: Ledger
) -> list[Judgment]:
    """Table 7 judgments for (claim, document text) pairs; long documents are windowed and
    the window with the strongest SUPPORTS or CONTRADICTS evidence decides."""
    out = []
    for claim, text in pairs:
        windows = [_llm_window(claim, window, llm, ledger) for window in document_windows(text)]
        out.append(max(windows, key=_evidence))
    return out


def _evidence(judgment: Judgment) -> float:
    probabilities = judgment.probabilities or (0.0, 0.0, 0.0)
    return max(probabilities[0], probabilities[1])


def _llm_window(claim: str, text: str, llm: Generator, ledger: Ledger) -> Judgment:
    key = Ledger.key(LLM_STAGE, claim, text)
    distribution = ledger.get(LLM_STAGE, llm.model_id, key)
    if distribution is None:
        messages = [{"role": "user", "content": fill(LABEL_TABLE7, claim=claim, document=text)}]
        start = time.perf_counter()
        distribution = llm.score_labels(messages, LLM_LABELS)
        _check_distribution(distribution, llm.model_id)
        ms = (time.perf_counter() - start) * 1000
        ledger.put(LLM_STAGE, llm.model_id, key, dict(distribution), ms)
    probabilities = tuple(float(distribution[label]) for label in LLM_LABELS)
    best = max(range(3), key=lambda i: probabilities[i])
    return Judgment(RELATIONS[best], probabilities[best], probabilities, "llm")  # type: ignore[arg-type]


def _check_distribution(distribution: dict[str, float], model_id: str) -> None:
    values = [distribution.get(label) for label in LLM_LABELS]
    if any(v is None or not math.isfinite(v) or v < 0 for v in values):
        raise ModelOutputError(f"{model_id}: label scores {distribution!r} are not a distribution")
    if abs(sum(values) - 1.0) > 1e-3:  # type: ignore[arg-type]
        raise ModelOutputError(f"{model_id}: label scores sum to {sum(values)}, not 1")  # type: ignore[arg-type]


def document_windows(text: str, max_chars: int = LLM_WINDOW_CHARS) -> list[str]:
    """Consecutive sentence windows of at most `max_chars` characters, neighbours sharing one
    sentence; a single longer sentence is cut at `max_chars`."""
    if len(text) <= max_chars:
        return [text]
    sentences = [s for _, _, s in split_sentences(text)]
    pieces = [s[i : i + max_chars] for s in sentences for i in range(0, len(s), max_chars)]
    windows, current = [], [pieces[0]]
    for piece in pieces[1:]:
        if sum(len(p) + 1 for p in current) + len(piece) > max_chars:
            windows.append(" ".join(current))
            current = [current[-1], piece] if len(current[-1]) + len(piece) < max_chars else [piece]
        else:
            current.append(piece)
    windows.append(" ".join(current))
    return windows
