"""The stage-1 pair features: one function for training and inference.

ConflictRAG eq. 3 builds f_ij = [e_i; e_j; |e_i − e_j|; e_i ⊙ e_j] from passage embeddings
(layout "emb4"). Layout "emb4+nli6" adds the NLI cross-encoder's probabilities in both
directions on the two passages (each clipped to its first `NLI_WORDS` words, so one pair is
one window): [f_ij; nli(i→j); nli(j→i)]. The model's config names its layout."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from conflictdesk.analysis import claims
from conflictdesk.analysis import text as tx
from conflictdesk.types import NLIScores

NLI_WORDS = 60
EMBEDDING_LAYOUT = "emb4"
NLI_LAYOUT = "emb4+nli6"


def clip_for_nli(passage: str) -> str:
    """The first NLI_WORDS words of a passage, as the NLI feature reads it."""
    words = passage.split()
    return passage if len(words) <= NLI_WORDS else " ".join(words[:NLI_WORDS])


def nli_inputs(passage_i: str, passage_j: str) -> list[tuple[str, str]]:
    """The two (premise, hypothesis) pairs of one passage pair: i→j, then j→i."""
    a, b = clip_for_nli(passage_i), clip_for_nli(passage_j)
    return [(a, b), (b, a)]


def nli_matrix(scores: Sequence[NLIScores]) -> np.ndarray:
    """[N, 3] entailment / neutral / contradiction probabilities."""
    return np.array(
        [[s.entailment, s.neutral, s.contradiction] for s in scores], dtype=np.float32
    ).reshape(-1, 3)


def pair_features(
    e_i: np.ndarray,
    e_j: np.ndarray,
    nli_ij: np.ndarray | None = None,
    nli_ji: np.ndarray | None = None,
) -> np.ndarray:
    """[e_i; e_j; |e_i − e_j|; e_i ⊙ e_j] row-wise (ConflictRAG eq. 3), then, when given,
    the [N, 3] NLI probabilities i→j and j→i; float32."""
    e_i = np.asarray(e_i, dtype=np.float32)
    e_j = np.asarray(e_j, dtype=np.float32)
    if e_i.shape != e_j.shape or e_i.ndim != 2:
        raise ValueError(f"embeddings must be two [N, d] arrays, got {e_i.shape} and {e_j.shape}")
    blocks = [e_i, e_j, np.abs(e_i - e_j), e_i * e_j]
    if (nli_ij is None) != (nli_ji is None):
        raise ValueError("NLI features need both directions")
    if nli_ij is not None and nli_ji is not None:
        for block in (nli_ij, nli_ji):
            if np.shape(block) != (e_i.shape[0], 3):
                raise ValueError(f"NLI features must be [N, 3], got {np.shape(block)}")
        blocks += [np.asarray(nli_ij, np.float32), np.asarray(nli_ji, np.float32)]
    return np.concatenate(blocks, axis=1).astype(np.float32)


# --- stance features (layouts "emb4+stance" and "stance") -----------------------------------
#
# A conflict between two passages for a question usually means they imply different answers.
# Each side's stance is the NLI model's reading of the passage (premise; the back-end windows
# long passages) against an answer statement built from the question alone, never from gold:
# - a declarative query is its own statement, a yes/no question its declarative form
#   (`claims.declarative`); both sides read the same statement;
# - a wh-question: each passage's candidate answer (`claims.passage_answer`, the product's
#   rule), and each side reads the *other* side's answer claim ("The answer to the question
#   Q is A."): a passage that contradicts the other's answer disagrees with it. A side
#   without an answer reads the bare question.
# The block: query form (3), stance i and j (E/N/C, 3 + 3), opposition E_i·C_j + C_i·E_j,
# agreement E_i·E_j + C_i·C_j, the gap |(E_i − C_i) − (E_j − C_j)|, and for wh-questions
# whether both sides hold an answer, whether the answers are equal, and whether they are
# different values of the same kind (number, date, entity) (3).

STANCE_LAYOUT = "emb4+stance"
STANCE_ONLY_LAYOUT = "stance"
STANCE_LAYOUTS = (STANCE_LAYOUT, STANCE_ONLY_LAYOUT)
STANCE_DIM = 15
FORMS = ("claim", "yes_no", "wh")


@dataclass(frozen=True)
class StanceRequest:
    """What one pair's stance block needs: the query form, the two (premise, hypothesis)
    NLI inputs (side i, then side j) and the answer comparison flags."""

    form: str
    inputs: tuple[tuple[str, str], tuple[str, str]]
    answers: tuple[float, float, float]


def passage_answer_key(query: str, passage: str, idf: dict[str, float]) -> tuple[str, str] | None:
    """(key, surface) of the passage's candidate answer to a wh-question, else None."""
    kind = claims.answer_kind(query)
    ranked = tx.ranked_sentences(query, passage, idf)
    known = tx.midsentence_capitals(passage)
    for try_kind in dict.fromkeys((kind, "any")):
        if try_kind == "sentence":
            continue
        found = claims.passage_answer(query, try_kind, ranked, known)
        if found is not None:
            return found[0], found[1]
    return None


def stance_request(query: str, passage_i: str, passage_j: str) -> StanceRequest:
    """The stance inputs of one pair (module comment above)."""
    form = claims.query_form(query).value
    if form != "wh":
        statement = claims.declarative(query) if form == "yes_no" else query.strip()
        return StanceRequest(form, ((passage_i, statement), (passage_j, statement)), (0, 0, 0))
    idf = tx.idf_weights([passage_i, passage_j])
    a_i = passage_answer_key(query, passage_i, idf)
    a_j = passage_answer_key(query, passage_j, idf)
    hyp_i = claims.answer_claim(query, a_j[1]) if a_j else query.strip()
    hyp_j = claims.answer_claim(query, a_i[1]) if a_i else query.strip()
    both = a_i is not None and a_j is not None
    same = both and a_i[0] == a_j[0]
    kind_differs = both and not same and a_i[0].split(":")[0] == a_j[0].split(":")[0]
    flags = (float(both), float(same), float(kind_differs))
    return StanceRequest(form, ((passage_i, hyp_i), (passage_j, hyp_j)), flags)


def stance_block(requests: Sequence[StanceRequest], scores: np.ndarray) -> np.ndarray:
    """[N, STANCE_DIM] from the requests and the [2N, 3] NLI probabilities of their inputs
    (side i, side j per request, in order)."""
    scores = np.asarray(scores, dtype=np.float32).reshape(-1, 3)
    if scores.shape[0] != 2 * len(requests):
        raise ValueError(f"need {2 * len(requests)} NLI rows, got {scores.shape[0]}")
    s_i, s_j = scores[0::2], scores[1::2]
    form = np.array([[r.form == f for f in FORMS] for r in requests], np.float32).reshape(-1, 3)
    e_i, c_i, e_j, c_j = s_i[:, 0], s_i[:, 2], s_j[:, 0], s_j[:, 2]
    mixed = np.stack(
        [e_i * c_j + c_i * e_j, e_i * e_j + c_i * c_j, np.abs((e_i - c_i) - (e_j - c_j))], 1
    )
    flags = np.array([r.answers for r in requests], np.float32).reshape(-1, 3)
    return np.concatenate([form, s_i, s_j, mixed, flags], axis=1).astype(np.float32)


def stance_inputs(requests: Sequence[StanceRequest]) -> list[tuple[str, str]]:
    """The NLI inputs of the requests, flattened in `stance_block`'s order."""
    return [x for r in requests for x in r.inputs]


# Which NLI reads a stance (the model's config, `statement_stance`): "first-tier" (every
# stance by the NLI the analysis tags with) or "cascade" (a statement's stance — yes/no and
# declarative queries — by the labelling cascade, whose second tier reads a passage's stance
# towards a statement far better: on ConflictQA development pairs the stance gap separates
# conflicts at AUC 0.89 against 0.74 for the first tier; a wh-question's answer-claim stances
# gained nothing there and stay with the first tier, so `ask` pays the second tier only for
# the few statement readings, one per passage).
STATEMENT_STANCES = ("first-tier", "cascade")


def reads_statement(request: StanceRequest) -> bool:
    """True when the request's stances are towards a statement (yes/no or declarative
    query), the readings `statement_stance: cascade` sends to the labelling cascade."""
    return request.form != "wh"


def routed_inputs(
    requests: Sequence[StanceRequest], split: bool
) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """The requests' distinct NLI inputs, in order: (those the first tier reads, those the
    statement reader reads); with `split` false every input is the first tier's."""
    routed: dict[tuple[str, str], bool] = {}
    for request in requests:
        for x in request.inputs:
            routed.setdefault(x, split and reads_statement(request))
    return [x for x, s in routed.items() if not s], [x for x, s in routed.items() if s]


def stance_scores(
    requests: Sequence[StanceRequest],
    read: Callable[[list[tuple[str, str]]], np.ndarray],
    read_statements: Callable[[list[tuple[str, str]]], np.ndarray] | None = None,
) -> np.ndarray:
    """[2N, 3] NLI probabilities of the requests' inputs in `stance_block`'s order: each
    distinct input read once, by `read_statements` when given and the request reads a
    statement, else by `read` (each reader returns [M, 3] for M inputs)."""
    first, statements = routed_inputs(requests, read_statements is not None)
    rows: dict[tuple[str, str], np.ndarray] = {}
    for batch, reader in ((first, read), (statements, read_statements)):
        if batch and reader is not None:
            rows.update(zip(batch, np.asarray(reader(batch), dtype=np.float32).reshape(-1, 3)))
    out = [rows[x] for x in stance_inputs(requests)]
    return np.stack(out) if out else np.zeros((0, 3), dtype=np.float32)


def swap_stance(block: np.ndarray) -> np.ndarray:
    """The stance block of the pairs in the other order (j, i): the two stances swap; the
    form, the symmetric mixtures and the answer flags stay."""
    out = np.array(block, dtype=np.float32, copy=True)
    out[:, 3:6], out[:, 6:9] = block[:, 6:9], block[:, 3:6]
    return out


def layout_features(
    layout: str,
    e_i: np.ndarray | None,
    e_j: np.ndarray | None,
    nli_ij: np.ndarray | None = None,
    nli_ji: np.ndarray | None = None,
    stance: np.ndarray | None = None,
) -> np.ndarray:
    """The feature rows of `layout`: "emb4", "emb4+nli6", "emb4+stance" or "stance"."""
    if layout in STANCE_LAYOUTS and stance is None:
        raise ValueError(f"layout {layout} needs the stance block")
    if layout == STANCE_ONLY_LAYOUT:
        return np.asarray(stance, dtype=np.float32)
    if e_i is None or e_j is None:
        raise ValueError(f"layout {layout} needs embeddings")
    base = pair_features(e_i, e_j, nli_ij, nli_ji)
    if layout == STANCE_LAYOUT:
        return np.concatenate([base, np.asarray(stance, np.float32)], axis=1)
    return base
