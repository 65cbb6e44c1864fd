"""Quantities printed in canonical form, as resource.Quantity.String() prints them.

"1000m" prints "1", "0.5" prints "500m", "1024Mi" prints "1Gi"; a sum keeps the format of its
first term (binary "Mi"/"Gi" or decimal), as Quantity.Add does.
"""

from __future__ import annotations

from fractions import Fraction

from k8s.quantity import parse_quantity

_BINARY = ((6, "Ei"), (5, "Pi"), (4, "Ti"), (3, "Gi"), (2, "Mi"), (1, "Ki"))
_DECIMAL = (
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
        for power, suffix in _BINARY:
            if value % (1024**power) == 0:
                return f"{value // 1024**power}{suffix}"
        return str(value.numerator)
    for exponent, suffix in _DECIMAL:
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
