"""Reading and checking answers the same way for every exercise: parts, partial credit, follow-through, tags."""
from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Collection, Mapping, Sequence

from exercises import messages
from exercises.base import (Answer, AnswerField, FieldError, GradeResult, Misconception, ParsedAnswer, PartResult,
                            Variant)
from exercises.comparators import SHAPED_KINDS, compare, element_score, equal, shape_problem
from exercises.errors import ReadError
from exercises.readers import display, read_kind

if TYPE_CHECKING:
    from exercises.plugin import Exercise

LIST_ELEMENT_KIND = {"tokens": "token", "pairs": "tokens", "choices": "choice", "vectors": "vector",
                     "vector": "number"}
MAX_FIELD_NAME = 64


def parse_answer(exercise: "Exercise", raw: object, lang: str = "zh") -> ParsedAnswer:
    """Read every field of ``raw``; a field that can't be read becomes an error, never an exception."""
    raw = _as_object(exercise, raw)
    if isinstance(raw, FieldError):
        return ParsedAnswer({}, {}, (_localised(raw, lang),))
    known = {f.name for f in exercise.fields}
    errors: list[FieldError] = [
        FieldError(str(name)[:MAX_FIELD_NAME], messages.UNKNOWN_FIELD.format(
            name=str(name)[:MAX_FIELD_NAME], expected=", ".join(sorted(known))).get(lang))
        for name in raw if name not in known
    ]
    values: dict[str, Any] = {}
    interpreted: dict[str, str] = {}
    for answer_field in exercise.fields:
        if answer_field.name not in raw:
            errors.append(FieldError(answer_field.name, messages.MISSING_FIELD.get(lang)))
            continue
        try:
            value = read_kind(answer_field.kind, answer_field.units.blank(raw[answer_field.name]),
                              symbols=exercise.symbols,
                              aliases=answer_field.aliases, options=answer_field.options)
        except ReadError as error:
            errors.append(FieldError(answer_field.name, error.message.get(lang), error.position,
                                     error.interpreted))
            continue
        values[answer_field.name] = value
        interpreted[answer_field.name] = display(answer_field.kind, value, lang)
    return ParsedAnswer(values, interpreted, tuple(errors))


def _as_object(exercise: "Exercise", raw: object) -> Mapping[str, Any] | FieldError:
    """Accept an object, a JSON text of one, or bare text for a one-field exercise."""
    if isinstance(raw, str):
        stripped = raw.strip()
        if stripped.startswith("{"):
            try:
                raw = json.loads(stripped)
            except ValueError:
                if len(exercise.fields) != 1:
                    return FieldError(None, "not-json")
                # One field: "{{a,0},{0,a}}" is a matrix in curly brackets, for that field's reader.
                return {exercise.fields[0].name: raw}
        elif len(exercise.fields) == 1:
            return {exercise.fields[0].name: raw}
    if not isinstance(raw, Mapping):
        return FieldError(None, "not-object")
    return raw


def _localised(error: FieldError, lang: str) -> FieldError:
    """Turn the placeholder code of an answer-level error into its message."""
    text = messages.NOT_JSON if error.message == "not-json" else messages.NOT_OBJECT
    return FieldError(None, text.get(lang))


def to_json(value: Any) -> Any:
    """A parsed value in plain JSON form (tuples become lists)."""
    if isinstance(value, (list, tuple)):
        return [to_json(item) for item in value]
    return value


def count_errors(exercise: "Exercise", variant: Variant, answer: Answer, lang: str = "zh",
                 reference: Answer | None = None) -> tuple[FieldError, ...]:
    """Errors for ``one_per_item`` parts whose length differs from the key's: such an answer cannot be graded."""
    fields = [f for f in exercise.fields if f.one_per_item and isinstance(answer.get(f.name), (list, tuple))]
    if not fields:
        return ()
    reference = reference if reference is not None else exercise.solve(variant)
    return tuple(
        FieldError(f.name, messages.WRONG_COUNT.format(expected=len(reference[f.name]),
                                                       read=len(answer[f.name])).get(lang))
        for f in fields if len(answer[f.name]) != len(reference[f.name])
    )


def shape_errors(exercise: "Exercise", variant: Variant, answer: Answer, lang: str = "zh",
                 reference: Answer | None = None) -> tuple[FieldError, ...]:
    """Errors for vector and matrix parts whose shape is not the one the variant fixes: such an answer cannot be graded.

    A shape that one of the exercise's wrong procedures gives on this variant (a step left out, a matrix transposed)
    is graded instead, so that the mistake is tagged.
    """
    fields = [f for f in exercise.fields if f.kind in SHAPED_KINDS and isinstance(answer.get(f.name), (list, tuple))]
    if not fields:
        return ()
    reference = reference if reference is not None else exercise.solve(variant)
    problems = [(f, problem) for f in fields
                for problem in [shape_problem(f.kind, answer[f.name], reference[f.name])] if problem is not None]
    if not problems:
        return ()
    # Solved only here, on a mismatch: the preview runs this as the student types, and most answers have the shape.
    wrong_answers = [wrong for wrong in (m.solve(variant) for m in exercise.misconceptions) if wrong is not None]
    return tuple(
        FieldError(f.name, messages.wrong_shape(f.kind, problem, _one_run(answer[f.name])).get(lang), None,
                   display(f.kind, answer[f.name], lang))
        for f, problem in problems
        if not any(f.name in wrong and shape_problem(f.kind, answer[f.name], wrong[f.name]) is None
                   for wrong in wrong_answers)
    )


def _one_run(rows: Sequence[Any]) -> bool:
    """Whether rows were read as all the numbers in one run: one row, or one number per row (one per line)."""
    return len(rows) == 1 or all(isinstance(row, (list, tuple)) and len(row) == 1 for row in rows)


def needs_variant(exercise: "Exercise") -> bool:
    """Whether reading an answer also depends on the variant: a count of items, or a shape the variant fixes."""
    return any(f.one_per_item or f.kind in SHAPED_KINDS for f in exercise.fields)


def variant_errors(exercise: "Exercise", variant: Variant, answer: Answer, lang: str = "zh",
                   reference: Answer | None = None) -> tuple[FieldError, ...]:
    """Why an answer readable as text cannot be graded on this variant: ``count_errors`` and ``shape_errors``."""
    if reference is None and needs_variant(exercise):
        reference = exercise.solve(variant)
    return count_errors(exercise, variant, answer, lang, reference) + shape_errors(exercise, variant, answer, lang,
                                                                                  reference)


def check_answer(exercise: "Exercise", variant: Variant, answer: Answer, lang: str = "zh") -> GradeResult:
    """Grade a parsed answer: each part against the reference, then follow-through, then misconceptions.

    A ``one_per_item`` part of the wrong length, or a vector or matrix part of a shape the variant does not give it,
    makes the answer invalid (not graded, no attempt used).
    """
    reference = exercise.solve(variant)
    miscounted = variant_errors(exercise, variant, answer, lang, reference)
    if miscounted:
        return GradeResult(exercise.id, variant.seed, variant.engine_version, "invalid", None, {}, miscounted,
                           {name: to_json(value) for name, value in answer.items()})
    wrong_answers = [(m, m.solve(variant)) for m in exercise.misconceptions]
    own_steps = exercise.follow_through(variant, answer) if exercise.follow_through else {}
    parts: dict[str, PartResult] = {}
    earlier_right = True  # every part before this one (the fields list earlier steps first) is right
    for answer_field in exercise.fields:
        parts[answer_field.name] = _check_part(exercise, variant, answer_field, answer[answer_field.name],
                                               reference[answer_field.name], own_steps, wrong_answers, lang,
                                               earlier_right, answer, reference)
        earlier_right = earlier_right and parts[answer_field.name].correct
    total_weight = sum(f.weight for f in exercise.fields)
    score = sum(parts[f.name].score * f.weight for f in exercise.fields) / total_weight
    return GradeResult(exercise.id, variant.seed, variant.engine_version, "graded", round(score, 6),
                       parts, (), {name: to_json(value) for name, value in answer.items()})


def _check_part(exercise: "Exercise", variant: Variant, answer_field: AnswerField, student: Any,
                reference: Any, own_steps: Mapping[str, Any], wrong_answers: list,
                lang: str, earlier_right: bool = True, answer: Answer | None = None,
                key: Answer | None = None) -> PartResult:
    """The verdict on one part, with its feedback in ``lang``.

    A part wholly consistent with the student's own earlier steps while those steps are all right is right: it
    only carries their rounding (weights to 3 decimals, then the output from them), and "the mistake is in an
    earlier step" would blame a step marked correct. With the whole ``answer`` and ``key``, a wrong part names
    only the mistakes the student's other parts do not rule out (``consistent_tags``).
    """
    kind, tolerance = answer_field.kind, answer_field.tolerance
    read = display(kind, student, lang)
    comparison = compare(kind, student, reference, tolerance)
    if comparison.correct:
        return PartResult(1.0, True, messages.correct(answer_field).get(lang), None, read=read)
    score = comparison.score
    follow_through = False
    if answer_field.name in own_steps and comparison.shape_error is None:
        credited = _follow_through_score(kind, student, reference, own_steps[answer_field.name], tolerance)
        if credited > score:
            score, follow_through = credited, True
        if follow_through and score >= 1.0 and earlier_right:
            return PartResult(1.0, True, messages.correct(answer_field).get(lang), None, read=read)
    matched = solver_tags(wrong_answers, answer_field, student, reference)
    if exercise.tag_part is not None:
        tags = tuple(exercise.tag_part(variant, answer_field.name, student))
    else:
        tags = matched
    if answer is not None and key is not None:
        tags = consistent_tags(exercise.fields, wrong_answers, answer_field.name, tags, answer, key,
                               follows=follow_through and score >= 1.0, checked=matched)
    feedback = messages.wrong(answer_field, exercise.misconceptions, tags, comparison, score if follow_through else 0.0)
    return PartResult(round(score, 6), False, feedback.get(lang), tags[0] if tags else None, tags,
                      follow_through, read)


def solver_tags(wrong_answers: Sequence[tuple[Misconception, Answer | None]], answer_field: AnswerField,
                student: Any, reference: Any) -> tuple[str, ...]:
    """The tags of the wrong procedures whose answer to this part the student's equals (where it differs from the
    key); ``wrong_answers`` pairs each misconception with its solver's answer for the variant. Exercises with a
    ``tag_part`` of their own start from this and add what whole-run solvers cannot see."""
    name, kind, tolerance = answer_field.name, answer_field.kind, answer_field.tolerance
    return tuple(m.tag for m, wrong in wrong_answers
                 if wrong is not None and name in wrong and equal(kind, student, wrong[name], tolerance)
                 and not equal(kind, wrong[name], reference, tolerance))


def consistent_tags(fields: Sequence[AnswerField], wrong_answers: Sequence[tuple[Misconception, Answer | None]],
                    name: str, tags: Sequence[str], answer: Answer, key: Answer, follows: bool = False,
                    checked: Collection[str] | None = None) -> tuple[str, ...]:
    """The tags on part ``name`` that the student's other parts do not rule out, the best supported first.

    Two wrong procedures can give one part the same value, and only one of them may fit the rest of the answer. A
    tag is contradicted by an earlier part its solver changes that the student answered otherwise (right, or wrong
    another way: they did not take its path to here); on a part with full follow-through (``follows``), by any
    earlier part its solver answers otherwise, for the part then comes from the student's own earlier steps, which
    the tag must reproduce to explain it. A contradicted tag is dropped there, and elsewhere when another tag on
    the part is not contradicted; a lone one still names a mistake the part shows, though the student did not
    make it consistently. Only tags in ``checked`` (default: all) are dropped: a ``tag_part`` found the others on
    evidence the whole-run solvers cannot see. The rest are ranked by the parts their solver changes: earlier ones
    answered otherwise (fewest first), earlier ones matched (most first), then likewise later ones.
    """
    solved = {m.tag: wrong for m, wrong in wrong_answers}
    here = next(index for index, f in enumerate(fields) if f.name == name)
    ranked: list[tuple[tuple[int, ...], bool, str]] = []
    for tag in tags:
        counts = [0, 0, 0, 0]  # earlier parts it changes answered otherwise, matched; later parts likewise
        contradicted = False
        for index, other in enumerate(fields):
            if index == here or other.name not in answer or other.name not in key:
                continue
            changes, agrees = _predicts(other, solved.get(tag), answer[other.name], key[other.name])
            later = 2 if index > here else 0
            counts[later] += changes and not agrees
            counts[later + 1] -= changes and agrees
            contradicted = contradicted or (not later and not agrees and (changes or follows))
        ranked.append((tuple(counts), contradicted and (checked is None or tag in checked), tag))
    supported = any(not contradicted for _, contradicted, _ in ranked)
    return tuple(tag for _, contradicted, tag in sorted(ranked, key=lambda item: item[0])
                 if not contradicted or not (follows or supported))


def _predicts(answer_field: AnswerField, wrong: Answer | None, student: Any, key: Any) -> tuple[bool, bool]:
    """Whether a solver's answer changes this part from the key, and whether the student's part is what it gives."""
    kind, tolerance = answer_field.kind, answer_field.tolerance
    if wrong is None or answer_field.name not in wrong:
        return False, equal(kind, student, key, tolerance)
    predicted = wrong[answer_field.name]
    return not equal(kind, predicted, key, tolerance), equal(kind, student, predicted, tolerance)


def _follow_through_score(kind: str, student: Any, reference: Any, own: Any, tolerance) -> float:
    """Credit for a part judged on the student's own earlier steps: element by element for lists."""
    element_kind = LIST_ELEMENT_KIND.get(kind)
    if element_kind is None or not isinstance(student, (list, tuple)):
        return 1.0 if equal(kind, student, own, tolerance) else 0.0
    matches = []
    for index, item in enumerate(student):
        right = index < len(reference) and equal(element_kind, item, reference[index], tolerance)
        consistent = index < len(own) and own[index] is not None and equal(element_kind, item, own[index],
                                                                             tolerance)
        matches.append(right or consistent)
    return element_score(matches, len(student), len(reference))
