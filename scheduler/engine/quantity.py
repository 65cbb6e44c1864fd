"""Resource quantities, parsed exactly as k8s.io/apimachinery/pkg/api/resource does.

Values are kept as exact fractions; `milli_value` and `value` round up (away from zero) as
Quantity.MilliValue() and Quantity.Value() do.
"""

from __future__ import annotations

import re
from fractions import Fraction
from functools import lru_cache

_BINARY = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}
_DECIMAL = {
    "n": Fraction(1, 10**9),
    "u": Fraction(1, 10**6),
    "m": Fraction(1, 10**3),
    "": Fraction(1),
    "k": Fraction(10**3),
    "M": Fraction(10**6),
    "G": Fraction(10**9),
    "T": Fraction(10**12),
    "P": Fraction(10**15),
    "E": Fraction(10**18),
}
_NUMBER = re.compile(r"([+-]?)(\d+\.?\d*|\.\d+)(.*)", re.ASCII | re.DOTALL)
_EXPONENT = re.compile(r"[eE]([+-]?\d+)", re.ASCII)
_NANO = 10**9
_GRAMMAR = "^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$"


class QuantityError(ValueError):
    """A string that Kubernetes would not accept as a quantity."""


def _ceil(value: Fraction) -> int:
    return -((-value.numerator) // value.denominator)


def _round_away(value: Fraction) -> int:
    return _ceil(value) if value >= 0 else -_ceil(-value)


@lru_cache(maxsize=4096)
def parse_quantity(text: str | int | float) -> Fraction:
    """Parse `500m`, `1.5`, `128Mi`, `1G`, `1e3` … into an exact value; reject `1K`, `12XB`."""
    if isinstance(text, bool):
        raise QuantityError(f"quantities must match the regular expression {_GRAMMAR!r}: {text!r}")
    if isinstance(text, int):
        return Fraction(text)
    if isinstance(text, float):
        text = repr(text)
    match = _NUMBER.fullmatch(text)
    if not match:
        raise QuantityError(f"quantities must match the regular expression {_GRAMMAR!r}: {text!r}")
    sign, digits, suffix = match.groups()
    if suffix in _BINARY:
        multiplier: Fraction | int = _BINARY[suffix]
    elif suffix in _DECIMAL:
        multiplier = _DECIMAL[suffix]
    elif exp := _EXPONENT.fullmatch(suffix):
        multiplier = Fraction(10) ** int(exp.group(1))
    else:
        raise QuantityError(f"unable to parse quantity's suffix: {text!r}")
    value = Fraction(digits) * multiplier
    if sign == "-":
        value = -value
    # Non-zero values are rounded up to nano precision when parsed.
    if value and (value * _NANO).denominator != 1:
        value = Fraction(_round_away(value * _NANO), _NANO)
    return value


def milli_value(text: str | int | float) -> int:
    """Quantity.MilliValue(): the value in thousandths, rounded up."""
    return _round_away(parse_quantity(text) * 1000)


def value(text: str | int | float) -> int:
    """Quantity.Value(): the value in whole units, rounded up."""
    return _round_away(parse_quantity(text))


def is_valid_quantity(text: object) -> bool:
    try:
        parse_quantity(text)  # type: ignore[arg-type]
    except (QuantityError, TypeError):
        return False
    return True
