"""Quantities parsed as k8s.io/apimachinery's ParseQuantity (quantity_test.go tables)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from k8s.quantity import QuantityError, is_valid_quantity, milli_value, parse_quantity, value

F = Fraction
KI, MI, GI, TI, PI, EI = (2 ** (10 * i) for i in range(1, 7))
MAX_INT64 = 2**63 - 1

VALID = [
    ("0", 0), ("0n", 0), ("0u", 0), ("0m", 0), ("0Ki", 0), ("0k", 0), ("0Mi", 0), ("0M", 0),
    ("0Gi", 0), ("0G", 0), ("0Ti", 0), ("0T", 0),
    ("1", 1),
    ("1Ki", KI), ("8Ki", 8 * KI), ("7Mi", 7 * MI), ("6Gi", 6 * GI), ("5Ti", 5 * TI), ("4Pi", 4 * PI),
    ("3Ei", 3 * EI), ("10Ti", 10 * TI), ("100Ti", 100 * TI),
    ("5n", F(5, 10**9)), ("4u", F(4, 10**6)), ("3m", F(3, 1000)), ("9", 9), ("8k", 8000),
    ("50k", 50000), ("7M", 7 * 10**6), ("6G", 6 * 10**9), ("5T", 5 * 10**12), ("40T", 4 * 10**13),
    ("300T", 3 * 10**14), ("2P", 2 * 10**15), ("1E", 10**18),
    ("1E-3", F(1, 1000)), ("1e3", 1000), ("1E6", 10**6), ("1e9", 10**9), ("1E12", 10**12),
    ("1e15", 10**15), ("1E18", 10**18), ("1e14", 10**14), ("1e13", 10**13), ("100.035k", 100035),
    ("0.001", F(1, 1000)), ("0.0005k", F(1, 2)), ("0.005", F(5, 1000)), ("0.05", F(5, 100)),
    ("0.5", F(1, 2)), ("0.00050k", F(1, 2)), ("0.00500", F(5, 1000)), ("0.05000", F(5, 100)),
    ("0.50000", F(1, 2)), ("0.5e0", F(1, 2)), ("0.5e-1", F(5, 100)), ("0.5e-2", F(5, 1000)),
    ("10.035M", 10035000), ("1.2e3", 1200), ("1.3E+6", 1300000), ("1.40e9", 1400000000),
    ("1.53E12", 153 * 10**10), ("1.6e15", 16 * 10**14), ("1.7E18", 17 * 10**17),
    ("9.01", F(901, 100)), ("8.1k", 8100), ("7.123456M", 7123456), ("6.987654321G", 6987654321),
    ("5.444T", 5444 * 10**9), ("40.1T", 401 * 10**11), ("300.2T", 3002 * 10**11), ("2.5P", 25 * 10**14),
    ("1.01E", 101 * 10**16),
    # things that saturate or round up to nano precision
    ("3.001n", F(4, 10**9)), ("1.1E-9", F(2, 10**9)), ("0.0000000001", F(1, 10**9)),
    ("0.0000000005", F(1, 10**9)), ("0.00000000050", F(1, 10**9)), ("0.5e-9", F(1, 10**9)),
    ("0.9n", F(1, 10**9)), ("0.00000012345", F(124, 10**9)), ("0.00000012354", F(124, 10**9)),
    ("9Ei", MAX_INT64), ("9223372036854775807Ki", MAX_INT64), ("12E", 12 * 10**18),
    # fractional binary amounts
    ("100.035Ki", F(10243584, 100)), ("0.5Mi", MI // 2), ("0.05Gi", F(536870912, 10)),
    ("0.025Ti", F(274877906944, 10)),
    # things written by trolls
    ("0.000000000001Ki", F(2, 10**9)), (".001", F(1, 1000)), (".0001k", F(1, 10)), ("1.", 1),
    ("1.G", 10**9),
    # every part of the grammar may be empty (parseQuantityString accepts ".", "-." and a bare suffix)
    (".", 0), ("-.", 0), ("+", 0), ("Ki", 0),
    # the examples of the issue
    ("500m", F(1, 2)), ("1.5", F(3, 2)), ("128Mi", 128 * MI), ("1G", 10**9),
]  # fmt: skip


@pytest.mark.parametrize(("text", "expected"), VALID, ids=[v[0] for v in VALID])
def test_parse_quantity(text, expected):
    assert parse_quantity(text) == expected
    if text[:1] not in ("+", "-"):  # upstream also parses every case with an explicit sign
        assert parse_quantity("-" + text) == -expected
        assert parse_quantity("+" + text) == expected


INVALID = [
    "1.1.M", "1+1.0M", "0.1mi", "0.1am", "aoeu", ".5i", "1i", "-3.01i", "-3.01e-", "1e4294967297",
    " 1", "1 ", "", "1K", "12XB", "1k ", "1e", "1ee3", "1Gib",
]  # fmt: skip


@pytest.mark.parametrize("text", INVALID, ids=[repr(t) for t in INVALID])
def test_invalid_quantities_are_rejected(text):
    with pytest.raises(QuantityError):
        parse_quantity(text)
    assert not is_valid_quantity(text)


def test_error_messages_follow_upstream():
    with pytest.raises(QuantityError, match=r"^quantities must match the regular expression '\^\(\[\+-\]\?"):
        parse_quantity("12XB")
    with pytest.raises(QuantityError, match=r"^unable to parse quantity's suffix"):
        parse_quantity("1K")


@pytest.mark.parametrize(
    ("text", "milli", "units"),
    [
        ("500m", 500, 1),
        ("1.5", 1500, 2),
        ("0.1m", 1, 1),
        ("1", 1000, 1),
        ("4000", 4_000_000, 4000),
        ("250m", 250, 1),
        ("1e3", 1_000_000, 1000),
        ("128Mi", 134_217_728_000, 134_217_728),
        ("1G", 10**12, 1_000_000_000),
        ("1Gi", 1_073_741_824_000, 1_073_741_824),
        ("1.5Gi", 1_610_612_736_000, 1_610_612_736),
        ("200Mi", 209_715_200_000, 209_715_200),
        ("10000", 10_000_000, 10_000),
        ("3.001n", 1, 1),
    ],
)
def test_milli_value_and_value_round_up(text, milli, units):
    assert milli_value(text) == milli
    assert value(text) == units


def test_numbers_from_yaml_are_parsed_from_their_text():
    assert parse_quantity(2) == 2
    assert parse_quantity(0.5) == F(1, 2)
    assert milli_value(0.1) == 100
    assert value(1e-05) == 1


def test_booleans_are_not_quantities_even_after_an_int_was_cached():
    assert parse_quantity(1) == 1
    with pytest.raises(QuantityError):
        parse_quantity(True)
