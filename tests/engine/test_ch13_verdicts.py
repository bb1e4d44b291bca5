"""Regression tests from a grading audit of the chapter-13 exercises: wrong verdicts, misplaced tags and
follow-through credit given where the student's own earlier steps do not support it."""

from __future__ import annotations

import pytest

from exercises.ch13 import exposure_divergence, greedy_decode, shift_pairs
from exercises.ch13.common import BOS, EOS, STOPPED_BY_CAP
from exercises.registry import get_exercise
from tests.engine.verdict_support import feedback_of, grade, variants

GREEDY, EXPOSURE, SHIFT = "ch13.greedy-decode", "ch13.exposure-divergence", "ch13.shift-pairs"
TABLE_EXERCISES = (GREEDY, EXPOSURE, "ch13.loss-average")
SEED_COUNT = 81


# --- ch13.greedy-decode: EOS written after the cap is the ignores-cap mistake, not a consistent stop --------------


def test_greedy_eos_after_the_cap_earns_no_follow_through_for_the_stop_reason() -> None:
    capped = [v for v in variants(GREEDY, SEED_COUNT) if greedy_decode.solve(v)["stopped_by"] == STOPPED_BY_CAP]
    assert capped
    for variant in capped:
        tokens = greedy_decode.solve(variant)["tokens"]  # the 8 predictions the cap allows
        result = grade(GREEDY, variant.seed, {"tokens": [*tokens, EOS], "stopped_by": "EOS"})
        stop = result["parts"]["stopped_by"]
        assert stop["score"] == 0.0 and not stop["follow_through"], (variant.seed, stop)
        assert "ignores-cap" in stop["tags"]
        assert feedback_of(greedy_decode, "ignores-cap") in stop["feedback"]
        assert result["score"] < 0.5 + 1e-9


def test_greedy_eos_within_the_cap_still_carries_the_stop_reason_forward() -> None:
    variant = next(v for v in variants(GREEDY, SEED_COUNT) if greedy_decode.solve(v)["stopped_by"] == STOPPED_BY_CAP)
    tokens = greedy_decode.solve(variant)["tokens"]
    stop = grade(GREEDY, variant.seed, {"tokens": [*tokens[:-1], EOS], "stopped_by": "EOS"})["parts"]["stopped_by"]
    assert stop["score"] == 1.0 and stop["follow_through"]


# --- ch13.shift-pairs: a count-only mistake is count-off-by-one, not "unshifted" ---------------------------------


def test_shift_pairs_count_only_mistake_is_diagnosed_as_count_off_by_one() -> None:
    answer = {
        "pairs": "BOS→blue, blue→door, door→., .→EOS",
        "bos_scored": "否",
        "eos_scored": "是",
        "scored_count": "3",
    }
    part = grade(SHIFT, 0, answer)["parts"]["scored_count"]
    assert part["misconception"] == "count-off-by-one"
    assert part["tags"] == ["count-off-by-one"]
    assert feedback_of(shift_pairs, "unshifted") not in part["feedback"]
    assert feedback_of(shift_pairs, "count-off-by-one") in part["feedback"]


def test_shift_pairs_unshifted_answer_keeps_its_tag_on_the_pairs() -> None:
    answer = {"pairs": "blue→door, door→., .→EOS", "bos_scored": "否", "eos_scored": "是", "scored_count": "3"}
    parts = grade(SHIFT, 0, answer)["parts"]
    assert parts["pairs"]["misconception"] == "unshifted"
    assert parts["scored_count"]["misconception"] == "count-off-by-one"


# --- ch13.exposure-divergence: "X, X" is not a pair of diverging inputs ------------------------------------------


def test_exposure_same_token_twice_earns_no_follow_through() -> None:
    # Book: step 1 has BOS on both sides, so "divergence at 1, inputs BOS and BOS" contradicts itself.
    parts = grade(
        EXPOSURE,
        0,
        {
            "first_wrong_step": "1",
            "first_input_divergence_step": "1",
            "teacher_forced_input": "BOS",
            "generated_input": "BOS",
        },
    )["parts"]
    assert parts["first_input_divergence_step"]["misconception"] == "same-step"
    for name in ("teacher_forced_input", "generated_input"):
        assert parts[name]["score"] == 0.0 and not parts[name]["follow_through"], (name, parts[name])
    checked = 0
    for variant in variants(EXPOSURE, SEED_COUNT):
        reference = exposure_divergence.solve(variant)
        target = variant.data["target"]
        for step in range(2, reference["first_wrong_step"] + 1):  # before the mistake both inputs are the same
            token = target[step - 2]
            result = grade(
                EXPOSURE,
                variant.seed,
                {
                    "first_wrong_step": step - 1,
                    "first_input_divergence_step": step,
                    "teacher_forced_input": token,
                    "generated_input": token,
                },
            )
            for name in ("teacher_forced_input", "generated_input"):
                part = result["parts"][name]
                assert not part["follow_through"], (variant.seed, step, name)
                assert part["score"] == (1.0 if reference[name] == token else 0.0), (variant.seed, step, name)
            checked += 1
    assert checked > 10


def test_exposure_consistent_later_divergence_keeps_follow_through() -> None:
    # Book: a student who thinks the first mistake is at step 2 puts the divergence at 3 (key vs door).
    parts = grade(
        EXPOSURE,
        0,
        {
            "first_wrong_step": "2",
            "first_input_divergence_step": "3",
            "teacher_forced_input": "key",
            "generated_input": "door",
        },
    )["parts"]
    assert all(
        parts[name]["follow_through"] and parts[name]["score"] == 1.0
        for name in ("first_input_divergence_step", "teacher_forced_input", "generated_input")
    )


# --- probability tables in prompts: every candidate name stands apart -----------------------------------------


@pytest.mark.parametrize("exercise_id", TABLE_EXERCISES)
@pytest.mark.parametrize("lang", ["zh", "en"])
def test_table_header_keeps_candidate_names_apart(exercise_id: str, lang: str) -> None:
    for variant in variants(exercise_id, SEED_COUNT):
        prompt = get_exercise(exercise_id).prompt(variant, lang)
        candidates = list(variant.data["candidates"])
        header = next(
            line for line in prompt.splitlines() if line.rstrip().endswith(candidates[-1]) and "[" not in line
        )
        assert header.split()[-len(candidates) :] == candidates, (variant.seed, header)
        rows = [line for line in prompt.splitlines() if line.split()[:1] and line.split()[0] in {BOS, *candidates[:-1]}]
        assert len(rows) == len(candidates)  # BOS and every candidate but EOS


def test_greedy_eos_on_a_capped_decode_is_first_diagnosed_as_ignores_cap() -> None:
    # Where breaking the tie the other way would also end in EOS, the stop part listed tie-to-later first.
    capped = [v for v in variants(GREEDY, SEED_COUNT) if greedy_decode.solve(v)["stopped_by"] == STOPPED_BY_CAP]
    both = [v for v in capped if (greedy_decode._tie_to_later(v) or {}).get("stopped_by") == "EOS"]
    assert both
    for variant in capped:
        # One prediction past the cap (what the ignores-cap solver once wrote), and the right predictions: the
        # solver now gives only the stop reason, so that the student who lists the right tokens is not ruled out.
        for tokens in (greedy_decode._decode(variant, extra_steps=1).tokens, greedy_decode.solve(variant)["tokens"]):
            stop = grade(GREEDY, variant.seed, {"tokens": list(tokens), "stopped_by": "EOS"})["parts"]["stopped_by"]
            assert stop["misconception"] == "ignores-cap", (variant.seed, stop["tags"])
            assert stop["tags"] == ["ignores-cap"], (variant.seed, stop["tags"])
            assert stop["feedback"].index(feedback_of(greedy_decode, "ignores-cap")) < 30
