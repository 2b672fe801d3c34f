"""One reader per input format: a file in, its documents out (or one clear reason why not).

A whole-file problem (binary, empty, undecodable, corrupt PDF, too large, unsupported)
raises InputError; a bad record inside a JSON/JSONL/CSV file is reported in
`FileResult.errors` and the file's other records still count."""

from __future__ import annotations

import csv
import io
import os
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from conflictdesk.errors import InputError
from conflictdesk.ingest.dates import normalise_date
from conflictdesk.ingest.decoding import decode_text, load_json
from conflictdesk.ingest.pdf import pdf_to_text

DEFAULT_MAX_BYTES = 20 * 1024 * 1024
SUPPORTED_SUFFIXES = (
    ".txt",
    ".md",
    ".markdown",
    ".html",
    ".htm",
    ".json",
    ".jsonl",
    ".csv",
    ".pdf",
)
_KNOWN_FIELDS = ("text", "title", "date", "source", "url")


@dataclass(frozen=True)
class SourceDocument:
    """A document read from a file, before chunking; `metadata` keeps every other field."""

    text: str
    title: str | None = None
    date: str | None = None  # ISO 8601 when the file gives a recognisable date
    source: str | None = None
    url: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)


@dataclass
class FileResult:
    path: Path
    documents: list[SourceDocument]
    errors: list[str]  # per-record problems, e.g. "line 3: record without text"


def discover(paths: Iterable[Path]) -> Iterator[tuple[Path, str | None]]:
    """Files to ingest under `paths` (folders recursively, sorted, hidden entries skipped).

    Yields (path, None) for files to read and (path, reason) for paths that cannot be:
    a named path that does not exist, a named file with an unsupported suffix, or a folder
    that cannot be listed. Files of other types found inside folders are skipped silently
    (folders hold all sorts)."""
    for path in paths:
        if not path.exists():
            yield path, "no such file or folder"
        elif path.is_dir():
            yield from _walk(path)
        elif path.suffix.lower() not in SUPPORTED_SUFFIXES:
            yield path, f"unsupported file type {path.suffix or '(none)'!r}"
        else:
            yield path, None


def _walk(folder: Path) -> Iterator[tuple[Path, str | None]]:
    """Supported files under `folder` in sorted order, then each unreadable sub-folder."""
    unreadable: list[tuple[Path, str | None]] = []

    def failed(exc: OSError) -> None:
        unreadable.append((Path(exc.filename or folder), f"cannot read folder: {exc.strerror}"))

    found: list[Path] = []
    for root, dirs, files in os.walk(folder, onerror=failed):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        for name in files:
            child = Path(root) / name
            wanted = not name.startswith(".") and child.suffix.lower() in SUPPORTED_SUFFIXES
            if wanted and child.is_file():
                found.append(child)
    yield from ((child, None) for child in sorted(found))
    yield from sorted(unreadable)


def read_file(path: Path, max_bytes: int = DEFAULT_MAX_BYTES) -> FileResult:
    """Read one file into documents; raises InputError when nothing in it can be used."""
    suffix = path.suffix.lower()
    reader = _READERS.get(suffix)
    if reader is None:
        raise InputError(f"unsupported file type {suffix or '(none)'!r}")
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror}") from exc
    if size > max_bytes:
        raise InputError(
            f"file is {size / 2**20:.1f} MiB, over the {max_bytes / 2**20:.1f} MiB limit"
        )
    if size == 0:
        raise InputError("empty file")
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror}") from exc
    return read_data(path, data)


def read_data(path: Path, data: bytes) -> FileResult:
    """The documents in `data`, read as the file `path` (its suffix picks the reader)."""
    reader = _READERS.get(path.suffix.lower())
    if reader is None:
        raise InputError(f"unsupported file type {path.suffix or '(none)'!r}")
    result = reader(path, data)
    if not result.documents and not result.errors:
        raise InputError("no text found")
    return result


# ---- text decoding -----------------------------------------------------------------------


def _decode(data: bytes) -> str:
    return decode_text(data)


def _clean(text: str) -> str:
    """Trim trailing spaces on lines and collapse runs of 3+ newlines."""
    text = re.sub(r"[ \t]+\n", "\n", text)
    return re.sub(r"\n{3,}", "\n\n", text).strip()


def _single(path: Path, doc: SourceDocument) -> FileResult:
    if not doc.text.strip():
        raise InputError("no text found")
    return FileResult(path, [doc], [])


# ---- .txt / .md --------------------------------------------------------------------------


def _read_txt(path: Path, data: bytes) -> FileResult:
    return _single(path, SourceDocument(text=_clean(_decode(data)), source=str(path)))


_FRONT = re.compile(r"\A---[ \t]*\n(.*?)\n(?:---|\.\.\.)[ \t]*(?:\n|\Z)", re.DOTALL)
_KEY = re.compile(r"^([A-Za-z_][\w-]*)\s*:\s*(.*)$")
_HEADING = re.compile(r"^#\s+(.+?)\s*#*\s*$", re.MULTILINE)


def parse_front_matter(text: str) -> tuple[dict[str, str], str]:
    """`key: value` lines between `---` fences at the top (a YAML subset: scalars only;
    quotes stripped, nested or list values kept as their raw text). Returns (fields, body)."""
    m = _FRONT.match(text)
    if not m:
        return {}, text
    fields: dict[str, str] = {}
    for line in m.group(1).splitlines():
        km = _KEY.match(line.strip())
        if km and not line.startswith((" ", "\t")):
            value = km.group(2).strip()
            if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
                value = value[1:-1]
            fields[km.group(1).lower()] = value
    return fields, text[m.end() :]


def _read_md(path: Path, data: bytes) -> FileResult:
    fields, body = parse_front_matter(_decode(data))
    body = _clean(body)
    if not body:
        raise InputError("no text after the front matter")
    title = fields.pop("title", None) or None
    if title is None and (hm := _HEADING.search(body)):
        title = hm.group(1)
    raw_date = fields.pop("date", None)
    date = normalise_date(raw_date)
    meta: dict[str, Any] = dict(fields)
    if raw_date and date is None:
        meta["date_raw"] = raw_date
    return _single(
        path,
        SourceDocument(
            text=body,
            title=title,
            date=date,
            source=meta.pop("source", None) or str(path),
            url=meta.pop("url", None),
            metadata=meta,
        ),
    )


# ---- .html -------------------------------------------------------------------------------

_SKIP = {"script", "style", "noscript", "template", "svg", "head"}
_BLOCK = {
    "p",
    "div",
    "br",
    "li",
    "ul",
    "ol",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "tr",
    "table",
    "section",
    "article",
    "header",
    "footer",
    "blockquote",
    "pre",
    "hr",
    "dd",
    "dt",
    "figcaption",
    "main",
    "aside",
    "nav",
}
_DATE_META = (
    "date",
    "dc.date",
    "article:published_time",
    "pubdate",
    "publish-date",
    "dcterms.date",
    "citation_publication_date",
    "last-modified",
)


class _TextExtractor(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.skip_depth = 0
        self.in_title = False
        self.title = ""
        self.meta: dict[str, str] = {}
        self.time_datetime: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attr = {k.lower(): (v or "") for k, v in attrs}
        if tag == "title":
            self.in_title = True
        elif tag == "meta":
            key = (attr.get("name") or attr.get("property") or "").lower()
            if key and "content" in attr:
                self.meta[key] = attr["content"]
        elif tag == "time" and self.time_datetime is None and attr.get("datetime"):
            self.time_datetime = attr["datetime"]
        if tag in _SKIP:
            self.skip_depth += 1
        elif tag in _BLOCK:
            self.parts.append("\n\n")

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("meta", "time"):
            self.handle_starttag(tag, attrs)
        elif tag in _BLOCK:
            self.parts.append("\n\n")

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self.in_title = False
        if tag in _SKIP:
            self.skip_depth = max(self.skip_depth - 1, 0)
        elif tag in _BLOCK:
            self.parts.append("\n\n")

    def handle_data(self, data: str) -> None:
        if self.in_title:
            self.title += data
        elif not self.skip_depth:
            self.parts.append(data)


def html_to_text(html: str) -> tuple[str, str | None, dict[str, str], str | None]:
    """(text, title, meta tags, first <time datetime>) of an HTML page, scripts and styles dropped."""
    parser = _TextExtractor()
    parser.feed(html)
    parser.close()
    raw = "".join(parser.parts)
    paragraphs = [re.sub(r"\s+", " ", p).strip() for p in re.split(r"\n\s*\n", raw)]
    text = "\n\n".join(p for p in paragraphs if p)
    title = re.sub(r"\s+", " ", parser.title).strip() or None
    return text, title, parser.meta, parser.time_datetime


def _read_html(path: Path, data: bytes) -> FileResult:
    text, title, meta, time_dt = html_to_text(_decode(data))
    if not text:
        raise InputError("no visible text in the HTML")
    raw_date = next((meta[k] for k in _DATE_META if k in meta), None) or time_dt
    extra: dict[str, Any] = {}
    if meta.get("author"):
        extra["author"] = meta["author"]
    if raw_date and normalise_date(raw_date) is None:
        extra["date_raw"] = raw_date
    return _single(
        path,
        SourceDocument(
            text=text,
            title=title,
            date=normalise_date(raw_date),
            source=str(path),
            url=meta.get("og:url"),
            metadata=extra,
        ),
    )


# ---- records: .json / .jsonl / .csv --------------------------------------------------------


def record_to_document(record: Any, default_source: str) -> SourceDocument:
    """A JSON/CSV record → SourceDocument; raises InputError for a record without text."""
    if isinstance(record, str):
        record = {"text": record}
    if not isinstance(record, dict):
        raise InputError(f"a record must be an object or a string, not {type(record).__name__}")
    lowered = {str(k).lower(): v for k, v in record.items()}
    text = lowered.get("text")
    if not isinstance(text, str) or not text.strip():
        raise InputError("record without text")
    raw_date = lowered.get("date")
    date = normalise_date(raw_date)
    meta = {k: v for k, v in lowered.items() if k not in _KNOWN_FIELDS and v not in (None, "")}
    if raw_date not in (None, "") and date is None:
        meta["date_raw"] = raw_date
    opt = lambda key: None if lowered.get(key) in (None, "") else str(lowered[key])
    return SourceDocument(
        text=_clean(text.replace("\r\n", "\n")),
        title=opt("title"),
        date=date,
        source=opt("source") or default_source,
        url=opt("url"),
        metadata=meta,
    )


def _collect(path: Path, records: Iterable[tuple[str, Any]]) -> FileResult:
    docs, errors = [], []
    for where, record in records:
        try:
            docs.append(record_to_document(record, f"{path}#{where}"))
        except InputError as exc:
            errors.append(f"{where}: {exc}")
    return FileResult(path, docs, errors)


def _read_json(path: Path, data: bytes) -> FileResult:
    value = load_json(_decode(data))
    if isinstance(value, dict) and isinstance(value.get("documents"), list):
        value = value["documents"]
    if isinstance(value, dict):
        return _collect(path, [("record 1", value)])
    if isinstance(value, list):
        if not value:
            raise InputError("empty JSON list")
        return _collect(path, ((f"record {i}", v) for i, v in enumerate(value, start=1)))
    raise InputError('JSON must be an object, a list of records or {"documents": [...]}')


def _read_jsonl(path: Path, data: bytes) -> FileResult:
    text = _decode(data)
    records: list[tuple[str, Any]] = []
    bad: list[str] = []
    for lineno, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            records.append((f"line {lineno}", load_json(line)))
        except InputError as exc:
            bad.append(f"line {lineno}: {exc}")
    result = _collect(path, records)
    result.errors = bad + result.errors
    return result


def _read_csv(path: Path, data: bytes) -> FileResult:
    text = _decode(data)
    try:
        reader = csv.DictReader(io.StringIO(text))
        header = [h.strip().lower() for h in (reader.fieldnames or [])]
        if "text" not in header:
            raise InputError("CSV has no 'text' column")
        reader.fieldnames = header
        rows = [(f"row {i}", row) for i, row in enumerate(reader, start=2)]
    except csv.Error as exc:
        raise InputError(f"malformed CSV: {exc}") from exc
    return _collect(path, ((where, {k: v for k, v in row.items() if k}) for where, row in rows))


# ---- .pdf --------------------------------------------------------------------------------


def _read_pdf(path: Path, data: bytes) -> FileResult:
    text, title, date, meta = pdf_to_text(data)
    text = _clean(text)
    if not text:
        raise InputError("PDF has no extractable text (scanned images?)")
    return _single(
        path, SourceDocument(text=text, title=title, date=date, source=str(path), metadata=meta)
    )


_READERS: dict[str, Callable[[Path, bytes], FileResult]] = {
    ".txt": _read_txt,
    ".md": _read_md,
    ".markdown": _read_md,
    ".html": _read_html,
    ".htm": _read_html,
    ".json": _read_json,
    ".jsonl": _read_jsonl,
    ".csv": _read_csv,
    ".pdf": _read_pdf,
}
