"""Neutral and containment pairs that teach the NLI model what a document checker needs.

Both models trained on the NLI pools called short unrelated text a contradiction of a long
claim with 0.9+ probability ("Home | Nutrients | Contact" against a claim about bone density),
and two facts about one subject contradictions of each other ("X supports vision" against
"X helps bone density"). The first is SNLI's convention (annotators assumed one scene, so
unrelated captions were contradictions); the second follows from training on answer swaps.
For ConflictScore and ConRAG both are IRRELEVANT, and a false CONTRADICTS invents a conflict.
Two builders, each labelled neutral by construction:

- `unrelated_pairs`: the premise of one row against the hypothesis of another row that
  shares no content word with it (`conflictdesk.vocabulary.content_stems`).
- `same_document_pairs`: two sentences of one document, each of at least MIN_WORDS words,
  the hypothesis sharing less than MAX_SHARED of its content words with the premise. A
  coherent document states different facts about one topic; one neither entails nor
  contradicts another unless it repeats it (the overlap cut removes near-repeats).

And one entailment builder, for the opposite error: the same models called a three-sentence
passage a contradiction of its own middle sentence (p = 0.57), probably because the
minimal-edit protocols in the pool pair near-verbatim hypotheses with flipped labels:
- `contained_sentence_pairs`: a document of several sentences against one of its own
  sentences, verbatim: a text entails what it states.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from conflictdesk.text import split_sentences
from conflictdesk.training.nli_data import LABEL_ID, NLIExample
from conflictdesk.vocabulary import content_stems

NEUTRAL = LABEL_ID["neutral"]
ENTAILMENT = LABEL_ID["entailment"]
MIN_WORDS = 6
MAX_SHARED = 0.5
CONTAINED_PER_DOCUMENT = 3


def unrelated_pairs(
    rows: Sequence[NLIExample], n: int, rng: random.Random, attempts: int = 20
) -> list[NLIExample]:
    """Up to `n` neutral pairs: a row's premise with another row's hypothesis, no shared
    content word."""
    out: list[NLIExample] = []
    if len(rows) < 2:
        return out
    for _ in range(n):
        for _ in range(attempts):
            a, b = rng.sample(range(len(rows)), 2)
            premise, hypothesis = rows[a].premise, rows[b].hypothesis
            if premise != rows[b].premise and not content_stems(premise) & content_stems(
                hypothesis
            ):
                out.append(NLIExample(premise, hypothesis, NEUTRAL, "neutral:unrelated"))
                break
    return out


def document_sentences(text: str) -> list[str]:
    """The sentences of `text` with at least MIN_WORDS words."""
    return [s for _, _, s in split_sentences(text) if len(s.split()) >= MIN_WORDS]


def distinct_facts(premise: str, hypothesis: str) -> bool:
    """True when the hypothesis shares less than MAX_SHARED of its content words with the
    premise (so it is not a repeat or paraphrase of it)."""
    words = content_stems(hypothesis)
    return bool(words) and len(words & content_stems(premise)) < MAX_SHARED * len(words)


def same_document_pairs(texts: Sequence[str], n: int, rng: random.Random) -> list[NLIExample]:
    """Up to `n` neutral pairs of two distinct-fact sentences of one document, at most one
    pair per document (so no document dominates)."""
    candidates = [s for s in (document_sentences(t) for t in texts) if len(s) >= 2]
    rng.shuffle(candidates)
    out: list[NLIExample] = []
    for sentences in candidates:
        if len(out) >= n:
            break
        premise, hypothesis = rng.sample(sentences, 2)
        if distinct_facts(premise, hypothesis):
            out.append(NLIExample(premise, hypothesis, NEUTRAL, "neutral:same-document"))
    return out


def contained_sentence_pairs(texts: Sequence[str], n: int, rng: random.Random) -> list[NLIExample]:
    """Up to `n` entailment pairs: a document of at least three sentences (of MIN_WORDS or
    more words) against one of them, not the first, verbatim; at most CONTAINED_PER_DOCUMENT
    pairs per document."""
    split = [(t, document_sentences(t)) for t in texts]
    candidates = [(t, sentences) for t, sentences in split if len(sentences) >= 3]
    rng.shuffle(candidates)
    out: list[NLIExample] = []
    for text, sentences in candidates:
        later = sentences[1:]
        for hypothesis in rng.sample(later, min(len(later), CONTAINED_PER_DOCUMENT)):
            if len(out) >= n:
                return out
            out.append(NLIExample(text, hypothesis, ENTAILMENT, "entailment:contained"))
    return out
