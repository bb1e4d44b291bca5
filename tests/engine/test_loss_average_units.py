"""ch13.loss-average: one consistent wrong logarithm (log10, log2, no minus sign) gets the same follow-through in both
averages, the EOS term taken off in the student's own units; a slip in the total still loses the natural-log EOS term."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable

import pytest

from exercises import api
from exercises.ch13 import loss_average
from exercises.checking import check_answer
from exercises.parsing import parse_answer
from exercises.registry import get_exercise
from tests.engine.verdict_support import variants

LOSS = "ch13.loss-average"
SEED_COUNT = 120
SEEDS = range(SEED_COUNT)
LANGS = ("zh", "en")
MEANS = ("mean_loss_with_eos", "mean_loss_without_eos")
# Each wrong procedure as the loss of one probability, written out independently of the engine.
WRONG_LOSSES: dict[str, Callable[[float], float]] = {
    "log10": lambda p: -math.log10(p),
    "log2": lambda p: -math.log2(p),
    "no-negation": math.log,
}


def _probabilities(seed: int) -> list[float]:
    """The teacher-forced probability of each target token of variant ``seed``."""
    return loss_average._probabilities(variants(LOSS, SEED_COUNT)[seed])


def _typed(probability: float, losses: list[float]) -> dict[str, str]:
    """What a student types to 4 decimals: the probability, the total of ``losses`` and both averages of them."""
    total, count = sum(losses), len(losses)
    return {
        "sequence_probability": f"{probability:.4f}",
        "total_loss": f"{total:.4f}",
        "mean_loss_with_eos": f"{total / count:.4f}",
        "mean_loss_without_eos": f"{sum(losses[:-1]) / (count - 1):.4f}",
    }


def _verdict(part: dict) -> tuple:
    """Everything a part's verdict says, feedback included."""
    return part["score"], part["correct"], part["follow_through"], part["misconception"], part["feedback"]


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("tag", sorted(WRONG_LOSSES))
@pytest.mark.parametrize("seed", SEEDS)
def test_one_wrong_logarithm_gets_the_same_follow_through_in_both_averages(seed: int, tag: str, lang: str) -> None:
    probabilities = _probabilities(seed)
    answer = _typed(math.prod(probabilities), [WRONG_LOSSES[tag](p) for p in probabilities])
    result = api.grade(LOSS, seed, answer, lang)
    parts = result["parts"]
    assert parts["sequence_probability"]["correct"], parts
    assert (parts["total_loss"]["score"], parts["total_loss"]["misconception"]) == (0.0, tag), parts
    with_eos, without_eos = (parts[name] for name in MEANS)
    assert _verdict(with_eos) == _verdict(without_eos), (seed, answer, parts)
    assert (with_eos["score"], with_eos["correct"], with_eos["follow_through"], with_eos["misconception"]) == (
        1.0,
        False,
        True,
        tag,
    ), (seed, with_eos)
    assert result["score"] == 0.75


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("tag", sorted(WRONG_LOSSES))
@pytest.mark.parametrize("seed", range(0, SEED_COUNT, 3))
def test_the_misconception_solvers_answer_is_treated_alike_in_both_averages(seed: int, tag: str, lang: str) -> None:
    exercise = get_exercise(LOSS)
    variant = variants(LOSS, SEED_COUNT)[seed]
    wrong = next(m for m in exercise.misconceptions if m.tag == tag).solve(variant)
    parts = check_answer(exercise, variant, {**exercise.solve(variant), **wrong}, lang).parts
    with_eos, without_eos = (parts[name] for name in MEANS)
    assert (with_eos.score, with_eos.follow_through, with_eos.tags, with_eos.feedback) == (
        without_eos.score,
        without_eos.follow_through,
        without_eos.tags,
        without_eos.feedback,
    ), (seed, parts)
    assert with_eos.score == 1.0 and with_eos.follow_through and not with_eos.correct


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("tag", sorted(WRONG_LOSSES))
@pytest.mark.parametrize("seed", range(1, SEED_COUNT, 4))
def test_a_wrong_logarithm_of_the_students_own_probability_carries_forward(seed: int, tag: str, lang: str) -> None:
    # The product slipped by 0.01, then every later step done consistently with the wrong logarithm from it.
    probabilities = _probabilities(seed)
    own = round(math.prod(probabilities), 4) + 0.01
    log = WRONG_LOSSES[tag]
    count, total = len(probabilities), log(own)
    answer = {
        "sequence_probability": f"{own:.4f}",
        "total_loss": f"{total:.4f}",
        "mean_loss_with_eos": f"{total / count:.4f}",
        "mean_loss_without_eos": f"{(total - log(probabilities[-1])) / (count - 1):.4f}",
    }
    parts = api.grade(LOSS, seed, answer, lang)["parts"]
    for name in MEANS:
        assert (parts[name]["score"], parts[name]["follow_through"]) == (1.0, True), (seed, name, parts[name])


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("seed", SEEDS)
def test_a_slip_in_the_total_still_takes_off_the_natural_log_eos_term(seed: int, lang: str) -> None:
    # Not a unit: the total is 0.1 too large, the EOS term −ln p is right, so the average without EOS follows.
    probabilities = _probabilities(seed)
    count, total = len(probabilities), -math.log(math.prod(probabilities)) + 0.1
    answer = {
        "sequence_probability": f"{math.prod(probabilities):.4f}",
        "total_loss": f"{total:.4f}",
        "mean_loss_with_eos": f"{total / count:.4f}",
        "mean_loss_without_eos": f"{(total + math.log(probabilities[-1])) / (count - 1):.4f}",
    }
    parts = api.grade(LOSS, seed, answer, lang)["parts"]
    assert parts["total_loss"]["score"] == 0.0
    for name in MEANS:
        assert (parts[name]["score"], parts[name]["follow_through"]) == (1.0, True), (seed, name, parts[name])


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("tag", ("log10", "log2"))
@pytest.mark.parametrize("seed", [seed for seed in SEEDS if _probabilities(seed)[-1] < 1])
def test_mixing_units_earns_no_follow_through_without_eos(seed: int, tag: str, lang: str) -> None:
    # A total in another base minus the EOS term in nats follows from no one procedure.
    probabilities = _probabilities(seed)
    log, count = WRONG_LOSSES[tag], len(probabilities)
    total = sum(log(p) for p in probabilities)
    mixed = (total + math.log(probabilities[-1])) / (count - 1)
    answer = {
        **_typed(math.prod(probabilities), [log(p) for p in probabilities]),
        "mean_loss_without_eos": f"{mixed:.4f}",
    }
    part = api.grade(LOSS, seed, answer, lang)["parts"]["mean_loss_without_eos"]
    assert (part["score"], part["follow_through"]) == (0.0, False), (seed, part)


def test_the_question_answer_reported_by_qa_in_both_languages() -> None:
    # Probabilities .6 .9 .7 .8 (product 0.3024) with log10: 0.3024 / 0.5194 / 0.1299 / 0.1408.
    probabilities = [0.6, 0.9, 0.7, 0.8]
    variant = variants(LOSS, 1)[0]
    target = ["red", "key", ".", "EOS"]
    table = {
        "BOS": [0.6, 0.4, 0, 0, 0, 0],
        "red": [0, 0, 0.9, 0.1, 0, 0],
        "key": [0, 0, 0, 0, 0.7, 0.3],
        "blue": [0, 0, 0.2, 0.7, 0.1, 0],
        "door": [0, 0, 0, 0, 0.9, 0.1],
        ".": [0, 0, 0, 0, 0.2, 0.8],
    }
    shown = dataclasses.replace(variant, data={**variant.data, "table": table, "target": target})
    assert loss_average._probabilities(shown) == probabilities
    exercise = get_exercise(LOSS)
    typed = {
        "sequence_probability": "0.3024",
        "total_loss": "0.5194",
        "mean_loss_with_eos": "0.1299",
        "mean_loss_without_eos": "0.1408",
    }
    parsed = parse_answer(exercise, typed).values
    for lang in LANGS:
        parts = check_answer(exercise, shown, parsed, lang).parts
        same = ("score", "correct", "misconception", "tags", "follow_through", "feedback")
        assert [getattr(parts["mean_loss_without_eos"], k) for k in same] == [
            getattr(parts["mean_loss_with_eos"], k) for k in same
        ]
        assert parts["mean_loss_without_eos"].score == 1.0 and parts["mean_loss_without_eos"].misconception == "log10"
        assert ("连带分" if lang == "zh" else "follow-through") in parts["mean_loss_without_eos"].feedback
