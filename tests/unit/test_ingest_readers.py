"""Each input format, each bad-input case, dates and front matter."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conflictdesk.errors import InputError
from conflictdesk.ingest import discover, normalise_date, read_file
from conflictdesk.ingest.readers import html_to_text, parse_front_matter


def minimal_pdf(text: str, title: str = "A PDF", date: str = "D:20230405120000") -> bytes:
    """A one-page PDF with one line of Helvetica text and an info dictionary."""
    stream = f"BT /F1 12 Tf 72 720 Td ({text}) Tj ET".encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        (b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
        b"/Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>"),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream",
        f"<< /Title ({title}) /CreationDate ({date}) >>".encode(),
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for i, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % i + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for off in offsets:
        out += b"%010d 00000 n \n" % off
    out += b"trailer\n<< /Size %d /Root 1 0 R /Info 6 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1, xref)
    return bytes(out)


def write(tmp_path: Path, name: str, content: str | bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
    return path


def test_txt(tmp_path):
    r = read_file(write(tmp_path, "a.txt", "First paragraph.\r\n\r\n\r\n\r\nSecond one.  \n"))
    (doc,) = r.documents
    assert doc.text == "First paragraph.\n\nSecond one."
    assert doc.source.endswith("a.txt") and doc.date is None


def test_markdown_front_matter(tmp_path):
    text = "---\ntitle: \"Dosing note\"\ndate: 2022-10-15\nauthor: K. Pharma\n---\n# Heading\n\nBody text."
    (doc,) = read_file(write(tmp_path, "n.md", text)).documents
    assert doc.title == "Dosing note"
    assert doc.date == "2022-10-15"
    assert doc.metadata == {"author": "K. Pharma"}
    assert doc.text.startswith("# Heading") and "title:" not in doc.text


def test_markdown_title_from_heading_and_unparsed_date_kept(tmp_path):
    (doc,) = read_file(write(tmp_path, "n.md", "---\ndate: someday\n---\n# The Title\n\nx")).documents
    assert doc.title == "The Title"
    assert doc.date is None and doc.metadata["date_raw"] == "someday"


def test_front_matter_only_at_top():
    fields, body = parse_front_matter("text\n---\ntitle: no\n---\n")
    assert fields == {} and body.startswith("text")


def test_html_drops_script_style_and_reads_meta(tmp_path):
    html = """<html><head><title>T  x</title><meta name="date" content="March 4, 2021">
    <style>p{color:red}</style><script>var secret = 1;</script></head>
    <body><p>Hello &amp; welcome.</p><div>Second<br>line</div><script>evil()</script></body></html>"""
    (doc,) = read_file(write(tmp_path, "p.html", html)).documents
    assert doc.title == "T x"
    assert doc.date == "2021-03-04"
    assert "secret" not in doc.text and "evil" not in doc.text and "color" not in doc.text
    assert doc.text.split("\n\n") == ["Hello & welcome.", "Second", "line"]


def test_html_time_element_date():
    text, title, _meta, time_dt = html_to_text('<p>x <time datetime="2020-01-02">then</time></p>')
    assert time_dt == "2020-01-02" and title is None and "then" in text


def test_json_object_list_and_documents_key(tmp_path):
    obj = {"text": "One.", "title": "T", "date": "2024-01-22", "url": "https://x", "tags": ["a"]}
    (doc,) = read_file(write(tmp_path, "o.json", json.dumps(obj))).documents
    assert (doc.title, doc.date, doc.url, doc.metadata) == ("T", "2024-01-22", "https://x", {"tags": ["a"]})
    r = read_file(write(tmp_path, "l.json", json.dumps([{"text": "a"}, "b", {"title": "no text"}])))
    assert [d.text for d in r.documents] == ["a", "b"]
    assert r.errors == ["record 3: record without text"]
    r = read_file(write(tmp_path, "d.json", json.dumps({"documents": [{"text": "z"}]})))
    assert [d.text for d in r.documents] == ["z"]


def test_jsonl_bad_lines_reported_others_kept(tmp_path):
    lines = '{"text": "good one", "source": "S"}\n\n{broken\n{"title": "x"}\n{"text": "good two"}\n'
    r = read_file(write(tmp_path, "r.jsonl", lines))
    assert [d.text for d in r.documents] == ["good one", "good two"]
    assert r.documents[0].source == "S"
    assert r.documents[1].source.endswith("r.jsonl#line 5")
    assert r.errors[0].startswith("line 3: invalid JSON")
    assert r.errors[1] == "line 4: record without text"


def test_csv(tmp_path):
    csv_text = 'Title,Date,TEXT,extra\nA,2020-07-01,"Para one, with comma.",e1\nB,,,e2\n'
    r = read_file(write(tmp_path, "t.csv", csv_text))
    (doc,) = r.documents
    assert (doc.title, doc.date, doc.text, doc.metadata) == ("A", "2020-07-01", "Para one, with comma.", {"extra": "e1"})
    assert r.errors == ["row 3: record without text"]


def test_csv_without_text_column(tmp_path):
    with pytest.raises(InputError, match="no 'text' column"):
        read_file(write(tmp_path, "t.csv", "title,body\na,b\n"))


def test_pdf_text_title_and_date(tmp_path):
    (doc,) = read_file(write(tmp_path, "d.pdf", minimal_pdf("Velsarin dose is 250 mg"))).documents
    assert "Velsarin dose is 250 mg" in doc.text
    assert doc.title == "A PDF" and doc.date == "2023-04-05"
    assert doc.metadata["pages"] == 1


@pytest.mark.parametrize(
    ("name", "content", "reason"),
    [
        ("bin.txt", b"abc\x00\x01\x02def", "binary file"),
        ("empty.txt", b"", "empty file"),
        ("blank.md", b"  \n\n \t\n", "empty file"),
        ("latin.txt", "caf\u00e9".encode("latin-1"), "not valid UTF-8 (byte 0xe9 at offset 3)"),
        ("bad.pdf", b"%PDF-1.4\nthis is not really a pdf", "corrupt PDF"),
        ("nopdf.pdf", b"hello", "corrupt PDF: no %PDF header"),
        ("bad.json", b"{nope", "invalid JSON"),
        ("only_front.md", b"---\ntitle: x\n---\n", "no text after the front matter"),
        ("empty.html", b"<html><script>x()</script></html>", "no visible text"),
        ("nothing.json", b"[]", "empty JSON list"),
    ],
)
def test_bad_inputs_raise_one_clear_reason(tmp_path, name, content, reason):
    with pytest.raises(InputError) as info:
        read_file(write(tmp_path, name, content))
    assert reason in str(info.value)
    assert "\n" not in str(info.value)


def test_size_limit(tmp_path):
    path = write(tmp_path, "big.txt", "word " * 1000)
    with pytest.raises(InputError, match="over the"):
        read_file(path, max_bytes=100)
    assert read_file(path, max_bytes=10_000).documents


def test_discover_walks_folders_and_flags_named_problems(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / ".hidden").mkdir()
    write(tmp_path, "sub/a.md", "x")
    write(tmp_path, "b.TXT", "x")
    write(tmp_path, "c.png", b"\x89PNG")
    write(tmp_path, ".hidden/d.txt", "x")
    found = list(discover([tmp_path, tmp_path / "c.png", tmp_path / "missing.txt"]))
    assert [(p.name, why) for p, why in found] == [
        ("b.TXT", None),
        ("a.md", None),
        ("c.png", "unsupported file type '.png'"),
        ("missing.txt", "no such file or folder"),
    ]


@pytest.mark.parametrize(
    ("raw", "iso"),
    [("2021-03-04", "2021-03-04"), ("2021/3/4", "2021-03-04"), ("2021-03", "2021-03"),
     ("2021", "2021"), (2019, "2019"), ("2021-03-04T10:00:00Z", "2021-03-04"),
     ("D:20230405120000+01'00'", "2023-04-05"), ("4 March 2021", "2021-03-04"),
     ("Sept 2020", "2020-09"), ("March 4th, 2021", "2021-03-04"), ("2021-02-30", None),
     ("soon", None), ("", None), (None, None), (True, None)],
)
def test_normalise_date(raw, iso):
    assert normalise_date(raw) == iso
