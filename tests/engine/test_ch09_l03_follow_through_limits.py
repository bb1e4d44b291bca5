"""Chapter-9 and l03 verdicts found wrong by a second audit, each pinned by a test that failed before its fix.

Most are follow-through credit that did not show the skill of the part: an earlier step of the student's own
that makes the later one trivial (a saturated tanh or softmax, a one-hot weighting that only copies a row, a
readback that is the probed word itself) earned full marks on the later step.
"""

from __future__ import annotations

import math
import re
import warnings

import pytest

from exercises import api
from exercises.registry import get_exercise
from tests.engine.verdict_support import (
    ADDITIVE,
    BOOK_ADDITIVE,
    BOOK_READBACK,
    BOOK_SCALED,
    READBACK,
    RNN,
    SCALED,
    seeded,
)

COST = "ch09.attention-cost"
HEADS = "ch09.multihead-shapes"

IDENTITY = "[[1,0,0],[0,1,0],[0,0,1]]"


def _graded(exercise_id: str, answer: dict, seed: int = 0, lang: str = "en") -> dict:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = api.grade(exercise_id, seed, answer, lang)
    assert result["status"] == "graded", result["errors"]
    return result


def _part(exercise_id: str, answer: dict, name: str, seed: int = 0, lang: str = "en") -> dict:
    return _graded(exercise_id, answer, seed, lang)["parts"][name]


# --- ch09.scaled-dot-attention: a softmax or weighted sum that needs no work earns no follow-through -------


def test_scaled_saturated_scores_earn_no_credit_for_one_hot_weights_and_copied_values() -> None:
    # Made-up scores of 100 on the diagonal soften to the identity, which weighs nothing; the identity then
    # "weighs" V into V itself. Scores, weights and output all wrong, yet weights and output had full
    # follow-through and the whole answer scored 0.8 without a single softmax or weighted sum.
    answer = {
        "scores": "[[100,0,0],[0,100,0],[0,0,100]]",
        "weights": IDENTITY,
        "output": "[[1,0],[0,1],[1,1]]",
        "diagonal_dominant": "是",
    }
    result = _graded(SCALED, answer)
    for name in ("weights", "output"):
        assert result["parts"][name]["score"] == 0.0 and not result["parts"][name]["follow_through"], name
    assert result["score"] < 0.5


def test_scaled_constant_score_rows_earn_no_credit_for_uniform_weights() -> None:
    # Equal scores in every row soften to 1/3 each: writing 1/3 shows no softmax.
    thirds = "[[1/3,1/3,1/3],[1/3,1/3,1/3],[1/3,1/3,1/3]]"
    part = _part(SCALED, {**BOOK_SCALED, "scores": "[[1,1,1],[2,2,2],[0,0,0]]", "weights": thirds}, "weights")
    assert part["score"] == 0.0 and not part["follow_through"]


def test_scaled_one_hot_weights_earn_no_credit_for_copied_value_rows() -> None:
    part = _part(
        SCALED, {**BOOK_SCALED, "weights": "[[0,0,1],[0,0,1],[0,0,1]]", "output": "[[1,1],[1,1],[1,1]]"}, "output"
    )
    assert part["score"] == 0.0 and not part["follow_through"]


def test_scaled_follow_through_survives_one_saturated_row() -> None:
    # Unscaled scores on seed 0 are [[1,0,2],[0,1,2],[1,1,4]]; with row 3 made [0,0,40] (one saturated row)
    # the other two rows still need a real softmax, so the credit stays.
    scores = [[1, 0, 2], [0, 1, 2], [0, 0, 40]]
    weights = []
    for row in scores:
        exps = [math.exp(x - max(row)) for x in row]
        weights.append([e / sum(exps) for e in exps])
    text = "[" + ", ".join("[" + ", ".join(f"{w:.6f}" for w in row) + "]" for row in weights) + "]"
    part = _part(SCALED, {**BOOK_SCALED, "scores": str(scores), "weights": text}, "weights")
    assert part["score"] == 1.0 and part["follow_through"]


# --- l03.additive-attention ------------------------------------------------------------------------------


def test_additive_saturated_scores_earn_no_credit_for_one_hot_weights() -> None:
    answer = {"scores": "10, 0, -10", "weights": "1, 0, 0", "context": "1, 0"}
    result = _graded(ADDITIVE, answer)
    for name in ("weights", "context"):
        assert result["parts"][name]["score"] == 0.0 and not result["parts"][name]["follow_through"], name


def test_additive_one_hot_weights_earn_no_credit_for_a_copied_state() -> None:
    # Hard attention on h_2 makes the "weighted sum" a copy of h_2 = [0, 1].
    part = _part(ADDITIVE, {**BOOK_ADDITIVE, "weights": "0, 1, 0", "context": "0, 1"}, "context")
    assert part["score"] == 0.0 and not part["follow_through"]


def test_additive_spread_scores_still_carry_forward() -> None:
    scores = [3.0, 0.0, -1.0]
    exps = [math.exp(x) for x in scores]
    weights = [e / sum(exps) for e in exps]
    context = [weights[0] - weights[2], weights[1]]
    answer = {
        "scores": "3, 0, -1",
        "weights": ", ".join(f"{w:.5f}" for w in weights),
        "context": ", ".join(f"{c:.5f}" for c in context),
    }
    result = _graded(ADDITIVE, answer)
    for name in ("weights", "context"):
        assert result["parts"][name]["score"] == 1.0 and result["parts"][name]["follow_through"], name


# --- ch09.rnn-step: tanh of a saturated coordinate is its sign, of a tiny one the number itself --------------


def test_rnn_saturated_pre_activation_earns_no_credit_for_signs() -> None:
    # Any pre-activation of ±10 gives h = ±1 "by tanh": half the marks without a single tanh.
    part = _part(RNN, {"pre_activation": "[10, -10]", "h": "[1, -1]"}, "h")
    assert part["score"] == 0.0 and not part["follow_through"]


def test_rnn_saturated_and_tiny_coordinates_together_earn_no_credit() -> None:
    # 0.01 copied unchanged and 50 written as its sign: neither coordinate needs a tanh.
    part = _part(RNN, {"pre_activation": "[0.01, 50]", "h": "[0.01, 1]"}, "h")
    assert part["score"] == 0.0 and not part["follow_through"]
    # One coordinate where tanh matters keeps the credit for the whole step (the earlier audit's rule).
    part = _part(RNN, {"pre_activation": "[0.01, 1.2]", "h": f"[0.01, {math.tanh(1.2):.4f}]"}, "h")
    assert part["score"] == 1.0 and part["follow_through"]
    part = _part(RNN, {"pre_activation": "1.25, 0.5", "h": f"{math.tanh(1.25)}, {math.tanh(0.5)}"}, "h")
    assert part["score"] == 1.0 and part["follow_through"]


# --- l03.superposition-readback: a readback that is the probed word itself ------------------------------------


def _lost_probe_seed() -> int:
    """A seed whose readback is nearest to some other word than the probed one (crosstalk wins)."""
    exercise = get_exercise(READBACK)
    for seed in range(1, 200):
        variant = seeded(exercise, seed)
        if exercise.solve(variant)["nearest"] != variant.data["probe"]:
            return seed
    raise AssertionError("no such seed")


def test_readback_equal_to_the_probed_word_earns_no_credit_for_cosine_one_and_its_own_index() -> None:
    # A student who believes unbinding returns the word exactly (no crosstalk) writes r = e_p, cosine 1 and
    # nearest p. That needs no cosine at all, yet cosine and nearest had full follow-through, even where the
    # crosstalk makes another word the nearest (the point of the exercise).
    seed = _lost_probe_seed()
    exercise = get_exercise(READBACK)
    variant = seeded(exercise, seed)
    probe = variant.data["probe"]
    key = exercise.solve(variant)
    answer = {"memory": key["memory"], "readback": variant.data["words"][probe], "cosine": 1, "nearest": probe}
    result = _graded(READBACK, answer, seed)
    for name in ("cosine", "nearest"):
        assert result["parts"][name]["score"] == 0.0 and not result["parts"][name]["follow_through"], name
    # The same on the book variant, where the probed word is e_1 = [0, 1, 2, -1].
    part = _part(READBACK, {**BOOK_READBACK, "readback": "0, 2, 4, -2", "cosine": "1"}, "cosine")
    assert part["score"] == 0.0 and not part["follow_through"]


def test_readback_cosine_still_follows_an_informative_readback() -> None:
    # Readback [1, 1, 1, 1]: cosine with e_1 = [0, 1, 2, -1] is 2/sqrt(24), computed, not read off.
    part = _part(READBACK, {**BOOK_READBACK, "readback": "1, 1, 1, 1", "cosine": "2/sqrt(24)"}, "cosine")
    assert part["score"] == 1.0 and part["follow_through"]


def test_readback_prompt_names_the_probed_word_by_its_index_in_chinese() -> None:
    # "读回第 1 个词" reads as "the first word" (index 0) in Chinese, while the probe is e_1.
    prompt = api.variant(READBACK, 0, "zh")["prompt"]
    assert "第 1 个词" not in prompt and "e_1" in prompt.split("2.")[1].split("\n")[0]


# --- ch09.attention-cost: leaving out the token itself ------------------------------------------------------


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_cost_counting_without_the_token_itself_is_tagged(lang: str) -> None:
    # n(n-1)/2 under the mask and n(n-1) without it: each query skips its own key. Untagged before.
    result = _graded(COST, {"pairs": "999000", "causal_pairs": "499500", "growth": "4"}, lang=lang)
    for name in ("pairs", "causal_pairs"):
        part = result["parts"][name]
        assert part["misconception"] == "excludes-self" and part["score"] == 0.0, (name, part)
    assert ("自己" if lang == "zh" else "itself") in result["parts"]["causal_pairs"]["feedback"]


def test_cost_excludes_self_tag_fires_on_random_variants_only_for_its_own_numbers() -> None:
    for seed in range(1, 60):
        n = api.variant(COST, seed)["data"]["n"]
        key = api.answer_key(COST, seed)
        part = _part(
            COST, {**{k: str(v) for k, v in key.items()}, "causal_pairs": str(n * (n - 1) // 2)}, "causal_pairs", seed
        )
        assert part["misconception"] == "excludes-self", seed
        part = _part(
            COST,
            {**{k: str(v) for k, v in key.items()}, "causal_pairs": str(n * (n + 1) // 2 + 1)},
            "causal_pairs",
            seed,
        )
        assert part["misconception"] is None, seed


# --- ch09.multihead-shapes: the hint's example must be something the reader accepts ------------------------


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_multihead_hint_example_is_readable_and_does_not_give_the_formula(lang: str) -> None:
    field = next(f for f in api.list_exercises() if f["id"] == HEADS)["fields"]
    hint = next(f for f in field if f["name"] == "projection_params")["hint"][lang]
    example = re.search(r"(?:such as|如) ([0-9*^+()]+)", hint)
    assert example, hint
    assert api.validate(HEADS, {"head_dim": "64", "projection_params": example.group(1)}, lang)["status"] == "valid"
    assert "d" not in example.group(1) and "4*" not in hint
