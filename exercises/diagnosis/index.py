"""A numeric index over a search table: the entries whose value for one part could equal a student's part.

The checker compares a wrong part with every entry of its variant's table (hundreds, with the pairs), and the exact
comparison (``comparators.equal``) walks nested lists entry by entry. The index stacks the entries' numbers per
shape once per table and part, so one array operation leaves the few entries within a widened tolerance; the exact
comparison then decides on those alone. It only ever narrows to a superset of the exact matches, in table order, so
the tags the checker names are the same as with the whole table.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from exercises.base import AnswerField
from exercises.diagnosis.search import Table

# The shape a part of each numeric kind has; anything else (ragged, nested deeper) goes to the exact comparison.
NDIM = {"number": 0, "vector": 1, "matrix": 2, "vectors": 2}
INDEX_CACHE_SIZE = 1024
# How much wider than the check's tolerance the pre-filter is, so that rounding in how numbers reach it (ints,
# numpy scalars) can never drop an exact match: 1.5 times the allowed distance plus 16 units in the last place.
WIDEN = 1.5
ULPS = 16.0


class _Group(NamedTuple):
    """The entries whose part has one shape: their positions in the table and their numbers stacked."""

    positions: np.ndarray
    values: np.ndarray


class _Index(NamedTuple):
    """One table's entries for one part: numeric groups by shape, and the positions to compare exactly anyway."""

    table: Table
    groups: dict[tuple[int, ...], _Group]
    exact: tuple[int, ...]


_INDEXES: dict[tuple[int, str], _Index] = {}


def _numbers(value: Any, ndim: int) -> np.ndarray | None:
    """``value`` as a float array of ``ndim`` dimensions, or None (not numbers, ragged, another shape)."""
    if isinstance(value, (str, bytes, dict)):
        return None
    try:
        array = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        return None
    return array if array.ndim == ndim else None


def _build(table: Table, answer_field: AnswerField) -> _Index:
    """Group the table's entries for ``answer_field`` by shape; entries without the part are left out (they name
    nothing on it), entries that are not plain numbers of the kind's shape are compared exactly."""
    ndim = NDIM[answer_field.kind]
    by_shape: dict[tuple[int, ...], tuple[list[int], list[np.ndarray]]] = {}
    exact: list[int] = []
    for position, (_, wrong) in enumerate(table):
        if wrong is None or answer_field.name not in wrong:
            continue
        array = _numbers(wrong[answer_field.name], ndim)
        if array is None:
            exact.append(position)
            continue
        positions, arrays = by_shape.setdefault(array.shape, ([], []))
        positions.append(position)
        arrays.append(array)
    groups = {
        shape: _Group(np.asarray(positions, dtype=int), np.stack(arrays))
        for shape, (positions, arrays) in by_shape.items()
    }
    return _Index(table, groups, tuple(exact))


def _index(table: Table, answer_field: AnswerField) -> _Index:
    """The index of ``table`` for ``answer_field``, built on first use (tables are cached, so they repeat)."""
    key = (id(table), answer_field.name)
    found = _INDEXES.get(key)
    if found is None or found.table is not table:
        found = _build(table, answer_field)
        if len(_INDEXES) >= INDEX_CACHE_SIZE:
            _INDEXES.pop(next(iter(_INDEXES)))
        _INDEXES[key] = found
    return found


def candidates(table: Table, answer_field: AnswerField, student: Any) -> Table:
    """The entries of ``table`` whose value for ``answer_field`` may equal ``student`` within its tolerance: every
    exact match and a few near ones, in table order (the whole table where the part is not plain numbers)."""
    ndim = NDIM.get(answer_field.kind)
    given = None if ndim is None else _numbers(student, ndim)
    if given is None:
        return table
    index = _index(table, answer_field)
    tolerance = answer_field.tolerance
    kept: list[int] = list(index.exact)
    group = index.groups.get(given.shape)
    if group is not None:
        with np.errstate(all="ignore"):  # an infinity or NaN on either side is never within tolerance
            wanted = group.values
            bound = tolerance.atol + tolerance.rtol * np.abs(wanted)
            largest = np.maximum(np.maximum(np.abs(given), np.abs(wanted)), bound)
            near = np.abs(given - wanted) <= WIDEN * bound + ULPS * np.spacing(largest)
            inside = near.reshape(len(wanted), given.size).all(axis=1)
        kept.extend(int(position) for position in group.positions[inside])
    return tuple(table[position] for position in sorted(kept))
