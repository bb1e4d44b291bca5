"""Feedback never shows internal names: data keys such as max_steps, tag ids (hand-written or generated)."""

from __future__ import annotations

import os

import pytest

from exercises.checking import check_answer
from exercises.diagnosis.search import generated
from exercises.registry import EXERCISES
from tests.engine.verdict_support import seeded

SEEDS = range(int(os.environ.get("GRADER_PROPERTY_SEEDS", "200")) // 5)
INTERNAL = ("max_steps", "gen:", "draws_variants", "stopped_by")


@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda e: e.id)
def test_feedback_names_no_internal_name(exercise):
    tags = {m.tag for m in exercise.misconceptions}
    for seed in SEEDS:
        variant = seeded(exercise, seed)
        key = exercise.solve(variant)
        wrongs = [m.solve(variant) for m in exercise.misconceptions]
        wrongs += [changed for _, changed in generated(exercise, variant)]
        for wrong in [w for w in wrongs if w]:
            for lang in ("zh", "en"):
                for part in check_answer(exercise, variant, {**key, **wrong}, lang).parts.values():
                    assert not any(name in part.feedback for name in INTERNAL), part.feedback
                    assert not any(f"({tag})" in part.feedback or f"（{tag}）" in part.feedback for tag in tags)
