"""Seed 0 is the book's variant: the catalogue's answers, typed as a student would, score 1."""

from __future__ import annotations

import math

import pytest

from exercises import api

A = math.log(2)

BOOK_ANSWERS = {
    "ch13.shift-pairs": {
        "pairs": "BOS→blue, blue→door, door→句号, 句号→EOS",
        "bos_scored": "否",
        "eos_scored": "是",
        "scored_count": "4",
    },
    "ch13.exposure-divergence": {
        "first_wrong_step": "1",
        "first_input_divergence_step": "2",
        "teacher_forced_input": "red",
        "generated_input": "blue",
    },
    "ch13.greedy-decode": {"tokens": "blue key . EOS", "stopped_by": "EOS"},
    "ch13.encoder-states": {"states": "[a, 0], [0, a], [0, 0]"},
    "ch13.encoder-collision": {
        "pre_activation": "[-a, a]",
        "post_activation": "[0, a]",
        "collision_step": "2",
        "final_equal": "true",
        "teacher_forcing_separates": "false",
    },
    "ch13.loss-average": {
        "sequence_probability": "0.288",
        "total_loss": "1.2447947988461912",
        "mean_loss_with_eos": "0.311199",
        "mean_loss_without_eos": "0.414932",
    },
    "ch09.multihead-shapes": {"head_dim": "128", "projection_params": str(4 * 12288**2)},
}

BOOK_DATA = {
    "ch13.shift-pairs": {"target": ["blue", "door", ".", "EOS"]},
    "ch09.multihead-shapes": {"d_model": 12288, "heads": 96},
}


@pytest.mark.parametrize("exercise_id", sorted(BOOK_ANSWERS))
def test_book_answer_scores_one(exercise_id: str) -> None:
    result = api.grade(exercise_id, 0, BOOK_ANSWERS[exercise_id], "en")
    assert result["status"] == "graded", result["errors"]
    assert result["score"] == 1.0, result["parts"]
    assert all(part["correct"] for part in result["parts"].values())


@pytest.mark.parametrize("exercise_id", sorted(BOOK_DATA))
def test_book_numbers_appear_in_variant(exercise_id: str) -> None:
    data = api.variant(exercise_id, 0)["data"]
    for name, value in BOOK_DATA[exercise_id].items():
        assert data[name] == value


def test_book_collision_variant_uses_chapter_sources() -> None:
    data = api.variant("ch13.encoder-collision", 0)["data"]
    assert data["source_a"] == ["红色", "钥匙", "。"]
    assert data["source_b"] == ["蓝色", "钥匙", "。"]
    assert data["probe_step"] == 2
    assert math.isclose(data["a"], A)


def test_book_loss_table_is_chapter_table() -> None:
    data = api.variant("ch13.loss-average", 0)["data"]
    assert data["candidates"] == ["red", "blue", "key", "door", ".", "EOS"]
    assert data["target"] == ["red", "key", ".", "EOS"]
