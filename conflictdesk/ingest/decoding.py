"""Bytes of a text file to text, and JSON text to values, with one clear error per failure.

UTF-8 is the default (a BOM allowed); UTF-16 and UTF-32 are read when their BOM says so.
JSON nested past the parser's recursion limit is an input error, not a crash."""

from __future__ import annotations

import codecs
import json
from typing import Any

from conflictdesk.errors import InputError

MAX_JSON_DEPTH = 100  # deeper values could not be stored (the encoder recurses) and mean nothing

# Longest BOM first: the UTF-32 LE BOM begins with the UTF-16 LE one.
_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)


def bom_encoding(data: bytes) -> str | None:
    """The encoding a byte-order mark at the start of `data` announces, if any."""
    return next((name for bom, name in _BOMS if data.startswith(bom)), None)


def decode_text(data: bytes) -> str:
    """Strict UTF-8 (or the UTF-16/32 a BOM announces); NUL bytes in UTF-8 mean binary."""
    encoding = bom_encoding(data) or "utf-8"
    if encoding == "utf-8" and b"\x00" in data[:8192]:
        raise InputError("binary file (NUL bytes), not text")
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as exc:
        name = "UTF-8" if encoding.startswith("utf-8") else encoding.upper()
        raise InputError(
            f"not valid {name} (byte 0x{data[exc.start]:02x} at offset {exc.start})"
        ) from exc
    if "\x00" in text:
        raise InputError("binary file (NUL characters), not text")
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if not text.strip():
        raise InputError("empty file (only whitespace)")
    return text


def load_json(text: str, where: str = "") -> Any:
    """`json.loads`, its failures (syntax, nesting, number limits) as InputError."""
    prefix = f"{where}: " if where else ""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"{prefix}invalid JSON at line {exc.lineno}: {exc.msg}") from exc
    except RecursionError:
        raise InputError(f"{prefix}invalid JSON: nested too deeply") from None
    except ValueError as exc:  # an integer over Python's digit limit
        raise InputError(f"{prefix}invalid JSON: {exc}") from exc
    if json_depth(value) > MAX_JSON_DEPTH:
        raise InputError(f"{prefix}JSON nested deeper than {MAX_JSON_DEPTH} levels")
    return value


def json_depth(value: Any) -> int:
    """How deeply lists and objects nest in `value` (a scalar is 0), without recursion."""
    deepest, stack = 0, [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            item = list(item.values())
        if isinstance(item, list):
            deepest = max(deepest, depth + 1)
            stack.extend((child, depth + 1) for child in item if isinstance(child, (list, dict)))
    return deepest
