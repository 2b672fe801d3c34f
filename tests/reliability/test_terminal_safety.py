"""Documents cannot drive the terminal: every string from a document, a model or a collection
name reaches the CLI's human output and every TUI widget with its control characters shown
as visible escapes; `--json` keeps the exact text."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from typing import Any

import pytest
from textual.widgets import DataTable, OptionList, Select

from conflictdesk.terminal import safe, safe_line
from conflictdesk.tui.app import ConflictDeskApp
from tests.tui.fake_desk import FakeDesk

# Retitle the terminal, clear the screen, plant an OSC 8 link, a C1 CSI, a bidi override.
EVIL = "\x1b]0;pwned\x07\x1b[2J\x1b]8;;file:///etc/passwd\x1b\\link\x1b]8;;\x1b\\\x9b31m\u202e"
RAW = ("\x1b", "\x07", "\x9b", "\u202e")


def assert_inert(text: str) -> None:
    assert not any(char in text for char in RAW), repr(text[:200])


def test_safe_shows_control_characters_and_keeps_layout():
    assert safe("a\x1b[2Jb") == "a\\x1b[2Jb"
    assert safe("line one\n\tline two\r") == "line one\n\tline two\\r"
    assert safe_line("title\nwith break\t") == "title\\nwith break\\t"
    assert safe("\x9b\x7f\u202e\udc80") == "\\x9b\\x7f\\u202e\\udc80"
    assert (
        safe("[b]markup[/b] stays literal, ünïcode too")
        == "[b]markup[/b] stays literal, ünïcode too"
    )
    assert_inert(safe(EVIL)) and assert_inert(safe_line(EVIL))


# ---- CLI -----------------------------------------------------------------------------------


@pytest.fixture
def hostile_db(cli, tmp_path) -> str:
    db = str(tmp_path / "cd.db")
    folder = tmp_path / f"docs{EVIL[:5]}"
    folder.mkdir()
    (folder / "a.md").write_text(
        f"---\ntitle: Harbour {EVIL}\n---\nThe ferry started in 1911. {EVIL}\n"
    )
    (folder / f"b{EVIL[:9]}.txt").write_text(f"The ferry started in 1921. {EVIL}\n")
    (folder / "c.json").write_text("[" * 200 + "]" * 200)  # fails: its path is in the message
    result = cli("ingest", str(folder), "-c", f"harbour{EVIL}", "--no-embed", "--db", db)
    assert result.code == 1
    assert_inert(result.out + result.err)
    return db


def test_cli_human_output_is_inert(cli, fake_models, hostile_db):
    name = f"harbour{EVIL}"
    outputs = [
        cli("search", "ferry", "-c", name, "--lexical-only", "--db", hostile_db),
        cli("collections", "--db", hostile_db),
        cli("ask", "When did the ferry start?", "-c", name, "--db", hostile_db),
        cli("search", "ferry", "-c", f"missing{EVIL}", "--lexical-only", "--db", hostile_db),
    ]
    assert [r.code for r in outputs] == [0, 0, 0, 1]
    for result in outputs:
        assert_inert(result.out + result.err)
    assert "\\x1b]0;pwned\\x07" in outputs[0].out  # shown, not obeyed
    assert "harbour\\x1b]0;pwned" in outputs[1].out


def test_json_output_keeps_the_exact_text(cli, hostile_db):
    result = cli("search", "ferry", "-c", f"harbour{EVIL}", "--lexical-only", "--json",
                 "--db", hostile_db)  # fmt: skip
    assert result.code == 0
    assert "\x1b" not in result.out  # JSON escapes it …
    record = json.loads(result.out)
    assert record["collection"] == f"harbour{EVIL}"  # … and decodes to the exact text
    assert any(EVIL in r["text"] for r in record["results"])


# ---- TUI -----------------------------------------------------------------------------------

FREE_TEXT = {"title", "text", "key_sentence", "sent", "conflict", "rationale", "method",
             "source", "date", "generation", "name", "summary", "detail", "response", "device",
             "llm", "created"}  # fmt: skip


def poison(value: Any) -> Any:
    """`value` with EVIL inside every free-text field (ids and labels left as they are): the
    fields of the typed views and wire types, and the keys of plain dicts."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = [f.name for f in dataclasses.fields(value) if f.init]
        return dataclasses.replace(
            value, **{n: _poison_field(n, getattr(value, n)) for n in fields}
        )
    if isinstance(value, dict):
        return {k: _poison_field(k, v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(poison(v) for v in value)
    return value


def _poison_field(name: Any, value: Any) -> Any:
    return f"{value}{EVIL}" if name in FREE_TEXT and isinstance(value, str) else poison(value)


class HostileDesk(FakeDesk):
    """The fake desk, every text it hands the TUI carrying escape sequences."""

    def collections(self):
        return poison(super().collections())

    def documents(self, collection):
        return poison(super().documents("vitamin-d"))

    def passages(self, document_id):
        return poison(super().passages(document_id))

    def history(self, limit=100):
        return poison(super().history(limit))

    def run(self, run_id):
        return poison(super().run(run_id))

    def ask(self, query, collection, on_event, cancel):
        forward = lambda stage, view: on_event(stage, poison(view))
        run_id, view = super().ask(query, collection, forward, cancel)
        return run_id, poison(view)

    def score(self, response, documents, cancel):
        run_id, result = super().score(response, documents, cancel)
        return run_id, poison(result)

    def models(self, verify=False):
        return poison(super().models(verify))


def widget_texts(screen) -> list[str]:
    """Everything the screen's widgets were given to draw: renders, options, cells, titles."""
    texts: list[str] = []
    for widget in screen.query("*"):
        texts += [str(widget.border_title or ""), str(widget.border_subtitle or "")]
        if isinstance(widget, OptionList):
            texts += [str(option.prompt) for option in widget.options]
        elif isinstance(widget, DataTable):
            texts += [
                str(cell) for row in range(widget.row_count) for cell in widget.get_row_at(row)
            ]
        elif isinstance(widget, Select):
            texts += [str(prompt) for prompt, _ in widget._options]
        elif hasattr(widget, "render") and widget.__class__.__name__ in (
            "Static",
            "Label",
            "_AnswerText",
            "ConflictBadge",
        ):
            texts.append(str(widget.render()))
    return texts


async def _visit_every_screen() -> dict[str, str]:
    app = ConflictDeskApp(engine=HostileDesk(), cursor_blink=False)
    seen: dict[str, str] = {}
    async with app.run_test(size=(120, 36)) as pilot:
        for key, mode in (
            ("f1", "collections"),
            ("f4", "history"),
            ("f5", "models"),
            ("f2", "ask"),
        ):
            await pilot.press(key)
            await pilot.app.workers.wait_for_complete()
            await pilot.pause()
            if mode == "ask":
                await pilot.press(*"How much?", "enter")
                await pilot.app.workers.wait_for_complete()
                await pilot.pause()
                await pilot.pause()
            seen[mode] = "\n".join(widget_texts(pilot.app.screen))
            seen[mode + "-screenshot"] = pilot.app.export_screenshot()
        await pilot.press("f4")
        await pilot.pause()
        await pilot.press("down", "enter")  # reopen run 2, a score, on the Score screen
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        assert pilot.app.screen.query("ClaimGrid")
        seen["score"] = "\n".join(widget_texts(pilot.app.screen))
        seen["score-screenshot"] = pilot.app.export_screenshot()
    return seen


def test_every_tui_screen_shows_escapes_instead_of_obeying_them():
    seen = asyncio.run(_visit_every_screen())
    for name, text in seen.items():
        assert_inert(text)
    for name in ("collections", "history", "models", "ask", "score"):
        assert "\\x1b]0;pwned" in seen[name], name  # the hostile text did reach the widgets
