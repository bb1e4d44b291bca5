"""Whole numbers typed by people and other systems: ASCII digits up to a bound, nothing else, and never an int()
that raises (another script's digits pass str.isdigit)."""

from __future__ import annotations

import pytest

from grader.whole_numbers import whole_number


@pytest.mark.parametrize(
    ("text", "most", "expected"),
    [
        ("0", 9, 0),
        ("7", 9, 7),
        ("0007", 9, 7),  # leading zeros do not count against the bound
        ("9999", 9999, 9999),
        ("10000", 9999, None),
        ("720", 720, 720),
        ("721", 720, None),
        ("9" * 5000, 10**12, None),  # refused by its length, before int() (which would raise past 4300 digits)
        ("0" * 5000 + "5", 9, 5),
    ],
)
def test_ascii_digits_up_to_the_bound_are_read(text: str, most: int, expected: int | None) -> None:
    assert whole_number(text, most) == expected


@pytest.mark.parametrize("text", ["", " 7", "7 ", "-1", "+1", "1.0", "1e3", "0x10", "1_000", "²", "٣", "７", "①"])
def test_anything_else_is_none(text: str) -> None:
    assert whole_number(text, 10**9) is None
