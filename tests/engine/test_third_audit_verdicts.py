"""Diagnoses added from the third grading audit (engine 1.9.0), without redrawing any variant."""
from __future__ import annotations

import math

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
