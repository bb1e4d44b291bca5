"""Chapter-9 and l03 verdicts that were wrong (found by probing the engine), each pinned by a test.

Every test here failed on the engine before its fix and passes after it.
"""

from __future__ import annotations

import math
import warnings

import pytest

from exercises import api
from exercises.registry import get_exercise
from exercises.variant_generation import generate_variant
from tests.engine.verdict_support import ADDITIVE, BOOK_ADDITIVE, BOOK_READBACK, BOOK_SCALED, READBACK, RNN, SCALED


def _part(exercise_id: str, answer: dict, name: str, seed: int = 0) -> dict:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the old code overflowed inside numpy here
        result = api.grade(exercise_id, seed, answer, "en")
    assert result["status"] == "graded", result["errors"]
    return result["parts"][name]


# --- Follow-through must never come from a value that overflowed to infinity -------------------------------


def test_scaled_output_gets_no_follow_through_from_overflowing_weights() -> None:
    # Weights of 1e308 give an output of inf, and |s - inf| <= atol + rtol*inf held for any output at all.
    huge = "[[1e308,1e308,1e308],[1e308,1e308,1e308],[1e308,1e308,1e308]]"
    part = _part(SCALED, {**BOOK_SCALED, "weights": huge, "output": "[[0,0],[0,0],[0,0]]"}, "output")
    assert part["score"] == 0.0 and not part["follow_through"]


def test_additive_context_gets_no_follow_through_from_overflowing_weights() -> None:
    # Seed 0: h_1 = [1, 0] and h_3 = [-1, 0], so weights 1e308 and -1e308 on them put inf in the first
    # coordinate of the context, and any first coordinate (here 5) was taken as consistent with it.
    part = _part(ADDITIVE, {**BOOK_ADDITIVE, "weights": "1e308, 1e308, -1e308", "context": "5, 0"}, "context")
    assert part["score"] == 0.0 and not part["follow_through"]


def test_readback_follow_through_survives_huge_readbacks() -> None:
    exercise = get_exercise(READBACK)
    variant = generate_variant(exercise, 0)
    # Cosine does not depend on length: a readback of 1e200·[1, 1, 1, 1] points the same way as [1, 1, 1, 1],
    # whose cosine with word 1 = [0, 1, 2, -1] is 2/sqrt(24); the old code overflowed to 0 (and to nan at 1e308).
    expected = 2 / math.sqrt(24)
    for scale in (1.0, 1e200, 1e308):
        own = exercise.follow_through(variant, {"readback": [scale] * 4})
        assert own.get("cosine") == pytest.approx(expected), scale
        # Words 0 and 2 tie for nearest to [1, 1, 1, 1]: there is no nearest word to give credit for.
        assert "nearest" not in own, scale


def test_readback_huge_readback_earns_no_nearest_credit_for_an_arbitrary_index() -> None:
    answer = {**BOOK_READBACK, "readback": "1e308, 1e308, 1e308, 1e308", "cosine": "0", "nearest": "0"}
    part = _part(READBACK, answer, "nearest")
    assert part["score"] == 0.0 and not part["follow_through"]
    assert _part(READBACK, answer, "cosine")["score"] == 0.0


# --- Follow-through is left out where the earlier error empties the later part (docs/adding-an-exercise.md) ---


def test_rnn_no_tanh_gets_no_follow_through_where_tanh_changes_nothing() -> None:
    # Their pre-activation [0, 0.01] (the book's is [1.25, -0.75]) is one that tanh leaves as it is within
    # tolerance; copying it into h (the no-tanh mistake) earned full follow-through credit without showing tanh.
    part = _part(RNN, {"pre_activation": "0, 0.01", "h": "0, 0.01"}, "h")
    assert part["score"] == 0.0 and not part["follow_through"]
    # Where tanh does change their number, applying it still earns the credit.
    part = _part(RNN, {"pre_activation": "1.25, 0.5", "h": f"{math.tanh(1.25)}, {math.tanh(0.5)}"}, "h")
    assert part["score"] == 1.0 and part["follow_through"]


def test_rnn_h_gets_no_follow_through_from_a_pre_activation_of_the_wrong_length() -> None:
    # Three numbers for a 2-d state: since engine 1.6.0 the answer cannot be graded at all (the shape is checked
    # before values), so h earns nothing from it; before, the part scored 0 and h had nothing to follow.
    result = api.grade(RNN, 0, {"pre_activation": "1.5, 0.5, 2", "h": f"{math.tanh(1.5)}, {math.tanh(0.5)}"}, "en")
    assert result["status"] == "invalid" and result["parts"] == {} and result["score"] is None
    assert [error["field"] for error in result["errors"]] == ["pre_activation"]


def test_scaled_zero_weights_give_no_follow_through_on_a_zero_output() -> None:
    zeros = "[[0,0,0],[0,0,0],[0,0,0]]"
    part = _part(SCALED, {**BOOK_SCALED, "weights": zeros, "output": "[[0,0],[0,0],[0,0]]"}, "output")
    assert part["score"] == 0.0 and not part["follow_through"]


def test_additive_zero_weights_give_no_follow_through_on_a_zero_context() -> None:
    part = _part(ADDITIVE, {**BOOK_ADDITIVE, "weights": "0, 0, 0", "context": "0, 0"}, "context")
    assert part["score"] == 0.0 and not part["follow_through"]


def test_additive_equal_scores_give_no_follow_through_to_uniform_weights() -> None:
    # Scores all 0 soften to the even average, which is the uniform-average mistake itself.
    part = _part(ADDITIVE, {**BOOK_ADDITIVE, "scores": "0, 0, 0", "weights": "1/3, 1/3, 1/3"}, "weights")
    assert part["score"] == 0.0 and not part["follow_through"]
    assert part["misconception"] == "uniform-average"
    # Unequal scores of their own still carry forward to their softmax.
    part = _part(ADDITIVE, {**BOOK_ADDITIVE, "scores": "1, 0, 0", "weights": "e/(e+2), 1/(e+2), 1/(e+2)"}, "weights")
    assert part["score"] == 1.0 and part["follow_through"]


def test_readback_gets_no_follow_through_where_unbinding_changes_nothing() -> None:
    # Seed 0 probes with k_1 = [1, -1, 1, 1]; an all-zero memory unbinds to itself whatever the key.
    part = _part(READBACK, {**BOOK_READBACK, "memory": "0, 0, 0, 0", "readback": "0, 0, 0, 0"}, "readback")
    assert part["score"] == 0.0 and not part["follow_through"]
    # So does a memory that is zero where the key is -1: copying it (no unbinding) earned full credit.
    part = _part(READBACK, {**BOOK_READBACK, "memory": "2, 0, 1, 1", "readback": "2, 0, 1, 1"}, "readback")
    assert part["score"] == 0.0 and not part["follow_through"]


def test_informative_earlier_steps_still_carry_forward() -> None:
    # Guards the fixes above against removing legitimate follow-through.
    unscaled_weights = "[[0.5761, 0.2119, 0.2119],[0.2119,0.5761,0.2119],[0.3333,0.3333,0.3333]]"
    part = _part(
        SCALED,
        {**BOOK_SCALED, "weights": unscaled_weights, "output": "[[0.7880, 0.4238],[0.4238, 0.7880],[0.6666, 0.6666]]"},
        "output",
    )
    assert part["score"] == 1.0 and part["follow_through"]
    part = _part(ADDITIVE, {**BOOK_ADDITIVE, "weights": "1/3, 1/3, 1/3", "context": "0, 1/3"}, "context")
    assert part["score"] == 1.0 and part["follow_through"]
    part = _part(READBACK, {**BOOK_READBACK, "memory": "1, 1, 1, 1", "readback": "1, -1, 1, 1"}, "readback")
    assert part["score"] == 1.0 and part["follow_through"]
