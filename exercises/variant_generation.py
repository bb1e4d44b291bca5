"""Deterministic variant generation with the catalogue's quality rules (reject, then try the next sub-seed)."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from exercises.base import ENGINE_VERSION, SEED_LIMIT, Variant, book_variant
from exercises.checking import check_answer
from exercises.comparators import equal
from exercises.engine_errors import BadSeed
from exercises.plugin import Exercise

MAX_SUBSEEDS = 500
# Only the major part of the engine version enters the random stream: a minor release may change
# checking and feedback, but every stored seed keeps its numbers, so old answers can be re-checked.
GENERATOR_GENERATION = ENGINE_VERSION.split(".")[0]
ROW_SUM_TOLERANCE = 1e-12


class VariantGenerationError(RuntimeError):
    """Raised when no sub-seed yields an acceptable variant (a bug in an exercise's generator)."""


def check_seed(seed: object) -> int:
    """Return ``seed`` as an int, or raise BadSeed when it is not an integer in [0, 2**63)."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise BadSeed(f"seed must be an integer, got {type(seed).__name__}")
    if not 0 <= int(seed) < SEED_LIMIT:
        raise BadSeed("seed must be in [0, 2**63)")
    return int(seed)


def rng_for(exercise_id: str, seed: int, subseed: int) -> np.random.Generator:
    """A numpy generator fixed by (exercise id, seed, sub-seed, generator generation) on any machine."""
    key = f"{exercise_id}|{seed}|{subseed}|gen{GENERATOR_GENERATION}".encode()
    digest = hashlib.sha256(key).digest()
    return np.random.Generator(np.random.PCG64(int.from_bytes(digest[:16], "big")))


def generate_variant(exercise: Exercise, seed: int) -> Variant:
    """The variant of ``exercise`` for ``seed``: the book's numbers for seed 0, else the first acceptable draw."""
    seed = check_seed(seed)
    if seed == 0:
        return book_variant(exercise.id, exercise.book_data())
    for subseed in range(MAX_SUBSEEDS):
        data = exercise.random_data(rng_for(exercise.id, seed, subseed), seed)
        variant = Variant(exercise.id, seed, ENGINE_VERSION, data, subseed)
        if rejection_reason(exercise, variant) is None:
            return variant
    raise VariantGenerationError(f"{exercise.id}: no acceptable variant for seed {seed}")


def rejection_reason(exercise: Exercise, variant: Variant) -> str | None:
    """Why ``variant`` fails the quality rules, or None when it is acceptable."""
    if exercise.quality is not None:
        reason = exercise.quality(variant)
        if reason:
            return reason
    reference = exercise.solve(variant)
    for misconception in exercise.misconceptions:
        wrong = misconception.solve(variant) if misconception.draws_variants else None
        if wrong is None:
            continue
        if not any(
            not equal(f.kind, wrong[f.name], reference[f.name], f.tolerance) for f in exercise.fields if f.name in wrong
        ):
            return f"misconception {misconception.tag} cannot be told apart from the reference"
        # Follow-through credit could still give the wrong procedure full marks; such a variant can't teach.
        if (check_answer(exercise, variant, {**reference, **wrong}).score or 0.0) >= 1.0:
            return f"misconception {misconception.tag} would score full marks"
    return None


def rows_not_summing_to_one(rows: Iterable[Sequence[float]]) -> list[int]:
    """Indices of probability rows whose sum is off 1 by more than 1e-12."""
    return [i for i, row in enumerate(rows) if abs(float(np.sum(row)) - 1.0) > ROW_SUM_TOLERANCE]


def has_tie_at_max(row: Sequence[float], tolerance: float = 1e-9) -> bool:
    """True when the largest entry of ``row`` is shared by two or more positions."""
    values = np.asarray(row, dtype=float)
    return int(np.sum(values >= values.max() - tolerance)) > 1


def tenths(rng: np.random.Generator, size: int, nonzero: int | None = None) -> list[float]:
    """A random probability row of multiples of 0.1 summing exactly to 1 (as the nearest floats)."""
    count = size if nonzero is None else nonzero
    cuts: Any = np.sort(rng.choice(np.arange(1, 10), size=count - 1, replace=False)) if count > 1 else []
    parts = np.diff(np.concatenate(([0], cuts, [10]))).astype(int)
    positions = rng.choice(size, size=count, replace=False)
    row = [0] * size
    for position, part in zip(positions, parts):
        row[int(position)] = int(part)
    return [part / 10 for part in row]
