"""Terminal safety: text from documents, models and collection names shown, never obeyed.

Every string that came from outside (a document, a model's answer, a collection or file name)
passes through `safe` before a terminal or a TUI widget shows it. Control and escape
characters (C0, DEL, C1, and the bidirectional overrides that reorder what is shown) become
visible escapes such as `\\x1b`, so a document cannot retitle the terminal, clear the screen,
plant a hyperlink or break a layout. `--json` output is never passed through it."""

from __future__ import annotations

import re

# C0 except tab and newline, DEL, C1, line/paragraph separators, bidi embeddings, overrides
# and isolates (U+202A-U+202E, U+2066-U+2069), and lone surrogates (undecodable bytes).
_OTHERS = "\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff"
_UNSAFE = re.compile(f"[\x00-\x08\x0b-\x1f{_OTHERS}]")
_UNSAFE_LINE = re.compile(f"[\x00-\x1f{_OTHERS}]")
_NAMED = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}


def _visible(match: re.Match[str]) -> str:
    char = match.group(0)
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def safe(text: object, *, multiline: bool = True) -> str:
    """`text` as a string whose control and escape characters are shown as visible escapes.

    `multiline=True` keeps newlines and tabs (a passage, an answer); `multiline=False` shows
    them too, for text that must stay on one line (a title, a name, a table cell)."""
    value = "" if text is None else str(text)
    pattern = _UNSAFE if multiline else _UNSAFE_LINE
    return pattern.sub(_visible, value)


def safe_line(text: object) -> str:
    """`safe(text, multiline=False)`: one line, every control character visible."""
    return safe(text, multiline=False)
