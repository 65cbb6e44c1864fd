"""Go's `time.Parse` for the two layouts the API's times decode with, and its error words.

metav1.Time decodes a JSON string with `time.Parse(time.RFC3339, s)`, metav1.MicroTime with
`time.Parse(RFC3339Micro, s)`; a string they refuse makes the whole body a 400 whose message is
Go's ParseError (`parsing time "x" as "2006-01-02T15:04:05Z07:00": cannot parse "x" as "2006"`).
This walks the layout's chunks as Go's `parse` does (time/format.go), on the string's UTF-8
bytes, so it accepts what Go accepts (a one-digit hour, a fraction after the seconds) and names
the same chunk when it refuses.
"""

from __future__ import annotations

from functools import lru_cache

RFC3339 = "2006-01-02T15:04:05Z07:00"
RFC3339_MICRO = "2006-01-02T15:04:05.000000Z07:00"
# Each layout as Go's nextStdChunk splits it: (the literal text before, the standard chunk).
_CHUNKS = {
    RFC3339: (("", "2006"), ("-", "01"), ("-", "02"), ("T", "15"), (":", "04"), (":", "05"), ("", "Z07:00")),
    RFC3339_MICRO: (
        ("", "2006"),
        ("-", "01"),
        ("-", "02"),
        ("T", "15"),
        (":", "04"),
        (":", "05"),
        ("", ".000000"),
        ("", "Z07:00"),
    ),
}
_DAYS = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


class _Bad(Exception):
    """Go's errBad: the chunk could not be read."""


def quote(raw: bytes) -> str:
    """time.quote: every byte outside printable ASCII as \\xNN (a rune's bytes each), " and \\ escaped."""
    out = ['"']
    for byte in raw:
        if byte >= 0x80 or byte < 0x20:
            out.append(f"\\x{byte:02x}")
        elif byte in b'"\\':
            out.append("\\" + chr(byte))
        else:
            out.append(chr(byte))
    out.append('"')
    return "".join(out)


def _is_digit(s: bytes, i: int) -> bool:
    return i < len(s) and 0x30 <= s[i] <= 0x39


def _getnum(s: bytes, fixed: bool) -> tuple[int, bytes]:
    if not _is_digit(s, 0):
        raise _Bad
    if not _is_digit(s, 1):
        if fixed:
            raise _Bad
        return s[0] - 0x30, s[1:]
    return (s[0] - 0x30) * 10 + s[1] - 0x30, s[2:]


def _atoi(s: bytes) -> int:
    """time.atoi: an optional sign, then digits only (none reads as 0)."""
    negative = s[:1] == b"-"
    if s[:1] in (b"-", b"+"):
        s = s[1:]
    if any(not 0x30 <= b <= 0x39 for b in s):
        raise _Bad
    number = int(s) if s else 0
    return -number if negative else number


def _nanoseconds(s: bytes, width: int) -> str:
    """parseNanoseconds: "" or the range error's subject."""
    if s[:1] not in (b".", b","):
        raise _Bad
    return "fractional second" if _atoi(s[1 : min(width, 10)]) < 0 else ""


def _skip(value: bytes, prefix: bytes) -> bytes:
    for byte in prefix:  # the layouts here have no spaces, which Go's skip treats apart
        if not value or value[0] != byte:
            raise _Bad(value)
        value = value[1:]
    return value


def _days_in(month: int, year: int) -> int:
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    return 29 if month == 2 and leap else _DAYS[month - 1]


def _cannot_parse(whole: str, layout: str, rest: bytes, chunk: str) -> str:
    as_layout = quote(layout.encode())
    return f"parsing time {whole} as {as_layout}: cannot parse {quote(rest)} as {quote(chunk.encode())}"


@lru_cache(maxsize=4096)
def parse_error(layout: str, text: str) -> str | None:
    """Go's `time.Parse(layout, text)` error message, or None when Go accepts the text."""
    whole = quote(text.encode())
    value = text.encode()
    chunks = _CHUNKS[layout]
    year = month = day = 0
    for index, (prefix, std) in enumerate(chunks):
        try:
            value = _skip(value, prefix.encode())
        except _Bad as bad:
            return _cannot_parse(whole, layout, bad.args[0], prefix)
        hold, out_of_range = value, ""
        try:
            if std == "2006":
                if len(value) < 4 or not _is_digit(value, 0):
                    raise _Bad
                year, value = _atoi(value[:4]), value[4:]
            elif std == "01":
                month, value = _getnum(value, True)
                out_of_range = "month" if not 1 <= month <= 12 else ""
            elif std == "02":
                day, value = _getnum(value, True)
            elif std in ("15", "04"):
                number, value = _getnum(value, std == "04")
                out_of_range = (
                    ("hour" if std == "15" else "minute") if number >= (24 if std == "15" else 60) else ""
                )
            elif std == "05":
                second, value = _getnum(value, True)
                if second >= 60:
                    out_of_range = "second"
                elif len(value) >= 2 and value[:1] in (b".", b",") and _is_digit(value, 1):
                    following = chunks[index + 1][1] if index + 1 < len(chunks) else ""
                    if following != ".000000":  # a fraction the layout does not name is read too
                        width = 2
                        while _is_digit(value, width):
                            width += 1
                        out_of_range, value = _nanoseconds(value, width), value[width:]
            elif std == ".000000":
                if len(value) < 7:
                    raise _Bad
                out_of_range, value = _nanoseconds(value, 7), value[7:]
            elif value[:1] == b"Z":  # Z07:00
                value = value[1:]
            else:
                if len(value) < 6 or value[3:4] != b":":
                    raise _Bad
                sign, hours, minutes, value = value[:1], value[1:3], value[4:6], value[6:]
                hour, _ = _getnum(hours, True)
                try:
                    minute: int | None = _getnum(minutes, True)[0]
                except _Bad:
                    minute = None
                out_of_range = "time zone offset hour" if hour > 24 else ""  # > as Go: +24:00 is read
                if minute is not None and minute > 60:
                    out_of_range = "time zone offset minute"
                if minute is None or sign not in (b"+", b"-"):
                    raise _Bad
        except _Bad:
            if out_of_range:
                return f"parsing time {whole}: {out_of_range} out of range"
            return _cannot_parse(whole, layout, hold, std)
        if out_of_range:
            return f"parsing time {whole}: {out_of_range} out of range"
    if value:
        return f"parsing time {whole}: extra text: {quote(value)}"
    if day < 1 or day > _days_in(month, year):
        return f"parsing time {whole}: day out of range"
    return None
