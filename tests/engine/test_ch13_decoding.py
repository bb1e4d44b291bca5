"""Chapter 13 decoding exercises: greedy decoding, exposure divergence and loss averages, on book and random data."""

from __future__ import annotations

import math

import numpy as np
import pytest

from exercises import api
from exercises.base import Variant
from exercises.ch13 import exposure_divergence, greedy_decode, loss_average
from exercises.ch13.common import BOOK_TABLE, BOOK_TARGET, CANDIDATES, EOS, STOPPED_BY_CAP, STOPPED_BY_EOS
from exercises.ch13.decoding import greedy_decode as decode
from exercises.ch13.decoding import pick, teacher_forced_probabilities, tenths_row, tied_rows
from exercises.variant_generation import generate_variant, has_tie_at_max
from tests.engine.verdict_support import grade
from tests.engine.verdict_support import variants as all_variants

SEEDS = range(1, 201)


def variants(exercise_id: str) -> tuple[Variant, ...]:
    """Random variants of one exercise (seed 0, the book, excluded)."""
    return all_variants(exercise_id, SEEDS.stop)[SEEDS.start :]


# --- the decoding helpers -------------------------------------------------------------------------------------


def test_pick_breaks_ties_toward_the_earlier_candidate_unless_told_otherwise() -> None:
    row = [0.0, 0.4, 0.0, 0.4, 0.2, 0.0]
    assert pick(CANDIDATES, row) == "blue"
    assert pick(CANDIDATES, row, prefer_later=True) == "door"


def test_book_table_decodes_as_table_13_5() -> None:
    result = decode(CANDIDATES, BOOK_TABLE)
    assert result.tokens == ("blue", "door", ".", EOS)
    assert result.stopped_by == STOPPED_BY_EOS
    assert result.inputs == ("BOS", "blue", "door", ".")


def test_a_cycling_table_stops_at_the_cap_and_says_so() -> None:
    table = {**BOOK_TABLE, "door": (0.0, 0.9, 0.0, 0.0, 0.1, 0.0)}  # blue -> door -> blue -> ...
    result = decode(CANDIDATES, table, max_steps=8)
    assert result.tokens == ("blue", "door") * 4
    assert result.stopped_by == STOPPED_BY_CAP


def test_eos_on_the_last_allowed_step_counts_as_eos() -> None:
    result = decode(CANDIDATES, BOOK_TABLE, max_steps=4)
    assert result.stopped_by == STOPPED_BY_EOS and len(result.tokens) == 4
    assert decode(CANDIDATES, BOOK_TABLE, max_steps=3).stopped_by == STOPPED_BY_CAP


def test_teacher_forced_probabilities_of_the_book_target() -> None:
    assert teacher_forced_probabilities(CANDIDATES, BOOK_TABLE, BOOK_TARGET) == [0.4, 0.8, 0.9, 1.0]


def test_tenths_rows_sum_to_one_and_respect_winner_tie_and_pins() -> None:
    rng = np.random.default_rng(5)
    for _ in range(200):
        row = tenths_row(rng, 6, winner=2, fixed={4: 2})
        assert abs(sum(row) - 1.0) <= 1e-12 and row[4] == 0.2
        assert all(value < row[2] for i, value in enumerate(row) if i != 2)
        tied = tenths_row(rng, 6, winner=1, tie_with=3)
        assert tied[1] == tied[3] == max(tied) and sum(value == max(tied) for value in tied) == 2
        assert all(round(value * 10, 9).is_integer() for value in row + tied)
        free = tenths_row(rng, 6, fixed={0: 3})
        assert free[0] == 0.3 and not has_tie_at_max(free)


# --- ch13.exposure-divergence ---------------------------------------------------------------------------------

EXPOSURE = "ch13.exposure-divergence"


def test_exposure_book_answer() -> None:
    answer = api.answer_key(EXPOSURE, 0)
    assert answer == {
        "first_wrong_step": 1,
        "first_input_divergence_step": 2,
        "teacher_forced_input": "red",
        "generated_input": "blue",
    }


def test_exposure_typed_with_full_width_digits_scores_one() -> None:
    answer = {
        "first_wrong_step": "１",
        "first_input_divergence_step": "２",
        "teacher_forced_input": "「red」",
        "generated_input": " Blue ",
    }
    assert grade(EXPOSURE, 0, answer, "zh")["score"] == 1.0


def test_exposure_has_variants_where_generation_stops_first_and_null_is_accepted() -> None:
    stopped = [v for v in variants(EXPOSURE) if exposure_divergence.solve(v)["first_input_divergence_step"] is None]
    assert stopped and len(stopped) < len(SEEDS) / 2
    key = api.answer_key(EXPOSURE, stopped[0].seed)
    typed = {
        "first_wrong_step": str(key["first_wrong_step"]),
        "first_input_divergence_step": "无",
        "teacher_forced_input": "none",
        "generated_input": "NONE",
    }
    assert grade(EXPOSURE, stopped[0].seed, typed, "zh")["score"] == 1.0


def test_exposure_divergence_is_always_one_step_after_the_mistake_or_null() -> None:
    for variant in variants(EXPOSURE):
        answer = exposure_divergence.solve(variant)
        assert answer["first_wrong_step"] < len(variant.data["target"])
        assert answer["first_input_divergence_step"] in (None, answer["first_wrong_step"] + 1)
        assert not tied_rows(variant.data["table"])


def test_exposure_divergence_step_gets_follow_through_from_the_students_wrong_step() -> None:
    answer = {
        "first_wrong_step": "2",
        "first_input_divergence_step": "3",
        "teacher_forced_input": "key",
        "generated_input": "door",
    }
    parts = grade(EXPOSURE, 0, answer)["parts"]
    assert not parts["first_wrong_step"]["correct"]
    assert parts["first_input_divergence_step"]["follow_through"]
    assert parts["teacher_forced_input"]["follow_through"]  # step 3 under teacher forcing gets key
    assert parts["generated_input"]["follow_through"]  # step 3 in generation gets door
    assert parts["first_input_divergence_step"]["score"] == 1.0


def test_an_unfounded_no_divergence_earns_nothing_on_the_inputs() -> None:
    # The book's first mistake (step 1, "blue") is not EOS, so "null" contradicts the student's own right step:
    # answering none/none after it shows nothing about which token each process feeds in.
    answer = {
        "first_wrong_step": "1",
        "first_input_divergence_step": "null",
        "teacher_forced_input": "none",
        "generated_input": "none",
    }
    result = grade(EXPOSURE, 0, answer)
    for name in ("first_input_divergence_step", "teacher_forced_input", "generated_input"):
        assert result["parts"][name]["score"] == 0.0 and not result["parts"][name]["follow_through"], name
    assert result["score"] == 0.25


def test_no_divergence_is_right_at_the_eos_step_but_never_carries_none_into_the_inputs() -> None:
    # On a variant where generation chooses EOS too early at step s, naming s and answering null, none, none is
    # simply the key. "None" is never carried forward into the input parts: an earlier error that empties them
    # shows nothing of which token each process feeds in (docs/adding-an-exercise.md).
    stopped = next(v for v in variants(EXPOSURE) if exposure_divergence.solve(v)["first_input_divergence_step"] is None)
    key = api.answer_key(EXPOSURE, stopped.seed)
    consistent = {
        **{name: str(value) for name, value in key.items() if value is not None},
        "first_input_divergence_step": "null",
    }
    assert grade(EXPOSURE, stopped.seed, consistent)["score"] == 1.0
    implied = exposure_divergence.follow_through(
        stopped, {"first_wrong_step": key["first_wrong_step"], "first_input_divergence_step": None}
    )
    assert implied == {"first_input_divergence_step": None}
    unfounded = exposure_divergence.follow_through(
        generate_variant(api.get_exercise(EXPOSURE), 0), {"first_wrong_step": 1, "first_input_divergence_step": None}
    )
    assert "teacher_forced_input" not in unfounded and "generated_input" not in unfounded


def test_exposure_misconceptions_on_the_book() -> None:
    answer = {
        "first_wrong_step": "1",
        "first_input_divergence_step": "1",
        "teacher_forced_input": "blue",
        "generated_input": "red",
    }
    parts = grade(EXPOSURE, 0, answer)["parts"]
    assert parts["first_input_divergence_step"]["misconception"] == "same-step"
    assert parts["teacher_forced_input"]["misconception"] == "teacher-forcing-feeds-prediction"
    assert parts["generated_input"]["misconception"] == "generation-feeds-reference"


# --- ch13.greedy-decode ---------------------------------------------------------------------------------------

GREEDY = "ch13.greedy-decode"


def test_greedy_book_is_exercise_3() -> None:
    data = api.variant(GREEDY, 0)["data"]
    assert data["table"]["blue"] == [0.0, 0.0, 0.8, 0.1, 0.1, 0.0]
    assert {k: v for k, v in data["table"].items() if k != "blue"} == {
        k: list(v) for k, v in BOOK_TABLE.items() if k != "blue"
    }
    assert api.answer_key(GREEDY, 0) == {"tokens": ["blue", "key", ".", "EOS"], "stopped_by": "EOS"}


def test_greedy_typed_with_chinese_punctuation_scores_one() -> None:
    assert grade(GREEDY, 0, {"tokens": "blue，key，。，</s>", "stopped_by": "遇到EOS"}, "zh")["score"] == 1.0


def test_greedy_variant_mix_has_loops_ties_and_eos_stops() -> None:
    looping = [v for v in variants(GREEDY) if greedy_decode.solve(v)["stopped_by"] == STOPPED_BY_CAP]
    tied = [v for v in variants(GREEDY) if tied_rows(v.data["table"])]
    assert 0.15 < len(looping) / len(SEEDS) < 0.85
    assert len(tied) / len(SEEDS) > 0.1
    for variant in tied:  # a deliberate tie sits on the decode path, and there is only one
        (row,) = tied_rows(variant.data["table"])
        assert row in greedy_decode._decode(variant).inputs
    assert any(greedy_decode._stops_at_period(v) is not None for v in variants(GREEDY))


def test_greedy_tie_to_later_is_tagged() -> None:
    variant = next(v for v in variants(GREEDY) if tied_rows(v.data["table"]))
    wrong = {**greedy_decode.solve(variant), **greedy_decode._tie_to_later(variant)}
    result = api.grade(GREEDY, variant.seed, wrong, "en")
    assert result["parts"]["tokens"]["misconception"] == "tie-to-later"


def test_greedy_running_past_the_cap_is_tagged_however_long() -> None:
    variant = next(v for v in variants(GREEDY) if greedy_decode.solve(v)["stopped_by"] == STOPPED_BY_CAP)
    tokens = list(greedy_decode._decode(variant, extra_steps=4).tokens)  # 12 tokens, not the solver's 9
    result = grade(GREEDY, variant.seed, {"tokens": tokens, "stopped_by": "EOS"})
    assert "ignores-cap" in result["parts"]["tokens"]["tags"]
    assert result["parts"]["stopped_by"]["misconception"] == "ignores-cap"
    assert result["parts"]["tokens"]["score"] == pytest.approx(8 / 12)


def test_greedy_follow_through_after_a_wrong_first_token() -> None:
    # Exercise 3's table: a student who starts with door gets . from door's row, then EOS from the period's row.
    result = grade(GREEDY, 0, {"tokens": "door . EOS", "stopped_by": "EOS"})
    tokens = result["parts"]["tokens"]
    assert tokens["follow_through"] and tokens["score"] == pytest.approx(2 / 4)
    assert result["parts"]["stopped_by"]["correct"]
    inconsistent = grade(GREEDY, 0, {"tokens": "door door EOS", "stopped_by": "EOS"})["parts"]["tokens"]
    assert not inconsistent["follow_through"] and inconsistent["score"] == 0.0


def test_greedy_eos_omitted_and_stops_at_period_tags() -> None:
    parts = grade(GREEDY, 0, {"tokens": "blue key .", "stopped_by": "EOS"})["parts"]
    assert parts["tokens"]["misconception"] == "eos-omitted"
    variant = next(v for v in variants(GREEDY) if greedy_decode._stops_at_period(v) is not None)
    wrong = greedy_decode._stops_at_period(variant)
    parts = grade(GREEDY, variant.seed, {**greedy_decode.solve(variant), **wrong})["parts"]
    assert "stops-at-period" in parts["tokens"]["tags"]


# --- ch13.loss-average ----------------------------------------------------------------------------------------

LOSS = "ch13.loss-average"


def test_loss_book_numbers() -> None:
    key = api.answer_key(LOSS, 0)
    assert key["sequence_probability"] == pytest.approx(0.288, abs=1e-12)
    assert key["total_loss"] == pytest.approx(1.2447947988461912, abs=1e-12)
    assert key["mean_loss_with_eos"] == pytest.approx(0.311199, abs=5e-7)
    assert key["mean_loss_without_eos"] == pytest.approx(0.414932, abs=5e-7)


def test_loss_typed_as_expressions_in_chinese_scores_one() -> None:
    answer = {
        "sequence_probability": "0.4*0.8*0.9*1",
        "total_loss": "-ln(0.288)",
        "mean_loss_with_eos": "－ln（0.288）/4",
        "mean_loss_without_eos": "1.2447948/3",
    }
    assert grade(LOSS, 0, answer, "zh")["score"] == 1.0


def test_loss_variants_have_eos_below_one_and_no_zero_target_probability() -> None:
    finals = [loss_average._probabilities(v)[-1] for v in variants(LOSS)]
    assert 0.2 < sum(p < 1 for p in finals) / len(finals) < 0.9
    assert all(min(loss_average._probabilities(v)) > 0 for v in variants(LOSS))
    variant = next(v for v in variants(LOSS) if loss_average._probabilities(v)[-1] < 1)
    answer = loss_average.solve(variant)
    eos_loss = -math.log(loss_average._probabilities(variant)[-1])
    without_eos_total = answer["mean_loss_without_eos"] * (len(variant.data["target"]) - 1)
    assert answer["total_loss"] - without_eos_total == pytest.approx(eos_loss)
    assert eos_loss > 0.1


def test_loss_follow_through_from_the_students_own_total() -> None:
    wrong_total = 1.5
    answer = {
        "sequence_probability": "0.288",
        "total_loss": str(wrong_total),
        "mean_loss_with_eos": str(wrong_total / 4),
        "mean_loss_without_eos": str(wrong_total / 3),
    }
    parts = grade(LOSS, 0, answer)["parts"]
    assert not parts["total_loss"]["correct"] and parts["total_loss"]["score"] == 0.0
    assert parts["mean_loss_with_eos"]["follow_through"] and parts["mean_loss_with_eos"]["score"] == 1.0
    assert parts["mean_loss_without_eos"]["follow_through"]
    from_probability = grade(LOSS, 0, {**answer, "sequence_probability": "0.3", "total_loss": str(-math.log(0.3))})[
        "parts"
    ]["total_loss"]
    assert from_probability["follow_through"]


def test_a_zero_total_loss_earns_no_follow_through_on_the_averages() -> None:
    # Book: EOS has probability 1, so its loss is 0 and a total of 0 makes every divisor give 0 for both averages.
    answer = {"sequence_probability": "1", "total_loss": "0", "mean_loss_with_eos": "0", "mean_loss_without_eos": "0"}
    parts = grade(LOSS, 0, answer)["parts"]
    # "1, 0, 0, 0" is a blank answer: the total earns nothing from -ln(1) = 0 either (typing audit, 1.5.0).
    assert parts["total_loss"]["score"] == 0.0 and not parts["total_loss"]["follow_through"]
    for name in ("mean_loss_with_eos", "mean_loss_without_eos"):
        assert parts[name]["score"] == 0.0 and not parts[name]["follow_through"], name
    implied = loss_average.follow_through(generate_variant(api.get_exercise(LOSS), 0), {"total_loss": 1.5})
    assert implied["mean_loss_with_eos"] == pytest.approx(1.5 / 4)  # an informative total still carries forward


def test_loss_misconception_tags_on_the_book() -> None:
    total = -math.log(0.288)
    log10 = grade(
        LOSS,
        0,
        {
            "sequence_probability": "0.288",
            "total_loss": str(-math.log10(0.288)),
            "mean_loss_with_eos": str(total / 4),
            "mean_loss_without_eos": str(total / 3),
        },
    )
    assert log10["parts"]["total_loss"]["misconception"] == "log10"
    same_divisor = grade(
        LOSS,
        0,
        {
            "sequence_probability": "0.288",
            "total_loss": str(total),
            "mean_loss_with_eos": str(total / 4),
            "mean_loss_without_eos": str(total / 4),
        },
    )
    assert same_divisor["parts"]["mean_loss_without_eos"]["misconception"] == "eos-excluded-same-divisor"
    averaged = grade(
        LOSS,
        0,
        {
            "sequence_probability": "0.288",
            "total_loss": str(total),
            "mean_loss_with_eos": "0.775",
            "mean_loss_without_eos": "0.7",
        },
    )
    assert averaged["parts"]["mean_loss_with_eos"]["misconception"] == "mean-of-probabilities"


def test_follow_through_part_that_matches_a_misconception_also_says_what_went_wrong() -> None:
    # log10 instead of ln: the averages are right for the student's own total (follow-through) and equal the
    # log10 answer too; the feedback says both, so the student learns why the number differs from the key.
    total = -math.log10(0.288)
    answer = {
        "sequence_probability": "0.288",
        "total_loss": str(total),
        "mean_loss_with_eos": str(total / 4),
        "mean_loss_without_eos": str(total / 3),
    }
    parts = api.grade("ch13.loss-average", 0, answer, "en")["parts"]
    mean = parts["mean_loss_with_eos"]
    assert (mean["score"], mean["follow_through"], mean["misconception"]) == (1.0, True, "log10")
    assert "follow-through" in mean["feedback"] and "base-10" in mean["feedback"]
    chinese = api.grade("ch13.loss-average", 0, answer, "zh")["parts"]["mean_loss_with_eos"]["feedback"]
    assert "连带分" in chinese and "10" in chinese


@pytest.mark.parametrize(
    ("typed", "reason"),
    [
        ("stopped by EOS", STOPPED_BY_EOS),
        ("选到 EOS 停止", STOPPED_BY_EOS),
        ("生成EOS", STOPPED_BY_EOS),
        ("the EOS token", STOPPED_BY_EOS),
        ("reached cap", STOPPED_BY_CAP),
        ("步数上限（cap）", STOPPED_BY_CAP),
        ("Cap reached.", STOPPED_BY_CAP),
        ("达到最大步数", STOPPED_BY_CAP),
        ("ran out of steps", STOPPED_BY_CAP),
    ],
)
def test_stop_reason_is_read_as_students_phrase_it(typed: str, reason: str) -> None:
    reading = api.validate("ch13.greedy-decode", {"tokens": "blue key . EOS", "stopped_by": typed}, "en")
    assert reading["status"] == "valid", reading["errors"]
    assert reading["parsed"]["stopped_by"] == reason
