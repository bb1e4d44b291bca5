"""Worked solutions from the named steps, and the first step where a wrong answer leaves them."""

from __future__ import annotations

import os

import pytest

from exercises import api
from exercises.checking import check_answer
from exercises.diagnosis.search import generated, parse_tag, run
from exercises.diagnosis.worked import first_departure, shown, worked_solution
from exercises.registry import EXERCISES, get_exercise
from exercises.variant_generation import generate_variant
from tests.engine.verdict_support import seeded

SEEDS = range(int(os.environ.get("GRADER_PROPERTY_SEEDS", "200")) // 10)
STEPPED = [exercise for exercise in EXERCISES if exercise.steps is not None]


@pytest.mark.parametrize("exercise", STEPPED, ids=lambda e: e.id)
def test_every_variant_has_a_numbered_worked_solution_in_both_languages(exercise):
    for seed in SEEDS:
        variant = seeded(exercise, seed)
        zh, en = worked_solution(exercise, variant, "zh"), worked_solution(exercise, variant, "en")
        assert [step["number"] for step in zh] == list(range(1, len(zh) + 1))
        assert [step["step"] for step in zh] == [step["step"] for step in en]
        assert all(step["label"] and step["value"] for step in zh + en)


@pytest.mark.parametrize("exercise", STEPPED, ids=lambda e: e.id)
def test_the_key_leaves_no_step_and_a_generated_mistake_is_found_at_its_own_step(exercise):
    for seed in SEEDS:
        variant = seeded(exercise, seed)
        key = exercise.solve(variant)
        assert first_departure(exercise, variant, key, {}, "en") is None
        for misconception, changed in generated(exercise, variant):
            answer = {**key, **changed}
            result = check_answer(exercise, variant, answer, "en")
            tags = {name: part.tags for name, part in result.parts.items()}
            first_wrong = next(name for name, part in result.parts.items() if not part.correct)
            departure = first_departure(exercise, variant, answer, tags, "en")
            assert departure is not None and departure["field"] == first_wrong
            if misconception.tag in tags[first_wrong]:
                [(step, _)] = parse_tag(misconception.tag) or [("", "")]
                assert departure["step"] == step and departure["mistake"]


def test_a_wrong_part_without_a_diagnosis_leaves_at_the_step_that_writes_it():
    key = api.answer_key("ch09.rnn-step", 3)
    departure = api.first_departure(
        "ch09.rnn-step", 3, {"pre_activation": key["pre_activation"], "h": [0.9, 0.1]}, "en"
    )
    assert departure == {
        "number": 8,
        "step": "tanh",
        "label": "h = tanh(pre-activation)",
        "field": "h",
        "where": "step 8 (h = tanh(pre-activation))",
        "mistake": None,
    }


@pytest.mark.parametrize(
    "lang, mistake", [("en", "in step 6 (W_x x) you transposed W_x"), ("zh", "第 6 步（W_x x）把 W_x 转置了")]
)
def test_the_departure_names_the_mistake_in_both_languages(lang, mistake):
    exercise = get_exercise("ch09.rnn-step")
    variant = generate_variant(exercise, 3)
    answer, _ = run(exercise.steps, variant, (("input", "transpose-left"),))
    departure = api.first_departure(exercise.id, 3, dict(answer), lang)
    assert departure is not None and departure["step"] == "input" and departure["mistake"] == mistake


@pytest.mark.parametrize(
    "value, lang, text",
    [
        (True, "zh", "是"),
        (False, "en", "no"),
        (None, "zh", "无"),
        ([("BOS", "red")], "en", "[BOS→red]"),
        (0.12345678, "en", "0.1235"),
        ([[1.0, -0.5]], "en", "[[1, -0.5]]"),
        (-0.00001, "en", "0"),
    ],
)
def test_values_are_written_for_people(value, lang, text):
    assert shown(value, lang) == text


def test_unreadable_or_stepless_answers_have_no_departure():
    assert api.first_departure("ch09.rnn-step", 3, {"pre_activation": "[1, 2", "h": "[0, 0]"}, "en") is None
    assert api.worked_solution("l03.concept-check", 3, "en") == []
