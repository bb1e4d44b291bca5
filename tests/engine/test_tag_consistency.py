"""The misconception named on a part fits the student's other parts: a tag whose earlier-step answer the student
contradicts (got that step right where the tag gets it wrong, or wrong another way) is not named, and a part that
earns full follow-through names only a mistake that also reproduces the student's own earlier steps."""

from __future__ import annotations

import os
from typing import Any

import pytest

from exercises.ch13 import greedy_decode
from exercises.ch13.common import EOS, STOPPED_BY_CAP, STOPPED_BY_EOS
from exercises.checking import check_answer
from exercises.comparators import equal
from exercises.l03 import additive_attention
from exercises.plugin import Exercise
from exercises.registry import EXERCISES, get_exercise
from exercises.variant_generation import generate_variant
from tests.engine.verdict_support import ADDITIVE, feedback_of, grade, variants

GREEDY = "ch13.greedy-decode"
SEED_COUNT = int(os.environ.get("GRADER_CONSISTENCY_SEEDS", "300"))
FOLLOW_THROUGH = {"en": "earns follow-through credit", "zh": "连带分"}


def contradicted_at(
    exercise: Exercise,
    reference: dict[str, Any],
    student: dict[str, Any],
    wrong: dict | None,
    name: str,
    whole_follow_through: bool,
) -> list[str]:
    """The parts before ``name`` that it is worked out from (its ``uses``, by default every earlier part) where the
    student contradicts what a tag's solver (``wrong``) gives there.

    Where the solver changes a part, the student must have written its value (not the key, not another wrong
    value); on a part with full follow-through, every such part must be the solver's (or the key, where the
    solver leaves it), since that part comes from the student's own earlier steps. A parallel question (the two
    averages of ch13.loss-average) is not a step of this one: a mistake there neither shows nor rules out this one.
    """
    bad = []
    here = [f.name for f in exercise.fields].index(name)
    uses = exercise.fields[here].uses
    for answer_field in exercise.fields[:here]:
        if uses is not None and answer_field.name not in uses:
            continue
        kind, tolerance = answer_field.kind, answer_field.tolerance
        key = reference[answer_field.name]
        predicted = wrong[answer_field.name] if wrong and answer_field.name in wrong else key
        changes = not equal(kind, predicted, key, tolerance)
        if (changes or whole_follow_through) and not equal(kind, student[answer_field.name], predicted, tolerance):
            bad.append(answer_field.name)
    return bad


@pytest.mark.parametrize("exercise_id", [exercise.id for exercise in EXERCISES])
def test_every_tag_named_on_a_solver_answer_fits_the_other_parts(exercise_id: str) -> None:
    exercise = get_exercise(exercise_id)
    problems = []
    for variant in variants(exercise_id, SEED_COUNT + 1):
        reference = dict(exercise.solve(variant))
        solved = {m.tag: m.solve(variant) for m in exercise.misconceptions}
        for misconception in exercise.misconceptions:
            wrong = solved[misconception.tag]
            if wrong is None:
                continue
            student = {**reference, **wrong}
            result = check_answer(exercise, variant, student, "en")
            for name, part in result.parts.items():
                if part.correct:
                    continue
                whole = part.follow_through and part.score >= 1.0
                for tag in part.tags:
                    bad = contradicted_at(exercise, reference, student, solved.get(tag), name, whole)
                    if bad:
                        problems.append((variant.seed, misconception.tag, name, tag, bad))
                # The student's own mistake is never ruled out, and leads wherever it got the part wrong.
                field = exercise.answer_field(name)
                wrong_here = name in wrong and not equal(field.kind, wrong[name], reference[name], field.tolerance)
                if wrong_here and part.misconception != misconception.tag:
                    problems.append((variant.seed, misconception.tag, name, part.tags, "not named first"))
    assert not problems, problems[:10]


# --- l03.additive-attention, seed 5 (s = [0, 0]): dot-product scores are all 0, so their softmax is the even
# average, the same weights as uniform-average; the student's right scores rule the dot product out ------------


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_additive_uniform_weights_after_right_scores_name_uniform_average_only(lang: str) -> None:
    variant = generate_variant(get_exercise(ADDITIVE), 5)
    assert variant.data["s_prev"] == [0, 0]
    reference = additive_attention.solve(variant)
    assert (
        additive_attention._dot_product_score(variant)["weights"]
        == additive_attention._uniform_average(variant)["weights"]
    )  # the coincidence this test is about
    result = grade(
        ADDITIVE,
        5,
        {"scores": reference["scores"], "weights": "0.333333, 0.333333, 0.333333", "context": "0.166667, -0.166667"},
        lang,
    )
    scores, weights, context = (result["parts"][name] for name in ("scores", "weights", "context"))
    assert scores["correct"]
    dot_product, uniform = (
        feedback_of(additive_attention, "dot-product-score", lang),
        feedback_of(additive_attention, "uniform-average", lang),
    )
    assert weights["misconception"] == "uniform-average" and weights["tags"] == ["uniform-average"]
    assert uniform in weights["feedback"] and dot_product not in weights["feedback"]
    # The context follows from the student's own even weights: follow-through, and the mistake behind them.
    assert context["score"] == 1.0 and context["follow_through"]
    assert context["tags"] == ["uniform-average"]
    assert FOLLOW_THROUGH[lang] in context["feedback"] and uniform in context["feedback"]
    assert dot_product not in context["feedback"]


def test_additive_dot_product_scores_keep_both_tags_on_the_even_weights_dot_product_first() -> None:
    # Scores that are the dot product's (all 0 here) support it; uniform-average leaves the scores alone, so the
    # student's scores do not rule it out either, but the tag they confirm comes first.
    result = grade(ADDITIVE, 5, {"scores": "0, 0, 0", "weights": "1/3, 1/3, 1/3", "context": "0.166667, -0.166667"})
    assert result["parts"]["scores"]["misconception"] == "dot-product-score"
    assert result["parts"]["weights"]["tags"] == ["dot-product-score", "uniform-average"]


def test_a_lone_tag_refuted_by_a_right_earlier_step_is_not_named() -> None:
    # Right weights, then a context summed with the raw scores: only no-softmax gives that context, but the student's
    # weights show the softmax taken, so "you skipped the softmax" would state a mistake they did not make. The part
    # gets the plain rule instead (it used to keep the lone tag).
    variant = generate_variant(get_exercise(ADDITIVE), 0)
    reference, wrong = additive_attention.solve(variant), additive_attention._no_softmax(variant)
    part = grade(ADDITIVE, 0, {**reference, "context": wrong["context"]})["parts"]["context"]
    assert part["tags"] == [] and part["misconception"] is None and not part["follow_through"]
    assert feedback_of(additive_attention, "no-softmax", "en") not in part["feedback"]
    assert get_exercise(ADDITIVE).answer_field("context").rule.en in part["feedback"]


# --- ch13.greedy-decode, seed 2: the tie broken the other way gives "lamp EOS", stopped by EOS, where the key is
# "lamp . lamp . ..." stopped by the cap; the stop reason is right for the student's own tokens --------------------


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_greedy_stop_reason_carried_forward_from_a_tie_broken_late_is_not_ignores_cap(lang: str) -> None:
    variant = generate_variant(get_exercise(GREEDY), 2)
    assert greedy_decode.solve(variant)["stopped_by"] == STOPPED_BY_CAP
    assert greedy_decode._tie_to_later(variant) == {"tokens": ["lamp", EOS], "stopped_by": STOPPED_BY_EOS}
    result = grade(GREEDY, 2, {"tokens": "lamp EOS", "stopped_by": "EOS"}, lang)
    tokens, stop = result["parts"]["tokens"], result["parts"]["stopped_by"]
    assert tokens["misconception"] == "tie-to-later"
    assert stop["score"] == 1.0 and stop["follow_through"] and not stop["correct"]
    assert stop["tags"] == ["tie-to-later"]
    assert feedback_of(greedy_decode, "ignores-cap", lang) not in stop["feedback"]
    assert FOLLOW_THROUGH[lang] in stop["feedback"]
    assert feedback_of(greedy_decode, "tie-to-later", lang) in stop["feedback"]


def test_greedy_stop_reason_with_full_follow_through_never_names_ignores_cap() -> None:
    # Any list that reaches EOS within the cap makes "EOS" right for that list, whatever the key's decode did.
    capped = [v for v in variants(GREEDY, 121) if greedy_decode.solve(v)["stopped_by"] == STOPPED_BY_CAP]
    assert capped
    for variant in capped:
        tokens = greedy_decode.solve(variant)["tokens"]
        for cut in (1, 3):
            stop = grade(GREEDY, variant.seed, {"tokens": [*tokens[:cut], EOS], "stopped_by": "EOS"})["parts"][
                "stopped_by"
            ]
            if stop["score"] == 1.0 and stop["follow_through"]:
                assert "ignores-cap" not in stop["tags"], (variant.seed, cut, stop["tags"])


def test_greedy_eos_after_the_right_predictions_is_still_ignores_cap() -> None:
    # The student listed the cap's predictions and still said EOS stopped them: no follow-through (their list
    # implies the cap), and ignores-cap is the mistake they made.
    capped = [v for v in variants(GREEDY, 121) if greedy_decode.solve(v)["stopped_by"] == STOPPED_BY_CAP]
    for variant in capped:
        result = grade(GREEDY, variant.seed, {**greedy_decode.solve(variant), "stopped_by": "EOS"})
        stop = result["parts"]["stopped_by"]
        assert stop["score"] == 0.0 and stop["tags"] == ["ignores-cap"], (variant.seed, stop)
