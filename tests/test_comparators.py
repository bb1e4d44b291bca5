"""Golden tables for tolerance, canonical tokens, shapes and per-kind comparison."""

from __future__ import annotations

import math

import numpy as np
import pytest

from exercises.comparators import (
    DEFAULT_TOLERANCE,
    Comparison,
    Tolerance,
    canonical_token,
    compare,
    element_score,
    equal,
    shape_of,
)

A = math.log(2)


@pytest.mark.parametrize(
    ("student", "reference", "close"),
    [
        (1.0, 1.0, True),
        (1.00149, 1.0, True),  # bound at 1.0 is 5e-4 + 1e-3 = 0.0015
        (1.00151, 1.0, False),
        (0.99851, 1.0, True),
        (0.99849, 1.0, False),
        (0.0005, 0.0, True),  # atol alone at zero
        (0.00049, 0.0, True),
        (0.00051, 0.0, False),
        (-0.0005, 0.0, True),
        (1001.0004, 1000.0, True),  # rtol dominates: 5e-4 + 1.0
        (1001.0006, 1000.0, False),
        (0.311, 0.311199, True),
        (0.31, 0.311199, False),
        (-A, -0.693, True),
        (A, -A, False),
    ],
)
def test_default_tolerance_boundaries(student: float, reference: float, close: bool) -> None:
    assert DEFAULT_TOLERANCE.close(student, reference) is close
    assert equal("number", student, reference) is close


@pytest.mark.parametrize(
    ("student", "reference"),
    [
        (0.0, math.inf),
        (1e308, math.inf),
        (-5.0, -math.inf),
        (math.inf, math.inf),
        (math.inf, 1.0),
        (0.0, math.nan),
        (math.nan, math.nan),
        (math.nan, 0.0),
    ],
)
def test_nothing_is_close_to_a_non_finite_number(student: float, reference: float) -> None:
    # An overflowed follow-through value is infinite, and |s - inf| <= atol + rtol*inf holds for every s.
    assert DEFAULT_TOLERANCE.close(student, reference) is False
    assert equal("number", student, reference) is False


def test_custom_tolerance() -> None:
    strict = Tolerance(rtol=0.0, atol=1e-9)
    assert strict.close(1.0 + 5e-10, 1.0)
    assert not strict.close(1.0 + 2e-9, 1.0)
    assert equal("number", 1.01, 1.0, Tolerance(rtol=0.02, atol=0.0))
    assert not equal("number", 1.01, 1.0)


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        (".", "."),
        ("。", "."),
        ("．", "."),
        ("句号", "."),
        (" . ", "."),
        ("EOS", "EOS"),
        ("eos", "EOS"),
        ("<eos>", "EOS"),
        ("<EOS>", "EOS"),
        ("</s>", "EOS"),
        ("ＥＯＳ", "EOS"),
        ("BOS", "BOS"),
        ("<bos>", "BOS"),
        ("<s>", "BOS"),
        ("bos", "BOS"),
        ("Blue", "blue"),
        ("DOOR", "door"),
        ("'key'", "key"),
        ('"red"', "red"),
        ("“门”", "门"),
        ("红色", "红色"),
        ("钥匙", "钥匙"),
        ("ｂｌｕｅ", "blue"),
    ],
)
def test_canonical_token(text: str, canonical: str) -> None:
    assert canonical_token(text) == canonical


@pytest.mark.parametrize(
    ("value", "shape"),
    [
        (1.0, ()),
        ([], (0,)),
        ([1, 2], (2,)),
        ([[1, 2], [3, 4], [5, 6]], (3, 2)),
        ([[]], (1, 0)),
    ],
)
def test_shape_of(value: object, shape: tuple[int, ...]) -> None:
    assert shape_of(value) == shape


def test_shape_of_ragged_raises() -> None:
    with pytest.raises(ValueError):
        shape_of([[1, 2], [3]])


@pytest.mark.parametrize(
    ("elements", "s_len", "r_len", "score"),
    [
        ([True, True, False, True], 4, 4, 0.75),
        ([True, True, True], 3, 4, 0.75),
        ([True, True, True, False], 4, 3, 0.75),
        ([], 0, 0, 1.0),
        ([], 0, 3, 0.0),
        ([False, False], 2, 2, 0.0),
    ],
)
def test_element_score(elements: list[bool], s_len: int, r_len: int, score: float) -> None:
    assert element_score(elements, s_len, r_len) == score


@pytest.mark.parametrize(
    ("kind", "student", "reference", "correct"),
    [
        ("int", 4, 4, True),
        ("int", 5, 4, False),
        ("int", True, 1, False),
        ("optional_int", None, None, True),
        ("optional_int", 0, None, False),
        ("optional_int", 2, 2, True),
        ("bool", True, True, True),
        ("bool", False, True, False),
        ("bool", True, np.bool_(True), True),
        ("bool", 1, True, False),
        ("token", "<eos>", "EOS", True),
        ("token", "Door", "door", True),
        ("token", "。", ".", True),
        ("token", "key", "door", False),
        ("enum", "cap", "cap", True),
        ("enum", "EOS", "cap", False),
        ("choice", "b", "b", True),
        ("choice", "a", "b", False),
        ("number", 0.2881, 0.288, True),
        ("number", 0.29, 0.288, False),
        ("number", np.float64(0.288), 0.288, True),
    ],
)
def test_scalar_kinds(kind: str, student: object, reference: object, correct: bool) -> None:
    result = compare(kind, student, reference)
    assert result == Comparison(1.0 if correct else 0.0, correct, None, None)


@pytest.mark.parametrize(
    ("kind", "student", "reference", "score", "elements"),
    [
        ("tokens", ["blue", "key", ".", "EOS"], ["blue", "key", ".", "EOS"], 1.0, (True,) * 4),
        ("tokens", ["Blue", "key", "。", "<eos>"], ["blue", "key", ".", "EOS"], 1.0, (True,) * 4),
        ("tokens", ["blue", "door", ".", "EOS"], ["blue", "key", ".", "EOS"], 0.75, (True, False, True, True)),
        ("tokens", ["blue", "key", "."], ["blue", "key", ".", "EOS"], 0.75, (True, True, True, False)),
        ("tokens", ["blue", "key", ".", "EOS", "EOS"], ["blue", "key", ".", "EOS"], 0.8, (True,) * 4 + (False,)),
        ("tokens", ["key", ".", "EOS"], ["blue", "key", ".", "EOS"], 0.0, (False,) * 4),
        ("tokens", [], [], 1.0, ()),
        ("pairs", [("BOS", "blue"), ("blue", "door")], [("BOS", "blue"), ("blue", "door")], 1.0, (True, True)),
        ("pairs", [["<bos>", "Blue"], ["blue", "door"]], [("BOS", "blue"), ("blue", "key")], 0.5, (True, False)),
        ("pairs", [("blue", "BOS")], [("BOS", "blue"), ("blue", "door")], 0.0, (False, False)),
        ("choices", ["a", "c", "b"], ["a", "c", "d"], 2 / 3, (True, True, False)),
    ],
)
def test_list_kinds(kind: str, student: list, reference: list, score: float, elements: tuple[bool, ...]) -> None:
    result = compare(kind, student, reference)
    assert result.score == pytest.approx(score)
    assert result.elements == elements
    assert result.correct is (score == 1.0)
    assert result.shape_error is None


def test_vector_shape_error_names_expected_length() -> None:
    result = compare("vector", [0.0, A, 1.0], [0.0, A])
    assert (result.score, result.correct) == (0.0, False)
    assert result.shape_error is not None
    assert result.shape_error.en == "expected 2 numbers, read 3"
    assert result.shape_error.zh == "应为 2 个数，读到 3 个"


@pytest.mark.parametrize(
    ("student", "score", "elements"),
    [
        ([0.0, 0.693], 1.0, (True, True)),
        ([0.0005, 0.6936], 1.0, (True, True)),
        ([0.0006, 0.693], 0.5, (False, True)),
        ([1.0, 1.0], 0.0, (False, False)),
    ],
)
def test_vector_elementwise(student: list[float], score: float, elements: tuple[bool, ...]) -> None:
    result = compare("vector", student, np.array([0.0, A]))
    assert (result.score, result.elements, result.shape_error) == (score, elements, None)
    assert result.correct is (score == 1.0)


def test_matrix_shape_error_names_expected_shape() -> None:
    result = compare("matrix", [[1.0, 2.0], [3.0, 4.0]], [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    assert result.score == 0.0 and not result.correct
    assert result.shape_error is not None
    assert "2×3" in result.shape_error.en and "2×2" in result.shape_error.en
    assert "2×3" in result.shape_error.zh


def test_matrix_ragged_student_is_shape_error() -> None:
    result = compare("matrix", [[1.0, 2.0], [3.0]], [[1.0, 2.0], [3.0, 4.0]])
    assert result.shape_error is not None and "2×2" in result.shape_error.en
    assert result.score == 0.0


def test_matrix_elementwise_fraction() -> None:
    reference = np.array([[1.0, 2.0], [3.0, 4.0]])
    result = compare("matrix", [[1.0, 2.0], [3.0, 4.1]], reference)
    assert result.score == 0.75
    assert result.elements == (True, True, True, False)
    assert not result.correct
    assert equal("matrix", [[1.0004, 2.0], [3.0, 4.0]], reference)


@pytest.mark.parametrize(
    ("student", "score", "elements"),
    [
        ([[A, 0], [0, A], [0, 0]], 1.0, (True, True, True)),
        ([[A, 0], [-A, A], [0, -A]], 1 / 3, (True, False, False)),
        ([[0, 0], [A, 0], [0, A], [0, 0]], 0.0, (False, False, False, False)),
        ([[A, 0], [0, A]], 2 / 3, (True, True, False)),
    ],
)
def test_vectors_rows_match_as_wholes(student: list[list[float]], score: float, elements: tuple[bool, ...]) -> None:
    result = compare("vectors", student, [[A, 0], [0, A], [0, 0]])
    assert result.score == pytest.approx(score)
    assert result.elements == elements
    assert result.shape_error is None


def test_vectors_row_width_is_a_shape_error() -> None:
    result = compare("vectors", [[A, 0], [0, A, 0]], [[A, 0], [0, A]])
    assert result.shape_error is not None
    assert result.shape_error.en == "vector 2 should have 2 numbers, read 3"
    assert (result.score, result.correct) == (0.0, False)


def test_unknown_kind_is_a_programming_error() -> None:
    with pytest.raises(ValueError):
        compare("colour", 1, 1)
