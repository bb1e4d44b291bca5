"""Compare a student's read answer with the reference, per answer kind, with tolerance for numbers."""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any, cast

import numpy as np

from exercises.i18n import Text
from exercises.typed_chars import TOKEN_MARKS, without_invisible

_QUOTES = "'\"`‘’“”「」『』"
# Also the other names students use: 句点 for the full stop, SOS (start of sequence, as in the PyTorch seq2seq
# tutorial) for BOS, and </eos> for EOS; no vocabulary has a token spelled like these.
_PERIODS = {".", "。", "句号", "句號", "句点", "句點", "period", "full stop", "dot"}
_TOKEN_MARK_TABLE = str.maketrans(TOKEN_MARKS)
_EOS = {"eos", "<eos>", "</s>", "<end>", "</eos>"}
_BOS = {"bos", "<bos>", "<s>", "<start>", "sos", "<sos>"}
# "No such token" as people write it; no vocabulary has a token spelled like these.
_NONE = {"none", "null", "nil", "n/a", "-", "—", "–", "无", "没有", "不存在"}


@dataclass(frozen=True)
class Tolerance:
    """Absolute plus relative tolerance for numbers: ``|s - r| <= atol + rtol*|r|``."""

    rtol: float = 1e-3
    atol: float = 5e-4

    def close(self, student: float, reference: float) -> bool:
        """Whether the student's number is within tolerance of the reference; never for NaN or an infinity.

        An infinite reference (say, a follow-through value that overflowed) would otherwise accept any number,
        since the allowed distance grows with it.
        """
        if not (math.isfinite(student) and math.isfinite(reference)):
            return False
        bound = self.atol + self.rtol * abs(reference)
        # A number typed exactly at the bound (1.0015 against 1 at the default tolerance) is inside it, but its
        # binary form may lie a rounding error beyond; allow the rounding error of the numbers involved, no more.
        slack = 4 * math.ulp(max(abs(student), abs(reference), bound))
        return abs(student - reference) <= bound + slack


DEFAULT_TOLERANCE = Tolerance()
# Kinds whose shape (length, rows×columns, length of each vector) the variant fixes and the reader cannot know.
SHAPED_KINDS = frozenset({"vector", "matrix", "vectors"})


def canonical_token(text: str) -> str:
    """The comparison form of a token: ``。``/``句号`` -> ``.``, ``<eos>``/``</s>`` -> ``EOS``, ``null``/``无`` -> ``none``,
    words lowercased."""
    token = unicodedata.normalize("NFKC", without_invisible(text).translate(_TOKEN_MARK_TABLE)).strip()
    while len(token) >= 2 and token[0] in _QUOTES and token[-1] in _QUOTES:
        token = token[1:-1].strip()
    lowered = token.lower()
    if lowered in _PERIODS:
        return "."
    if lowered in _EOS:
        return "EOS"
    if lowered in _BOS:
        return "BOS"
    if lowered in _NONE:
        return "none"
    return lowered


def shape_of(value: object) -> tuple[int, ...]:
    """The shape of nested lists (``()`` for a scalar); ragged nesting raises ValueError."""
    if not isinstance(value, (list, tuple)):
        return ()
    if not any(isinstance(item, (list, tuple)) for item in value):
        return (len(value),)  # a row of scalars: the common case, without a call per entry
    inner = {shape_of(item) for item in value}
    if len(inner) > 1:
        raise ValueError("ragged nested list")
    return (len(value), *(inner.pop() if inner else ()))


@dataclass(frozen=True)
class Comparison:
    """Outcome of comparing one answer part: score in [0, 1], per-element matches for lists, shape problem."""

    score: float
    correct: bool
    elements: tuple[bool, ...] | None = None
    shape_error: Text | None = None
    columns: int | None = None  # a matrix's row length: its elements are entries read row by row


def element_score(elements: Sequence[bool], student_len: int, reference_len: int) -> float:
    """Matched elements over the longer of the two lists; two empty lists score 1."""
    longest = max(student_len, reference_len)
    return 1.0 if longest == 0 else sum(bool(e) for e in elements) / longest


def _scalar(match: bool) -> Comparison:
    """A whole-or-nothing comparison."""
    return Comparison(1.0 if match else 0.0, match)


def _listwise(matches: list[bool], student_len: int, reference_len: int) -> Comparison:
    """Per-position matches padded with misses up to the longer list, scored by ``element_score``."""
    elements = tuple(matches) + (False,) * (max(student_len, reference_len) - len(matches))
    score = element_score(elements, student_len, reference_len)
    return Comparison(score, score == 1.0, elements)


def _shape_failure(message: Text) -> Comparison:
    """Wrong shape: no credit, and the message names the expected shape."""
    return Comparison(0.0, False, None, message)


def _plain(value: object) -> object:
    """numpy arrays and scalars as plain Python lists and numbers, so solvers may return either."""
    return value.tolist() if isinstance(value, (np.ndarray, np.generic)) else value


def _same_value(student: object, reference: object) -> bool:
    """Exact equality that does not let ``True`` pass for ``1``."""
    return isinstance(student, bool) == isinstance(reference, bool) and bool(student == reference)


def shape_problem(kind: str, student: object, reference: object) -> Text | None:
    """What is wrong with the shape of ``student`` against ``reference``, or None: a vector's length, a matrix's
    rows×columns, the length of each vector in a list of vectors (the number of vectors is not a shape: that list
    scores element by element)."""
    student, reference = _plain(student), _plain(reference)
    if kind not in SHAPED_KINDS or not isinstance(student, (list, tuple)) or not isinstance(reference, (list, tuple)):
        return None
    if kind == "vector":
        if len(student) == len(reference):
            return None
        return Text("应为 {r} 个数，读到 {s} 个", "expected {r} numbers, read {s}").format(
            r=len(reference), s=len(student)
        )
    if kind == "matrix":
        return _matrix_shape_problem(student, reference)
    width = len(reference[0]) if reference else None
    for index, row in enumerate(student, start=1):
        if width is not None and len(row) != width:
            return Text(
                "第 {i} 个向量应有 {w} 个数，读到 {n} 个", "vector {i} should have {w} numbers, read {n}"
            ).format(i=index, w=width, n=len(row))
    return None


def _matrix_shape_problem(student: Sequence[object], reference: Sequence[object]) -> Text | None:
    """``r×c`` expected against what was read (rows of unequal length named as such), or None when they agree."""
    expected = shape_of(reference)
    try:
        read: tuple[int, ...] | None = shape_of(student)
    except ValueError:
        read = None
    if read == expected:
        return None
    rows, cols = ((*expected, 0, 0))[:2]
    shape = "×".join(map(str, read)) if read else ""
    found = Text(shape, shape) if read else Text("行长不一的行", "rows of unequal length")
    return Text(f"应为 {rows}×{cols} 的矩阵，读到 {found.zh}", f"expected a {rows}×{cols} matrix, read {found.en}")


def _compare_vector(student: Sequence[float], reference: Sequence[float], tolerance: Tolerance) -> Comparison:
    """Length first, then the fraction of entries within tolerance."""
    problem = shape_problem("vector", student, reference)
    if problem is not None:
        return _shape_failure(problem)
    return _listwise([tolerance.close(s, r) for s, r in zip(student, reference)], len(student), len(reference))


def _compare_matrix(
    student: Sequence[Sequence[float]], reference: Sequence[Sequence[float]], tolerance: Tolerance
) -> Comparison:
    """Shape first (``r×c`` named in the message), then the fraction of entries within tolerance."""
    problem = _matrix_shape_problem(student, reference)
    if problem is not None:
        return _shape_failure(problem)
    flat = [tolerance.close(s, r) for s_row, r_row in zip(student, reference) for s, r in zip(s_row, r_row)]
    return replace(_listwise(flat, len(flat), len(flat)), columns=len(reference[0]) if reference else None)


def _compare_vectors(
    student: Sequence[Sequence[float]], reference: Sequence[Sequence[float]], tolerance: Tolerance
) -> Comparison:
    """Each row must have the reference row length; rows then match as wholes, scored per row."""
    problem = shape_problem("vectors", student, reference)
    if problem is not None:
        return _shape_failure(problem)
    matches = [
        len(s) == len(r) and all(tolerance.close(a, b) for a, b in zip(s, r)) for s, r in zip(student, reference)
    ]
    return _listwise(matches, len(student), len(reference))


def compare(kind: str, student: object, reference: object, tolerance: Tolerance = DEFAULT_TOLERANCE) -> Comparison:
    """Compare one read answer part with its reference; the single entry point for every kind."""
    student, reference = _plain(student), _plain(reference)
    if kind == "number":
        return _scalar(tolerance.close(float(student), float(reference)))  # type: ignore[arg-type]
    if kind in ("int", "optional_int", "bool", "enum", "choice"):
        return _scalar(_same_value(student, reference))
    if kind == "token":
        return _scalar(canonical_token(str(student)) == canonical_token(str(reference)))
    if kind in ("tokens", "pairs", "choices"):
        s_list, r_list = list(student), list(reference)  # type: ignore[call-overload]
        same = _same_pair if kind == "pairs" else (_same_token if kind == "tokens" else _same_value)
        return _listwise([same(s, r) for s, r in zip(s_list, r_list)], len(s_list), len(r_list))
    if kind == "vector":
        return _compare_vector(student, reference, tolerance)  # type: ignore[arg-type]
    if kind == "matrix":
        return _compare_matrix(student, reference, tolerance)  # type: ignore[arg-type]
    if kind == "vectors":
        return _compare_vectors(student, reference, tolerance)  # type: ignore[arg-type]
    raise ValueError(f"unknown answer kind {kind!r}")


def _same_token(student: object, reference: object) -> bool:
    """Tokens equal in canonical form."""
    return canonical_token(str(student)) == canonical_token(str(reference))


def _same_pair(student: object, reference: object) -> bool:
    """(input, output) pairs equal token by token in canonical form."""
    s_pair, r_pair = tuple(cast(Iterable[Any], student)), tuple(cast(Iterable[Any], reference))
    return len(s_pair) == len(r_pair) and all(_same_token(s, r) for s, r in zip(s_pair, r_pair))


def equal(kind: str, student: object, reference: object, tolerance: Tolerance = DEFAULT_TOLERANCE) -> bool:
    """Whether the student's part is fully correct."""
    # The checker and the search ask this of every solver's answer: plain numbers are compared entry by entry up to
    # the first miss, without a Comparison (the same verdict as ``compare``'s).
    same = None
    if kind == "matrix":
        same = _same_matrix(student, reference, tolerance)
    elif kind == "vector":
        same = _same_vector(student, reference, tolerance)
    return compare(kind, student, reference, tolerance).correct if same is None else same


PLAIN_NUMBERS = frozenset({float, int})  # bools and numpy scalars go through ``compare``


def _same_matrix(student: object, reference: object, tolerance: Tolerance) -> bool | None:
    """Whether two matrices given as lists of equally long, non-empty rows of numbers are equal within
    ``tolerance``; None for any other form (``compare`` decides)."""
    if not isinstance(student, list | tuple) or not isinstance(reference, list | tuple) or not reference:
        return None
    width = len(reference[0]) if isinstance(reference[0], list | tuple) else 0
    if not width or not _number_rows(reference, width):
        return None
    if len(student) != len(reference):
        return False  # another number of rows, ragged or not: never the reference's shape
    if not _number_rows(student, width):
        return None
    close = tolerance.close
    for row, wanted in zip(student, reference):
        for s, r in zip(row, wanted):
            if not close(s, r):
                return False
    return True


def _number_rows(rows: Sequence[object], width: int) -> bool:
    """Whether every one of ``rows`` is a list of ``width`` floats and ints."""
    plain = PLAIN_NUMBERS.issuperset
    for row in rows:
        if not isinstance(row, list | tuple) or len(row) != width or not plain(map(type, row)):
            return False
    return True


def _same_vector(student: object, reference: object, tolerance: Tolerance) -> bool | None:
    """Whether two vectors given as lists of plain numbers are equal within ``tolerance``; None for any other form."""
    if not isinstance(reference, list | tuple) or not _number_row(reference, len(reference)):
        return None
    if not isinstance(student, list | tuple) or not _number_row(student, len(reference)):
        return None
    close = tolerance.close
    return all(close(s, r) for s, r in zip(student, reference))


def _number_row(row: object, width: int) -> bool:
    """Whether ``row`` is a list of ``width`` floats and ints (not bools, not numpy scalars: ``compare`` reads those)."""
    return isinstance(row, list | tuple) and len(row) == width and PLAIN_NUMBERS.issuperset(map(type, row))
