"""Unit words around a number (``1.2448 nats``, ``128 维``, ``×4``, ``第 2 步``): read where the field names them,
refused elsewhere, and never a change of verdict."""

from __future__ import annotations

import pytest

from exercises import api
from exercises.readers import display
from exercises.registry import get_exercise
from exercises.units import FACTOR, LOSS, STEP, WIDTH, Units

SEEDS = range(0, 60)

# (exercise, field, how a student writes the key's value with a unit; {v} is the value as the engine shows it)
WITH_UNITS = [
    ("ch09.attention-cost", "pairs", "{v} 次"),
    ("ch09.attention-cost", "pairs", "{v} dot products"),
    ("ch09.attention-cost", "causal_pairs", "{v}个"),
    ("ch09.attention-cost", "growth", "{v}x"),
    ("ch09.attention-cost", "growth", "×{v}"),
    ("ch09.attention-cost", "growth", "{v} times"),
    ("ch09.attention-cost", "growth", "{v}-fold"),
    ("ch09.attention-cost", "growth", "{v} 倍。"),
    ("ch09.multihead-shapes", "head_dim", "{v} 维"),
    ("ch09.multihead-shapes", "head_dim", "{v}-dimensional"),
    ("ch09.multihead-shapes", "projection_params", "{v} parameters"),
    ("ch09.multihead-shapes", "projection_params", "{v}个参数"),
    ("ch13.loss-average", "total_loss", "{v} nats"),
    ("ch13.loss-average", "total_loss", "{v}奈特"),
    ("ch13.loss-average", "mean_loss_with_eos", "{v} nats/token"),
    ("ch13.loss-average", "mean_loss_without_eos", "{v} nat per token."),
    ("ch13.exposure-divergence", "first_wrong_step", "第 {v} 步"),
    ("ch13.exposure-divergence", "first_wrong_step", "step {v}"),
    ("ch13.exposure-divergence", "first_input_divergence_step", "t = {v}"),
    ("ch13.encoder-collision", "collision_step", "第{v}步"),
    ("ch13.shift-pairs", "scored_count", "{v} 次"),
]


def _typed_key(exercise_id: str, seed: int) -> dict[str, str]:
    """The variant's answer key typed as text, field by field, the way the engine shows each value."""
    exercise = get_exercise(exercise_id)
    key = api.answer_key(exercise_id, seed)
    return {f.name: display(f.kind, key[f.name]) for f in exercise.fields}


@pytest.mark.parametrize(("exercise_id", "field", "typed"), WITH_UNITS)
def test_the_key_with_a_unit_reads_as_the_key(exercise_id: str, field: str, typed: str) -> None:
    """On every variant, the key's value followed (or preceded) by an allowed unit grades exactly as without it."""
    checked = 0
    for seed in SEEDS:
        answer = _typed_key(exercise_id, seed)
        if answer[field] in ("null", "none", ""):
            continue  # no number to put a unit on
        plain = api.grade(exercise_id, seed, answer, "en")
        answer[field] = typed.format(v=answer[field])
        with_unit = api.grade(exercise_id, seed, answer, "en")
        assert with_unit["status"] == "graded", (seed, answer[field], with_unit["errors"])
        assert with_unit["score"] == plain["score"] == 1.0, (seed, answer[field])
        assert with_unit["parts"][field]["read"] == plain["parts"][field]["read"]
        checked += 1
    assert checked >= 10


@pytest.mark.parametrize(
    ("exercise_id", "field", "typed"),
    [
        ("ch09.multihead-shapes", "head_dim", "{v} nats"),  # another field's unit
        ("ch13.loss-average", "total_loss", "{v} bits"),  # a unit that would mean a different number
        ("ch13.loss-average", "sequence_probability", "{v} nats"),  # a probability has no unit
        ("ch09.attention-cost", "growth", "{v} 维"),
        ("ch13.exposure-divergence", "first_wrong_step", "{v} 次"),
    ],
)
def test_a_unit_the_field_does_not_name_is_still_refused(exercise_id: str, field: str, typed: str) -> None:
    """Only the field's own units are let through; anything else is unreadable (no attempt used), as before."""
    answer = _typed_key(exercise_id, 0)
    answer[field] = typed.format(v=answer[field])
    result = api.grade(exercise_id, 0, answer, "en")
    assert result["status"] == "invalid"
    assert [error["field"] for error in result["errors"]] == [field]


def test_a_wrong_number_with_a_unit_is_graded_wrong_and_tagged() -> None:
    """The unit changes nothing about the verdict: log2 losses in nats are still the log2 misconception."""
    answer = _typed_key("ch13.loss-average", 0)
    answer["total_loss"] = "-log2(0.288) nats"
    part = api.grade("ch13.loss-average", 0, answer, "en")["parts"]["total_loss"]
    assert part["score"] == 0.0
    assert part["misconception"] == "log2"


@pytest.mark.parametrize(
    ("units", "typed", "blanked"),
    [
        (LOSS, "1.2448 nats", "1.2448     "),
        (LOSS, "1.2448nat。", "1.2448    "),
        (LOSS, "1.2448", "1.2448"),
        (LOSS, "nats", "nats"),  # nothing before the unit: left for the reader to refuse
        (FACTOR, "4x", "4 "),
        (FACTOR, "X4", " 4"),
        (FACTOR, "x", "x"),
        (FACTOR, "4 - fold", "4       "),
        (FACTOR, "4.", "4."),  # a full stop alone is the reader's business
        (STEP, "第2步", " 2 "),
        (STEP, "Step: 3", "      3"),
        (STEP, "第", "第"),
        (WIDTH, "128 DIMS", "128     "),
        (Units(), "128 维", "128 维"),
    ],
)
def test_blanking_keeps_every_other_character_in_place(units: Units, typed: str, blanked: str) -> None:
    """Units become spaces, so the reader's error positions still count from the student's first character."""
    assert units.blank(typed) == blanked


def test_error_positions_count_from_the_students_text() -> None:
    """A typo before a unit is reported at its own character, not shifted by the blanked unit."""
    answer = _typed_key("ch13.loss-average", 0)
    answer["total_loss"] = "1.2q48 nats"
    error = api.validate("ch13.loss-average", answer, "en")["errors"][0]
    assert error["field"] == "total_loss"
    assert error["position"] == 3


def test_non_text_values_pass_through() -> None:
    """JSON numbers and lists are not text and are left to the reader untouched."""
    assert LOSS.blank(1.5) == 1.5
    assert STEP.blank(None) is None
    assert FACTOR.blank([4]) == [4]


def test_a_long_run_of_spaces_is_blanked_in_one_pass() -> None:
    """Scanning is linear: 10,000 spaces before a unit are handled (a backtracking pattern would not finish
    quickly); the reader then reads the number."""
    typed = "4" + " " * 10_000 + "x"
    assert FACTOR.blank(typed) == "4" + " " * 10_001
