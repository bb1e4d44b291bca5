"""Checking a read answer the same way for every exercise: parts, partial credit, follow-through, tags."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from exercises import messages
from exercises.base import Answer, AnswerField, GradeResult, PartResult, Variant
from exercises.comparators import Tolerance, compare, element_score, equal
from exercises.diagnosis.check import generated_tags
from exercises.gradable import variant_errors
from exercises.grading_policy import DEFAULT_POLICY, GradingPolicy
from exercises.i18n import Text
from exercises.plugin import Exercise
from exercises.readers import display
from exercises.rounding import coarsely_rounded
from exercises.said import Said, literal
from exercises.tagging import consistent_tags, solver_tags

LIST_ELEMENT_KIND = {"tokens": "token", "pairs": "tokens", "choices": "choice", "vectors": "vector", "vector": "number"}
NONE_ABLE_KINDS = {"optional_int", "token"}  # kinds whose key is 无 / none where the step asked about never happens


def _read(kind: str, value: Any) -> Said:
    """How a part's value reads back ("是", "BOS→blue, …"), in both languages (it depends on nothing else)."""
    return literal(Text(display(kind, value, "zh"), display(kind, value, "en")))


def to_json(value: Any) -> Any:
    """A parsed value in plain JSON form (tuples become lists)."""
    if isinstance(value, (list, tuple)):
        return [to_json(item) for item in value]
    return value


def check_answer(
    exercise: Exercise, variant: Variant, answer: Answer, lang: str = "zh", policy: GradingPolicy = DEFAULT_POLICY
) -> GradeResult:
    """Grade a parsed answer: each part against the reference, then follow-through, then misconceptions; the
    ``policy`` says what a wrong part may still earn (partial credit, follow-through), never what is right.

    A ``one_per_item`` part of the wrong length, or a vector or matrix part of a shape the variant does not give it,
    makes the answer invalid (not graded, no attempt used). The exercise's own ``reword`` has the last word on
    the feedback.
    """
    result = _checked(exercise, variant, answer, lang, policy)
    return exercise.reword(variant, answer, result, lang) if exercise.reword else result


def _checked(exercise: Exercise, variant: Variant, answer: Answer, lang: str, policy: GradingPolicy) -> GradeResult:
    """``check_answer``'s verdict, before the exercise's own wording."""
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
