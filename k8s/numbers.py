"""JSON and YAML numbers as Kubernetes' decoder reads them: an int64 when it fits, else a float64,
and a number past float64's range (1e400, a 5,000-digit integer) or NaN refused (OutOfRange).

sigs.k8s.io/json (UnmarshalCaseSensitivePreserveInts) reads a number that does not fit int64 as
float64 where the type is free-form, and a typed field refuses it quoting the literal (`number
18446744073709551616`): a BigInteger is that float64 with its literal kept. Reading it as a float
also keeps Python from converting a 5,000-digit literal to int (over its 4,300-digit limit).
"""

from __future__ import annotations

import math

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
# The most digits an int64 has; a literal with more never fits.
_INT64_DIGITS = 19


class OutOfRange(ValueError):
    """A number no float64 holds; the message is Go's decoder's."""

    def __init__(self, text: str) -> None:
        shown = text if len(text) <= 40 else text[:40] + "..."
        super().__init__(f"json: cannot unmarshal number {shown} into Go value of type float64")


def float_from_text(text: str) -> float:
    """A JSON number with a fraction or exponent; OutOfRange past float64 (Go's ParseFloat fails)."""
    number = float(text)  # float() reads any number of digits and overflows to inf
    if not math.isfinite(number):
        raise OutOfRange(text)
    return number


def finite(number: float, text: str) -> float:
    """A float YAML read (.inf and .nan included): OutOfRange unless finite."""
    if not math.isfinite(number):
        raise OutOfRange(text)
    return number


class BigInteger(float):
    """An integer literal past int64, read as a float64, that remembers its text for Go's error."""

    __slots__ = ("literal",)

    def __new__(cls, number: float, literal: str) -> BigInteger:
        big = super().__new__(cls, number)
        big.literal = literal
        return big

    def __getnewargs__(self) -> tuple[float, str]:  # copy, deepcopy and pickle keep the literal
        return (float(self), self.literal)


def int_from_text(text: str) -> int | float:
    """A JSON integer literal (optional sign, decimal digits): int if it fits int64, else float."""
    if len(text.lstrip("+-")) > _INT64_DIGITS:
        return BigInteger(float_from_text(text), text)
    number = int(text)
    return number if INT64_MIN <= number <= INT64_MAX else BigInteger(float(number), text)


def fit_int(number: int, text: str) -> int | float:
    """An integer already read (YAML's other notations: hex, octal, underscores): the same rule."""
    if INT64_MIN <= number <= INT64_MAX:
        return number
    try:
        return float(number)
    except OverflowError:
        raise OutOfRange(text) from None
