"""Stage names are defined once (conflictdesk/stages.py): the pipeline emits exactly those
events in that order, the shown stages cover them, and no other module keeps its own list."""

from __future__ import annotations

import ast
from pathlib import Path

from conflictdesk.analysis.pipeline import analyze
from conflictdesk.backends.registry import LLM_STAGES
from conflictdesk.stages import ANALYSIS_STAGES, ANSWER, ASK_STAGES, EMBED, PARAMETRIC, SHOWN_AS
from conflictdesk.types import Passage
from tests.fakes import fake_backends

ROOT = Path(__file__).resolve().parents[2]
NAMES = set(ANALYSIS_STAGES) | set(ASK_STAGES)
# ConflictScore's own steps, which can also use the GGUF (not stages of `ask`).
SCORING_STEPS = {"decompose", "label", "regenerate"}


def test_the_pipeline_emits_the_stages_in_their_defined_order():
    passages = [Passage(1, "Velsarin is dosed at 250 mg."), Passage(2, "It is dosed at 400 mg.")]
    events: list[str] = []
    analyze("What is the dose of velsarin?", passages, fake_backends(),
            on_event=lambda stage, _: events.append(stage))  # fmt: skip
    assert events == [EMBED, *ANALYSIS_STAGES]


def test_every_analysis_stage_is_shown_and_every_llm_stage_exists():
    assert set(SHOWN_AS) == set(ANALYSIS_STAGES)
    assert {shown for shown, _ in SHOWN_AS.values()} <= set(ASK_STAGES)
    assert set(LLM_STAGES) <= set(ANALYSIS_STAGES) | {ANSWER, PARAMETRIC} | SCORING_STEPS


def stage_lists(path: Path) -> list[int]:
    """Lines of tuple, list or set literals naming three or more stages."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            names = {e.value for e in node.elts if isinstance(e, ast.Constant)}
            if len(names & NAMES) >= 3:
                found.append(node.lineno)
    return found


def test_no_module_but_stages_lists_the_stage_names():
    folders = [ROOT / "conflictdesk", ROOT / "tui", ROOT / "store"]
    found = {str(p.relative_to(ROOT)): lines for folder in folders
             for p in sorted(folder.rglob("*.py")) if (lines := stage_lists(p))}  # fmt: skip
    assert found == {"conflictdesk/stages.py": found.get("conflictdesk/stages.py")}
    assert found["conflictdesk/stages.py"]


def test_the_check_finds_a_second_list(tmp_path):
    path = tmp_path / "copy.py"
    path.write_text('STAGES = ["retrieval", "tagging", "clusters", "answer"]\n', encoding="utf-8")
    assert stage_lists(path) == [1]
