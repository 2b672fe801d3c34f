"""The `method` each model-using stage will report under the configuration in force, worked
out without loading or contacting anything: what `models list` and the TUI's Models screen
show. Each string is the one (or the start of the one) that the stage writes into the
`method` of an `ask` or `score` output for the default options; a test holds them to it."""

from __future__ import annotations

from conflictdesk.analysis.type_model import ROLE as TYPE_ROLE
from conflictdesk.app.wire import StageRow
from conflictdesk.backends.registry import Capabilities, llm_model_id, manifest_for, select_entry
from conflictdesk.config import Settings
from conflictdesk.generation.parametric import NO_LLM
from conflictdesk.scoring.decompose import SPLITTER_METHOD
from conflictdesk.stages import ANSWER, PARAMETRIC

SPLIT = f"{SPLITTER_METHOD} (no LLM configured)"
NEEDS_LLM = "unavailable: needs an LLM (--llm PATH.gguf or --llm-url URL)"


def stage_methods(settings: Settings, caps: Capabilities) -> list[StageRow]:
    """One row per stage that runs a model: `ask`'s tag, pairs, classify, answer and
    parametric check, then ConflictScore's decompose and label, and regenerate."""
    nli = caps.models.get("nli") or "none"
    ask_nli = caps.analysis_nli or nli  # `ask`'s tag and pairs: the MiniLM by default
    llm = llm_model_id(settings) if caps.llm else None
    types = select_entry(manifest_for(settings), TYPE_ROLE)
    type_model = f"model:{types.model_id}" if types else "model:(missing)"
    rows = [
        ("tag", f"nli:{ask_nli}", False),
        ("pairs", pair_stage_one(caps) + (f"llm:{llm}" if llm else f"nli:{ask_nli}"), bool(llm)),
        ("classify", f"llm:{llm}" if llm else type_model, bool(llm)),
        (ANSWER, f"llm:{llm}:pipeline" if llm else "extractive:<resolution rule>", bool(llm)),
        (PARAMETRIC, f"closed-book check on llm:{llm}" if llm else NO_LLM, bool(llm)),
        ("decompose", f"llm-table6({llm})" if llm else SPLIT, bool(llm)),
        ("label", f"nli({nli})", False),
        ("regenerate", f"llm-table13({llm})" if llm else NEEDS_LLM, bool(llm)),
    ]
    return [StageRow(stage, method, uses_llm) for stage, method, uses_llm in rows]


def pair_stage_one(caps: Capabilities) -> str:
    """The stage-1 part of the pairs method (as `analysis.pairs` writes it)."""
    pair = caps.models.get("pair")
    if not pair:
        return ""
    if caps.pair_route == "stage2-only":
        return f"stage1-off({pair} below baselines; types from head 2)+"
    return f"mlp:{pair}+"


LABELLER_NOTE = (
    "label: the default labeller (fusion) reads claims in the answer form 'The answer to the "
    "question Q? is A.' (detect's question/answer lines) with models/fusion over the NLI model; "
    "other claims, such as score's decomposed ones, get the NLI model alone, with or without an "
    "LLM; --labeller llm (llm-table7) or two-stage sends pairs to the LLM"
)
