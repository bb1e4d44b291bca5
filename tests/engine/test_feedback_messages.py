"""Shared feedback sentences: what a part's feedback claims must match the part's score."""

from __future__ import annotations

import pytest

from exercises import api
from exercises.comparators import compare
from exercises.messages import FOLLOW_THROUGH, FOLLOW_THROUGH_PARTLY, wrong
from exercises.registry import get_exercise


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_partial_follow_through_does_not_say_the_step_is_done_correctly(lang: str) -> None:
    # h = tanh of the student's own pre-activation in its first coordinate only: half the part is consistent.
    part = api.grade("ch09.rnn-step", 0, {"pre_activation": "[1, -0.5]", "h": "[0.7616, 0.9]"}, lang)["parts"]["h"]
    assert part["follow_through"] and part["score"] == pytest.approx(0.5)
    assert part["feedback"] == FOLLOW_THROUGH_PARTLY.get(lang)
    assert FOLLOW_THROUGH.get(lang) not in part["feedback"]


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_whole_follow_through_still_says_the_step_is_right_given_the_earlier_one(lang: str) -> None:
    part = api.grade("ch09.rnn-step", 0, {"pre_activation": "[1, -0.5]", "h": "[0.7616, -0.4621]"}, lang)["parts"]["h"]
    assert not part["correct"] and part["follow_through"] and part["score"] == 1.0
    assert part["feedback"] == FOLLOW_THROUGH.get(lang)


def test_a_shape_problem_is_a_sentence_of_its_own() -> None:
    # A shape the variant does not give is unreadable (engine 1.6.0): the refusal opens with the shape sentence.
    answer = {"pre_activation": "[1.25, -0.75, 3]", "h": "[0.8483, -0.6351]"}
    for lang, expected in (("en", "Expected 2 numbers, read 3. "), ("zh", "应为 2 个数，读到 3 个。")):
        [error] = api.grade("ch09.rnn-step", 0, answer, lang)["errors"]
        assert error["message"].startswith(expected), error
    # A graded part of a wrong procedure's shape (see test_shape_validation) says it the same way in its feedback.
    field = get_exercise("ch09.rnn-step").answer_field("pre_activation")
    comparison = compare("vector", [1.25, -0.75, 3.0], [1.25, -0.75])
    for lang, expected in (
        ("en", "Not right yet. Expected 2 numbers, read 3. "),
        ("zh", "还不对。应为 2 个数，读到 3 个。"),
    ):
        feedback = wrong(field, (), (), comparison, 0.0).get(lang)
        assert feedback.startswith(expected), feedback
