"""How the search compares its runs' answers with the key: the parts a run changes, whether they are finite numbers,
whether they read as the key rounded, and a fingerprint that two runs giving one answer share. The search asks this
of hundreds of runs per variant, so plain numbers are compared without numpy arrays (the same sums)."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from exercises.base import Answer, AnswerField
from exercises.comparators import DEFAULT_TOLERANCE, SHAPED_KINDS, equal
from exercises.rounding import coarsely_rounded


def finite(value: Any) -> bool:
    """Whether every number in ``value`` is finite (an overflow is nobody's answer)."""
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, (list, tuple)):
        # A row is checked in one loop, not a call per entry: the search asks this of every run.
        for item in value:
            if isinstance(item, float):
                if not math.isfinite(item):
                    return False
            elif isinstance(item, (list, tuple)) and not finite(item):
                return False
    return True


def changed_parts(fields: Sequence[AnswerField], answer: Answer, key: Answer) -> dict[str, Any]:
    """The parts of ``answer`` that differ from the key beyond the check's tolerance."""
    return {f.name: answer[f.name] for f in fields if f.name in answer and not _same(f, answer[f.name], key[f.name])}


NUMERIC = frozenset({"number", "vector", "matrix", "vectors"})


def _same(answer_field: AnswerField, value: Any, key: Any) -> bool:
    """Whether a part equals the key within its tolerance: numbers of one shape at once (the search compares
    hundreds of runs), anything else through the comparator."""
    if answer_field.kind in NUMERIC and not isinstance(value, bool):
        tolerance = answer_field.tolerance
        given_rows, wanted_rows = _number_rows(value), _number_rows(key)
        if given_rows is not None and given_rows == wanted_rows:
            # Plain numbers of one shape: the same sums as numpy's below, without making arrays.
            return all(
                abs(float(given) - float(wanted)) <= tolerance.atol + tolerance.rtol * abs(float(wanted))
                for given, wanted in zip(_entries(value), _entries(key))
            )
        given, wanted = np.asarray(value, dtype=float), np.asarray(key, dtype=float)
        if given.shape == wanted.shape:
            return bool((np.abs(given - wanted) <= tolerance.atol + tolerance.rtol * np.abs(wanted)).all())
    return equal(answer_field.kind, value, key, answer_field.tolerance)


PLAIN = frozenset({float, int})


def _number_rows(value: Any) -> tuple[int, ...] | None:
    """The shape (as numpy gives it) of a number, a list of numbers or a list of equally long non-empty lists of them
    (floats and ints only); None for anything else."""
    if type(value) in PLAIN:
        return ()
    if not isinstance(value, (list, tuple)):
        return None
    if PLAIN.issuperset(map(type, value)):
        return (len(value),)
    if not all(isinstance(row, (list, tuple)) and PLAIN.issuperset(map(type, row)) for row in value):
        return None
    width = len(value[0])
    return (len(value), width) if width and all(len(row) == width for row in value) else None


def _entries(value: Any) -> list[Any]:
    """The numbers of a value ``_number_rows`` gives a shape, row by row."""
    if not isinstance(value, (list, tuple)):
        return [value]
    if value and isinstance(value[0], (list, tuple)):
        return [item for row in value for item in row]
    return list(value)


def like_rounding(fields: Sequence[AnswerField], changed: Answer, key: Answer) -> bool:
    """Whether a changed part reads as the key rounded too coarsely (1.3 for 1.2974): not told apart from rounding."""
    return any(
        not _too_precise(f.kind in SHAPED_KINDS, changed[f.name], key[f.name])
        and coarsely_rounded(f.kind, changed[f.name], key[f.name])
        for f in fields
        if f.name in changed
    )


# Below this size a float showing at most 6 decimals is the nearest float to them, so ``round(x, 6) == x``.
PRECISE_BELOW = 1e6


def _too_precise(shaped: bool, value: Any, key: Any) -> bool:
    """Whether some number of ``value`` (off its key, for a vector or matrix) shows more than 6 decimals: then it is
    no rounding (``coarsely_rounded`` says no), and a run's numbers mostly are; found without writing them out."""
    if isinstance(value, (list, tuple)):
        if not isinstance(key, (list, tuple)):
            return False
        return any(_too_precise(shaped, item, wanted) for item, wanted in zip(value, key))
    if type(value) is not float or not abs(value) < PRECISE_BELOW or round(value, 6) == value:
        return False
    if not shaped:
        return True
    # An entry within the tolerance does not count (it is not what was rounded); a key that is no number makes
    # ``coarsely_rounded`` say no anyway.
    return not (isinstance(key, (int, float)) and not isinstance(key, bool) and DEFAULT_TOLERANCE.close(value, key))


def _coarse(value: Any) -> Any:
    """``value`` with its floats rounded to 6 decimals, for a fingerprint."""
    if isinstance(value, (list, tuple)):
        return [round(item, 6) if type(item) is float else _coarse(item) for item in value]
    return round(value, 6) if isinstance(value, float) else value


def fingerprint(changed: Answer) -> str:
    """A canonical text of changed parts, coarse enough that two runs giving one answer share it."""
    return json.dumps({name: _coarse(value) for name, value in sorted(changed.items())})
