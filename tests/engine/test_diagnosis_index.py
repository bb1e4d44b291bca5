"""The search table's numeric index (exercises/diagnosis/index.py) narrows to a superset of the exact matches, in
table order, so the checker names the same tags as it did comparing the whole table."""

from __future__ import annotations

from typing import Any

import pytest

from exercises.comparators import equal
from exercises.diagnosis.index import candidates
from exercises.diagnosis.search import generated
from exercises.registry import EXERCISES
from exercises.variant_generation import generate_variant
from tests.engine.verdict_support import seeded

STEPPED = [exercise for exercise in EXERCISES if exercise.steps is not None]
NUDGES = ((1.0, 0.0), (1 + 1e-3, 5e-4), (1 - 1e-3, -5e-4), (1 + 1.0001e-3, 5.0001e-4), (1.5, 0.0))


def _nudged(value: Any, factor: float, shift: float) -> Any:
    """``value`` with every float scaled and shifted: onto, just inside and just outside the tolerance bound."""
    if isinstance(value, list):
        return [_nudged(item, factor, shift) for item in value]
    return value * factor + shift if isinstance(value, float) else value


@pytest.mark.parametrize("exercise", STEPPED, ids=lambda e: e.id)
def test_candidates_keep_every_exact_match_in_table_order(exercise):
    narrowed = 0
    for seed in range(0, 4):
        variant = seeded(exercise, seed)
        table = generated(exercise, variant, pairs=True)
        for answer_field in exercise.fields:
            for _, changed in table[::4]:
                if answer_field.name not in changed:
                    continue
                for factor, shift in NUDGES:
                    student = _nudged(changed[answer_field.name], factor, shift)
                    kept = candidates(table, answer_field, student)
                    exact = [
                        entry
                        for entry in table
                        if answer_field.name in entry[1]
                        and equal(answer_field.kind, student, entry[1][answer_field.name], answer_field.tolerance)
                    ]
                    assert all(entry in kept for entry in exact), (seed, answer_field.name, factor)
                    positions = [table.index(entry) for entry in kept]
                    assert positions == sorted(positions)
                    narrowed += len(kept) < len(table)
    if any(f.kind in ("number", "vector", "matrix", "vectors") for f in exercise.fields):
        assert narrowed, "the index never left an entry out: it does nothing"


def test_parts_that_are_not_plain_numbers_get_the_whole_table():
    exercise = next(e for e in STEPPED if any(f.kind == "matrix" for f in e.fields))
    table = generated(exercise, generate_variant(exercise, 3), pairs=False)
    matrix = next(f for f in exercise.fields if f.kind == "matrix")
    assert candidates(table, matrix, [[1.0, 2.0], [3.0]]) == table  # ragged: left to the exact comparison
    assert candidates(table, matrix, "1, 2") == table
