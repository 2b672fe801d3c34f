"""Stage-1 pair-detector data (ConflictRAG §III-B): passage pairs with a binary conflict label
and a type label (`pair_types`).

- QACC: two contexts that support different answers conflict; two that support a common
  answer do not; a supporting context against one that supports no answer does not.
- RAMDocs: a correct document against a misinformation document conflicts; two correct
  documents do not (nor two misinformation documents giving the same answer). Noise
  documents are left out (some of them carry altered facts without being labelled).
- NLI pools: contradiction → conflict, entailment → no conflict; the texts carry no query.

Each side's text is "{query}\\n{passage}" (`side_text`), the pair config's text template.
The same honest split as the cross-encoder: RAMDocs TRAIN half and QACC train for training;
the RAMDocs EVAL half and QACC dev only for held-out figures."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations

from conflictdesk.training.claims import qacc_answers
from conflictdesk.training.nli_data import LABEL_ID, NLIExample
from conflictdesk.training.pair_types import label_pair_type, type_index
from conflictdesk.types import PairType

TEXT_TEMPLATE = "{query}\n{passage}"


def side_text(query: str | None, passage: str) -> str:
    """One side of a pair as the embedder sees it; without a query, the passage alone."""
    return TEXT_TEMPLATE.format(query=query.strip(), passage=passage) if query else passage


@dataclass(frozen=True)
class TextPair:
    text_i: str
    text_j: str
    conflict: int  # 1 = conflict
    kind: int  # index into PAIR_TYPES
    source: str
    group: str  # question (or premise) the pair comes from, for splitting
    disputed: str | None = None


def _pair(
    query: str | None,
    a: str,
    b: str,
    conflict: bool,
    source: str,
    group: str,
    disputed: str | None = None,
) -> TextPair:
    kind = label_pair_type(a, b, conflict, disputed)
    return TextPair(
        side_text(query, a),
        side_text(query, b),
        int(conflict),
        type_index(kind),
        source,
        group,
        disputed,
    )


def qacc_pairs(
    records: Sequence[dict], seed: int = 3, unsupported_per_question: int = 2
) -> list[TextPair]:
    """Context pairs of QACC questions (train.jsonl for training, dev.jsonl for held-out)."""
    rng = random.Random(seed)
    out: list[TextPair] = []
    for record in records:
        q, contexts = record["question"], record.get("contexts", [])
        answers = qacc_answers(record)
        support = {i: {a for a, idx in answers if i in idx} for i in range(len(contexts))}
        backed = [i for i in range(len(contexts)) if support[i]]
        for i, j in combinations(backed, 2):
            conflict = not (support[i] & support[j])
            disputed = next(iter(sorted(support[i] - support[j])), None)
            out.append(_pair(q, contexts[i], contexts[j], conflict, "qacc", q, disputed))
        unbacked = [i for i in range(len(contexts)) if not support[i]]
        for _ in range(min(unsupported_per_question, len(unbacked) * len(backed))):
            i, j = rng.choice(backed), rng.choice(unbacked)
            out.append(_pair(q, contexts[i], contexts[j], False, "qacc_unsupported", q))
    return out


def ramdocs_pairs(records: Sequence[dict]) -> list[TextPair]:
    """Document pairs of RAMDocs questions (pass the TRAIN or the EVAL half)."""
    out: list[TextPair] = []
    for record in records:
        q, docs = record["question"], record["documents"]
        for a, b in combinations(docs, 2):
            kinds = {a["type"], b["type"]}
            if "noise" in kinds:
                continue
            if kinds == {"correct", "misinfo"}:
                wrong = a if a["type"] == "misinfo" else b
                out.append(_pair(q, a["text"], b["text"], True, "ramdocs", q, wrong["answer"]))
            elif kinds == {"correct"} or a["answer"].strip().lower() == b["answer"].strip().lower():
                out.append(_pair(q, a["text"], b["text"], False, "ramdocs", q))
    return out


def nli_pairs(rows: Sequence[NLIExample], n: int, seed: int = 4) -> list[TextPair]:
    """Up to `n` query-less pairs from NLI rows: contradiction → conflict, entailment → none."""
    rng = random.Random(seed)
    usable = [r for r in rows if r.label != LABEL_ID["neutral"]]
    rng.shuffle(usable)
    return [
        _pair(None, r.premise, r.hypothesis, r.label == LABEL_ID["contradiction"], "nli", r.premise)
        for r in usable[:n]
    ]


def _respace(text: str) -> str:
    """A formatting-only variant (spaces around punctuation toggled): same content."""
    import re

    if " , " in text or " . " in text:
        return re.sub(r" ([,.;:)\]])", r"\1", text)
    return re.sub(r"([,;:])(?=\s)", r" \1", text)


def answer_swap_pairs(
    passages: Sequence[tuple[str, str, str]], bank, seed: int = 6
) -> list[TextPair]:
    """Synthetic near-duplicates, the shape of RAMDocs misinformation: for (query, passage,
    answer) with the answer in the passage, (passage, passage with another answer of the same
    kind) conflicts, and (passage, formatting-only variant) does not."""
    from conflictdesk.training.claims import contains

    rng = random.Random(seed)
    out: list[TextPair] = []
    for query, passage, answer in passages:
        if not answer or not contains(passage, answer):
            continue
        other = bank.swap(query, answer, [answer], rng)
        if not other:
            continue
        index = passage.lower().find(answer.lower())
        edited = passage[:index] + other + passage[index + len(answer) :]
        out.append(_pair(query, passage, edited, True, "swap", query, other))
        variant = _respace(passage)
        if variant != passage:
            out.append(_pair(query, passage, variant, False, "swap", query))
    return out


def _read_gz(path) -> list[dict]:
    import gzip
    import json

    with gzip.open(path, "rt", encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def _labelled_pairs(folder: str, split: str, kind: PairType, source: str, root) -> list[TextPair]:
    """The `pairs_{split}` file of a data folder; its conflicts all have the type `kind`."""
    from conflictdesk.training.nli_data import data_root

    path = (root or data_root()) / folder / f"pairs_{split}.jsonl.gz"
    types = {True: type_index(kind), False: type_index(PairType.NONE)}
    return [
        TextPair(
            side_text(r["question"], r["passage_a"]),
            side_text(r["question"], r["passage_b"]),
            int(r["conflict"]),
            types[bool(r["conflict"])],
            source,
            r["question"],
        )
        for r in _read_gz(path)
    ]


def conflictqa_pairs(split: str, root=None) -> list[TextPair]:
    """ConflictQA (StrategyQA part) passage pairs of one question-level split; every conflict
    is a yes/no factual disagreement (data README), so conflicts are typed factual."""
    return _labelled_pairs("conflictqa_strategyqa", split, PairType.FACTUAL, "conflictqa", root)


def perspectrum_pairs(split: str, root=None) -> list[TextPair]:
    """PERSPECTRUM perspective pairs of one claim-level split: opposite stances on a debate
    claim are an opinion conflict; same-stance arguments and paraphrases are not."""
    return _labelled_pairs("perspectrum", split, PairType.OPINION, "perspectrum", root)
