"""Cron schedules as Kubernetes reads them: robfig/cron v3's standard parser (`cron.ParseStandard`,
which the CronJob controller and its validation call) and its `Next`, ported with their error
messages.

A spec is five fields (minute hour day-of-month month day-of-week) or a descriptor (`@hourly`,
`@daily`, `@every 1h30m`, ...), optionally after `TZ=<zone>` or `CRON_TZ=<zone>`; each field is
`*`, `?`, a number or a name (`jan`, `mon`), a range `a-b`, a step `/n`, or a comma list of those.
Times move as Go's do: absolute arithmetic for hours, minutes and seconds, wall-clock dates built
in the schedule's zone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, tzinfo
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

STAR_BIT = 1 << 63


@dataclass(frozen=True)
class Bounds:
    low: int
    high: int
    names: dict[str, int] | None = None


SECONDS = Bounds(0, 59)
MINUTES = Bounds(0, 59)
HOURS = Bounds(0, 23)
DOM = Bounds(1, 31)
MONTHS = Bounds(
    1,
    12,
    {
        m: i + 1
        for i, m in enumerate(
            ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
        )
    },
)
DOW = Bounds(0, 6, {d: i for i, d in enumerate(("sun", "mon", "tue", "wed", "thu", "fri", "sat"))})
# ParseStandard's fields (seconds are always 0 there) and their defaults.
_DEFAULTS = ("0", "0", "0", "*", "*", "*")


class CronError(ValueError):
    """The parser's error, worded as robfig/cron's."""


def get_bits(low: int, high: int, step: int) -> int:
    if step == 1:
        return ~(~0 << (high + 1)) & (~0 << low)
    bits = 0
    for value in range(low, high + 1, step):
        bits |= 1 << value
    return bits


def all_bits(bounds: Bounds) -> int:
    return get_bits(bounds.low, bounds.high, 1) | STAR_BIT


def _parse_int(expr: str) -> int:
    """mustParseInt: strconv.Atoi, and no negative numbers."""
    if not re.fullmatch(r"[+-]?[0-9]+", expr):
        raise CronError(f'failed to parse int from {expr}: strconv.Atoi: parsing "{expr}": invalid syntax')
    number = int(expr)
    if not -(2**63) <= number < 2**63:
        raise CronError(
            f'failed to parse int from {expr}: strconv.Atoi: parsing "{expr}": value out of range'
        )
    if number < 0:
        raise CronError(f"negative number ({number}) not allowed: {expr}")
    return number


def _int_or_name(expr: str, names: dict[str, int] | None) -> int:
    if names is not None and expr.lower() in names:
        return names[expr.lower()]
    return _parse_int(expr)


def get_range(expr: str, bounds: Bounds) -> int:
    """getRange: one `*`, `a`, `a-b`, with an optional `/step`."""
    range_and_step = expr.split("/")
    low_and_high = range_and_step[0].split("-")
    single = len(low_and_high) == 1
    extra = 0
    if low_and_high[0] in ("*", "?"):
        start, end, extra = bounds.low, bounds.high, STAR_BIT
    else:
        start = _int_or_name(low_and_high[0], bounds.names)
        if len(low_and_high) == 1:
            end = start
        elif len(low_and_high) == 2:
            end = _int_or_name(low_and_high[1], bounds.names)
        else:
            raise CronError(f"too many hyphens: {expr}")
    if len(range_and_step) == 1:
        step = 1
    elif len(range_and_step) == 2:
        step = _parse_int(range_and_step[1])
        if single:  # "N/step" means "N-max/step"
            end = bounds.high
        if step > 1:
            extra = 0
    else:
        raise CronError(f"too many slashes: {expr}")
    if start < bounds.low:
        raise CronError(f"beginning of range ({start}) below minimum ({bounds.low}): {expr}")
    if end > bounds.high:
        raise CronError(f"end of range ({end}) above maximum ({bounds.high}): {expr}")
    if start > end:
        raise CronError(f"beginning of range ({start}) beyond end of range ({end}): {expr}")
    if step == 0:
        raise CronError(f"step of range should be a positive number: {expr}")
    return get_bits(start, end, step) | extra


def get_field(field: str, bounds: Bounds) -> int:
    bits = 0
    for expr in (part for part in field.split(",") if part):
        bits |= get_range(expr, bounds)
    return bits


def load_location(name: str) -> tzinfo:
    """time.LoadLocation: "" and "UTC" are UTC, "Local" the process's zone, else the IANA name."""
    if name in ("", "UTC"):
        return UTC
    if name == "Local":
        return datetime.now().astimezone().tzinfo or UTC
    if name.startswith("/") or "\\" in name or ".." in name.split("/"):
        raise CronError(f"unknown time zone {name}")
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        raise CronError(f"unknown time zone {name}") from None


@dataclass(frozen=True)
class SpecSchedule:
    second: int
    minute: int
    hour: int
    dom: int
    month: int
    dow: int
    location: tzinfo | None  # None: time.Local, the time's own zone

    def next(self, t: datetime) -> datetime | None:
        """SpecSchedule.Next: the first time after `t` the schedule activates (None if none within
        five years)."""
        original = t.tzinfo
        loc = self.location or t.tzinfo or UTC
        t = t.astimezone(loc)
        t = _add(t.replace(microsecond=0), timedelta(seconds=1))  # the upcoming second
        added = False
        year_limit = t.year + 5
        while True:
            if t.year > year_limit:
                return None
            wrapped = False
            while not (1 << t.month) & self.month:
                if not added:
                    added = True
                    t = _date(t.year, t.month, 1, 0, 0, 0, loc)
                t = _date(t.year, t.month + 1, t.day, t.hour, t.minute, t.second, loc)  # AddDate(0, 1, 0)
                if t.month == 1:
                    wrapped = True
                    break
            if wrapped:
                continue
            while not self._day_matches(t):
                if not added:
                    added = True
                    t = _date(t.year, t.month, t.day, 0, 0, 0, loc)
                t = _add_days(t, 1, loc)
                if t.hour != 0:  # midnight skipped by daylight saving time
                    if t.hour > 12:
                        t = _add(t, timedelta(hours=24 - t.hour))
                    else:
                        t = _add(t, timedelta(hours=-t.hour))
                if t.day == 1:
                    wrapped = True
                    break
            if wrapped:
                continue
            while not (1 << t.hour) & self.hour:
                if not added:
                    added = True
                    t = _date(t.year, t.month, t.day, t.hour, 0, 0, loc)
                t = _add(t, timedelta(hours=1))
                if t.hour == 0:
                    wrapped = True
                    break
            if wrapped:
                continue
            while not (1 << t.minute) & self.minute:
                if not added:
                    added = True
                    t = _truncate(t, 60)
                t = _add(t, timedelta(minutes=1))
                if t.minute == 0:
                    wrapped = True
                    break
            if wrapped:
                continue
            while not (1 << t.second) & self.second:
                if not added:
                    added = True
                    t = _truncate(t, 1)
                t = _add(t, timedelta(seconds=1))
                if t.second == 0:
                    wrapped = True
                    break
            if wrapped:
                continue
            return t.astimezone(original) if original is not None else t

    def _day_matches(self, t: datetime) -> bool:
        dom = bool((1 << t.day) & self.dom)
        dow = bool((1 << ((t.weekday() + 1) % 7)) & self.dow)  # Go's Weekday: Sunday is 0
        if self.dom & STAR_BIT or self.dow & STAR_BIT:
            return dom and dow
        return dom or dow


@dataclass(frozen=True)
class Every:
    """`@every <duration>`: ConstantDelaySchedule, at least a second, whole seconds."""

    delay: timedelta

    def next(self, t: datetime) -> datetime:
        return _add(t.replace(microsecond=0), self.delay)


Schedule = SpecSchedule | Every


def _add(t: datetime, delta: timedelta) -> datetime:
    """Go's Time.Add: absolute time, whatever the zone's clock does."""
    return (t.astimezone(UTC) + delta).astimezone(t.tzinfo)


def _truncate(t: datetime, seconds: int) -> datetime:
    """Go's Time.Truncate: on the absolute time line."""
    stamp = t.timestamp()
    return datetime.fromtimestamp(stamp - stamp % seconds, tz=t.tzinfo)


def _date(year: int, month: int, day: int, hour: int, minute: int, second: int, loc: tzinfo) -> datetime:
    """Go's time.Date: overflowing fields normalized, then the zone's offset looked up as Go does
    (at the wall time read as UTC, corrected once if that instant falls in another period), so
    a wall time the zone skips or repeats lands where Go puts it."""
    year += (month - 1) // 12
    month = (month - 1) % 12 + 1
    wall = datetime(year, month, 1, tzinfo=UTC) + timedelta(
        days=day - 1, hours=hour, minutes=minute, seconds=second
    )
    offset = _offset_at(wall, loc)
    corrected = _offset_at(wall - offset, loc)
    if corrected != offset:
        offset = corrected
    return (wall - offset).astimezone(loc)


def _offset_at(instant: datetime, loc: tzinfo) -> timedelta:
    return instant.astimezone(loc).utcoffset() or timedelta()


def _add_days(t: datetime, days: int, loc: tzinfo) -> datetime:
    """Go's Time.AddDate(0, 0, days): the same wall clock, days later."""
    return _date(t.year, t.month, t.day + days, t.hour, t.minute, t.second, loc)


def _go_duration(text: str) -> timedelta:
    """time.ParseDuration for the units a schedule uses (h, m, s, ms, us, ns)."""
    units = {"h": 3600.0, "m": 60.0, "s": 1.0, "ms": 1e-3, "us": 1e-6, "µs": 1e-6, "ns": 1e-9}
    if not re.fullmatch(r"([0-9]*\.?[0-9]+(h|ms|us|µs|ns|m|s))+", text):
        raise CronError(f'time: invalid duration "{text}"')
    seconds = sum(float(n) * units[u] for n, u in re.findall(r"([0-9]*\.?[0-9]+)(h|ms|us|µs|ns|m|s)", text))
    return timedelta(seconds=seconds)


def _descriptor(spec: str, loc: tzinfo | None) -> Schedule:
    one = {"second": 1 << SECONDS.low, "minute": 1 << MINUTES.low, "hour": 1 << HOURS.low}
    if spec in ("@yearly", "@annually"):
        return SpecSchedule(**one, dom=1 << DOM.low, month=1 << MONTHS.low, dow=all_bits(DOW), location=loc)
    if spec == "@monthly":
        return SpecSchedule(**one, dom=1 << DOM.low, month=all_bits(MONTHS), dow=all_bits(DOW), location=loc)
    if spec == "@weekly":
        return SpecSchedule(**one, dom=all_bits(DOM), month=all_bits(MONTHS), dow=1 << DOW.low, location=loc)
    if spec in ("@daily", "@midnight"):
        return SpecSchedule(**one, dom=all_bits(DOM), month=all_bits(MONTHS), dow=all_bits(DOW), location=loc)
    if spec == "@hourly":
        return SpecSchedule(
            second=1 << SECONDS.low,
            minute=1 << MINUTES.low,
            hour=all_bits(HOURS),
            dom=all_bits(DOM),
            month=all_bits(MONTHS),
            dow=all_bits(DOW),
            location=loc,
        )
    if spec.startswith("@every "):
        try:
            delay = _go_duration(spec[len("@every ") :])
        except CronError as err:
            raise CronError(f"failed to parse duration {spec}: {err}") from None
        whole = max(int(delay.total_seconds()), 1)  # Every: less than a second rounds up to one
        return Every(timedelta(seconds=whole))
    raise CronError(f"unrecognized descriptor: {spec}")


PLACES = ("second", "minute", "hour", "dom", "month", "dow")
_BOUNDS = (SECONDS, MINUTES, HOURS, DOM, MONTHS, DOW)


@dataclass(frozen=True)
class Parser:
    """cron.NewParser(options): which fields a spec has (`places`), whether the seconds or the
    day-of-week field may be left out, and whether descriptors are read."""

    places: frozenset[str]
    second_optional: bool = False
    dow_optional: bool = False
    descriptor: bool = False

    def normalize(self, fields: list[str]) -> list[str]:
        """normalizeFields: the six fields, optional and absent ones filled with their defaults."""
        places = set(self.places)
        optionals = 0
        if self.second_optional:
            places.add("second")
            optionals += 1
        if self.dow_optional:
            places.add("dow")
            optionals += 1
        if optionals > 1:
            raise CronError("multiple optionals may not be configured")
        most = sum(1 for place in PLACES if place in places)
        least = most - optionals
        if not least <= len(fields) <= most:
            shown = "[" + " ".join(fields) + "]"
            if least == most:
                raise CronError(f"expected exactly {least} fields, found {len(fields)}: {shown}")
            raise CronError(f"expected {least} to {most} fields, found {len(fields)}: {shown}")
        if least < most and len(fields) == least:
            fields = [*fields, _DEFAULTS[5]] if self.dow_optional else [_DEFAULTS[0], *fields]
        expanded = list(_DEFAULTS)
        given = iter(fields)
        for index, place in enumerate(PLACES):
            if place in places:
                expanded[index] = next(given)
        return expanded

    def parse(self, spec: str) -> Schedule:
        """Parser.Parse."""
        if not spec:
            raise CronError("empty spec string")
        loc: tzinfo | None = None
        if spec.startswith(("TZ=", "CRON_TZ=")):
            space, equals = spec.find(" "), spec.find("=")
            name = spec[equals + 1 : space] if space >= 0 else spec[equals + 1 :]
            try:
                loc = load_location(name)
            except CronError as err:
                raise CronError(f"provided bad location {name}: {err}") from None
            spec = spec[space:].strip() if space >= 0 else ""
        if spec.startswith("@"):
            if not self.descriptor:
                raise CronError(f"parser does not accept descriptors: {spec}")
            return _descriptor(spec, loc)
        fields = self.normalize(spec.split())
        bits = [get_field(field, bounds) for field, bounds in zip(fields, _BOUNDS, strict=True)]
        return SpecSchedule(*bits, location=loc)


# cron.ParseStandard's parser: five fields, descriptors; seconds are always 0.
STANDARD = Parser(frozenset({"minute", "hour", "dom", "month", "dow"}), descriptor=True)


def parse_standard(spec: str) -> Schedule:
    """cron.ParseStandard, which Kubernetes' CronJob validation and controller call."""
    return STANDARD.parse(spec)
