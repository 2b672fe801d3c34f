"""What the tagger's two relevance gates set aside, read against gold passage relations.

`ask` tags a passage with the NLI model only when it passes two gates (`analysis.tag`): its
topicality (hybrid lexical and embedding similarity to the query, over the best passage's)
must reach TOPICAL_RATIO, and it must not be about another entity than the question's (the
subject gate, `names_a_rival`). A gate that sets aside passages that answer the question
loses evidence, so each is read here against RAMDocs and QACC gold: a passage SUPPORTS or
CONTRADICTS the case's claim (it answers the question) or is IRRELEVANT (`evaluation.cases`).
A useful gate sets aside a larger share of the IRRELEVANT passages than of those that answer;
`discrimination` is the ranking AUC of topicality between the two groups."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from conflictdesk.analysis import tag as tagging
from conflictdesk.evaluation.cases import Case
from conflictdesk.evaluation.qacc_probe import roc_auc
from conflictdesk.types import Passage

RATIOS = (0.3, 0.4, 0.5, 0.6)


@dataclass(frozen=True)
class PassageGate:
    """One passage's topicality, whether the subject gate set it aside, its gold relation."""

    topicality: float
    about_other: bool
    gold: str

    @property
    def answers(self) -> bool:
        return self.gold != "IRRELEVANT"


def read_case(case: Case, embedder: Any) -> list[PassageGate]:
    """Every passage of `case` through the tagger's reading step (as `ask` runs it, with the
    embedding similarity to the question)."""
    passages = [Passage(id=i, text=t, document_id=i) for i, t in enumerate(case.documents)]
    vectors = np.asarray(embedder.embed([case.question, *case.documents]), dtype=np.float64)
    vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-9)
    similarity = {p.id: float(vectors[0] @ vectors[p.id + 1]) for p in passages}
    reading = tagging.read_passages(case.question, passages, similarity)
    return [
        PassageGate(reading.topical[p.id], p.id in reading.about_other, case.gold[p.id])
        for p in passages
    ]


def gate_figures(rows: Sequence[PassageGate], ratios: Sequence[float] = RATIOS) -> dict:
    """Share of answering and of IRRELEVANT passages each gate sets aside."""
    answering = [r for r in rows if r.answers]
    irrelevant = [r for r in rows if not r.answers]

    def below(group: Sequence[PassageGate], ratio: float) -> float:
        return sum(r.topicality < ratio for r in group) / len(group) if group else 0.0

    topical = [r for r in rows if r.topicality >= tagging.TOPICAL_RATIO]
    subject = Counter(r.gold for r in topical if r.about_other)
    return {
        "passages": dict(Counter(r.gold for r in rows)),
        "topicality": [
            {
                "ratio": ratio,
                "answering_set_aside": below(answering, ratio),
                "irrelevant_set_aside": below(irrelevant, ratio),
            }
            for ratio in ratios
        ],
        "discrimination": roc_auc(
            [r.topicality for r in answering], [r.topicality for r in irrelevant]
        ),
        "subject": {
            "set_aside": dict(subject),
            "answering_share": sum(v for k, v in subject.items() if k != "IRRELEVANT")
            / max(sum(subject.values()), 1),
            "answering_share_of_passages": len(answering) / max(len(rows), 1),
        },
    }


def render_gates(report: dict[str, dict]) -> str:
    lines = [f"topicality gate in use: {tagging.TOPICAL_RATIO}"]
    for name, figures in report.items():
        lines.append(f"\n{name}: passages by gold relation {figures['passages']}")
        auc = figures["discrimination"]
        lines.append(
            "  topicality AUC, answering vs IRRELEVANT passages: "
            + ("–" if auc is None else f"{auc:.3f}")
        )
        lines.append("  topicality ratio   answering set aside   IRRELEVANT set aside")
        for row in figures["topicality"]:
            mark = "  (in use)" if row["ratio"] == tagging.TOPICAL_RATIO else ""
            lines.append(
                f"  {row['ratio']:>15.2f} {row['answering_set_aside']:>21.3f}"
                f" {row['irrelevant_set_aside']:>22.3f}{mark}"
            )
        subject = figures["subject"]
        lines.append(
            f"  subject gate (topical passages): set aside {subject['set_aside'] or 'none'}; "
            f"answering share {subject['answering_share']:.3f} "
            f"(of all passages {subject['answering_share_of_passages']:.3f})"
        )
    return "\n".join(lines)
