"""Verdicts found wrong by typing answers as students type them (rounded steps, notations, blank answers), each
pinned by a test that failed before its fix."""

from __future__ import annotations

import math

import numpy as np
import pytest

from exercises import api
from exercises.ch13.encoder import encoder_step
from exercises.ch13.loss_average import _probabilities
from exercises.linalg import softmax, softmax_rows
from exercises.registry import get_exercise
from exercises.variant_generation import generate_variant
from tests.engine.verdict_support import ADDITIVE, SCALED, grade, seeded

LOSS, STATES, GREEDY, PAIRS = "ch13.loss-average", "ch13.encoder-states", "ch13.greedy-decode", "ch13.shift-pairs"


def _row(values: list[float], places: int) -> str:
    """Numbers rounded as a student rounds them by hand, comma-separated."""
    return ", ".join(f"{value:.{places}f}" for value in values)


def _rows(matrix: list[list[float]], places: int) -> str:
    """A matrix typed one row per line."""
    return "\n".join(_row(row, places) for row in matrix)


def _rounded(values: object, places: int) -> list:
    """``values`` rounded to ``places`` decimals, as the student carries them into the next step."""
    return np.round(np.asarray(values, dtype=float), places).tolist()


# --- A step computed from the student's own rounded (and accepted) steps is right, not "follow-through" ---------


def _scaled_chain(seed: int) -> dict[str, str]:
    """Scores to 3 decimals, weights as the softmax of those, output from those weights: each rounded in turn."""
    variant = seeded(get_exercise(SCALED), seed)
    key = get_exercise(SCALED).solve(variant)
    scores = _rounded(key["scores"], 3)
    weights = _rounded(softmax_rows(scores), 3)
    output = _rounded(np.asarray(weights) @ np.asarray(variant.data["v"], dtype=float), 3)
    return {
        "scores": _rows(scores, 3),
        "weights": _rows(weights, 3),
        "output": _rows(output, 3),
        "diagonal_dominant": "是" if key["diagonal_dominant"] else "否",
    }


def _additive_chain(seed: int) -> dict[str, str]:
    """Scores, weights and context of additive attention, each to 3 decimals from the rounded step before."""
    variant = seeded(get_exercise(ADDITIVE), seed)
    scores = _rounded(get_exercise(ADDITIVE).solve(variant)["scores"], 3)
    weights = _rounded(softmax(scores), 3)
    context = _rounded(np.asarray(weights) @ np.asarray(variant.data["hs"], dtype=float), 3)
    return {"scores": _row(scores, 3), "weights": _row(weights, 3), "context": _row(context, 3)}


def _loss_chain(seed: int) -> dict[str, str]:
    """The probability to 3 decimals, the total as -ln of it, and both averages from that total."""
    probabilities = _probabilities(seeded(get_exercise(LOSS), seed))
    count, eos_loss = len(probabilities), -math.log(probabilities[-1])
    probability = round(math.prod(probabilities), 3)
    total = round(-math.log(probability), 3)
    return {
        "sequence_probability": f"{probability:.3f}",
        "total_loss": f"{total:.3f} nats",
        "mean_loss_with_eos": f"{total / count:.3f}",
        "mean_loss_without_eos": f"{(total - eos_loss) / (count - 1):.3f}",
    }


def _states_chain(seed: int) -> dict[str, str]:
    """Encoder states to 3 decimals, each read from the rounded state before it."""
    data = seeded(get_exercise(STATES), seed).data
    previous, rows = data["encoder"]["h_0"], []
    for token in data["source"]:
        _, state = encoder_step(data["source_vocab"][token], previous, data["encoder"])
        previous = _rounded(state, 3)
        rows.append(previous)
    return {"states": "; ".join(f"[{_row(row, 3)}]" for row in rows)}


@pytest.mark.parametrize(
    ("exercise_id", "seed", "chain", "part"),
    [
        (SCALED, 2, _scaled_chain, "output"),  # weights to 3 decimals move an output entry just past tolerance
        (ADDITIVE, 8, _additive_chain, "context"),
        (LOSS, 13, _loss_chain, "total_loss"),  # the hint asks for at least 3 decimals
        (STATES, 8, _states_chain, "states"),  # one part: a later state read from an earlier rounded one
    ],
)
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_step_from_the_students_own_rounded_right_steps_is_marked_right(
    exercise_id: str, seed: int, chain, part: str, lang: str
) -> None:
    result = grade(exercise_id, seed, chain(seed), lang)
    assert result["score"] == 1.0
    verdict = result["parts"][part]
    # It was ✗ "the mistake is in an earlier step" while every earlier step was marked right.
    assert verdict["correct"] and not verdict["follow_through"] and verdict["misconception"] is None, verdict
    assert verdict["feedback"].startswith("正确" if lang == "zh" else "Correct"), verdict["feedback"]


def test_a_step_from_a_wrong_earlier_step_still_says_follow_through() -> None:
    chain = _scaled_chain(2)
    weights = [[float(v) for v in line.split(", ")] for line in chain["weights"].splitlines()]
    wrong = [[round(v + 0.05, 3) for v in row] for row in weights]  # weights off by 0.05: wrong, not rounding
    output = _rounded(
        np.asarray(wrong) @ np.asarray(generate_variant(get_exercise(SCALED), 2).data["v"], dtype=float), 3
    )
    verdict = grade(SCALED, 2, {**chain, "weights": _rows(wrong, 3), "output": _rows(output, 3)})["parts"]["output"]
    assert verdict["follow_through"] and not verdict["correct"] and verdict["score"] == 1.0
    # ... and the rounded right chain itself is marked right (this fails without the fix).
    assert grade(SCALED, 2, chain)["parts"]["output"]["correct"]


# --- "ln 1/0.288" could be ln(1/0.288) or ln(1)/0.288: refused, not read as 0 ---------------------------------


@pytest.mark.parametrize(
    ("typed", "lang", "words"),
    [
        ("ln 1/0.288", "en", "ambiguous"),
        ("ln 1/0.288", "zh", "歧义"),
        ("-ln0.288/4", "en", "ambiguous"),
        ("log 1/0.288", "zh", "歧义"),
    ],
)
def test_a_slash_after_an_unbracketed_function_argument_is_refused(typed: str, lang: str, words: str) -> None:
    field = "total_loss" if "4" not in typed else "mean_loss_with_eos"
    answer = {**api.answer_key(LOSS, 0), field: typed}
    answer = {name: str(value) for name, value in answer.items()}
    result = api.grade(LOSS, 0, answer, lang)
    assert result["status"] == "invalid", result["parts"].get(field)
    assert [error["field"] for error in result["errors"]] == [field]
    assert words in result["errors"][0]["message"]
    assert api.validate(LOSS, answer, lang)["status"] == "invalid"


def test_bracketed_logs_and_the_root_sign_still_read() -> None:
    answer = {
        "sequence_probability": "0.288",
        "total_loss": "ln(1/0.288)",
        "mean_loss_with_eos": "-ln(0.288)/4",
        "mean_loss_without_eos": "(-ln(0.288))/3",
    }
    assert grade(LOSS, 0, answer)["score"] == 1.0
    readback = {"memory": "-1, 1, 3, -1", "readback": "-1, -1, 3, -1", "cosine": "√2/2", "nearest": "1"}
    assert grade("l03.superposition-readback", 0, readback)["score"] == 1.0
    assert api.grade(LOSS, 0, {**answer, "total_loss": "ln 1/0.288"}, "en")["status"] == "invalid"


# --- Blank answers earn no follow-through -----------------------------------------------------------------------


def test_all_zero_encoder_states_earn_nothing_for_zeros_copied_forward() -> None:
    # Seed 7: the key is [0,0], [0,0], [3a,2a], [3a,0]; the last read (。 = [0,0]) hands a zero state back unchanged.
    verdict = grade(STATES, 7, {"states": "[0,0], [0,0], [0,0], [0,0]"})["parts"]["states"]
    assert verdict["score"] == 0.5 and not verdict["follow_through"], verdict
    # Seed 8: 盒子 = [-a,0] is clipped to [0,0] from a zero state, so zeros again "follow" from zeros.
    verdict = grade(STATES, 8, {"states": "0 0\n0 0\n0 0\n0 0"})["parts"]["states"]
    assert verdict["score"] == 0.5 and not verdict["follow_through"], verdict


def test_a_probability_of_one_and_a_loss_of_zero_earn_nothing() -> None:
    answer = {
        "sequence_probability": "1",
        "total_loss": "0 nats",
        "mean_loss_with_eos": "0",
        "mean_loss_without_eos": "0",
    }
    result = grade(LOSS, 3, answer, "zh")
    assert result["score"] == 0.0, result["parts"]
    assert not any(part["follow_through"] for part in result["parts"].values())


def test_a_readback_copied_from_the_memory_earns_no_follow_through() -> None:
    # Book: k_1 = [1,-1,1,1]; a readback copied from a wrong memory matched the unbound memory wherever k_1 = +1.
    answer = {"memory": "-1, -1, -1, -1", "readback": "-1, -1, -1, -1", "cosine": "0.5", "nearest": "0"}
    verdict = grade("l03.superposition-readback", 0, answer)["parts"]["readback"]
    assert verdict["score"] == 0.75 and not verdict["follow_through"], verdict  # three entries are the key's own


# --- Other names students give the special tokens ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("exercise_id", "answer"),
    [
        (PAIRS, {"pairs": "SOS→blue, blue→door, door→., .→EOS"}),  # SOS: the PyTorch tutorial's start token
        (PAIRS, {"pairs": "<sos>→blue, blue→door, door→句点, 句点→EOS"}),
        (GREEDY, {"tokens": "blue key 句点 EOS"}),
        (GREEDY, {"tokens": "blue key dot </eos>"}),
    ],
)
def test_other_names_of_the_special_tokens_are_read(exercise_id: str, answer: dict[str, str]) -> None:
    key = {name: str(value) for name, value in api.answer_key(exercise_id, 0).items()}
    key = {**key, "bos_scored": "no", "eos_scored": "yes"} if exercise_id == PAIRS else key
    result = grade(exercise_id, 0, {**key, **answer}, "zh")
    assert result["score"] == 1.0, result["parts"]
