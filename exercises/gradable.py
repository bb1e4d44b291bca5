"""Whether an answer read as text can be graded on a variant: a count of items or a shape the variant fixes."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from exercises import messages
from exercises.base import Answer, FieldError, Variant
from exercises.comparators import SHAPED_KINDS, shape_problem
from exercises.parsing import field_error
from exercises.plugin import Exercise
from exercises.readers import display


def count_errors(
    exercise: Exercise, variant: Variant, answer: Answer, lang: str = "zh", reference: Answer | None = None
) -> tuple[FieldError, ...]:
    """Errors for ``one_per_item`` parts whose length differs from the key's: such an answer cannot be graded."""
    fields = [f for f in exercise.fields if f.one_per_item and isinstance(answer.get(f.name), (list, tuple))]
    if not fields:
        return ()
    reference = reference if reference is not None else exercise.solve(variant)
    return tuple(
        field_error(
            f.name,
            messages.shared(messages.WRONG_COUNT, expected=len(reference[f.name]), read=len(answer[f.name])),
            lang,
        )
        for f in fields
        if len(answer[f.name]) != len(reference[f.name])
    )


def shape_errors(
    exercise: Exercise, variant: Variant, answer: Answer, lang: str = "zh", reference: Answer | None = None
) -> tuple[FieldError, ...]:
    """Errors for vector and matrix parts whose shape is not the one the variant fixes: such an answer cannot be graded.

    A shape that one of the exercise's wrong procedures gives on this variant (a step left out, a matrix transposed)
    is graded instead, so that the mistake is tagged.
    """
    fields = [f for f in exercise.fields if f.kind in SHAPED_KINDS and isinstance(answer.get(f.name), (list, tuple))]
    if not fields:
        return ()
    reference = reference if reference is not None else exercise.solve(variant)
    problems = [
        (f, problem)
        for f in fields
        for problem in [shape_problem(f.kind, answer[f.name], reference[f.name])]
        if problem is not None
    ]
    if not problems:
        return ()
    # Solved only here, on a mismatch: the preview runs this as the student types, and most answers have the shape.
    wrong_answers = [wrong for wrong in (m.solve(variant) for m in exercise.misconceptions) if wrong is not None]
    return tuple(
        field_error(
            f.name,
            messages.wrong_shape(f.kind, problem, _one_run(answer[f.name])),
            lang,
            None,
            display(f.kind, answer[f.name], lang),
        )
        for f, problem in problems
        if not any(
            f.name in wrong and shape_problem(f.kind, answer[f.name], wrong[f.name]) is None for wrong in wrong_answers
        )
    )


def _one_run(rows: Sequence[Any]) -> bool:
    """Whether rows were read as all the numbers in one run: one row, or one number per row (one per line)."""
    return len(rows) == 1 or all(isinstance(row, (list, tuple)) and len(row) == 1 for row in rows)


def needs_variant(exercise: Exercise) -> bool:
    """Whether reading an answer also depends on the variant: a count of items, or a shape the variant fixes."""
    return any(f.one_per_item or f.kind in SHAPED_KINDS for f in exercise.fields)


def variant_errors(
    exercise: Exercise, variant: Variant, answer: Answer, lang: str = "zh", reference: Answer | None = None
) -> tuple[FieldError, ...]:
    """Why an answer readable as text cannot be graded on this variant: ``count_errors`` and ``shape_errors``."""
    if reference is None and needs_variant(exercise):
        reference = exercise.solve(variant)
    return count_errors(exercise, variant, answer, lang, reference) + shape_errors(
        exercise, variant, answer, lang, reference
    )
