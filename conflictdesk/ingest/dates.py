"""Dates as the files give them → ISO 8601 (YYYY-MM-DD, YYYY-MM or YYYY)."""

from __future__ import annotations

import re
from datetime import date, datetime
from typing import Any

_MONTHS = {
    name: i
    for i, names in enumerate(
        [
            ("jan", "january"),
            ("feb", "february"),
            ("mar", "march"),
            ("apr", "april"),
            ("may",),
            ("jun", "june"),
            ("jul", "july"),
            ("aug", "august"),
            ("sep", "sept", "september"),
            ("oct", "october"),
            ("nov", "november"),
            ("dec", "december"),
        ],
        start=1,
    )
    for name in names
}
_ISO = re.compile(r"^(\d{4})(?:[-/.](\d{1,2})(?:[-/.](\d{1,2}))?)?(?:[T ].*)?$")
_PDF = re.compile(r"^D:(\d{4})(\d{2})?(\d{2})?")
_DMY_NAME = re.compile(r"^(\d{1,2})\s+([A-Za-z]+)\.?,?\s+(\d{4})$")
_MDY_NAME = re.compile(r"^([A-Za-z]+)\.?\s+(?:(\d{1,2})(?:st|nd|rd|th)?,?\s+)?(\d{4})$")


def _valid(year: int, month: int | None, day: int | None) -> str | None:
    if not 1000 <= year <= 9999:
        return None
    if month is None:
        return f"{year:04d}"
    if not 1 <= month <= 12:
        return None
    if day is None:
        return f"{year:04d}-{month:02d}"
    try:
        return date(year, month, day).isoformat()
    except ValueError:
        return None


def normalise_date(value: Any) -> str | None:
    """ISO form of `value` (str, int year, date, datetime), or None when it is not a date."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, datetime):
        return value.date().isoformat()
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, int):
        return _valid(value, None, None)
    text = str(value).strip().strip("'\"").strip()
    if not text:
        return None
    if m := _ISO.match(text):
        y, mo, d = m.groups()
        return _valid(int(y), int(mo) if mo else None, int(d) if d else None)
    if m := _PDF.match(text):
        y, mo, d = m.groups()
        return _valid(int(y), int(mo) if mo else None, int(d) if d else None)
    if m := _DMY_NAME.match(text):
        d, name, y = m.groups()
        month = _MONTHS.get(name.lower())
        return _valid(int(y), month, int(d)) if month else None
    if m := _MDY_NAME.match(text):
        name, d, y = m.groups()
        month = _MONTHS.get(name.lower())
        return _valid(int(y), month, int(d) if d else None) if month else None
    return None
