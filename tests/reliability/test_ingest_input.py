"""Hostile files fail alone: the rest of an ingest goes on, every failure is named, exit 1."""

from __future__ import annotations

import json
import os

from conflictdesk.store import Store


def ingest(cli, tmp_path, *paths):
    return cli("ingest", *map(str, paths), "-c", "docs", "--no-embed", "--json",
               "--db", str(tmp_path / "cd.db"))  # fmt: skip


def stored_titles(tmp_path) -> list[str]:
    with Store.open(tmp_path / "cd.db") as store:
        return sorted(d["title"] or d["source"] for d in store.documents("docs"))


def test_deeply_nested_json_fails_that_file_and_the_others_are_ingested(cli, tmp_path):
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "deep.json").write_text("[" * 10_000 + "]" * 10_000)
    (folder / "deep2.jsonl").write_text('{"text": "x", "meta": ' + "[" * 500 + "]" * 500 + "}\n")
    (folder / "good.md").write_text("---\ntitle: Good\n---\nThe harbour ferry started in 1911.\n")
    result = ingest(cli, tmp_path, folder)
    assert result.code == 1
    report = json.loads(result.out)
    assert report["documents_added"] == 1
    failed = {os.path.basename(f["path"]): f["reason"] for f in report["failures"]}
    assert "nested" in failed["deep.json"] and "nested" in failed["deep2.jsonl"]
    assert stored_titles(tmp_path) == ["Good"]


def test_utf16_with_a_bom_is_read_as_text(cli, tmp_path):
    texts = {"le.txt": "Mount Ysolde is 4,810 m tall — café.", "be.md": "The ferry left at 9."}
    (tmp_path / "le.txt").write_bytes(texts["le.txt"].encode("utf-16"))  # BOM + little-endian
    (tmp_path / "be.md").write_bytes(("\ufeff" + texts["be.md"]).encode("utf-16-be"))
    result = ingest(cli, tmp_path, tmp_path / "le.txt", tmp_path / "be.md")
    assert result.code == 0, result.err
    with Store.open(tmp_path / "cd.db") as store:
        stored = sorted(p.text for p in store.collection_passages("docs"))
    assert stored == sorted(texts.values())


def test_an_unreadable_subfolder_is_reported_and_exits_1(cli, tmp_path, monkeypatch):
    folder = tmp_path / "in"
    (folder / "locked").mkdir(parents=True)
    (folder / "locked" / "hidden.txt").write_text("Never read.")
    (folder / "open.txt").write_text("The ferry started in 1911.")
    real_scandir = os.scandir

    def scandir(path="."):
        if os.fspath(path).endswith("locked"):  # root reads anything: simulate chmod 000
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    result = ingest(cli, tmp_path, folder)
    assert result.code == 1
    report = json.loads(result.out)
    assert report["documents_added"] == 1
    assert report["failures"] == [
        {"path": str(folder / "locked"), "reason": "cannot read folder: Permission denied"}
    ]
    assert "locked: cannot read folder" in result.err


def test_a_broken_pdf_prints_no_stray_parser_line(cli, tmp_path):
    (tmp_path / "bad.pdf").write_bytes(b"%PDF-1.4\n1 0 obj <<>> endobj\n")
    result = ingest(cli, tmp_path, tmp_path / "bad.pdf")
    assert result.code == 1
    lines = result.err.strip().splitlines()
    assert lines and all(line.startswith("conflictdesk: ") for line in lines), result.err
    assert "EOF marker not found" in result.err  # kept, inside the prefixed message
