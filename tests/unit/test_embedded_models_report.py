"""docs/model_report.md's Markdown from a hand-made figures dict (no model, no data)."""

from __future__ import annotations

from conflictdesk.evaluation import embedded_models_report as report
from conflictdesk.evaluation.embedded_models import HANDCHECK

CLAIM_KEYS = ("macro_f1", "acc", "conflict_f1", "claim_match_macro_f1", "claim_match_conflict_f1",
              "match_macro_f1", "match_acc", "match_conflict_f1", "majority_macro_f1",
              "majority_acc")  # fmt: skip


def _figures(limit: int) -> dict:
    claims = {key: 0.25 for key in CLAIM_KEYS}
    noise = {"rule_variant_agreement": 0.9, "conflict_pairs": 10, "indomain_agreement": 0.8,
             "indomain_pairs": 5, "handcheck": HANDCHECK}  # fmt: skip
    return {
        "command": "scripts/eval_models.py", "date": "2026-11-24 01:00", "temperature": 1.3,
        "limit": limit, "notes": ["trained on the pool"],
        "nli": [{"set": "fever_symmetric/dev", "n": 3, "acc": 0.5, "acc_2way": 0.625,
                 "majority": 0.3, "reference": None}],
        "claims": [{**claims, "set": "QACC dev (held out)", "n": 4, "confusion": {"S->C": 1}}],
        "pairs": {}, "type_noise": noise,
        "speed": [{"what": "SNLI dev", "threads": 2, "pairs_per_s": 123.45, "reference": 474}],
    }  # fmt: skip


def test_markdown_has_every_section_in_order(monkeypatch):
    monkeypatch.setattr(report.pair_report, "markdown", lambda *a, **k: ["## Pair detector"])
    text = report.markdown(_figures(limit=0))
    headings = [line for line in text.splitlines() if line.startswith("## ")]
    claims = "## Claim × document relations (SUPPORTS / CONTRADICTS / IRRELEVANT)"
    assert headings == ["## NLI accuracy", claims, "## Pair detector",
                        "## Speed (CTranslate2 int8, CPU)", "## Notes"]  # fmt: skip
    assert "| fever_symmetric/dev | 3 | 0.500 (2-way 0.625) | 0.300 | – |" in text
    assert "| SNLI dev | 2 | 123.5 | 474 |" in text
    assert "agreed with the rule's type on 32/40" in text
    assert "Smoke run" not in text


def test_a_smoke_run_says_so(monkeypatch, tmp_path):
    monkeypatch.setattr(report.pair_report, "markdown", lambda *a, **k: [])
    path = tmp_path / "model_report.md"
    report.write_report(_figures(limit=300), path)
    assert "**Smoke run: NLI sets sampled to 300 rows" in path.read_text("utf-8")


def test_rewriting_keeps_the_sections_other_commands_wrote(monkeypatch, tmp_path):
    monkeypatch.setattr(report.pair_report, "markdown", lambda *a, **k: [])
    path = tmp_path / "model_report.md"
    old = ("# Old title\n\nold intro\n\n## NLI accuracy\n\nold table\n\n"
           "## MPNet tier\n\nrun record\n\n## CONFLICTS type model\n\ntype record\n")  # fmt: skip
    path.write_text(old, "utf-8")
    report.write_report(_figures(limit=0), path)
    text = path.read_text("utf-8")
    assert "old table" not in text and "old intro" not in text
    assert text.count("## NLI accuracy") == 1
    assert text.index("## Speed") < text.index("## MPNet tier") < text.index("## CONFLICTS type")
    assert text.endswith("## CONFLICTS type model\n\ntype record\n")
