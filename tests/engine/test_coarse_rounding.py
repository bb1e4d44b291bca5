"""A number that is the key rounded too coarsely says so: the method was right, the digits too few (score unchanged).

Found by an audit: a cosine typed 0.21 for 0.210819 got "Not right yet" and the formula, which sent the student to
look for a mistake in a method that was right; the hints ask for 3 to 4 decimals, and nothing said that was the
problem.
"""

from __future__ import annotations

import math
import os

import pytest

from exercises.checking import check_answer
from exercises.comparators import DEFAULT_TOLERANCE
from exercises.messages import TOO_COARSE
from exercises.registry import EXERCISES, get_exercise
from exercises.rounding import coarsely_rounded
from tests.engine.verdict_support import seeded

SEEDS = int(os.environ.get("GRADER_PROPERTY_SEEDS", "200"))
WITH_NUMBERS = [e.id for e in EXERCISES if any(f.kind == "number" for f in e.fields)]


@pytest.mark.parametrize("exercise_id", WITH_NUMBERS)
def test_the_key_rounded_or_cut_too_coarsely_is_named_and_scores_nothing(exercise_id: str) -> None:
    exercise = get_exercise(exercise_id)
    said = 0
    for seed in range(SEEDS):
        variant = seeded(exercise, seed)
        key = exercise.solve(variant)
        for field in (f for f in exercise.fields if f.kind == "number"):
            exact = float(key[field.name])
            for decimals in (1, 2, 3):
                scale = 10**decimals
                for coarse in (round(exact, decimals), math.trunc(exact * scale) / scale):
                    digits = len(repr(abs(coarse)).replace(".", "").lstrip("0"))
                    if digits < 2 or (field.tolerance or DEFAULT_TOLERANCE).close(coarse, exact):
                        continue  # fewer than two significant digits: no telling a rounding from another result
                    part = check_answer(exercise, variant, {**key, field.name: coarse}, "en").parts[field.name]
                    assert part.score == 0 and not part.correct, (seed, field.name, coarse)
                    if part.tags:
                        continue  # a wrong procedure that gives this number too is named instead
                    assert TOO_COARSE.en in part.feedback, (seed, field.name, coarse)
                    said += 1
    assert said > 0


@pytest.mark.parametrize("exercise_id", WITH_NUMBERS)
def test_a_number_that_is_not_the_key_rounded_is_not_called_coarse(exercise_id: str) -> None:
    exercise = get_exercise(exercise_id)
    for seed in range(SEEDS):
        variant = seeded(exercise, seed)
        key = exercise.solve(variant)
        for field in (f for f in exercise.fields if f.kind == "number"):
            off = round(float(key[field.name]) * 1.37 + 0.011, 2)
            part = check_answer(exercise, variant, {**key, field.name: off}, "en").parts[field.name]
            assert TOO_COARSE.en not in part.feedback, (seed, field.name, off)


@pytest.mark.parametrize(
    "kind, student, reference, expected",
    [
        ("number", 2.23, 2.22562, True),  # rounded
        ("number", 2.22, 2.22562, True),  # cut
        ("number", 2.2, 2.22562, True),
        ("number", 0.1, 0.064, False),  # one significant digit
        ("number", 0.7, 0.7071, False),
        ("number", 2.24, 2.22562, False),
        ("number", 2.0, 2.4, False),  # no decimal written: a whole number is no rounding of the method's result
        ("number", 0.0, 0.004, False),
        ("number", 1 / 3, 0.3334, False),  # a value of its own, not a rounding
        ("number", True, 1.2, False),
        ("vector", [0.21], [0.2108], True),  # vectors too since engine 1.10.0 (issue 20; was False)
        ("number", 0.00012, 0.000123456, True),
        ("number", -0.56, -0.556406, True),
    ],
)
def test_coarsely_rounded(kind: str, student: object, reference: object, expected: bool) -> None:
    assert coarsely_rounded(kind, student, reference) is expected
