"""Readers for numeric answers: one number, a vector, a matrix, and a list of vectors."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from exercises.engine_errors import ReadError
from exercises.expr import evaluate, evaluate_within
from exercises.i18n import Text
from exercises.text_input import (
    CLOSERS,
    OPENERS,
    Located,
    check_brackets,
    check_count,
    finite_float,
    format_numbers,
    guard,
    locate,
    read_error,
    split_groups,
    split_top,
    strip_range,
    top_level_chars,
    unwrap,
    without_final_stop,
    wrong_type,
)
from exercises.token_readers import parse_json_list

Symbols = Mapping[str, float] | None
NUMBER_EXPECTED = Text("一个数（如 0.5、1/3、ln2）", "a number (e.g. 0.5, 1/3, ln2)")
VECTOR_EXPECTED = Text("一个向量（如 [0, 0.693]）", "a vector (e.g. [0, 0.693])")
MATRIX_EXPECTED = Text("一个矩阵（如 [[1, 2], [3, 4]]）", "a matrix (e.g. [[1, 2], [3, 4]])")


def read_number(raw: object, symbols: Symbols = None) -> float:
    """One finite number from a JSON number or text such as ``0.311199``, ``1/3``, ``ln2``, ``-a``."""
    guard(raw, NUMBER_EXPECTED)
    if isinstance(raw, bool) or not isinstance(raw, (int, float, str)):
        raise wrong_type(NUMBER_EXPECTED, raw)
    if isinstance(raw, str):
        # "4倍" ("4 times") is the factor itself; a final "。" ends the sentence.
        return evaluate(_without_approximately(raw.rstrip().removesuffix("。").rstrip().removesuffix("倍")), symbols)
    return finite_float(raw)


_APPROXIMATELY = re.compile(r"^\s*(?:≈|约为|大约|约)")


def _without_approximately(text: str) -> str:
    """``≈1.2448`` or ``约 1.2448`` is the number itself (the tolerance allows for the rounding); blanked rather
    than cut, so that error positions still count from the student's first character."""
    found = _APPROXIMATELY.match(text)
    return text if found is None else " " * found.end() + text[found.end() :]


def _label(row: int | None, number: int) -> Text:
    """Which number a message is about: 'number 2:' or, inside a matrix, 'row 3, number 2:'."""
    if row is None:
        return Text("第 {i} 个数：", "number {i}:").format(i=number)
    return Text("第 {r} 行第 {i} 个数：", "row {r}, number {i}:").format(r=row, i=number)


def _numbers_from_items(items: Sequence[object], symbols: Symbols, row: int | None) -> list[float]:
    """Typed list: each element a JSON number or number text."""
    guard(list(items), VECTOR_EXPECTED)
    values: list[float] = []
    for number, item in enumerate(items, start=1):
        try:
            values.append(read_number(item, symbols))
        except ReadError as error:
            label = _label(row, number)
            raise ReadError(label + error.message, None, format_numbers(values) if values else None) from None
    return values


def _numbers_from_range(located: Located, start: int, end: int, symbols: Symbols, row: int | None) -> list[float]:
    """Numbers in ``[start, end)`` of the text, split at commas/semicolons/、 or else at whitespace."""
    text = located.text
    start, end = unwrap(text, start, end)
    if start == end:
        return []
    has_commas = any(char in ",;、" for char in top_level_chars(text, start, end))
    pieces = split_top(text, start, end, (lambda c: c in ",;、") if has_commas else str.isspace, not has_commas)
    check_count(len(pieces))
    values: list[float] = []
    for number, (piece_start, piece_end) in enumerate(pieces, start=1):
        label = _label(row, number)
        if piece_start == piece_end:
            raise read_error(
                label + Text("缺少数字", "missing"), located.at(piece_start), format_numbers(values) if values else None
            )
        try:

            def to_full(index: int, base: int = piece_start) -> int:
                return located.at(base + index)

            values.append(evaluate_within(text[piece_start:piece_end], symbols, located.raw, to_full))
        except ReadError as error:
            raise ReadError(label + error.message, error.position, format_numbers(values) if values else None) from None
    return values


def _checked_text(raw: str) -> Located:
    """Normalised text with balanced brackets; empty text is an error."""
    located = without_final_stop(locate(raw, arithmetic=True))
    start, end = strip_range(located.text, 0, len(located.text))
    if end - start >= 2 and located.text[end - 1] == "." and located.text[: end - 1].rstrip()[-1:] in CLOSERS:
        # "[1, 2]." typed as an English sentence: a full stop after a closing bracket cannot belong to a number.
        located = Located(located.raw, located.text[: end - 1], located.origin[: end - 1])
    if strip_range(located.text, 0, len(located.text))[0] == len(located.text):
        raise ReadError(Text("输入为空", "empty input"), 0, None)
    check_brackets(located)
    return located


def read_vector(raw: object, symbols: Symbols = None) -> list[float]:
    """A vector from ``[0, 0.693]``, ``0, 0.693``, ``0 0.693``, ``(a, 0)`` or a JSON list; also written as a
    column ``[[0], [0.693]]`` or a single row ``[[0, 0.693]]``."""
    guard(raw, VECTOR_EXPECTED)
    if isinstance(raw, (list, tuple)):
        values = (
            _as_vector(read_vectors(raw, symbols))
            if raw and all(isinstance(item, (list, tuple)) for item in raw)
            else _numbers_from_items(raw, symbols, None)
        )
    elif isinstance(raw, str):
        located = _checked_text(raw)
        as_json = parse_json_list(located.text.strip())
        if as_json is not None:
            values = read_vector(as_json, symbols)
        elif _holds_bracketed_rows(located):
            values = _as_vector(read_vectors(raw, symbols))
        else:
            values = _numbers_from_range(located, 0, len(located.text), symbols, None)
    else:
        raise wrong_type(VECTOR_EXPECTED, raw)
    if not values:
        raise ReadError(Text("向量为空", "the vector is empty"), None, "[]")
    return values


def _holds_bracketed_rows(located: Located) -> bool:
    """Whether the text is bracketed rows inside one outer bracket, as ``[[ln2], [0]]`` (not JSON)."""
    text = located.text
    start, end = strip_range(text, 0, len(text))
    inner_start, inner_end = unwrap(text, start, end)
    return (inner_start, inner_end) != (start, end) and inner_start < inner_end and text[inner_start] == "["


def _as_vector(rows: list[list[float]]) -> list[float]:
    """A column (one number per row) or a single row as a flat vector; any other shape is an error naming it."""
    if len(rows) == 1:
        return rows[0]
    if all(len(row) == 1 for row in rows):
        return [row[0] for row in rows]
    widths = {len(row) for row in rows}
    shape = (
        Text("{r}×{c} 的矩阵", "a {r}×{c} matrix").format(r=len(rows), c=len(rows[0]))
        if len(widths) == 1
        else Text("{r} 行长短不一的列表", "{r} rows of different lengths").format(r=len(rows))
    )
    raise ReadError(
        Text(
            "这里要一个向量（一行或一列数），读到的却是",
            "a vector (one row or one column of numbers) is expected here, but this reads as",
        )
        + shape,
        None,
        _show_rows(rows),
    )


def _has_row_group(text: str, start: int, end: int) -> bool:
    """Whether a bracket outside every other one opens a row: ``[`` or a ``(`` that is not ``ln(`` or ``2(``."""
    depth = 0
    for index in range(start, end):
        char = text[index]
        if char in CLOSERS:
            depth -= 1
        elif char in OPENERS:
            before = text[start:index].rstrip()
            if depth == 0 and (char != "(" or not before or not (before[-1].isalnum() or before[-1] in "_)")):
                return True
            depth += 1
    return False


def _row_ranges(located: Located) -> list[tuple[int, int]]:
    """Where each row sits: bracket groups ``[1,2],[3,4]`` or else lines / ``;``-separated parts."""
    text = located.text
    start, end = strip_range(text, 0, len(text))
    inner_start, inner_end = unwrap(text, start, end)
    # "[[1,2],[3,4]]" holds bracketed rows; "[1, 2; 3, 4]" holds rows split by ";" or lines, as in MATLAB.
    if _has_row_group(text, inner_start, inner_end) or (
        (inner_start, inner_end) != (start, end)
        and any(char in "\n;" for char in top_level_chars(text, inner_start, inner_end))
    ):
        start, end = inner_start, inner_end
    if not _has_row_group(text, start, end):
        return split_top(text, start, end, lambda c: c in "\n;", merge_runs=True)
    groups = split_groups(text, start, end)
    for number, (group_start, group_end) in enumerate(groups, start=1):
        if text[group_start] not in "[({" or unwrap(text, group_start, group_end) == (group_start, group_end):
            raise read_error(
                Text("第 {r} 行应写在方括号里，如 [1, 2]", "row {r} should be in brackets, e.g. [1, 2]").format(
                    r=number
                ),
                located.at(group_start),
                located.prefix(group_start),
            )
    return groups


def read_vectors(raw: object, symbols: Symbols = None) -> list[list[float]]:
    """A list of vectors (rows may differ in length; the comparator checks widths against the reference)."""
    return _read_rows(raw, symbols, matrix=False)


def _check_no_column_groups(located: Located, row_ranges: list[tuple[int, int]]) -> None:
    """In a matrix written as bracketed groups, a ``;`` inside a group is refused: ``[[1;2],[3;4]]`` is two rows
    split by ``;`` in one reading and two MATLAB columns (the transpose) in another."""
    text = located.text
    for number, (row_start, row_end) in enumerate(row_ranges, start=1):
        inner_start, inner_end = unwrap(text, row_start, row_end)
        if (inner_start, inner_end) == strip_range(text, row_start, row_end):
            continue
        semicolons = split_top(text, inner_start, inner_end, lambda c: c == ";")
        if len(semicolons) > 1:
            position = semicolons[0][1]
            while text[position] != ";":
                position += 1
            raise read_error(
                Text(
                    "第 {r} 组括号里的「;」有歧义（可读作行内分隔，也可读作列向量）；一行之内请用逗号或空格分隔",
                    "the ';' inside bracket group {r} is ambiguous (a separator within a row, or a "
                    "column vector); separate the numbers of a row with commas or spaces",
                ).format(r=number),
                located.at(position),
                None,
            )


_ROW_LABEL = re.compile(r"(?<![\w.])[A-Za-z]\w*?_?(\d+)\s*[=:：]\s*(?=[\[(（【［{])")


def _without_row_labels(text: str) -> str:
    """``h1=[a,0], h2=[0,a]``: rows named in order are read as the rows; the names are blanked rather than cut,
    so that error positions still count from the student's first character. Names out of order are refused:
    reading them in the typed order could grade the wrong row."""
    labels = list(_ROW_LABEL.finditer(text))
    if not labels:
        return text
    numbers = [int(label.group(1)) for label in labels]
    if numbers != list(range(numbers[0], numbers[0] + len(numbers))):
        raise read_error(
            Text(
                "各行的编号应依次递增（如 h1=…, h2=…），读到 {n}",
                "the rows' names should count up in order (e.g. h1=…, h2=…); read {n}",
            ).format(n=", ".join(map(str, numbers))),
            None,
            None,
        )
    for label in reversed(labels):
        text = text[: label.start()] + " " * (label.end() - label.start()) + text[label.end() :]
    return text


def _read_rows(raw: object, symbols: Symbols, matrix: bool) -> list[list[float]]:
    """Rows of numbers from JSON lists or text; ``matrix`` refuses bracket groups holding ``;`` (see above)."""
    guard(raw, MATRIX_EXPECTED)
    rows: list[list[float]] = []
    if isinstance(raw, (list, tuple)):
        for number, item in enumerate(raw, start=1):
            if not isinstance(item, (list, tuple)):
                raise ReadError(
                    Text("第 {r} 行应是一个列表", "row {r} should be a list").format(r=number), None, _show_rows(rows)
                )
            rows.append(_numbers_from_items(item, symbols, number))
    elif isinstance(raw, str):
        located = _checked_text(_without_row_labels(raw))
        as_json = parse_json_list(located.text.strip())
        if as_json is not None and all(isinstance(item, list) for item in as_json):
            return _read_rows(as_json, symbols, matrix)
        row_ranges = _row_ranges(located)
        check_count(len(row_ranges))
        if matrix:
            _check_no_column_groups(located, row_ranges)
        for number, (row_start, row_end) in enumerate(row_ranges, start=1):
            rows.append(_numbers_from_range(located, row_start, row_end, symbols, number))
    else:
        raise wrong_type(MATRIX_EXPECTED, raw)
    for number, row in enumerate(rows, start=1):
        if not row:
            raise ReadError(
                Text("第 {r} 行是空的", "row {r} is empty").format(r=number), None, _show_rows(rows[: number - 1])
            )
    if not rows:
        raise ReadError(Text("矩阵为空", "the matrix is empty"), None, "[]")
    return rows


def read_matrix(raw: object, symbols: Symbols = None) -> list[list[float]]:
    """A rectangular matrix from ``[[1,2],[3,4]]``, ``[1,2]; [3,4]``, one row per line, or nested JSON lists."""
    rows = _read_rows(raw, symbols, matrix=True)
    for number, row in enumerate(rows[1:], start=2):
        if len(row) != len(rows[0]):
            raise ReadError(
                Text("第 {r} 行有 {n} 个数，而第 1 行有 {w} 个", "row {r} has {n} numbers but row 1 has {w}").format(
                    r=number, n=len(row), w=len(rows[0])
                ),
                None,
                _show_rows(rows[: number - 1]),
            )
    return rows


def _show_rows(rows: Sequence[Sequence[float]]) -> str | None:
    """Rows read so far as ``[[1, 2], [3, 4]]`` (None when there are none)."""
    return "[" + ", ".join(format_numbers(row) for row in rows) + "]" if rows else None
