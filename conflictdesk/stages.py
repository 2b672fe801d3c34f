"""The names of the `ask` stages, defined once.

`ANALYSIS_STAGES` are the pipeline's own steps (`analysis.pipeline` runs them in this order
and names its events and timings after them). `ASK_STAGES` are the steps a person watches
(the TUI's progress bar, the models report): retrieval, the analysis grouped into what it
shows, and the answer. `SHOWN_AS` maps each pipeline event to the shown stage and the key of
the ask result it fills."""

from __future__ import annotations

from typing import Final

RETRIEVE: Final = "retrieval"
ANSWER: Final = "answer"
PARAMETRIC: Final = "parametric"  # the answer's closed-book check on the LLM (not a shown stage)

ANALYSIS_STAGES: Final = ("tag", "cluster", "kappa", "packet", "pairs", "classify", "resolve")
EMBED: Final = "embed"  # the pipeline's first event: query and passage vectors, relevance

ASK_STAGES: Final = (RETRIEVE, "tagging", "clusters", "kappa", "pairs", "type", ANSWER)

# pipeline event -> (shown stage, key of the ask result it fills)
SHOWN_AS: Final[dict[str, tuple[str, str]]] = {
    "tag": ("tagging", "tagging"),
    "cluster": ("clusters", "clusters"),
    "kappa": ("kappa", "score"),
    "packet": ("kappa", "packet"),
    "pairs": ("pairs", "detection"),
    "classify": ("type", "verdict"),
    "resolve": ("type", "resolution"),
}

# Shown stages that never use an LLM, with the method they run (the models report).
FIXED_METHODS: Final = (
    (RETRIEVE, "BM25 + dense ({embedder}), reciprocal rank fusion"),
    ("cluster", "embedding clusters ({embedder})"),
    ("kappa", "ConRAG κ and δ rule (no model)"),
    ("packet", "ConRAG balanced packet (no model)"),
)
