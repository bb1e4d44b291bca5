"""Reading and checking answers the same way for every exercise: parts, partial credit, follow-through, tags."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from exercises import messages
from exercises.base import Answer, AnswerField, FieldError, GradeResult, ParsedAnswer, PartResult, Variant
from exercises.comparators import (
    SHAPED_KINDS,
    Tolerance,
    coarsely_rounded,
    compare,
    element_score,
    equal,
    shape_problem,
)
from exercises.diagnosis.check import generated_tags
from exercises.engine_errors import ReadError
from exercises.grading_policy import DEFAULT_POLICY, GradingPolicy
from exercises.i18n import Text
from exercises.readers import display, read_kind
from exercises.said import Said, literal
from exercises.tagging import consistent_tags, solver_tags
from exercises.text_input import MAX_TEXT_CHARS, refuse_unreadable
from exercises.unit_text import blank_noise

if TYPE_CHECKING:
    from exercises.plugin import Exercise

LIST_ELEMENT_KIND = {"tokens": "token", "pairs": "tokens", "choices": "choice", "vectors": "vector", "vector": "number"}
MAX_FIELD_NAME = 64


def parse_answer(exercise: Exercise, raw: object, lang: str = "zh") -> ParsedAnswer:
    """Read every field of ``raw``; a field that can't be read becomes an error, never an exception."""
    raw = _as_object(exercise, raw)
    if isinstance(raw, FieldError):
        return ParsedAnswer({}, {}, (_localised(raw, lang),))
    known = {f.name for f in exercise.fields}
    errors: list[FieldError] = [
        _error(
            str(name)[:MAX_FIELD_NAME],
            messages.shared(messages.UNKNOWN_FIELD, name=str(name)[:MAX_FIELD_NAME], expected=", ".join(sorted(known))),
            lang,
        )
        for name in raw
        if name not in known
    ]
    values: dict[str, Any] = {}
    interpreted: dict[str, str] = {}
    for answer_field in exercise.fields:
        if answer_field.name not in raw:
            errors.append(_error(answer_field.name, messages.shared(messages.MISSING_FIELD), lang))
            continue
        try:
            typed = raw[answer_field.name]
            # Text over the length limit is refused by the reader before any work: no words are looked for in it.
            too_long = isinstance(typed, str) and len(typed) > MAX_TEXT_CHARS
            if not too_long:
                refuse_unreadable(typed)
            bare = typed if too_long else _without_words(exercise, answer_field, typed)
            value = read_kind(
                answer_field.kind,
                bare,
                symbols=exercise.symbols,
                aliases=answer_field.aliases,
                options=answer_field.options,
            )
        except ReadError as error:
            errors.append(_error(answer_field.name, literal(error.message), lang, error.position, error.interpreted))
            continue
        values[answer_field.name] = value
        interpreted[answer_field.name] = display(answer_field.kind, value, lang)
    return ParsedAnswer(values, interpreted, tuple(errors))


NUMERIC_KINDS = {"number", "int", "optional_int", "vector", "matrix", "vectors"}
SCALAR_KINDS = {"number", "int", "optional_int"}
NONE_ABLE_KINDS = {"optional_int", "token"}  # kinds whose key is 无 / none where the step asked about never happens


def _without_words(exercise: Exercise, answer_field: AnswerField, raw: object) -> object:
    """The typed text with the words around the value blanked: ``答：``, ``≈`` / ``约`` on numbers, the field's units
    (and ``≈`` once more after a leading unit, as in ``共约 4 个``); on a scalar part whose exercise has no symbol
    ``x``, an ``x`` between numbers is a multiplication sign."""
    numeric = answer_field.kind in NUMERIC_KINDS
    times_x = answer_field.kind in SCALAR_KINDS and "x" not in exercise.symbols
    text = answer_field.units.blank(blank_noise(raw, numeric, times_x))
    return blank_noise(text, numeric) if numeric else text


def _as_object(exercise: Exercise, raw: object) -> Mapping[str, Any] | FieldError:
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
    return _error(None, messages.shared(text), lang)


def _error(
    name: str | None, said: Said, lang: str, position: int | None = None, interpreted: str | None = None
) -> FieldError:
    """Why field ``name`` cannot be read: ``said`` in ``lang``, with the messages it is made of."""
    return FieldError(name, said.get(lang), position, interpreted, said)


def _read(kind: str, value: Any) -> Said:
    """How a part's value reads back ("是", "BOS→blue, …"), in both languages (it depends on nothing else)."""
    return literal(Text(display(kind, value, "zh"), display(kind, value, "en")))


def to_json(value: Any) -> Any:
    """A parsed value in plain JSON form (tuples become lists)."""
    if isinstance(value, (list, tuple)):
        return [to_json(item) for item in value]
    return value


def count_errors(
    exercise: Exercise, variant: Variant, answer: Answer, lang: str = "zh", reference: Answer | None = None
) -> tuple[FieldError, ...]:
    """Errors for ``one_per_item`` parts whose length differs from the key's: such an answer cannot be graded."""
    fields = [f for f in exercise.fields if f.one_per_item and isinstance(answer.get(f.name), (list, tuple))]
    if not fields:
        return ()
    reference = reference if reference is not None else exercise.solve(variant)
    return tuple(
        _error(
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
        _error(
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


def check_answer(
    exercise: Exercise, variant: Variant, answer: Answer, lang: str = "zh", policy: GradingPolicy = DEFAULT_POLICY
) -> GradeResult:
    """Grade a parsed answer: each part against the reference, then follow-through, then misconceptions; the
    ``policy`` says what a wrong part may still earn (partial credit, follow-through), never what is right.

    A ``one_per_item`` part of the wrong length, or a vector or matrix part of a shape the variant does not give it,
    makes the answer invalid (not graded, no attempt used).
    """
    reference = exercise.solve(variant)
    miscounted = variant_errors(exercise, variant, answer, lang, reference)
    if miscounted:
        return GradeResult(
            exercise.id,
            variant.seed,
            variant.engine_version,
            "invalid",
            None,
            {},
            miscounted,
            {name: to_json(value) for name, value in answer.items()},
        )
    wrong_answers = [(m, m.solve(variant)) for m in exercise.misconceptions]
    own_steps = exercise.follow_through(variant, answer) if exercise.follow_through else {}
    parts: dict[str, PartResult] = {}
    earlier_right = True  # every part before this one (the fields list earlier steps first) is right
    for answer_field in exercise.fields:
        parts[answer_field.name] = _check_part(
            exercise,
            variant,
            answer_field,
            answer[answer_field.name],
            reference[answer_field.name],
            own_steps,
            wrong_answers,
            lang,
            earlier_right,
            answer,
            reference,
            policy,
        )
        earlier_right = earlier_right and parts[answer_field.name].correct
    total_weight = sum(f.weight for f in exercise.fields)
    score = sum(parts[f.name].score * f.weight for f in exercise.fields) / total_weight
    return GradeResult(
        exercise.id,
        variant.seed,
        variant.engine_version,
        "graded",
        round(score, 6),
        parts,
        (),
        {name: to_json(value) for name, value in answer.items()},
    )


def _check_part(
    exercise: Exercise,
    variant: Variant,
    answer_field: AnswerField,
    student: Any,
    reference: Any,
    own_steps: Mapping[str, Any],
    wrong_answers: list[Any],
    lang: str,
    earlier_right: bool = True,
    answer: Answer | None = None,
    key: Answer | None = None,
    policy: GradingPolicy = DEFAULT_POLICY,
) -> PartResult:
    """The verdict on one part, with its feedback in ``lang``.

    A part wholly consistent with the student's own earlier steps while those steps are all right is right: it
    only carries their rounding (weights to 3 decimals, then the output from them), and "the mistake is in an
    earlier step" would blame a step marked correct. With the whole ``answer`` and ``key``, a wrong part names
    only the mistakes the student's other parts do not rule out (``consistent_tags``). The diagnosis and the
    feedback read the part as it is; only the score it earns follows ``policy``.
    """
    kind, tolerance = answer_field.kind, answer_field.tolerance
    read = _read(kind, student)
    comparison = compare(kind, student, reference, tolerance)
    right = messages.correct(answer_field, exercise.id)
    if comparison.correct:
        return _right(right, read, lang)
    score = comparison.score
    follow_through = False
    if answer_field.name in own_steps and comparison.shape_error is None:
        credited = _follow_through_score(kind, student, reference, own_steps[answer_field.name], tolerance)
        if credited > score:
            score, follow_through = credited, True
        if follow_through and score >= 1.0 and earlier_right:
            return _right(right, read, lang)
    matched = solver_tags(wrong_answers, answer_field, student, reference)
    tags = tuple(exercise.tag_part(variant, answer_field.name, student)) if exercise.tag_part is not None else matched
    if answer is not None and key is not None:
        tags = consistent_tags(
            exercise.fields,
            wrong_answers,
            answer_field.name,
            tags,
            answer,
            key,
            follows=follow_through and score >= 1.0,
            checked=matched,
        )
    too_coarse = coarsely_rounded(kind, student, reference, tolerance)
    named = exercise.misconceptions
    whole_follow_through = follow_through and score >= 1.0
    if not tags and not too_coarse and not whole_follow_through and answer is not None and key is not None:
        # Hand-written solvers win where both apply: the generic search is asked only about a part none names, and
        # not about one wholly consistent with the student's earlier steps (the mistake is named where it shows).
        found = generated_tags(exercise, variant, answer_field, student, reference, answer, key)
        tags, named = found.tags, found.misconceptions
    # A part that is 无 / none in some variants (never said only where it is: that would give the answer away).
    may_be_none = kind in NONE_ABLE_KINDS
    feedback = messages.wrong(
        answer_field,
        named,
        tags,
        comparison,
        score if follow_through else 0.0,
        may_be_none,
        too_coarse=too_coarse,
        exercise_id=exercise.id,
        # Without partial credit a part only partly consistent with the earlier steps earns nothing for it.
        credit_share=policy.follow_through_share if policy.partial_credit or score >= 1.0 else 0.0,
    )
    earned = policy.own_score(comparison.score)
    if follow_through:
        earned = max(earned, policy.follow_through_score(score))
    return PartResult(
        round(earned, 6),
        False,
        feedback.get(lang),
        tags[0] if tags else None,
        tags,
        follow_through,
        read.get(lang),
        feedback,
        read,
    )


def _right(feedback: Said, read: Said, lang: str) -> PartResult:
    """A right part: full score, its praise and how it reads, in ``lang`` and as messages."""
    return PartResult(1.0, True, feedback.get(lang), None, read=read.get(lang), feedback_said=feedback, read_said=read)


def _follow_through_score(kind: str, student: Any, reference: Any, own: Any, tolerance: Tolerance) -> float:
    """Credit for a part judged on the student's own earlier steps: element by element for lists."""
    element_kind = LIST_ELEMENT_KIND.get(kind)
    if element_kind is None or not isinstance(student, (list, tuple)):
        return 1.0 if equal(kind, student, own, tolerance) else 0.0
    matches = []
    for index, item in enumerate(student):
        right = index < len(reference) and equal(element_kind, item, reference[index], tolerance)
        consistent = index < len(own) and own[index] is not None and equal(element_kind, item, own[index], tolerance)
        matches.append(right or consistent)
    return element_score(matches, len(student), len(reference))
