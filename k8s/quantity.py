"""Resource quantities, parsed and printed exactly as k8s.io/apimachinery/pkg/api/resource does.

Values are kept as exact fractions; `milli_value` and `value` round up (away from zero) as
Quantity.MilliValue() and Quantity.Value() do. Printed in canonical form as Quantity.String()
prints them: "1000m" prints "1", "0.5" prints "500m", "1024Mi" prints "1Gi"; a sum keeps the
format of its first term (binary "Mi"/"Gi" or decimal), as Quantity.Add does.
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
# parseQuantityString's grammar: sign, integer digits, optional "." and fraction digits, then a
# suffix made of [eEinumkKMGTP]*, an optional sign and digits. Every part may be empty, so Go accepts
# ".", "-" and "Ki" as zero; anything else (a second ".", a space, a letter outside the set) is wrong.
_SYNTAX = re.compile(r"([+-]?)([0-9]*)(?:\.([0-9]*))?([eEinumkKMGTP]*[-+]?[0-9]*)", re.ASCII)
_EXPONENT = re.compile(r"[eE]([+-]?[0-9]+)", re.ASCII)
_NANO = 10**9
# Binary-SI amounts are capped at the largest int64, as ParseQuantity does.
_MAX_ALLOWED = 2**63 - 1
_INT32_MAX = 2**31 - 1
_GRAMMAR = "^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$"


class QuantityError(ValueError):
    """A string that Kubernetes would not accept as a quantity; `go_error` is ParseQuantity's own
    error text (ErrFormatWrong, ErrSuffix), which a body's decoder answers with."""

    def __init__(self, go_error: str, text: object = None) -> None:
        super().__init__(go_error if text is None else f"{go_error}: {text!r}")
        self.go_error = go_error


FORMAT_WRONG = f"quantities must match the regular expression {_GRAMMAR!r}"


def _ceil(value: Fraction) -> int:
    return -((-value.numerator) // value.denominator)


def _round_away(value: Fraction) -> int:
    return _ceil(value) if value >= 0 else -_ceil(-value)


def _multiplier(suffix: str, text: str) -> tuple[Fraction | int, bool]:
    """quantitySuffixer.interpret: the suffix's factor and whether it is binary SI."""
    if suffix in _DECIMAL:
        return _DECIMAL[suffix], False
    if suffix in _BINARY:
        return _BINARY[suffix], True
    exponent = _EXPONENT.fullmatch(suffix)
    # The exponent is stored in an int32 scale; anything beyond it is rejected, not truncated.
    if exponent and abs(int(exponent.group(1))) <= _INT32_MAX:
        return Fraction(10) ** int(exponent.group(1)), False
    raise QuantityError("unable to parse quantity's suffix", text)


@lru_cache(maxsize=4096, typed=True)
def parse_quantity(text: str | int | float) -> Fraction:
    """Parse `500m`, `1.5`, `128Mi`, `1G`, `1e3` … into an exact value; reject `1K`, `12XB`."""
    if isinstance(text, bool):
        raise QuantityError(FORMAT_WRONG, text)
    if isinstance(text, int):
        return Fraction(text)
    if isinstance(text, float):
        text = repr(text)  # a JSON/YAML number is parsed from its literal text
    if not text:
        raise QuantityError(FORMAT_WRONG, text)
    match = _SYNTAX.fullmatch(text)
    if not match:
        raise QuantityError(FORMAT_WRONG, text)
    sign, whole, fraction, suffix = match.groups()
    multiplier, binary = _multiplier(suffix, text)
    value = Fraction(int(whole or "0")) + (Fraction(int(fraction), 10 ** len(fraction)) if fraction else 0)
    value *= multiplier
    # Non-zero values are rounded up (away from zero) to nano precision when parsed.
    if value and (value * _NANO).denominator != 1:
        value = Fraction(_ceil(value * _NANO), _NANO)
    if binary and value > _MAX_ALLOWED:
        value = Fraction(_MAX_ALLOWED)
    return -value if sign == "-" else value


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


# -- printing ------------------------------------------------------------------------------------
_BINARY_PRINTED = ((6, "Ei"), (5, "Pi"), (4, "Ti"), (3, "Gi"), (2, "Mi"), (1, "Ki"))
_DECIMAL_PRINTED = (
    (18, "E"),
    (15, "P"),
    (12, "T"),
    (9, "G"),
    (6, "M"),
    (3, "k"),
    (0, ""),
    (-3, "m"),
    (-6, "u"),
    (-9, "n"),
)


def is_binary(text: object) -> bool:
    return isinstance(text, str) and text.strip().endswith("i")


def canonical(value: Fraction | int, binary: bool = False) -> str:
    value = Fraction(value)
    if value == 0:
        return "0"
    if binary and abs(value) >= 1024 and value.denominator == 1:
        for power, suffix in _BINARY_PRINTED:
            if value % (1024**power) == 0:
                return f"{value // 1024**power}{suffix}"
        return str(value.numerator)
    for exponent, suffix in _DECIMAL_PRINTED:
        scaled = value / Fraction(10) ** exponent
        if scaled.denominator == 1:
            return f"{scaled.numerator}{suffix}"
    # Finer than a nano: the API server rounds up to nano precision.
    return f"{-(-value * 10**9 // 1)}n"


def format_quantity(text: object) -> str:
    """A quantity as the user wrote it, printed as the API server would print it back."""
    try:
        return canonical(parse_quantity(text), is_binary(text))  # type: ignore[arg-type]
    except ValueError:
        return str(text)


class Total:
    """A running sum of quantities that prints like Quantity.Add's result."""

    def __init__(self) -> None:
        self.value = Fraction(0)
        self.binary: bool | None = None

    def add(self, text: object) -> None:
        if text is None:
            return
        if self.binary is None:
            self.binary = is_binary(text)
        self.value += parse_quantity(text)  # type: ignore[arg-type]

    def __str__(self) -> str:
        return canonical(self.value, bool(self.binary))
