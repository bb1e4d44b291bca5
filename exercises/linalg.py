"""Small numeric helpers shared by the attention exercises: softmax, cosine, and plain-text arrays for prompts."""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

import numpy as np

Vector = list[float]
Matrix = list[list[float]]


def softmax(values: Sequence[float]) -> Vector:
    """The softmax of one list of scores (shifted by the maximum, so large scores do not overflow)."""
    array = np.asarray(values, dtype=float)
    shifted = np.exp(array - array.max())
    return cast(Vector, (shifted / shifted.sum()).tolist())


def softmax_rows(matrix: Sequence[Sequence[float]]) -> Matrix:
    """Softmax applied to each row separately."""
    return [softmax(row) for row in matrix]


def softmax_columns(matrix: Sequence[Sequence[float]]) -> Matrix:
    """Softmax applied to each column separately (the rows then need not sum to one)."""
    columns = np.asarray(matrix, dtype=float).T
    return cast(Matrix, np.asarray([softmax(column) for column in columns]).T.tolist())


def matmul(left: Sequence[Sequence[float]], right: Sequence[Sequence[float]]) -> Matrix:
    """The matrix product as nested lists."""
    return cast(Matrix, (np.asarray(left, dtype=float) @ np.asarray(right, dtype=float)).tolist())


def norm(vector: Sequence[float]) -> float:
    """The Euclidean length of a vector."""
    return float(np.linalg.norm(np.asarray(vector, dtype=float)))


def cosine(first: Sequence[float], second: Sequence[float]) -> float | None:
    """Cosine of the angle between two vectors, or None when either is the zero vector."""
    lengths = norm(first) * norm(second)
    if lengths == 0.0:
        return None
    return float(np.dot(np.asarray(first, dtype=float), np.asarray(second, dtype=float)) / lengths)


def is_square(matrix: object, size: int) -> bool:
    """True when ``matrix`` is a ``size``×``size`` nested list of numbers."""
    return (
        isinstance(matrix, (list, tuple))
        and len(matrix) == size
        and all(isinstance(row, (list, tuple)) and len(row) == size for row in matrix)
    )


def unique_argmax(values: Sequence[float], gap: float = 1e-9) -> int | None:
    """The index of the largest value, or None when the runner-up is within ``gap`` of it."""
    order = np.argsort(-np.asarray(values, dtype=float), kind="stable")
    if len(order) > 1 and values[int(order[0])] - values[int(order[1])] <= gap:
        return None
    return int(order[0])


def number_text(value: float) -> str:
    """A data number as a prompt shows it: integers without a decimal point, others as typed (0.5, -1.5)."""
    if float(value).is_integer():
        return str(int(value))
    return f"{value:g}"


def vector_text(vector: Sequence[float]) -> str:
    """A vector as ``[1, -0.5]``."""
    return "[" + ", ".join(number_text(v) for v in vector) + "]"


def matrix_text(matrix: Sequence[Sequence[float]]) -> str:
    """A matrix as ``[[1, 0], [0, 1]]``."""
    return "[" + ", ".join(vector_text(row) for row in matrix) + "]"
