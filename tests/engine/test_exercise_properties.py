"""Properties every registered exercise must have, over hundreds of seeds each.

The reference answer scores exactly 1 (typed as JSON and as the text a student would type), each
misconception's answer scores below 1 and carries its tag, answers just inside tolerance pass and just
outside fail, variants are deterministic and never carry the answer, and junk is invalid, never a crash.
"""

from __future__ import annotations

import json
import os
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from exercises import api
from exercises.base import Variant
from exercises.checking import check_answer, to_json
from exercises.comparators import equal
from exercises.plugin import Exercise
from exercises.readers import display
from exercises.registry import EXERCISES, get_exercise
from exercises.variant_generation import generate_variant, rejection_reason
from tests.engine.verdict_support import variants

SEED_COUNT = int(os.environ.get("GRADER_PROPERTY_SEEDS", "200"))
SEEDS = range(0, SEED_COUNT + 1)
NUMERIC_KINDS = {"number", "vector", "matrix", "vectors"}
KEY_WORDS = {"answer", "answers", "solution", "correct", "reference", "key"}

exercise_ids = [exercise.id for exercise in EXERCISES]


@pytest.mark.parametrize("exercise_id", exercise_ids)
def test_reference_answer_scores_exactly_one(exercise_id: str) -> None:
    exercise = get_exercise(exercise_id)
    for variant in variants(exercise_id, len(SEEDS)):
        result = check_answer(exercise, variant, exercise.solve(variant), "en")
        assert result.score == 1.0, (variant.seed, result.parts)
        assert all(part.correct and part.misconception is None for part in result.parts.values())


@pytest.mark.parametrize("exercise_id", exercise_ids)
def test_reference_typed_as_text_scores_one(exercise_id: str) -> None:
    exercise = get_exercise(exercise_id)
    for variant in variants(exercise_id, len(SEEDS))[:60]:
        typed = {
            f.name: display(f.kind, value, "en") for f in exercise.fields for value in [exercise.solve(variant)[f.name]]
        }
        result = api.grade(exercise_id, variant.seed, typed, "zh")
        assert result["status"] == "graded", (variant.seed, typed, result["errors"])
        assert result["score"] == 1.0, (variant.seed, typed, result["parts"])


def misconception_answer(exercise: Exercise, variant: Variant, wrong: dict[str, Any]) -> dict[str, Any]:
    """The reference answer with the misconception's fields put in."""
    return {**exercise.solve(variant), **wrong}


@pytest.mark.parametrize("exercise_id", exercise_ids)
def test_each_misconception_scores_below_one_and_is_tagged(exercise_id: str) -> None:
    exercise = get_exercise(exercise_id)
    applied = {m.tag: 0 for m in exercise.misconceptions}
    for variant in variants(exercise_id, len(SEEDS)):
        reference = exercise.solve(variant)
        for misconception in exercise.misconceptions:
            wrong = misconception.solve(variant)
            if wrong is None:
                continue
            applied[misconception.tag] += 1
            result = check_answer(exercise, variant, misconception_answer(exercise, variant, wrong), "en")
            assert result.score < 1.0, (misconception.tag, variant.seed)
            differing = [name for name in wrong if not api_equal(exercise, name, wrong[name], reference[name])]
            assert differing, (misconception.tag, variant.seed)
            for name in differing:
                part = result.parts[name]
                assert misconception.tag in part.tags, (misconception.tag, variant.seed, name, part)
                assert not part.correct
    never = [tag for tag, count in applied.items() if count == 0]
    assert not never, f"misconceptions that no variant exercises: {never}"


def api_equal(exercise: Exercise, name: str, student: Any, reference: Any) -> bool:
    """The exercise's own comparator for field ``name``."""
    answer_field = exercise.answer_field(name)
    return equal(answer_field.kind, student, reference, answer_field.tolerance)


def nudge_first_number(value: Any, factor: float, tolerance) -> Any:
    """``value`` with its first number moved by ``factor`` times the tolerance allowed at that number."""
    if isinstance(value, (list, tuple)):
        return [nudge_first_number(value[0], factor, tolerance), *value[1:]]
    return value + factor * (tolerance.atol + tolerance.rtol * abs(value))


@pytest.mark.parametrize("exercise_id", [e.id for e in EXERCISES if any(f.kind in NUMERIC_KINDS for f in e.fields)])
def test_numbers_just_inside_tolerance_pass_and_just_outside_fail(exercise_id: str) -> None:
    exercise = get_exercise(exercise_id)
    number_fields = [f for f in exercise.fields if f.kind in NUMERIC_KINDS]
    for variant in variants(exercise_id, len(SEEDS))[:100]:
        reference = exercise.solve(variant)
        for answer_field in number_fields:
            for factor, should_pass in ((0.9, True), (-0.9, True), (1.1, False), (-1.1, False)):
                nudged = {
                    **reference,
                    answer_field.name: nudge_first_number(reference[answer_field.name], factor, answer_field.tolerance),
                }
                part = check_answer(exercise, variant, nudged, "en").parts[answer_field.name]
                assert part.correct is should_pass, (variant.seed, answer_field.name, factor)


@pytest.mark.parametrize("exercise_id", exercise_ids)
def test_book_variant_never_gives_a_wrong_procedure_full_marks(exercise_id: str) -> None:
    # The book's numbers are fixed by the chapter, so a wrong procedure may coincide with the right one
    # there (ReLU never clips on the book's red path); where it differs, it must not score full marks.
    exercise = get_exercise(exercise_id)
    book = generate_variant(exercise, 0)
    reference = exercise.solve(book)
    for misconception in exercise.misconceptions:
        wrong = misconception.solve(book)
        if wrong is None or all(api_equal(exercise, name, wrong[name], reference[name]) for name in wrong):
            continue
        assert check_answer(exercise, book, {**reference, **wrong}).score < 1.0, misconception.tag


@pytest.mark.parametrize("exercise_id", exercise_ids)
def test_random_variants_meet_the_quality_rules(exercise_id: str) -> None:
    exercise = get_exercise(exercise_id)
    for variant in variants(exercise_id, len(SEEDS))[1:50]:
        assert rejection_reason(exercise, variant) is None, variant.seed


@pytest.mark.parametrize("exercise_id", exercise_ids)
def test_variants_are_deterministic_and_json(exercise_id: str) -> None:
    for seed in (0, 1, 7, 123456789, 2**63 - 1):
        first, second = api.variant(exercise_id, seed), api.variant(exercise_id, seed)
        assert first == second
        assert json.loads(json.dumps(first, allow_nan=False)) == first
        assert first["engine_version"] == api.ENGINE_VERSION


@pytest.mark.parametrize("exercise_id", exercise_ids)
def test_seeds_give_different_variants(exercise_id: str) -> None:
    distinct = {json.dumps(to_json(dict(v.data)), sort_keys=True) for v in variants(exercise_id, len(SEEDS))[1:60]}
    assert len(distinct) > 5


TOKEN_KEYED = {"table", "source_vocab", "source_vocab_in_a"}  # keyed by vocabulary tokens such as "key"


def _keys(value: Any) -> set[str]:
    """Every object key anywhere inside a JSON value, except the tokens that key probability tables."""
    if isinstance(value, dict):
        own = {str(k) for k in value if k not in TOKEN_KEYED}
        return own | set().union(*(_keys(v) for k, v in value.items() if k not in TOKEN_KEYED))
    if isinstance(value, list):
        return set().union(*(_keys(v) for v in value)) if value else set()
    return set()


@pytest.mark.parametrize("exercise_id", exercise_ids)
def test_variant_never_carries_the_answer(exercise_id: str) -> None:
    exercise = get_exercise(exercise_id)
    for variant in variants(exercise_id, len(SEEDS))[:50]:
        shown = api.variant(exercise_id, variant.seed, "en")
        assert not (_keys(shown["data"]) & (KEY_WORDS | {f.name for f in exercise.fields})), shown["data"]
        text = shown["prompt"] + json.dumps(shown["data"], ensure_ascii=False)
        for answer_field in exercise.fields:
            value = exercise.solve(variant)[answer_field.name]
            if answer_field.kind == "number" and abs(value - round(value)) > 1e-3:
                assert display("number", value, "en") not in text, (variant.seed, answer_field.name)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=40),
    lambda children: st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=12), children, max_size=5),
    max_leaves=20,
)


@pytest.mark.parametrize("exercise_id", exercise_ids)
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(junk=json_values)
def test_junk_is_invalid_or_graded_never_an_exception(exercise_id: str, junk: Any) -> None:
    for answer in (junk, {f.name: junk for f in get_exercise(exercise_id).fields}):
        result = api.grade(exercise_id, 3, answer, "en")
        assert result["status"] in {"graded", "invalid"}
        if result["status"] == "invalid":
            assert result["errors"] and result["score"] is None
        else:
            assert 0.0 <= result["score"] <= 1.0
