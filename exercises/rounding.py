"""Whether a wrong number (or vector, matrix) is the key rounded too coarsely: the method was right, the number too
short for the check, and the feedback says so instead of restating the rule."""

from __future__ import annotations

import math
from decimal import Decimal

from exercises.comparators import DEFAULT_TOLERANCE, PLAIN_NUMBERS, SHAPED_KINDS, Tolerance

MAX_COARSE_DECIMALS = 6  # beyond this a number was not typed rounded: it is a value of its own (1/3, say)


def coarsely_rounded(kind: str, student: object, reference: object, tolerance: Tolerance = DEFAULT_TOLERANCE) -> bool:
    """Whether a number outside the tolerance is the reference rounded, or cut, to the decimals the student wrote
    (at least one, and two significant digits): the method was right and the number too coarse for the check (2.23
    for 2.22562). One significant digit (0.1 for 0.064) is too little to tell a rounding from another result.

    A vector, matrix or list of vectors is too coarse when every entry outside ``tolerance`` is its key rounded or
    cut to the most decimals any such entry shows (``-0.80, 0.17`` for ``[-0.8041, 0.1684]``: the trailing zero of -0.80
    is not kept by the reader, 0.17 shows two decimals), at least one entry is outside and one of those has two
    significant digits."""
    if kind in SHAPED_KINDS:
        return _entries_coarse(_entry_pairs(student, reference), tolerance)
    if kind != "number" or isinstance(student, bool) or not isinstance(student, (int, float)):
        return False
    if isinstance(reference, bool) or not isinstance(reference, (int, float)):
        return False
    if not (math.isfinite(student) and math.isfinite(reference)) or student == 0:
        return False
    decimals, significant = _written(student)
    if not 1 <= decimals <= MAX_COARSE_DECIMALS or significant < 2:
        return False
    return _rounding_of(student, reference, decimals)


def _written(value: float) -> tuple[int, int]:
    """The decimals and the significant digits ``value`` was written with (its shortest round-tripping form)."""
    written = Decimal(repr(float(value))).as_tuple()
    decimals = -written.exponent if isinstance(written.exponent, int) else 0
    return max(0, decimals), len("".join(map(str, written.digits)).lstrip("0"))


def _rounding_of(student: float, reference: float, decimals: int) -> bool:
    """Whether ``student`` is ``reference`` rounded or cut to ``decimals`` decimals."""
    scale = 10**decimals
    candidates = (round(reference, decimals), math.trunc(reference * scale) / scale)
    return any(math.isclose(student, candidate, rel_tol=0, abs_tol=0.1 / scale) for candidate in candidates)


def _entries_coarse(pairs: list[tuple[object, object]] | None, tolerance: Tolerance) -> bool:
    """``coarsely_rounded`` for the (student, key) entries of a vector or matrix (None: shapes differ)."""
    if not pairs or not all(_is_number(s) and _is_number(r) for s, r in pairs):
        return False
    numbers = [(float(s), float(r)) for s, r in pairs]  # type: ignore[arg-type]
    if not all(math.isfinite(s) and math.isfinite(r) for s, r in numbers):
        return False
    outside = [(s, r) for s, r in numbers if not tolerance.close(s, r)]
    if not outside:
        return False
    written = []
    for s, _ in outside:
        written.append(_written(s))
        if written[-1][0] > MAX_COARSE_DECIMALS:
            return False  # the most decimals shown is then too many: no need to read the other entries
    decimals = max(d for d, _ in written)
    if not 1 <= decimals <= MAX_COARSE_DECIMALS or max(digits for _, digits in written) < 2:
        return False
    return all(_rounding_of(s, r, decimals) for s, r in outside)


def _is_number(value: object) -> bool:
    """Whether ``value`` is a plain number (not a bool)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _entry_pairs(student: object, reference: object) -> list[tuple[object, object]] | None:
    """The (student, key) entries of two nested lists of one shape, in order; None where the shapes differ."""
    if isinstance(student, (list, tuple)) and isinstance(reference, (list, tuple)):
        if len(student) != len(reference):
            return None
        if PLAIN_NUMBERS.issuperset(map(type, student)) and PLAIN_NUMBERS.issuperset(map(type, reference)):
            return list(zip(student, reference))  # a row of numbers: each entry is its own pair
        pairs: list[tuple[object, object]] = []
        for s, r in zip(student, reference):
            inner = _entry_pairs(s, r)
            if inner is None:
                return None
            pairs.extend(inner)
        return pairs
    if isinstance(student, (list, tuple)) or isinstance(reference, (list, tuple)):
        return None
    return [(student, reference)]
