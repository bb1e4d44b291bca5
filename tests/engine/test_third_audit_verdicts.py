"""Diagnoses added from the third grading audit (engine 1.9.0), without redrawing any variant."""
from __future__ import annotations

import math

from exercises import api
from exercises.ch13 import loss_average
from exercises.registry import get_exercise

LOSS = get_exercise("ch13.loss-average")


def test_the_mean_without_eos_that_keeps_the_eos_term_is_named() -> None:
    # Found by the audit on 124 of 201 seeds: total / (n − 1), the divisor reduced but the EOS term kept, was
    # answered with the rule alone.
    named = 0
    for seed in range(1, 201):
        variant = LOSS.generate(seed)
        key = LOSS.solve(variant)
        losses = [-math.log(p) for p in loss_average._probabilities(variant)]
        kept = sum(losses) / (len(losses) - 1)
        part = LOSS.check(variant, {**key, "mean_loss_without_eos": kept}, "en").parts["mean_loss_without_eos"]
        if losses[-1] == 0:  # p(EOS) = 1: the same number as the key
            assert part.correct
            continue
        assert not part.correct and part.misconception == "eos-kept-divisor-reduced", seed
        assert "kept EOS's −ln p in the sum" in part.feedback
        named += 1
    assert named > 50


def test_a_diagnosis_added_later_never_redraws_a_variant() -> None:
    added = [m for m in LOSS.misconceptions if not m.draws_variants]
    assert [m.tag for m in added] == ["eos-kept-divisor-reduced"]


def test_encoder_states_written_without_the_a_are_named() -> None:
    # Found by the audit on 196 of 201 seeds: [1, 0] for [a, 0] got "partly right" and the rule, and the next
    # states often earned follow-through credit, hiding the unit mistake.
    states = get_exercise("ch13.encoder-states")
    named = 0
    for seed in range(1, 201):
        variant = states.generate(seed)
        key = states.solve(variant)["states"]
        if all(v == 0 for state in key for v in state):
            continue
        coefficients = ", ".join(f"[{round(x / math.log(2))}, {round(y / math.log(2))}]" for x, y in key)
        result = api.grade("ch13.encoder-states", seed, {"states": coefficients}, "en")
        part = result["parts"]["states"]
        assert part["misconception"] == "dropped-a" and part["score"] < 1, (seed, coefficients, part)
        assert "left the a out" in part["feedback"]
        named += 1
    assert named > 150
    right = ", ".join(f"[{round(x / math.log(2))}a, {round(y / math.log(2))}a]" for x, y in states.solve(
        states.generate(3))["states"])
    assert api.grade("ch13.encoder-states", 3, {"states": right}, "en")["score"] == 1.0
