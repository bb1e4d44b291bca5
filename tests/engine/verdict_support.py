"""Helpers and typed book answers shared by the verdict regression tests of the engine audits."""

from __future__ import annotations

from functools import cache
from types import ModuleType

from exercises import api
from exercises.base import Variant
from exercises.plugin import Exercise
from exercises.registry import get_exercise
from exercises.variant_generation import generate_variant

SCALED = "ch09.scaled-dot-attention"
RNN = "ch09.rnn-step"
ADDITIVE = "l03.additive-attention"
READBACK = "l03.superposition-readback"

BOOK_SCALED = {
    "scores": "[[0.7071,0,1.4142],[0,0.7071,1.4142],[0.7071,0.7071,2.8284]]",
    "weights": "[[0.284,0.14,0.576],[0.14,0.284,0.576],[0.0967,0.0967,0.8066]]",
    "output": "[[0.86,0.716],[0.716,0.86],[0.9033,0.9033]]",
    "diagonal_dominant": "否",
}
BOOK_ADDITIVE = {"scores": "0.9640, 1.5232, 0", "weights": "0.3194, 0.5588, 0.1218", "context": "0.1976, 0.5588"}
BOOK_READBACK = {"memory": "-1, 1, 3, -1", "readback": "-1, -1, 3, -1", "cosine": "1/sqrt(2)", "nearest": "1"}


_SEEDED: dict[tuple[str, int], Variant] = {}


def seeded(exercise: Exercise, seed: int) -> Variant:
    """``generate_variant(exercise, seed)``, generated once per test process and shared: many sweeps run over the
    same seeds of one exercise, and generating one costs up to ~7 ms (generating took a fifth of the engine tests'
    CPU, most of it for variants generated before). No caller changes a variant; ``test_variant_cache.py`` and
    ``test_variant_stability.py`` check fresh ones."""
    found = _SEEDED.get((exercise.id, seed))
    if found is None:
        found = _SEEDED[(exercise.id, seed)] = generate_variant(exercise, seed)
    return found


@cache
def variants(exercise_id: str, count: int) -> tuple[Variant, ...]:
    """The book variant and random variants 1..count-1 of one exercise."""
    exercise = get_exercise(exercise_id)
    return tuple(seeded(exercise, seed) for seed in range(count))


def grade(exercise_id: str, seed: int, answer: dict, lang: str = "en") -> dict:
    """The API's verdict, asserting the answer could be read."""
    result = api.grade(exercise_id, seed, answer, lang)
    assert result["status"] == "graded", result["errors"]
    return result


def feedback_of(module: ModuleType, tag: str, lang: str = "en") -> str:
    """The feedback text of one misconception tag of an exercise module."""
    return next(m.feedback.get(lang) for m in module.MISCONCEPTIONS if m.tag == tag)
