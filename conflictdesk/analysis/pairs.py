"""ConflictRAG two-stage pairwise conflict detection over the evidence packet.

Stage 1: e_i = Embed("{query}\\n{passage}"), features f_ij from `pair_features` (ConflictRAG
eq. 3, [e_i; e_j; |e_i − e_j|; e_i ⊙ e_j], plus the NLI probabilities in both directions on
the two passages' first words, or each passage's stance towards the question's answer, when
the model's layout asks for them: the same functions its training used, see
`pair_features`). The int8 MLP gives P(conflict) (head 1, temperature-calibrated) and a type
distribution (head 2). A pair whose binary confidence max(p, 1 − p) reaches τ_c is decided
there: conflict when p reaches the model's decision threshold (chosen on development pairs;
0.5 without one), typed by head 2's best non-"none" type ("none" when no conflict). τ_c comes from the pair model's calibration (`pair_config.json`), else
ConflictRAG's 0.7. A model whose config says `route: stage2-only` (it did not beat
always-conflict and NLI alone on held-out pairs) is kept out: every pair goes to stage 2 and
`method` says so. Beyond ConflictRAG's confidence routing, a confident call that the
candidate answers contradict (the two passages hold different answers to a wh-question but
stage 1 says "no conflict", or the same answer and it says "conflict") also goes to stage 2:
the answers are independent evidence against it.

Stage 2: the GGUF model when one is configured (a structured JSON prompt returning conflict,
type and a reason), else the NLI cross-encoder on the two passages' key sentences (clipped to
60 words around the answer) in both directions over every pair (it decides the pairs stage 1
left; on a settled pair stage 1's call stands and the NLI probabilities are kept for the type
model's agreement features, read by the labelling cascade's first tier, the one those features
were fitted on, so the slow second tier only reads the pairs stage 2 decides): conflict when contradiction is the top label in either direction,
P(conflict) = the larger contradiction probability, typed by head 2's best non-"none" type
("factual" without a stage-1 model, when every pair goes to stage 2). When the question asks
for a description, contradiction is required in both directions (P = the smaller):
descriptive answers cover different facets, and a sentence about one facet reads as
"contradicting" a claim about another in one direction only (as the shipped NLI model does on
the example collection). Only pairs within the packet are judged: at most C(k′, 2)."""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import replace
from itertools import combinations
from typing import Any

import numpy as np

from conflictdesk.analysis import text as tx
from conflictdesk.analysis.calls import llm_json, nli_batch
from conflictdesk.analysis.pair_features import (
    NLI_LAYOUT,
    STANCE_LAYOUTS,
    STANCE_ONLY_LAYOUT,
    layout_features,
    nli_inputs,
    nli_matrix,
    pair_features,
    stance_block,
    stance_request,
    stance_scores,
)
from conflictdesk.analysis.types import ConflictPair, PairDetection, Tagging
from conflictdesk.backends.base import NLI, Backends, Generator, JudgmentCache
from conflictdesk.backends.cascade_nli import model_family
from conflictdesk.errors import ModelIntegrityError, ModelOutputError
from conflictdesk.types import PAIR_TYPES, NLIScores, PairScores, PairType, Passage

TAU_C = 0.7
KEY_SENTENCE_WORDS = 60  # a longer key "sentence" (text without punctuation) is clipped
TEXT_TEMPLATE = "{query}\n{passage}"

PAIR_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "conflict": {"type": "boolean"},
        "type": {"type": "string", "enum": [t.value for t in PAIR_TYPES]},
        "reason": {"type": "string"},
    },
    "required": ["conflict", "type", "reason"],
}

PAIR_PROMPT = """Two search results were retrieved for the same question. Decide whether they \
give conflicting information about the question, and which kind of conflict it is:
- none: they agree, or talk about different things without contradicting each other;
- factual: they state incompatible facts;
- temporal: they disagree because they describe different points in time;
- opinion: they express opposing opinions, judgements or research findings.

QUESTION: {query}
RESULT A: {a}
RESULT B: {b}

Answer with a JSON object: {{"conflict": true or false, "type": "none" | "factual" | \
"temporal" | "opinion", "reason": one short sentence}}."""


def resolve_tau_c(backends: Backends, tau_c: float | None) -> float:
    """An explicit τ_c, else the pair model's calibrated value, else ConflictRAG's 0.7."""
    if tau_c is not None:
        return tau_c
    model_tau = getattr(backends.pair, "tau_c", None) if backends.pair is not None else None
    return float(model_tau) if model_tau is not None else TAU_C


def best_conflict_type(types: Sequence[float]) -> PairType:
    """Head 2's most probable type other than "none"."""
    return PAIR_TYPES[1 + int(np.argmax(np.asarray(types[1:])))]


def feature_nli(backends: Backends):
    """The NLI back-end stage 1's features come from: under the labelling cascade its first
    tier (the MiniLM the pair model was trained on), else the NLI back-end itself. Stage 2 and
    the labels use the cascade."""
    return getattr(backends.nli, "fast", backends.nli)


def _template(backends: Backends) -> str:
    """The pair model's text template; its features must come from the embedder (and NLI
    model) it was trained on, so a different one is refused rather than giving silent garbage. The
    config names the embedder by manifest name; the back-end's id is `name@version`."""
    config = getattr(backends.pair, "config", None) or {}
    trained_on = config.get("embedder")
    if trained_on and trained_on != backends.embedder.model_id.partition("@")[0]:
        raise ModelIntegrityError(
            f"pair model expects embeddings from {trained_on}, not {backends.embedder.model_id}"
        )
    layout = config.get("layout")
    nli_trained_on = config.get("nli") if layout == NLI_LAYOUT or layout in STANCE_LAYOUTS else None
    features_from = feature_nli(backends).model_id
    if nli_trained_on and nli_trained_on != features_from.partition("@")[0]:
        raise ModelIntegrityError(
            f"pair model expects NLI features from {nli_trained_on}, not {features_from}"
        )
    return str(config.get("text_template", TEXT_TEMPLATE))


def stage_one(
    query: str,
    passages: Sequence[Passage],
    index_pairs: Sequence[tuple[int, int]],
    backends: Backends,
    cache: JudgmentCache | None = None,
    statement_nli: NLI | None = None,
    tagging: Tagging | None = None,
) -> list[PairScores] | None:
    """Stage-1 scores for each index pair, or None without a pair model in the route.
    `statement_nli`: the labelling NLI (the cascade), which reads the stances towards a
    statement when the model was trained on its readings (`statement_reader`). A stance the
    tagger has already read — the same passage against the same statement by the same NLI
    model, as a yes/no question's tags are — is taken from `tagging`, not read again."""
    if backends.pair is None or not index_pairs:
        return None
    template = _template(backends)
    layout = getattr(backends.pair, "layout", None)
    left = right = ij = ji = block = None
    if layout != STANCE_ONLY_LAYOUT:
        vectors = backends.embedder.embed(
            [template.format(query=query, passage=p.text) for p in passages]
        )
        left = vectors[[i for i, _ in index_pairs]]
        right = vectors[[j for _, j in index_pairs]]
    if layout == NLI_LAYOUT:
        batch = [x for i, j in index_pairs for x in nli_inputs(passages[i].text, passages[j].text)]
        scores = nli_matrix(
            nli_batch(feature_nli(backends), batch, stage="pairs.features", cache=cache)
        )
        ij, ji = scores[0::2], scores[1::2]
    if layout in STANCE_LAYOUTS:
        requests = [
            stance_request(query, passages[i].text, passages[j].text) for i, j in index_pairs
        ]
        statements = statement_reader(backends, statement_nli)[0]

        def read(nli: NLI) -> Callable[[list[tuple[str, str]]], np.ndarray]:
            known = tag_readings(tagging, passages, nli)

            def reader(batch: list[tuple[str, str]]) -> np.ndarray:
                missing = [x for x in batch if x not in known]
                if missing:
                    scores = nli_batch(nli, missing, stage="pairs.stance", cache=cache)
                    known.update(zip(missing, nli_matrix(scores)))
                return np.stack([known[x] for x in batch]).reshape(-1, 3)

            return reader

        read_statements = read(statements) if statements is not None else None
        block = stance_block(
            requests, stance_scores(requests, read(feature_nli(backends)), read_statements)
        )
    if layout is None or layout not in STANCE_LAYOUTS:
        return backends.pair.classify(pair_features(left, right, ij, ji))
    return backends.pair.classify(layout_features(layout, left, right, ij, ji, block))


def tag_readings(
    tagging: Tagging | None, passages: Sequence[Passage], nli: NLI
) -> dict[tuple[str, str], np.ndarray]:
    """(passage text, hypothesis) -> [E, N, C] of the passages the tagger read with `nli`
    (its method names the model): the tag's own NLI probabilities, reusable as stances."""
    if tagging is None or tagging.method != f"nli:{nli.model_id}":
        return {}
    text = {p.id: p.text for p in passages}
    hypothesis = tagging.frame.hypothesis
    return {
        (text[t.passage_id], hypothesis): np.array(
            [t.entailment, t.neutral, t.contradiction], dtype=np.float32
        )
        for t in tagging.tags
        if t.method == "nli" and t.passage_id in text
    }


def statement_reader(backends: Backends, statement_nli: NLI | None) -> tuple[NLI | None, str]:
    """The NLI that reads stage 1's stances towards a statement, and a note for `method`
    when it is not the one the pair model was trained on. A model trained on the cascade's
    readings (`statement_stance: cascade`) gets `statement_nli` (else the back-ends' NLI)
    when that is the same cascade; otherwise the first tier reads them, as for every other
    stance (None), and the note says so: the stance features then differ from training."""
    pair = backends.pair
    if pair is None or getattr(pair, "statement_stance", "first-tier") != "cascade":
        return None, ""
    wanted = getattr(pair, "statement_nli", None)
    nli = statement_nli or backends.nli
    if wanted and model_family(nli.model_id) == wanted:
        return nli, ""
    return None, (
        f"(statement stances read by {feature_nli(backends).model_id}; "
        f"trained on {wanted or 'the cascade'}'s)"
    )


def decision_threshold(backends: Backends) -> float:
    """The pair model's P(conflict) threshold (chosen on dev pairs), else 0.5."""
    value = getattr(backends.pair, "threshold", None) if backends.pair is not None else None
    return 0.5 if value is None else float(value)


def stage_one_routes(backends: Backends) -> bool:
    """True when a pair model is installed and earned its place on held-out pairs (its
    config's route). A model that did not settles no pair: every pair goes to stage 2, head 2
    still types the conflicts stage 2 finds, and `method` says so."""
    return backends.pair is not None and getattr(backends.pair, "route", "two-stage") != (
        "stage2-only"
    )


def detect_pairs(
    query: str,
    passages: Sequence[Passage],
    tagging: Tagging,
    backends: Backends,
    *,
    tau_c: float | None = None,
    cache: JudgmentCache | None = None,
    use_llm: bool = True,
    statement_nli: NLI | None = None,
) -> PairDetection:
    """Judge every pair of `passages` (the packet) with the two-stage detector;
    `statement_nli`: the labelling NLI when the analysis tags with its first tier
    (`stage_one`)."""
    threshold = resolve_tau_c(backends, tau_c)
    index_pairs = list(combinations(range(len(passages)), 2))
    stage1 = stage_one(query, passages, index_pairs, backends, cache, statement_nli, tagging)
    settles = stage_one_routes(backends)
    cut = decision_threshold(backends)
    answers = {t.passage_id: (t.answer or "").lower() for t in tagging.tags}
    decided: dict[int, ConflictPair] = {}
    uncertain: list[int] = []
    for n, (i, j) in enumerate(index_pairs):
        scores = stage1[n] if stage1 is not None else None
        if scores is None or not settles or scores.confidence < threshold:
            uncertain.append(n)
            continue
        a, b = answers.get(passages[i].id, ""), answers.get(passages[j].id, "")
        if a and b and (a != b) != (scores.conflict >= cut):
            uncertain.append(n)  # the held answers contradict stage 1's confident call
            continue
        decided[n] = _from_stage_one(passages[i].id, passages[j].id, scores, cut)
    llm = backends.llm if use_llm else None
    if llm is not None:
        for n in uncertain:
            i, j = index_pairs[n]
            decided[n] = _llm_pair(query, passages[i], passages[j], stage1, n, llm, cache)
        stage2 = f"llm:{llm.model_id}"
    else:
        everything = range(len(index_pairs))
        judged = _nli_pairs(
            passages, tagging, index_pairs, everything, stage1, backends, cache, set(decided)
        )
        for n, pair in judged.items():
            # stage 1's call stands on a settled pair; the NLI evidence is kept on it for the
            # type model's agreement features (evidence_signals.pair_signals)
            decided[n] = replace(decided[n], nli=pair.nli) if n in decided else pair
        stage2 = f"nli:{backends.nli.model_id}"
    stage1_name = _stage1_name(backends, statement_nli)
    pairs = tuple(decided[n] for n in range(len(index_pairs)))
    return PairDetection(pairs, threshold, stage1_name + stage2)


def _stage1_name(backends: Backends, statement_nli: NLI | None = None) -> str:
    """The stage-1 part of `method`: the MLP, or why every pair went to stage 2, and a
    note when its statement stances were not read by the NLI it was trained on."""
    if backends.pair is None:
        return ""
    note = statement_reader(backends, statement_nli)[1]
    if not stage_one_routes(backends):
        return f"stage1-off({backends.pair.model_id} below baselines; types from head 2){note}+"
    return f"mlp:{backends.pair.model_id}{note}+"


def _from_stage_one(a: int, b: int, scores: PairScores, cut: float = 0.5) -> ConflictPair:
    conflict = scores.conflict >= cut
    pair_type = best_conflict_type(scores.types) if conflict else PairType.NONE
    return ConflictPair(
        a, b, scores.conflict, conflict, pair_type, "mlp", scores.conflict, scores.confidence
    )


def _stage1_fields(
    stage1: list[PairScores] | None, n: int
) -> tuple[float | None, float | None, PairType]:
    """Stage-1 P(conflict), confidence and best conflict type; without an MLP the type of a
    conflict found in stage 2 is "factual", the generic inter-document conflict."""
    if stage1 is None:
        return None, None, PairType.FACTUAL
    scores = stage1[n]
    return scores.conflict, scores.confidence, best_conflict_type(scores.types)


def describes(tagging: Tagging) -> bool:
    """True when the question asks for a description (sentence answers, see claims.py)."""
    candidates = tagging.frame.candidates
    return bool(candidates) and candidates[0].kind == "sentence"


def _nli_pairs(
    passages: Sequence[Passage],
    tagging: Tagging,
    index_pairs: Sequence[tuple[int, int]],
    uncertain: Sequence[int],
    stage1: list[PairScores] | None,
    backends: Backends,
    cache: JudgmentCache | None,
    settled: Collection[int] = (),
) -> dict[int, ConflictPair]:
    """Stage 2 without an LLM: NLI on key sentences, both directions, one batch per tier.
    The pairs stage 2 decides are read by the NLI back-end (the cascade when it is on); on
    the `settled` ones (stage 1's call stands) the probabilities only feed the type model's
    agreement features, so they come from the tier those features were fitted on
    (`feature_nli`), which also keeps the cascade's second tier off pairs it cannot change."""
    tags = tagging.by_id()
    texts = [
        tx.clip_words(tags[p.id].key_sentence or p.text, tags[p.id].answer, KEY_SENTENCE_WORDS)
        for p in passages
    ]
    scores = [NLIScores(0.0, 0.0, 0.0)] * (2 * len(uncertain))
    tiers = [(list(range(len(uncertain))), backends.nli)]  # without a cascade: one batch
    if feature_nli(backends) is not backends.nli:
        tiers = [
            ([s for s, n in enumerate(uncertain) if n not in settled], backends.nli),
            ([s for s, n in enumerate(uncertain) if n in settled], feature_nli(backends)),
        ]
    for slots, nli in tiers:
        batch: list[tuple[str, str]] = []
        for slot in slots:
            i, j = index_pairs[uncertain[slot]]
            batch += [(texts[i], texts[j]), (texts[j], texts[i])]
        if not batch:
            continue
        read = nli_batch(nli, batch, stage="pairs.nli", cache=cache)
        for k, slot in enumerate(slots):
            scores[2 * slot], scores[2 * slot + 1] = read[2 * k], read[2 * k + 1]
    both = describes(tagging)
    out = {}
    for slot, n in enumerate(uncertain):
        i, j = index_pairs[n]
        forward, backward = scores[2 * slot], scores[2 * slot + 1]
        labels = (forward.label, backward.label)
        if both:
            conflict = labels == ("contradiction", "contradiction")
            prob = min(forward.contradiction, backward.contradiction)
        else:
            conflict = "contradiction" in labels
            prob = max(forward.contradiction, backward.contradiction)
        p1, c1, head_type = _stage1_fields(stage1, n)
        out[n] = ConflictPair(
            passages[i].id,
            passages[j].id,
            prob,
            conflict,
            head_type if conflict else PairType.NONE,
            "nli",
            p1,
            c1,
            f"NLI on key sentences: {forward.label} / {backward.label}",
            _nli_triples(forward, backward),
        )
    return out


def _nli_triples(forward: NLIScores, backward: NLIScores) -> tuple[float, ...]:
    """Both directions' probabilities, kept on the pair for the type model's agreement
    features."""
    return tuple(
        float(x) for s in (forward, backward) for x in (s.entailment, s.neutral, s.contradiction)
    )


def _llm_pair(
    query: str,
    a: Passage,
    b: Passage,
    stage1: list[PairScores] | None,
    n: int,
    llm: Generator,
    cache: JudgmentCache | None,
) -> ConflictPair:
    """Stage 2 with the GGUF model: one structured JSON judgment."""
    prompt = PAIR_PROMPT.format(query=query, a=a.text, b=b.text)
    answer = llm_json(
        llm,
        [{"role": "user", "content": prompt}],
        PAIR_SCHEMA,
        stage="pairs.llm",
        cache=cache,
        max_tokens=200,
    )
    if not isinstance(answer, dict) or not isinstance(answer.get("conflict"), bool):
        raise ModelOutputError(f"pair judgment is not the expected object: {answer!r}")
    try:
        pair_type = PairType(str(answer.get("type", "none")))
    except ValueError as exc:
        raise ModelOutputError(f"unknown pair type {answer.get('type')!r}") from exc
    conflict = answer["conflict"]
    if conflict and pair_type is PairType.NONE:
        pair_type = _stage1_fields(stage1, n)[2]
    p1, c1, _ = _stage1_fields(stage1, n)
    return ConflictPair(
        a.id,
        b.id,
        1.0 if conflict else 0.0,
        conflict,
        pair_type if conflict else PairType.NONE,
        "llm",
        p1,
        c1,
        str(answer.get("reason", "")),
    )
