"""The engine's variant cache: a cached variant equals a fresh one, and no caller can change what others get."""

from __future__ import annotations

import copy

import pytest

from exercises import api
from exercises.checking import to_json
from exercises.registry import EXERCISES, get_exercise
from exercises.variant_generation import generate_variant

SEEDS = (0, 12345)


def _mutate(value: object) -> None:
    """Change every list and dict inside ``value`` in place (what a careless caller might do)."""
    if isinstance(value, dict):
        for key in list(value):
            _mutate(value[key])
        value["__changed__"] = True
    elif isinstance(value, list):
        for item in value:
            _mutate(item)
        value.append("changed")


@pytest.mark.parametrize("exercise_id", [exercise.id for exercise in EXERCISES])
@pytest.mark.parametrize("seed", SEEDS)
def test_cached_variant_equals_a_fresh_one_and_is_independent(exercise_id: str, seed: int) -> None:
    exercise = get_exercise(exercise_id)
    fresh = generate_variant(exercise, seed)
    first = api._generate(exercise, seed)
    assert first == fresh
    _mutate(first.data)
    assert first.data != fresh.data
    assert api._generate(exercise, seed) == fresh


@pytest.mark.parametrize("seed", SEEDS)
def test_public_results_survive_callers_mutating_earlier_ones(seed: int) -> None:
    exercise_id = "ch13.encoder-states"
    key = api.answer_key(exercise_id, seed)
    shown = api.variant(exercise_id, seed, "en")
    expected_key, expected_shown = copy.deepcopy(key), copy.deepcopy(shown)
    _mutate(key)
    _mutate(shown)
    assert api.answer_key(exercise_id, seed) == expected_key
    assert api.variant(exercise_id, seed, "en") == expected_shown
    graded = api.grade(exercise_id, seed, expected_key, "en")
    assert graded["status"] == "graded" and graded["score"] == 1.0


def test_cache_checks_the_seed_before_the_look_up() -> None:
    exercise_id = "ch13.shift-pairs"
    api.answer_key(exercise_id, 1)  # puts seed 1 in the cache; True and 1.0 hash like 1
    for bad_seed in (True, 1.0, -1, 2**63):
        with pytest.raises(api.BadSeed):
            api.answer_key(exercise_id, bad_seed)  # type: ignore[arg-type]


@pytest.mark.parametrize("exercise_id", [exercise.id for exercise in EXERCISES])
@pytest.mark.parametrize("seed", SEEDS)
def test_cached_answer_key_equals_a_fresh_solve_and_is_independent(exercise_id: str, seed: int) -> None:
    exercise = get_exercise(exercise_id)
    fresh = {name: to_json(value) for name, value in exercise.solve(generate_variant(exercise, seed)).items()}
    first = api.answer_key(exercise_id, seed)
    assert first == fresh
    _mutate(first)
    assert first != fresh
    assert api.answer_key(exercise_id, seed) == fresh
