"""Go's time.Parse for metav1.Time and MicroTime: what it accepts and its words when it refuses."""

from __future__ import annotations

import pytest

from k8s.gotime import RFC3339, RFC3339_MICRO, parse_error


@pytest.mark.parametrize(
    "text",
    [
        "2026-12-05T14:00:00Z",
        "2026-12-05T14:00:00+08:00",
        "2026-12-05T4:00:00Z",  # the hour chunk (15) takes one digit
        "2026-12-05T14:00:00.123456789Z",  # a fraction the layout does not name
        "2024-02-29T00:00:00Z",
        "2026-12-05T14:00:00+24:00",  # Go's range test is > 24
    ],
)
def test_go_accepts(text):
    assert parse_error(RFC3339, text) is None


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("x", 'parsing time "x" as "2006-01-02T15:04:05Z07:00": cannot parse "x" as "2006"'),
        ("", 'parsing time "" as "2006-01-02T15:04:05Z07:00": cannot parse "" as "2006"'),
        (
            "2026/12/05",
            'parsing time "2026/12/05" as "2006-01-02T15:04:05Z07:00": cannot parse "/12/05" as "-"',
        ),
        (
            "2026-1-05T00:00:00Z",
            'parsing time "2026-1-05T00:00:00Z" as "2006-01-02T15:04:05Z07:00": '
            'cannot parse "1-05T00:00:00Z" as "01"',
        ),
        ("2026-12-05", 'parsing time "2026-12-05" as "2006-01-02T15:04:05Z07:00": cannot parse "" as "T"'),
        ("2026-13-05T00:00:00Z", 'parsing time "2026-13-05T00:00:00Z": month out of range'),
        ("2023-02-29T00:00:00Z", 'parsing time "2023-02-29T00:00:00Z": day out of range'),
        ("2026-12-05T24:00:00Z", 'parsing time "2026-12-05T24:00:00Z": hour out of range'),
        ("2026-12-05T10:60:00Z", 'parsing time "2026-12-05T10:60:00Z": minute out of range'),
        ("2026-12-05T10:00:60Z", 'parsing time "2026-12-05T10:00:60Z": second out of range'),
        (
            "2026-12-05T10:00:00+25:00",
            'parsing time "2026-12-05T10:00:00+25:00": time zone offset hour out of range',
        ),
        (
            "2026-12-05T10:00:00+0800",
            'parsing time "2026-12-05T10:00:00+0800" as "2006-01-02T15:04:05Z07:00": '
            'cannot parse "+0800" as "Z07:00"',
        ),
        ("2026-12-05T10:00:00Z later", 'parsing time "2026-12-05T10:00:00Z later": extra text: " later"'),
        (
            '昨天"',
            'parsing time "\\xe6\\x98\\xa8\\xe5\\xa4\\xa9\\"" as "2006-01-02T15:04:05Z07:00": '
            'cannot parse "\\xe6\\x98\\xa8\\xe5\\xa4\\xa9\\"" as "2006"',
        ),
    ],
)
def test_go_refuses_in_its_own_words(text, error):
    assert parse_error(RFC3339, text) == error


def test_micro_time_needs_its_six_fractional_digits():
    assert parse_error(RFC3339_MICRO, "2026-12-05T14:00:00.123456Z") is None
    assert parse_error(RFC3339_MICRO, "2026-12-05T14:00:00.123Z") == (
        'parsing time "2026-12-05T14:00:00.123Z" as "2006-01-02T15:04:05.000000Z07:00": '
        'cannot parse ".123Z" as ".000000"'
    )
