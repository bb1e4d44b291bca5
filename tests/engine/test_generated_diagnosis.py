"""The generic search (exercises/diagnosis): chains agree with solve, generated diagnoses reproduce their own answers
and are never the key, the hunt's wrong answers are named, and hand-written solvers still win."""

from __future__ import annotations

import os

import numpy as np
import pytest

from exercises import api
from exercises.checking import check_answer
from exercises.comparators import equal
from exercises.diagnosis.search import generated, parse_tag, run, tag
from exercises.registry import EXERCISES, get_exercise
from exercises.variant_generation import generate_variant
from tests.engine.diagnosis_hunt import HUNT
from tests.engine.verdict_support import seeded

SEEDS = range(int(os.environ.get("GRADER_PROPERTY_SEEDS", "200")))
STEPPED = [exercise for exercise in EXERCISES if exercise.steps is not None]
GOAL = 0.8
PAIRS_SAMPLE = 30


def _answer(exercise, variant, changed):
    """The key with the generated diagnosis' parts in it."""
    return {**exercise.solve(variant), **changed}


@pytest.mark.parametrize("exercise", STEPPED, ids=lambda e: e.id)
def test_chain_without_mistakes_is_the_solve(exercise):
    for seed in SEEDS:
        variant = seeded(exercise, seed)
        answer, _ = run(exercise.steps, variant)
        key = exercise.solve(variant)
        assert all(equal(f.kind, answer[f.name], key[f.name], f.tolerance) for f in exercise.fields), seed


@pytest.mark.parametrize("exercise", STEPPED, ids=lambda e: e.id)
def test_every_generated_diagnosis_reproduces_its_answer_and_is_never_the_key(exercise):
    # Every single mistake on every fifth seed; pairs (hundreds per variant) sampled evenly, about 30 per variant.
    for seed in range(0, len(SEEDS), 5):
        variant = seeded(exercise, seed)
        for pairs in (False, True):
            table = generated(exercise, variant, pairs)
            for misconception, changed in table[:: max(1, len(table) // PAIRS_SAMPLE) if pairs else 1]:
                assert not misconception.draws_variants
                assert misconception.solve(variant) == changed
                assert parse_tag(misconception.tag) and tag(parse_tag(misconception.tag)) == misconception.tag
                result = check_answer(exercise, variant, _answer(exercise, variant, changed), "en")
                assert result.score < 1, (seed, misconception.tag)
                first = next(part for part in result.parts.values() if not part.correct)
                assert first.tags, (seed, misconception.tag)


@pytest.mark.parametrize("exercise_id", sorted(HUNT))
def test_the_hunt_is_named_on_at_least_four_fifths(exercise_id):
    from bench.diagnosis_share import share

    after, per = share(get_exercise(exercise_id), range(0, len(SEEDS), 2))  # 100 seeds by default
    print(exercise_id, f"{after:.1%}", {label: f"{value:.0%}" for label, value in per.items()})
    assert after >= GOAL
    assert len(HUNT[exercise_id]) >= 10


def test_hand_written_solver_wins_where_both_apply():
    exercise = get_exercise("ch09.rnn-step")
    variant = generate_variant(exercise, 3)
    wrong = next(m for m in exercise.misconceptions if m.tag == "no-tanh").solve(variant)
    result = check_answer(exercise, variant, {**exercise.solve(variant), **wrong}, "en")
    assert result.parts["h"].tags == ("no-tanh",)


@pytest.mark.parametrize(
    "lang, words", [("en", "In step 6 (W_x x) you transposed W_x."), ("zh", "你第 6 步（W_x x）把 W_x 转置了。")]
)
def test_a_generated_diagnosis_names_the_step_and_the_mistake(lang, words):
    exercise = get_exercise("ch09.rnn-step")
    variant = generate_variant(exercise, 3)
    data = variant.data
    pre = (np.array(data["w_h"]) @ data["h_prev"] + np.array(data["w_x"]).T @ data["x"] + data["b"]).tolist()
    result = check_answer(exercise, variant, {"pre_activation": pre, "h": np.tanh(pre).tolist()}, lang)
    part = result.parts["pre_activation"]
    assert part.tags == ("gen:input:transpose-left",)
    assert words in part.feedback
    assert "gen:" not in part.feedback
    assert api.misconception_name(exercise.id, part.tags[0], lang)


def test_a_generated_tag_the_other_parts_rule_out_is_not_named():
    exercise = get_exercise("l03.additive-attention")
    variant = generate_variant(exercise, 5)
    key = exercise.solve(variant)
    for misconception, changed in generated(exercise, variant):
        if "scores" in changed and "weights" in changed:
            # The weights as this mistake gives them, the scores right: the weights' diagnosis is refuted.
            result = check_answer(exercise, variant, {**key, "weights": changed["weights"]}, "en")
            assert misconception.tag not in result.parts["weights"].tags
            return
    pytest.fail("no generated diagnosis changes the scores and weights on this variant")
