"""robfig/cron v3.0.1's tests (parser_test.go, spec_test.go, constantdelay_test.go), ported as
they are: the library Kubernetes' CronJob controller parses and steps schedules with."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest

from k8s import cron
from k8s.cron import DOM, DOW, HOURS, MONTHS, SECONDS, STAR_BIT, Bounds, CronError, Every, SpecSchedule

SECOND_PARSER = cron.Parser(
    frozenset({"second", "minute", "hour", "dom", "month"}), dow_optional=True, descriptor=True
)
TOKYO = cron.load_location("Asia/Tokyo")


@pytest.mark.parametrize(
    ("expr", "low", "high", "expected", "error"),
    [
        ("5", 0, 7, 1 << 5, ""),
        ("0", 0, 7, 1 << 0, ""),
        ("7", 0, 7, 1 << 7, ""),
        ("5-5", 0, 7, 1 << 5, ""),
        ("5-6", 0, 7, 1 << 5 | 1 << 6, ""),
        ("5-7", 0, 7, 1 << 5 | 1 << 6 | 1 << 7, ""),
        ("5-6/2", 0, 7, 1 << 5, ""),
        ("5-7/2", 0, 7, 1 << 5 | 1 << 7, ""),
        ("5-7/1", 0, 7, 1 << 5 | 1 << 6 | 1 << 7, ""),
        ("*", 1, 3, 1 << 1 | 1 << 2 | 1 << 3 | STAR_BIT, ""),
        ("*/2", 1, 3, 1 << 1 | 1 << 3, ""),
        ("5--5", 0, 0, 0, "too many hyphens"),
        ("jan-x", 0, 0, 0, "failed to parse int from"),
        ("2-x", 1, 5, 0, "failed to parse int from"),
        ("*/-12", 0, 0, 0, "negative number"),
        ("*//2", 0, 0, 0, "too many slashes"),
        ("1", 3, 5, 0, "below minimum"),
        ("6", 3, 5, 0, "above maximum"),
        ("5-3", 3, 5, 0, "beyond end of range"),
        ("*/0", 0, 0, 0, "should be a positive number"),
    ],
)
def test_range(expr, low, high, expected, error):
    if error:
        with pytest.raises(CronError, match=re.escape(error)):
            cron.get_range(expr, Bounds(low, high))
        return
    assert cron.get_range(expr, Bounds(low, high)) == expected


@pytest.mark.parametrize(
    ("expr", "low", "high", "expected"),
    [
        ("5", 1, 7, 1 << 5),
        ("5,6", 1, 7, 1 << 5 | 1 << 6),
        ("5,6,7", 1, 7, 1 << 5 | 1 << 6 | 1 << 7),
        ("1,5-7/2,3", 1, 7, 1 << 1 | 1 << 5 | 1 << 7 | 1 << 3),
    ],
)
def test_field(expr, low, high, expected):
    assert cron.get_field(expr, Bounds(low, high)) == expected


@pytest.mark.parametrize(
    ("bounds", "expected"),
    [
        (cron.MINUTES, 0xFFFFFFFFFFFFFFF),  # 0-59: 60 ones
        (HOURS, 0xFFFFFF),  # 0-23: 24 ones
        (DOM, 0xFFFFFFFE),  # 1-31: 31 ones, 1 zero
        (MONTHS, 0x1FFE),  # 1-12: 12 ones, 1 zero
        (DOW, 0x7F),  # 0-6: 7 ones
    ],
)
def test_all(bounds, expected):
    assert cron.all_bits(bounds) == expected | STAR_BIT


@pytest.mark.parametrize(
    ("low", "high", "step", "expected"),
    [(0, 0, 1, 0x1), (1, 1, 1, 0x2), (1, 5, 2, 0x2A), (1, 4, 2, 0xA)],
)
def test_bits(low, high, step, expected):
    assert cron.get_bits(low, high, step) == expected


@pytest.mark.parametrize(
    ("expr", "error"),
    [
        ("* 5 j * * *", "failed to parse int from"),
        ("@every Xm", "failed to parse duration"),
        ("@unrecognized", "unrecognized descriptor"),
        ("* * * *", "expected 5 to 6 fields"),
        ("", "empty spec string"),
    ],
)
def test_parse_schedule_errors(expr, error):
    with pytest.raises(CronError, match=re.escape(error)):
        SECOND_PARSER.parse(expr)


def every_5_min(loc) -> SpecSchedule:
    return SpecSchedule(
        1 << 0,
        1 << 5,
        cron.all_bits(HOURS),
        cron.all_bits(DOM),
        cron.all_bits(MONTHS),
        cron.all_bits(DOW),
        loc,
    )


def every_5_min_5_s(loc) -> SpecSchedule:
    return SpecSchedule(
        1 << 5,
        1 << 5,
        cron.all_bits(HOURS),
        cron.all_bits(DOM),
        cron.all_bits(MONTHS),
        cron.all_bits(DOW),
        loc,
    )


def midnight(loc) -> SpecSchedule:
    return SpecSchedule(1, 1, 1, cron.all_bits(DOM), cron.all_bits(MONTHS), cron.all_bits(DOW), loc)


def annual(loc) -> SpecSchedule:
    return SpecSchedule(
        1 << SECONDS.low, 1 << 0, 1 << 0, 1 << DOM.low, 1 << MONTHS.low, cron.all_bits(DOW), loc
    )


@pytest.mark.parametrize(
    ("parser", "expr", "expected"),
    [
        (SECOND_PARSER, "0 5 * * * *", every_5_min(None)),
        (cron.STANDARD, "5 * * * *", every_5_min(None)),
        (SECOND_PARSER, "CRON_TZ=UTC  0 5 * * * *", every_5_min(UTC)),
        (cron.STANDARD, "CRON_TZ=UTC  5 * * * *", every_5_min(UTC)),
        (SECOND_PARSER, "CRON_TZ=Asia/Tokyo 0 5 * * * *", every_5_min(TOKYO)),
        (SECOND_PARSER, "@every 5m", Every(timedelta(minutes=5))),
        (SECOND_PARSER, "@midnight", midnight(None)),
        (SECOND_PARSER, "TZ=UTC  @midnight", midnight(UTC)),
        (SECOND_PARSER, "TZ=Asia/Tokyo @midnight", midnight(TOKYO)),
        (SECOND_PARSER, "@yearly", annual(None)),
        (SECOND_PARSER, "@annually", annual(None)),
        (
            SECOND_PARSER,
            "* 5 * * * *",
            SpecSchedule(
                cron.all_bits(SECONDS),
                1 << 5,
                cron.all_bits(HOURS),
                cron.all_bits(DOM),
                cron.all_bits(MONTHS),
                cron.all_bits(DOW),
                None,
            ),
        ),
    ],
)
def test_parse_schedule(parser, expr, expected):
    assert parser.parse(expr) == expected


@pytest.mark.parametrize(
    ("expr", "expected"),
    [
        ("0 5 * * * *", every_5_min(None)),
        ("5 5 * * * *", every_5_min_5_s(None)),
        ("5 * * * *", every_5_min(None)),
    ],
)
def test_optional_second_schedule(expr, expected):
    parser = cron.Parser(
        frozenset({"minute", "hour", "dom", "month", "dow"}), second_optional=True, descriptor=True
    )
    assert parser.parse(expr) == expected


ALL = frozenset(cron.PLACES)


@pytest.mark.parametrize(
    ("fields", "parser", "expected"),
    [
        (["0", "5", "*", "*", "*", "*"], cron.Parser(ALL, descriptor=True), ["0", "5", "*", "*", "*", "*"]),
        (
            ["0", "5", "*", "*", "*", "*"],
            cron.Parser(ALL - {"second"}, second_optional=True, descriptor=True),
            ["0", "5", "*", "*", "*", "*"],
        ),
        (
            ["5", "*", "*", "*", "*"],
            cron.Parser(ALL - {"second"}, second_optional=True, descriptor=True),
            ["0", "5", "*", "*", "*", "*"],
        ),
        (["5", "15", "*"], cron.Parser(frozenset({"hour", "dom", "month"})), ["0", "0", "5", "15", "*", "*"]),
        (
            ["5", "15", "*", "4"],
            cron.Parser(frozenset({"hour", "dom", "month"}), dow_optional=True),
            ["0", "0", "5", "15", "*", "4"],
        ),
        (
            ["5", "15", "*"],
            cron.Parser(frozenset({"hour", "dom", "month"}), dow_optional=True),
            ["0", "0", "5", "15", "*", "*"],
        ),
        (
            ["5", "15", "*"],
            cron.Parser(frozenset({"hour", "dom", "month"}), second_optional=True),
            ["0", "0", "5", "15", "*", "*"],
        ),
    ],
)
def test_normalize_fields(fields, parser, expected):
    assert parser.normalize(fields) == expected


@pytest.mark.parametrize(
    ("fields", "parser"),
    [
        (
            ["0", "5", "*", "*", "*", "*"],
            cron.Parser(
                frozenset({"minute", "hour", "dom", "month"}), second_optional=True, dow_optional=True
            ),
        ),
        (["0", "5", "*", "*"], cron.Parser(frozenset({"minute", "hour"}), second_optional=True)),
        ([], cron.Parser(frozenset({"minute", "hour"}), second_optional=True)),
        (["*"], cron.Parser(frozenset({"minute", "hour"}), second_optional=True)),
    ],
)
def test_normalize_fields_errors(fields, parser):
    with pytest.raises(CronError):
        parser.normalize(fields)


@pytest.mark.parametrize(
    ("expr", "expected", "error"),
    [
        (
            "5 * * * *",
            SpecSchedule(
                1 << SECONDS.low,
                1 << 5,
                cron.all_bits(HOURS),
                cron.all_bits(DOM),
                cron.all_bits(MONTHS),
                cron.all_bits(DOW),
                None,
            ),
            "",
        ),
        ("@every 5m", Every(timedelta(minutes=5)), ""),
        ("5 j * * *", None, "failed to parse int from"),
        ("* * * *", None, "expected exactly 5 fields"),
    ],
)
def test_standard_spec_schedule(expr, expected, error):
    if error:
        with pytest.raises(CronError, match=re.escape(error)):
            cron.parse_standard(expr)
        return
    assert cron.parse_standard(expr) == expected


def test_no_descriptor_parser():
    with pytest.raises(CronError):
        cron.Parser(frozenset({"minute", "hour"})).parse("@every 1m")


# -- spec_test.go ---------------------------------------------------------------------------------
def get_time(value: str) -> datetime | None:
    """getTime: Go's layouts, in time.Local (UTC here) unless a TZ= prefix names the zone."""
    if not value:
        return None
    location = UTC
    if value.startswith("TZ="):
        zone, value = value.split()
        location = cron.load_location(zone[len("TZ=") :])
    for layout in ("%a %b %d %H:%M %Y", "%a %b %d %H:%M:%S %Y", "%a %b %d %H:%M:%S.%f %Y"):
        try:
            return datetime.strptime(value, layout).replace(tzinfo=location)
        except ValueError:
            continue
    parsed = datetime.strptime(value, "%Y-%m-%dT%H:%M:%S%z")
    # ParseInLocation: an offset the location has at that time keeps the location.
    in_location = parsed.astimezone(location)
    return in_location if in_location.utcoffset() == parsed.utcoffset() else parsed


@pytest.mark.parametrize(
    ("time", "spec", "expected"),
    [
        # Every fifteen minutes.
        ("Mon Jul 9 15:00 2012", "0/15 * * * *", True),
        ("Mon Jul 9 15:45 2012", "0/15 * * * *", True),
        ("Mon Jul 9 15:40 2012", "0/15 * * * *", False),
        # Every fifteen minutes, starting at 5 minutes.
        ("Mon Jul 9 15:05 2012", "5/15 * * * *", True),
        ("Mon Jul 9 15:20 2012", "5/15 * * * *", True),
        ("Mon Jul 9 15:50 2012", "5/15 * * * *", True),
        # Named months
        ("Sun Jul 15 15:00 2012", "0/15 * * Jul *", True),
        ("Sun Jul 15 15:00 2012", "0/15 * * Jun *", False),
        # Everything set.
        ("Sun Jul 15 08:30 2012", "30 08 ? Jul Sun", True),
        ("Sun Jul 15 08:30 2012", "30 08 15 Jul ?", True),
        ("Mon Jul 16 08:30 2012", "30 08 ? Jul Sun", False),
        ("Mon Jul 16 08:30 2012", "30 08 15 Jul ?", False),
        # Predefined schedules
        ("Mon Jul 9 15:00 2012", "@hourly", True),
        ("Mon Jul 9 15:04 2012", "@hourly", False),
        ("Mon Jul 9 15:00 2012", "@daily", False),
        ("Mon Jul 9 00:00 2012", "@daily", True),
        ("Mon Jul 9 00:00 2012", "@weekly", False),
        ("Sun Jul 8 00:00 2012", "@weekly", True),
        ("Sun Jul 8 01:00 2012", "@weekly", False),
        ("Sun Jul 8 00:00 2012", "@monthly", False),
        ("Sun Jul 1 00:00 2012", "@monthly", True),
        # Test interaction of DOW and DOM. If both are restricted, then only one needs to match.
        ("Sun Jul 15 00:00 2012", "* * 1,15 * Sun", True),
        ("Fri Jun 15 00:00 2012", "* * 1,15 * Sun", True),
        ("Wed Aug 1 00:00 2012", "* * 1,15 * Sun", True),
        ("Sun Jul 15 00:00 2012", "* * */10 * Sun", True),  # verifies #70
        # However, if one has a star, then both need to match.
        ("Sun Jul 15 00:00 2012", "* * * * Mon", False),
        ("Mon Jul 9 00:00 2012", "* * 1,15 * *", False),
        ("Sun Jul 15 00:00 2012", "* * 1,15 * *", True),
        ("Sun Jul 15 00:00 2012", "* * */2 * Sun", True),
    ],
)
def test_activation(time, spec, expected):
    at = get_time(time)
    assert (cron.parse_standard(spec).next(at - timedelta(seconds=1)) == at) is expected


NEXT = [
    # Simple cases
    ("Mon Jul 9 14:45 2012", "0 0/15 * * * *", "Mon Jul 9 15:00 2012"),
    ("Mon Jul 9 14:59 2012", "0 0/15 * * * *", "Mon Jul 9 15:00 2012"),
    ("Mon Jul 9 14:59:59 2012", "0 0/15 * * * *", "Mon Jul 9 15:00 2012"),
    # Wrap around hours
    ("Mon Jul 9 15:45 2012", "0 20-35/15 * * * *", "Mon Jul 9 16:20 2012"),
    # Wrap around days
    ("Mon Jul 9 23:46 2012", "0 */15 * * * *", "Tue Jul 10 00:00 2012"),
    ("Mon Jul 9 23:45 2012", "0 20-35/15 * * * *", "Tue Jul 10 00:20 2012"),
    ("Mon Jul 9 23:35:51 2012", "15/35 20-35/15 * * * *", "Tue Jul 10 00:20:15 2012"),
    ("Mon Jul 9 23:35:51 2012", "15/35 20-35/15 1/2 * * *", "Tue Jul 10 01:20:15 2012"),
    ("Mon Jul 9 23:35:51 2012", "15/35 20-35/15 10-12 * * *", "Tue Jul 10 10:20:15 2012"),
    ("Mon Jul 9 23:35:51 2012", "15/35 20-35/15 1/2 */2 * *", "Thu Jul 11 01:20:15 2012"),
    ("Mon Jul 9 23:35:51 2012", "15/35 20-35/15 * 9-20 * *", "Wed Jul 10 00:20:15 2012"),
    ("Mon Jul 9 23:35:51 2012", "15/35 20-35/15 * 9-20 Jul *", "Wed Jul 10 00:20:15 2012"),
    # Wrap around months
    ("Mon Jul 9 23:35 2012", "0 0 0 9 Apr-Oct ?", "Thu Aug 9 00:00 2012"),
    ("Mon Jul 9 23:35 2012", "0 0 0 */5 Apr,Aug,Oct Mon", "Tue Aug 1 00:00 2012"),
    ("Mon Jul 9 23:35 2012", "0 0 0 */5 Oct Mon", "Mon Oct 1 00:00 2012"),
    # Wrap around years
    ("Mon Jul 9 23:35 2012", "0 0 0 * Feb Mon", "Mon Feb 4 00:00 2013"),
    ("Mon Jul 9 23:35 2012", "0 0 0 * Feb Mon/2", "Fri Feb 1 00:00 2013"),
    # Wrap around minute, hour, day, month, and year
    ("Mon Dec 31 23:59:45 2012", "0 * * * * *", "Tue Jan 1 00:00:00 2013"),
    # Leap year
    ("Mon Jul 9 23:35 2012", "0 0 0 29 Feb ?", "Mon Feb 29 00:00 2016"),
    # Daylight savings time 2am EST (-5) -> 3am EDT (-4)
    ("2012-03-11T00:00:00-0500", "TZ=America/New_York 0 30 2 11 Mar ?", "2013-03-11T02:30:00-0400"),
    # hourly job
    ("2012-03-11T00:00:00-0500", "TZ=America/New_York 0 0 * * * ?", "2012-03-11T01:00:00-0500"),
    ("2012-03-11T01:00:00-0500", "TZ=America/New_York 0 0 * * * ?", "2012-03-11T03:00:00-0400"),
    ("2012-03-11T03:00:00-0400", "TZ=America/New_York 0 0 * * * ?", "2012-03-11T04:00:00-0400"),
    ("2012-03-11T04:00:00-0400", "TZ=America/New_York 0 0 * * * ?", "2012-03-11T05:00:00-0400"),
    # hourly job using CRON_TZ
    ("2012-03-11T00:00:00-0500", "CRON_TZ=America/New_York 0 0 * * * ?", "2012-03-11T01:00:00-0500"),
    ("2012-03-11T01:00:00-0500", "CRON_TZ=America/New_York 0 0 * * * ?", "2012-03-11T03:00:00-0400"),
    ("2012-03-11T03:00:00-0400", "CRON_TZ=America/New_York 0 0 * * * ?", "2012-03-11T04:00:00-0400"),
    ("2012-03-11T04:00:00-0400", "CRON_TZ=America/New_York 0 0 * * * ?", "2012-03-11T05:00:00-0400"),
    # 1am nightly job
    ("2012-03-11T00:00:00-0500", "TZ=America/New_York 0 0 1 * * ?", "2012-03-11T01:00:00-0500"),
    ("2012-03-11T01:00:00-0500", "TZ=America/New_York 0 0 1 * * ?", "2012-03-12T01:00:00-0400"),
    # 2am nightly job (skipped)
    ("2012-03-11T00:00:00-0500", "TZ=America/New_York 0 0 2 * * ?", "2012-03-12T02:00:00-0400"),
    # Daylight savings time 2am EDT (-4) => 1am EST (-5)
    ("2012-11-04T00:00:00-0400", "TZ=America/New_York 0 30 2 04 Nov ?", "2012-11-04T02:30:00-0500"),
    ("2012-11-04T01:45:00-0400", "TZ=America/New_York 0 30 1 04 Nov ?", "2012-11-04T01:30:00-0500"),
    # hourly job
    ("2012-11-04T00:00:00-0400", "TZ=America/New_York 0 0 * * * ?", "2012-11-04T01:00:00-0400"),
    ("2012-11-04T01:00:00-0400", "TZ=America/New_York 0 0 * * * ?", "2012-11-04T01:00:00-0500"),
    ("2012-11-04T01:00:00-0500", "TZ=America/New_York 0 0 * * * ?", "2012-11-04T02:00:00-0500"),
    # 1am nightly job (runs twice)
    ("2012-11-04T00:00:00-0400", "TZ=America/New_York 0 0 1 * * ?", "2012-11-04T01:00:00-0400"),
    ("2012-11-04T01:00:00-0400", "TZ=America/New_York 0 0 1 * * ?", "2012-11-04T01:00:00-0500"),
    ("2012-11-04T01:00:00-0500", "TZ=America/New_York 0 0 1 * * ?", "2012-11-05T01:00:00-0500"),
    # 2am nightly job
    ("2012-11-04T00:00:00-0400", "TZ=America/New_York 0 0 2 * * ?", "2012-11-04T02:00:00-0500"),
    ("2012-11-04T02:00:00-0500", "TZ=America/New_York 0 0 2 * * ?", "2012-11-05T02:00:00-0500"),
    # 3am nightly job
    ("2012-11-04T00:00:00-0400", "TZ=America/New_York 0 0 3 * * ?", "2012-11-04T03:00:00-0500"),
    ("2012-11-04T03:00:00-0500", "TZ=America/New_York 0 0 3 * * ?", "2012-11-05T03:00:00-0500"),
    # hourly job
    ("TZ=America/New_York 2012-11-04T00:00:00-0400", "0 0 * * * ?", "2012-11-04T01:00:00-0400"),
    ("TZ=America/New_York 2012-11-04T01:00:00-0400", "0 0 * * * ?", "2012-11-04T01:00:00-0500"),
    ("TZ=America/New_York 2012-11-04T01:00:00-0500", "0 0 * * * ?", "2012-11-04T02:00:00-0500"),
    # 1am nightly job (runs twice)
    ("TZ=America/New_York 2012-11-04T00:00:00-0400", "0 0 1 * * ?", "2012-11-04T01:00:00-0400"),
    ("TZ=America/New_York 2012-11-04T01:00:00-0400", "0 0 1 * * ?", "2012-11-04T01:00:00-0500"),
    ("TZ=America/New_York 2012-11-04T01:00:00-0500", "0 0 1 * * ?", "2012-11-05T01:00:00-0500"),
    # 2am nightly job
    ("TZ=America/New_York 2012-11-04T00:00:00-0400", "0 0 2 * * ?", "2012-11-04T02:00:00-0500"),
    ("TZ=America/New_York 2012-11-04T02:00:00-0500", "0 0 2 * * ?", "2012-11-05T02:00:00-0500"),
    # 3am nightly job
    ("TZ=America/New_York 2012-11-04T00:00:00-0400", "0 0 3 * * ?", "2012-11-04T03:00:00-0500"),
    ("TZ=America/New_York 2012-11-04T03:00:00-0500", "0 0 3 * * ?", "2012-11-05T03:00:00-0500"),
    # Unsatisfiable
    ("Mon Jul 9 23:35 2012", "0 0 0 30 Feb ?", ""),
    ("Mon Jul 9 23:35 2012", "0 0 0 31 Apr ?", ""),
    # Monthly job
    ("TZ=America/New_York 2012-11-04T00:00:00-0400", "0 0 3 3 * ?", "2012-12-03T03:00:00-0500"),
    # DST making midnight not a valid time (robfig/cron#157)
    ("2018-10-17T05:00:00-0400", "TZ=America/Sao_Paulo 0 0 9 10 * ?", "2018-11-10T06:00:00-0500"),
    ("2018-02-14T05:00:00-0500", "TZ=America/Sao_Paulo 0 0 9 22 * ?", "2018-02-22T07:00:00-0500"),
]


@pytest.mark.parametrize(("time", "spec", "expected"), NEXT)
def test_next(time, spec, expected):
    assert instant(SECOND_PARSER.parse(spec).next(get_time(time))) == instant(get_time(expected))


def instant(t: datetime | None) -> float | None:
    """Go's Time.Equal: the same instant (Python's == refuses times in a zone's repeated hour)."""
    return None if t is None else t.timestamp()


@pytest.mark.parametrize("spec", ["xyz", "60 0 * * *", "0 60 * * *", "0 0 * * XYZ"])
def test_errors(spec):
    with pytest.raises(CronError):
        cron.parse_standard(spec)


@pytest.mark.parametrize(
    ("time", "spec", "expected"),
    [
        ("2016-01-03T13:09:03+0530", "14 14 * * *", "2016-01-03T14:14:00+0530"),
        ("2016-01-03T04:09:03+0530", "14 14 * * ?", "2016-01-03T14:14:00+0530"),
        ("2016-01-03T14:09:03+0530", "14 14 * * *", "2016-01-03T14:14:00+0530"),
        ("2016-01-03T14:00:00+0530", "14 14 * * ?", "2016-01-03T14:14:00+0530"),
    ],
)
def test_next_with_tz(time, spec, expected):
    parse = lambda v: datetime.strptime(v, "%Y-%m-%dT%H:%M:%S%z")  # noqa: E731
    assert cron.parse_standard(spec).next(parse(time)) == parse(expected)


def test_slash_0_no_hang():  # robfig/cron#144
    with pytest.raises(CronError):
        cron.parse_standard("TZ=America/New_York 15/0 * * * *")


# -- constantdelay_test.go ------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("time", "delay", "expected"),
    [
        ("Mon Jul 9 14:45 2012", timedelta(minutes=15, microseconds=0.05), "Mon Jul 9 15:00 2012"),
        ("Mon Jul 9 14:59 2012", timedelta(minutes=15), "Mon Jul 9 15:14 2012"),
        ("Mon Jul 9 14:59:59 2012", timedelta(minutes=15), "Mon Jul 9 15:14:59 2012"),
        ("Mon Jul 9 15:45 2012", timedelta(minutes=35), "Mon Jul 9 16:20 2012"),
        ("Mon Jul 9 23:46 2012", timedelta(minutes=14), "Tue Jul 10 00:00 2012"),
        ("Mon Jul 9 23:45 2012", timedelta(minutes=35), "Tue Jul 10 00:20 2012"),
        ("Mon Jul 9 23:35:51 2012", timedelta(minutes=44, seconds=24), "Tue Jul 10 00:20:15 2012"),
        ("Mon Jul 9 23:35:51 2012", timedelta(hours=25, minutes=44, seconds=24), "Thu Jul 11 01:20:15 2012"),
        ("Mon Jul 9 23:35 2012", timedelta(days=91, minutes=25), "Thu Oct 9 00:00 2012"),
        ("Mon Dec 31 23:59:45 2012", timedelta(seconds=15), "Tue Jan 1 00:00:00 2013"),
        ("Mon Jul 9 14:45:00 2012", timedelta(milliseconds=15), "Mon Jul 9 14:45:01 2012"),
        ("Mon Jul 9 14:45:00.005 2012", timedelta(minutes=15), "Mon Jul 9 15:00 2012"),
    ],
)
def test_constant_delay_next(time, delay, expected):
    whole = max(int(delay.total_seconds()), 1)  # Every(): rounded down to seconds, at least one
    assert Every(timedelta(seconds=whole)).next(get_time(time)) == get_time(expected)


def test_every_is_whole_seconds_and_at_least_one():
    assert cron.parse_standard("@every 15ms") == Every(timedelta(seconds=1))
    assert cron.parse_standard("@every 1h30m") == Every(timedelta(minutes=90))


def test_kubernetes_never_sees_a_time_zone_name_it_cannot_load():
    with pytest.raises(CronError, match="provided bad location Mars/Olympus: unknown time zone Mars/Olympus"):
        cron.parse_standard("TZ=Mars/Olympus * * * * *")
