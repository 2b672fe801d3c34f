"""Collections: counts, browsing documents and passages, importing with progress and cancel."""

from __future__ import annotations

import threading

from textual.widgets import DataTable, OptionList, ProgressBar, RichLog

from conflictdesk.tui.screens.document import DocumentScreen
from conflictdesk.tui.screens.import_dialog import ImportDialog
from tests.tui.conftest import settle, wait_until


async def open_collections(pilot):
    await settle(pilot)
    await pilot.press("f1")
    await settle(pilot)
    return pilot.app.screen


async def test_lists_collections_with_counts_and_their_documents(make_app):
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_collections(pilot)
        table = screen.query_one("#collections-table", DataTable)
        assert table.get_row("vitamin-d") == ["vitamin-d", 3, 5]
        assert table.get_row("empty") == ["empty", 0, 0]
        documents = screen.query_one("#documents-table", DataTable)
        assert documents.row_count == 3
        passages = screen.query_one("#passages-list", OptionList)
        assert passages.option_count == 2  # the first document's passages


async def test_moving_to_another_collection_and_document_updates_the_lists(make_app):
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_collections(pilot)
        await pilot.press("down")  # collection "empty"
        await pilot.pause()
        assert screen.query_one("#documents-table", DataTable).row_count == 0
        await pilot.press("up", "enter")  # back to vitamin-d, focus its documents
        await pilot.pause()
        await pilot.press("down", "down")  # third document: one passage
        await pilot.pause()
        assert screen.query_one("#passages-list", OptionList).option_count == 1


async def test_selecting_a_passage_shows_it_in_its_document(make_app):
    async with make_app().run_test(size=(100, 30)) as pilot:
        screen = await open_collections(pilot)
        await pilot.press("enter", "enter")  # collection -> documents -> passages
        await pilot.press("down", "enter")  # second passage of the first document
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, DocumentScreen))
        await pilot.pause()
        chosen = pilot.app.screen.query(".doc-passage.-chosen")
        assert len(chosen) == 1
        assert "4000 IU" in str(chosen.first().render())
        assert len(pilot.app.screen.query(".doc-passage")) == 2
        await pilot.press("escape")
        assert pilot.app.screen is screen


def _folder(tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    for name in ("a.txt", "b.bin", "c.md"):
        (folder / name).write_text("text", encoding="utf-8")
    return folder


async def test_import_shows_progress_per_file_errors_and_refreshes(make_app, desk, tmp_path):
    folder = _folder(tmp_path)
    async with make_app().run_test(size=(100, 30)) as pilot:
        screen = await open_collections(pilot)
        await pilot.press("i")
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, ImportDialog))
        dialog = pilot.app.screen
        await pilot.press(*str(folder), "enter")
        await settle(pilot)
        progress = dialog.query_one("#import-progress", ProgressBar)
        assert (progress.total, progress.progress) == (3, 3)
        lines = dialog.query_one("#import-log", RichLog).lines
        log = " ".join(" ".join(line.text for line in lines).split())
        assert "b.bin: unsupported file type .bin" in log
        assert "2 added" in str(dialog.query_one("#import-status").render())
        assert ("ingest", ([str(folder)], "vitamin-d")) in desk.calls
        await pilot.press("escape")
        await settle(pilot)
        assert pilot.app.screen is screen
        assert desk.calls.count(("collections", None)) >= 2  # refreshed after the import


async def test_import_rejects_a_missing_path_without_running(make_app, desk, tmp_path):
    async with make_app().run_test(size=(100, 30)) as pilot:
        await open_collections(pilot)
        await pilot.press("i")
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, ImportDialog))
        await pilot.press(*str(tmp_path / "nope"), "enter")
        await pilot.pause()
        assert "not found" in str(pilot.app.screen.query_one("#import-status").render())
        assert not [call for call in desk.calls if call[0] == "ingest"]


async def test_cancelling_an_import_keeps_the_files_already_done(make_app, desk, tmp_path):
    folder = _folder(tmp_path)
    desk.gate = threading.Event()  # hold the import after its first file
    async with make_app().run_test(size=(100, 30)) as pilot:
        await open_collections(pilot)
        await pilot.press("i")
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, ImportDialog))
        dialog = pilot.app.screen
        await pilot.press(*str(folder), "enter")
        await wait_until(pilot, lambda: dialog.query_one("#import-progress").progress == 1)
        await pilot.press("escape")  # cancels; does not close while running
        await settle(pilot)
        assert pilot.app.screen is dialog
        assert dialog.summary.cancelled is True and dialog.summary.added == 1
        assert "Cancelled; kept 1 added" in str(dialog.query_one("#import-status").render())


async def test_an_import_failure_is_shown(make_app, desk, tmp_path):
    desk.fail["ingest"] = PermissionError("database is read-only")
    async with make_app().run_test(size=(100, 30)) as pilot:
        await open_collections(pilot)
        await pilot.press("i")
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, ImportDialog))
        await pilot.press(*str(_folder(tmp_path)), "enter")
        await settle(pilot)
        status = str(pilot.app.screen.query_one("#import-status").render())
        assert "import failed: PermissionError: database is read-only" in status
