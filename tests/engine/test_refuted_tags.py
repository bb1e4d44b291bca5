"""No feedback names a mistake the student's own earlier steps show they did not make.

A tag is refuted on a part by an earlier step the part is worked out from (``AnswerField.uses``; by default every
earlier part) that the tag's wrong procedure changes and the student answered with the key, or by an earlier part
it ``builds_on`` that the student answered otherwise. The sweep mixes each wrong procedure's answer on some parts
with the key on the others, over every exercise and hundreds of seeds, and checks every tag the engine shows.
"""

from __future__ import annotations

import itertools
import os
from typing import Any

import pytest

from exercises.base import AnswerField, Variant
from exercises.checking import check_answer
from exercises.comparators import equal
from exercises.plugin import Exercise
from exercises.registry import EXERCISES, get_exercise
from exercises.tagging import solver_tags
from exercises.variant_generation import generate_variant
from tests.engine.verdict_support import feedback_of, grade, seeded, variants

SEED_COUNT = int(os.environ.get("GRADER_REFUTATION_SEEDS", "300"))
MAX_MIXES = 15  # subsets of a procedure's changed parts tried per variant (all of them for up to four parts)


def _same(answer_field: AnswerField, one: Any, other: Any) -> bool:
    """The field's own comparator."""
    return equal(answer_field.kind, one, other, answer_field.tolerance)


def refuting_parts(exercise: Exercise, variant: Variant, student: dict[str, Any], name: str, tag: str) -> list[str]:
    """The earlier steps of part ``name`` that show the student did not take ``tag``'s path there."""
    reference = exercise.solve(variant)
    misconception = next(m for m in exercise.misconceptions if m.tag == tag)
    wrong = misconception.solve(variant) or {}
    names = [f.name for f in exercise.fields]
    here = names.index(name)
    uses = exercise.fields[here].uses
    upstream = names[:here] if uses is None else [n for n in uses if names.index(n) < here]
    bad = []
    for other in upstream:
        answer_field = exercise.answer_field(other)
        right = _same(answer_field, student[other], reference[other])
        changes = other in wrong and not _same(answer_field, wrong[other], reference[other])
        if (changes and right) or (other in misconception.builds_on and not right):
            bad.append(other)
    return bad


def _mixes(changed: list[str]) -> list[tuple[str, ...]]:
    """Non-empty subsets of the changed parts: the wrong value on those, the key on the rest."""
    subsets = [combo for size in range(1, len(changed) + 1) for combo in itertools.combinations(changed, size)]
    return subsets[:MAX_MIXES] + ([tuple(changed)] if len(subsets) > MAX_MIXES else [])


@pytest.mark.parametrize("exercise_id", [exercise.id for exercise in EXERCISES])
def test_no_shown_tag_is_refuted_by_an_earlier_step(exercise_id: str) -> None:
    exercise = get_exercise(exercise_id)
    problems = []
    for variant in variants(exercise_id, SEED_COUNT + 1):
        reference = dict(exercise.solve(variant))
        wrong_answers = [(m, m.solve(variant)) for m in exercise.misconceptions]
        for misconception, wrong in wrong_answers:
            if wrong is None:
                continue
            changed = [n for n in wrong if not _same(exercise.answer_field(n), wrong[n], reference[n])]
            for mix in _mixes(changed):
                student = {**reference, **{n: wrong[n] for n in mix}}
                result = check_answer(exercise, variant, student, "en")
                for name, part in result.parts.items():
                    answer_field = exercise.answer_field(name)
                    # Tags a tag_part adds on the part's own evidence are judged by that evidence, not the solvers.
                    matched = solver_tags(wrong_answers, answer_field, student[name], reference[name])
                    for tag in part.tags:
                        bad = refuting_parts(exercise, variant, student, name, tag) if tag in matched else []
                        if bad:
                            problems.append((variant.seed, misconception.tag, mix, name, tag, bad))
                # With every part it changes, the procedure is still named wherever it got a part wrong.
                if set(mix) == set(changed):
                    for name in changed:
                        assert misconception.tag in result.parts[name].tags, (variant.seed, misconception.tag, name)
    assert not problems, problems[:10]


# --- the reproductions QA reported -------------------------------------------------------------------------------

EXPOSURE, COLLISION, SHIFT = "ch13.exposure-divergence", "ch13.encoder-collision", "ch13.shift-pairs"
FOLLOW_THROUGH = {"en": "earns follow-through credit", "zh": "连带分"}


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_exposure_counted_from_zero_gets_follow_through_not_same_step(lang: str) -> None:
    result = grade(
        EXPOSURE,
        0,
        {
            "first_wrong_step": "第 0 步",
            "first_input_divergence_step": "第 1 步",
            "teacher_forced_input": "red",
            "generated_input": "blue",
        },
        lang,
    )
    part = result["parts"]["first_input_divergence_step"]
    assert part["tags"] == [] and part["score"] == 1.0 and part["follow_through"] and not part["correct"]
    assert FOLLOW_THROUGH[lang] in part["feedback"]
    # The mistake is named where it shows first (engine 1.9.0): the step counted from 0.
    assert result["parts"]["first_wrong_step"]["misconception"] == "zero-based-steps"
    from exercises.ch13 import exposure_divergence

    assert feedback_of(exposure_divergence, "same-step", lang) not in part["feedback"]


def test_exposure_zero_based_matches_the_one_based_pattern_on_other_seeds() -> None:
    # Seed 2's "2, 3" (one step late throughout) earns follow-through; so does "0, 1" where the key is "1, 2".
    for seed in range(40):
        key = get_exercise(EXPOSURE).solve(seeded(get_exercise(EXPOSURE), seed))
        if key["first_wrong_step"] != 1 or key["first_input_divergence_step"] is None:
            continue
        part = grade(EXPOSURE, seed, {**key, "first_wrong_step": 0, "first_input_divergence_step": 1})["parts"][
            "first_input_divergence_step"
        ]
        assert part["follow_through"] and part["score"] == 1.0 and part["tags"] == [], (seed, part)


def test_same_step_is_not_named_when_the_divergence_is_not_at_the_students_own_wrong_step() -> None:
    # Key: wrong at 1, inputs differ at 2. "Wrong at 2, differ at 1" puts the divergence before the student's own
    # wrong step: same-step (the divergence at the wrong step) is not what they did.
    part = grade(
        EXPOSURE,
        0,
        {
            "first_wrong_step": 2,
            "first_input_divergence_step": 1,
            "teacher_forced_input": "red",
            "generated_input": "blue",
        },
    )["parts"]["first_input_divergence_step"]
    assert part["tags"] == [] and part["score"] == 0.0
    # With the right wrong step, the same answer is same-step.
    part = grade(
        EXPOSURE,
        0,
        {
            "first_wrong_step": 1,
            "first_input_divergence_step": 1,
            "teacher_forced_input": "red",
            "generated_input": "blue",
        },
    )["parts"]["first_input_divergence_step"]
    assert part["tags"] == ["same-step"]


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_collision_no_relu_is_not_named_after_a_right_relu(lang: str) -> None:
    from exercises.ch13 import encoder_collision

    result = grade(
        COLLISION,
        0,
        {
            "pre_activation": "[-a, a]",
            "post_activation": "[0, a]",
            "collision_step": "无",
            "final_equal": "是",
            "teacher_forcing_separates": "否",
        },
        lang,
    )
    part = result["parts"]["collision_step"]
    assert result["parts"]["post_activation"]["correct"]
    assert part["tags"] == [] and part["misconception"] is None and part["score"] == 0.0
    assert feedback_of(encoder_collision, "no-relu", lang) not in part["feedback"]
    assert encoder_collision.FIELDS[2].rule.get(lang) in part["feedback"]


def test_collision_no_relu_is_still_named_when_the_state_skipped_relu_too() -> None:
    result = grade(
        COLLISION,
        0,
        {
            "pre_activation": "[-a, a]",
            "post_activation": "[-a, a]",
            "collision_step": "无",
            "final_equal": "否",
            "teacher_forcing_separates": "否",
        },
    )
    assert [result["parts"][n]["misconception"] for n in ("post_activation", "collision_step", "final_equal")] == [
        "no-relu"
    ] * 3


def test_readback_nearest_from_the_unbound_memory_is_not_no_unbinding_after_a_right_readback() -> None:
    exercise = get_exercise("l03.superposition-readback")
    from exercises.l03 import superposition_readback as module

    hits = 0
    for variant in variants(exercise.id, 120):
        key, wrong = exercise.solve(variant), module._no_unbinding(variant)
        if "nearest" not in wrong or wrong["nearest"] == key["nearest"]:
            continue
        hits += 1
        part = check_answer(exercise, variant, {**key, "nearest": wrong["nearest"]}, "en").parts["nearest"]
        assert "no-unbinding" not in part.tags, variant.seed
        # Unbinding skipped throughout (readback, and the cosine where it changes): named on the index too.
        together = check_answer(exercise, variant, {**key, **wrong}, "en")
        assert "no-unbinding" in together.parts["nearest"].tags, variant.seed
    assert hits


def test_loss_log2_on_an_average_after_a_total_in_nats_is_not_named() -> None:
    from exercises.ch13 import loss_average

    exercise = get_exercise("ch13.loss-average")
    variant = generate_variant(exercise, 0)
    key, wrong = exercise.solve(variant), loss_average.MISCONCEPTIONS
    log2 = next(m for m in wrong if m.tag == "log2").solve(variant)
    part = check_answer(exercise, variant, {**key, "mean_loss_with_eos": log2["mean_loss_with_eos"]}, "en").parts[
        "mean_loss_with_eos"
    ]
    assert "log2" not in part.tags
    # A total in log2 too: the average follows the student's own total, and the mistake is named.
    both = check_answer(
        exercise,
        variant,
        {**key, "total_loss": log2["total_loss"], "mean_loss_with_eos": log2["mean_loss_with_eos"]},
        "en",
    ).parts["mean_loss_with_eos"]
    assert "log2" in both.tags


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_shift_count_that_follows_from_leaving_eos_out_is_follow_through_not_off_by_one(lang: str) -> None:
    result = grade(
        SHIFT,
        0,
        {"pairs": "BOS→blue, blue→door, door→.", "bos_scored": "否", "eos_scored": "否", "scored_count": "3次预测"},
        lang,
    )
    count = result["parts"]["scored_count"]
    assert count["score"] == 1.0 and count["follow_through"] and not count["correct"] and count["tags"] == []
    assert FOLLOW_THROUGH[lang] in count["feedback"]
    assert result["parts"]["eos_scored"]["misconception"] == "eos-not-scored"


def test_shift_count_off_by_one_is_still_named_when_eos_is_scored() -> None:
    result = grade(
        SHIFT,
        0,
        {"pairs": "BOS→blue, blue→door, door→., .→EOS", "bos_scored": "否", "eos_scored": "是", "scored_count": "3"},
    )
    count = result["parts"]["scored_count"]
    assert count["score"] == 0.0 and count["tags"] == ["count-off-by-one"]


def test_shift_count_with_bos_scored_follows_through_and_names_bos_scored() -> None:
    result = grade(
        SHIFT,
        0,
        {"pairs": "BOS→blue, blue→door, door→., .→EOS", "bos_scored": "是", "eos_scored": "是", "scored_count": "5"},
    )
    count = result["parts"]["scored_count"]
    assert count["score"] == 1.0 and count["follow_through"] and count["tags"] == ["bos-scored"]
    # A right "BOS is not scored" refutes bos-scored on a count of 5; what the count shows is count-includes-bos
    # (engine 1.9.0).
    alone = grade(
        SHIFT,
        0,
        {"pairs": "BOS→blue, blue→door, door→., .→EOS", "bos_scored": "否", "eos_scored": "是", "scored_count": "5"},
    )["parts"]["scored_count"]
    assert alone["score"] == 0.0 and alone["tags"] == ["count-includes-bos"]


def test_attention_cost_parallel_questions_do_not_refute_each_other() -> None:
    # The causal count is not worked out from the full count (uses=()): excluding the diagonal shows in it alone.
    exercise = get_exercise("ch09.attention-cost")
    variant = generate_variant(exercise, 0)
    key = exercise.solve(variant)
    n = variant.data["n"]
    part = check_answer(exercise, variant, {**key, "causal_pairs": n * (n - 1) // 2}, "en").parts["causal_pairs"]
    assert part.tags == ("excludes-self",)
