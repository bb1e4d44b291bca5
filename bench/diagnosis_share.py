"""The named share of the hunt's wrong answers (tests/engine/diagnosis_hunt.py), without and with the generic search.

An answer counts as named when its first wrong part carries a diagnosis. Prints one row per exercise (and with
``--detail`` per procedure), with the median check time of a hunt answer on a fresh variant and again once the
variant's search table is cached; asserts nothing. Run from the repository root: ``.venv/bin/python bench/diagnosis_share.py [--seeds 200]``.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import statistics
import sys
import time
from pathlib import Path

from exercises.checking import check_answer
from exercises.variant_generation import generate_variant

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from exercises.base import Variant  # noqa: E402
from exercises.plugin import Exercise  # noqa: E402
from exercises.registry import get_exercise  # noqa: E402
from tests.engine.diagnosis_hunt import HUNT, Procedure  # noqa: E402


def finite(value: object) -> bool:
    """Whether every number in ``value`` is finite."""
    if isinstance(value, (list, tuple)):
        return all(finite(item) for item in value)
    return not isinstance(value, float) or math.isfinite(value)


def named(exercise: Exercise, procedure: Procedure, variant: Variant) -> bool | None:
    """Whether the procedure's answer on ``variant`` is named at its first wrong part (None: it scores 1 there)."""
    with np.errstate(all="ignore"):
        answer = procedure(variant)
    if not finite(list(answer.values())):
        return None  # a procedure that divides by zero here gives nothing a student would write
    result = check_answer(exercise, variant, answer, "en")
    wrong = [part for part in result.parts.values() if not part.correct]
    if not wrong:
        return None
    return bool(wrong[0].tags)


def share(exercise: Exercise, seeds: range) -> tuple[float, dict[str, float]]:
    """The named share over every procedure and seed, and per procedure."""
    per: dict[str, float] = {}
    total = hits = 0
    drawn = [generate_variant(exercise, seed) for seed in seeds]  # each variant once, for every procedure
    for label, procedure in HUNT[exercise.id].items():
        verdicts = [v for v in (named(exercise, procedure, variant) for variant in drawn) if v is not None]
        per[label] = sum(verdicts) / len(verdicts) if verdicts else 1.0
        total += len(verdicts)
        hits += sum(verdicts)
    return hits / total, per


def check_times(exercise: Exercise, seeds: range) -> tuple[float, float]:
    """Median µs of checking the hunt's answers: the first on each variant (the search builds its table) and again
    (the table cached)."""
    cold, warm = [], []
    for seed in seeds:
        variant = generate_variant(exercise, seed)
        for procedure in HUNT[exercise.id].values():
            with np.errstate(all="ignore"):
                answer = procedure(variant)
            if not finite(list(answer.values())):
                continue
            for times in (cold, warm):
                start = time.perf_counter()
                check_answer(exercise, variant, answer, "en")
                times.append((time.perf_counter() - start) * 1e6)
    return statistics.median(cold), statistics.median(warm)


def main() -> None:
    """Print the named share per exercise before (steps off) and after (steps on)."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", type=int, default=200)
    parser.add_argument("--detail", action="store_true")
    args = parser.parse_args()
    seeds = range(args.seeds)
    for exercise_id in HUNT:
        exercise = get_exercise(exercise_id)
        before, _ = share(dataclasses.replace(exercise, steps=None), seeds)
        after, per = share(exercise, seeds)
        first, again = check_times(exercise, range(1000, 1000 + min(args.seeds, 20)))
        print(
            f"{exercise_id:32} before {before:6.1%}  after {after:6.1%}  check {first:8.0f} µs, cached {again:6.0f} µs"
        )
        if args.detail:
            for label, value in per.items():
                print(f"    {label:40} {value:6.1%}")


if __name__ == "__main__":
    main()
