"""The preview's precision warning: a number typed with fewer decimals than its part's hint asks for.

Said while the student types (``api.validate``), for free: the typed value is read as it is and graded later, so
"✓ read as 0.71" for a part that asks for 4 decimals would otherwise pass unremarked and then be marked wrong. The
warning depends only on what was typed, never on the key, so it gives nothing away; whole numbers are not warned
about (a weight of 1 or 0 is often exact).
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

from exercises.base import AnswerField
from exercises.i18n import Text

NUMBER_WORDS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
ASKED = re.compile(r"\b(\d|two|three|four|five|six) decimals\b")
FEW_DECIMALS = Text(
    "{value} 只有 {have} 位小数，本题提示要求 {want} 位；除非它是精确值，请多保留几位，否则可能被判为不对。",
    "{value} has {have} decimal(s) and this part's hint asks for {want}; unless it is exact, keep more, or it may "
    "be marked wrong.",
)


def asked_decimals(answer_field: AnswerField) -> int | None:
    """How many decimals the part's hint asks for ("4 decimals", "at least three decimals"), or None."""
    found = ASKED.search(answer_field.hint.en)
    if found is None:
        return None
    word = found.group(1)
    return int(word) if word.isdigit() else NUMBER_WORDS[word]


def _decimals(value: float) -> int:
    """The decimals ``value`` was written with (its shortest round-tripping form)."""
    if value.is_integer():
        return 0
    exponent = Decimal(repr(value)).as_tuple().exponent
    return max(0, -exponent) if isinstance(exponent, int) else 0


def _numbers(value: Any) -> list[float]:
    """Every number in a parsed value, in order."""
    if isinstance(value, (list, tuple)):
        return [number for item in value for number in _numbers(item)]
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return []
    return [float(value)]


def short_numbers(answer_field: AnswerField, value: Any) -> list[tuple[float, int, int]]:
    """(number, decimals written, decimals asked) for each non-whole number of ``value`` written with fewer
    decimals than the part's hint asks for."""
    wanted = asked_decimals(answer_field)
    if wanted is None:
        return []
    return [(number, have, wanted) for number in _numbers(value) for have in [_decimals(number)] if 0 < have < wanted]


def precision_warnings(fields: tuple[AnswerField, ...], values: dict[str, Any], lang: str) -> list[dict[str, str]]:
    """One warning per part whose typed numbers carry fewer decimals than its hint asks (the first such number)."""
    warnings = []
    for answer_field in fields:
        if answer_field.name not in values:
            continue
        short = short_numbers(answer_field, values[answer_field.name])
        if short:
            number, have, wanted = short[0]
            message = FEW_DECIMALS.format(value=repr(number), have=have, want=wanted).get(lang)
            warnings.append({"field": answer_field.name, "message": message})
    return warnings
