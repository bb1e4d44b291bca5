"""Where the checker asks the generic search: the generated diagnoses a wrong part matches, less those its other
parts rule out, the best supported one only."""

from __future__ import annotations

from typing import Any, NamedTuple

from exercises.base import Answer, AnswerField, Misconception, Variant
from exercises.comparators import equal
from exercises.diagnosis.index import candidates
from exercises.diagnosis.search import Stepped, Table, generated, worded
from exercises.tagging import consistent_tags, solver_tags


class Found(NamedTuple):
    """The generated tags on a part (at most one) and the misconceptions that word them."""

    tags: tuple[str, ...]
    misconceptions: tuple[Misconception, ...]


NOTHING = Found((), ())


def generated_tags(
    exercise: Stepped,
    variant: Variant,
    answer_field: AnswerField,
    student: Any,
    reference: Any,
    answer: Answer,
    key: Answer,
) -> Found:
    """The generated diagnosis naming this wrong part, where one matches it and the other parts do not rule it out.

    Of several, the one the student's other parts support best (``consistent_tags``' ranking), then the one with
    fewer mistakes: a single wrong step explains an answer better than two (single mistakes are tried first).
    """
    for pairs in (False, True):
        found = _best(
            generated(exercise, variant, pairs), exercise, variant, answer_field, student, reference, answer, key
        )
        if found is not None:
            return found
    return NOTHING


def _answered_with_key(exercise: Stepped, answer: Answer, key: Answer) -> frozenset[str]:
    """The parts the student answered with the key."""
    return frozenset(
        f.name for f in exercise.fields if f.name in answer and equal(f.kind, answer[f.name], key[f.name], f.tolerance)
    )


def _best(
    table: Table,
    exercise: Stepped,
    variant: Variant,
    answer_field: AnswerField,
    student: Any,
    reference: Any,
    answer: Answer,
    key: Answer,
) -> Found | None:
    """The best supported entry of ``table`` matching the part and not ruled out, or None."""
    # Only the entries near the part are compared exactly: the same tags, in the same order, as the whole table.
    near = candidates(table, answer_field, student)
    matched = solver_tags(near, answer_field, student, reference)
    if not matched:
        return None
    # The entries of the matched tags are all the ranking reads (a generated tag names one entry).
    entries = tuple(entry for entry in near if entry[0].tag in matched)
    kept = consistent_tags(exercise.fields, entries, answer_field.name, matched, answer, key, checked=matched)
    if not kept:
        return None
    # Stricter than for hand-written solvers, for the search tries hundreds of mistakes and some will fit a part by
    # chance: any other part the mistake changes (earlier or later, parallel or not) answered with the key rules it
    # out, since a step done wrong shows in every part worked out through it.
    keyed = _answered_with_key(exercise, answer, key) - {answer_field.name}
    solved = {misconception.tag: changed for misconception, changed in entries}
    kept = tuple(found for found in kept if keyed.isdisjoint(solved[found]))
    if not kept:
        return None
    best = kept[0]  # ranked by support; among equals the table order puts the earlier step first
    return Found((best,), tuple(worded(exercise, variant, m) for m, _ in entries if m.tag == best))
