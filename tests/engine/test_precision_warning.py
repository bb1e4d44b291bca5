"""The preview warns, without refusing, when a number carries fewer decimals than its part's hint asks."""

from __future__ import annotations

import pytest

from exercises import api
from exercises.precision import asked_decimals
from exercises.registry import get_exercise

LOSS = {
    "sequence_probability": "0.1234",
    "total_loss": "2.0938",
    "mean_loss_with_eos": "0.5234",
    "mean_loss_without_eos": "0.4567",
}


@pytest.mark.parametrize(
    "exercise_id, field, asked",
    [
        ("ch13.loss-average", "total_loss", 3),
        ("ch09.rnn-step", "h", 3),
        ("ch09.scaled-dot-attention", "weights", 4),
        ("ch09.rnn-step", "pre_activation", None),
    ],
)
def test_the_decimals_a_hint_asks_for(exercise_id, field, asked):
    assert asked_decimals(get_exercise(exercise_id).answer_field(field)) == asked


@pytest.mark.parametrize("lang, words", [("en", "0.71 has 2 decimal(s)"), ("zh", "0.71 只有 2 位小数")])
def test_too_few_decimals_warn_but_stay_valid(lang, words):
    report = api.validate("ch13.loss-average", {**LOSS, "total_loss": "0.71"}, lang)
    assert report["status"] == "valid"
    [warning] = report["warnings"]
    assert warning["field"] == "total_loss" and words in warning["message"]


@pytest.mark.parametrize("typed", ["2.0938", "2", "-ln(0.5)", "2.09381"])
def test_enough_decimals_whole_numbers_and_expressions_do_not_warn(typed):
    assert api.validate("ch13.loss-average", {**LOSS, "total_loss": typed}, "en")["warnings"] == []


def test_a_vector_warns_on_its_first_short_entry():
    report = api.validate("ch09.rnn-step", {"pre_activation": "[1.25, -0.75]", "h": "[0.8483, -0.64]"}, "en", 0)
    [warning] = report["warnings"]
    assert warning["field"] == "h" and "-0.64" in warning["message"]
