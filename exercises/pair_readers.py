"""Reader for (input, output) token pairs, typed ``BOS→blue, blue→door`` or ``(BOS, blue), (blue, door)``."""

from __future__ import annotations

import re
from collections.abc import Sequence

from exercises.engine_errors import ReadError
from exercises.i18n import Text
from exercises.text_input import (
    OPENERS,
    Located,
    check_brackets,
    check_count,
    guard,
    locate,
    matching_close,
    read_error,
    split_groups,
    split_top,
    strip_range,
    top_level_chars,
    unwrap,
    wrong_type,
)
from exercises.token_readers import (
    ARROWS,
    bad_character,
    empty_input,
    is_token_separator,
    parse_json_list,
    read_token,
    split_tokens,
    without_closing_stop,
)

_PAIR_LEXER = re.compile(
    r"(?P<tag></?[A-Za-z]+>)|(?P<arrow>-+>|=+>|[" + ARROWS + r">:])|(?P<sep>[\s,;、]+)"
    r"|(?P<word>(?:(?!-+>|=+>)[^\s,;、<>:" + ARROWS + r"])+)|(?P<other>.)",
    re.S,
)
PAIRS_EXPECTED = Text(
    "输入→输出 对的列表（如 BOS→blue, blue→door）", "a list of input→output pairs (e.g. BOS→blue, blue→door)"
)


def _lex(text: str, start: int, end: int) -> list[tuple[str, str, int]]:
    """(kind, text, index) items of pair text; separators are dropped."""
    return [
        (m.lastgroup or "other", m.group(), start + m.start())
        for m in _PAIR_LEXER.finditer(text[start:end])
        if m.lastgroup != "sep"
    ]


def _side(word: str, pair_number: int, located: Located, index: int, done: list[tuple[str, str]]) -> str:
    """One side of a pair: a single canonical token."""
    tokens = split_tokens(word)
    if len(tokens) != 1 or bad_character(tokens[0]):
        raise read_error(
            Text(
                "第 {i} 对中「{w}」应是一个词元（句号请单独写）",
                "pair {i}: '{w}' should be one token (write a period as its own token)",
            ).format(i=pair_number, w=word),
            located.at(index),
            show_pairs(done),
        )
    return tokens[0]


def _arrow_pairs(located: Located, start: int, end: int, done: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Pairs written ``in→out`` separated by commas, semicolons, 、 or new lines."""
    items = _lex(located.text, start, end)
    check_count(len(items) // 3)
    pairs: list[tuple[str, str]] = []
    position = 0
    while position < len(items):
        number = len(done) + len(pairs) + 1
        window = items[position : position + 3]
        bad = next(
            (
                item
                for item, want in zip(window, ("side", "arrow", "side"))
                if (item[0] == "arrow") != (want == "arrow") or item[0] == "other"
            ),
            None,
        )
        if bad is not None:
            raise read_error(
                Text(
                    "第 {i} 对应写成「输入→输出」，在「{t}」处读不下去",
                    "pair {i} should look like input→output; stuck at '{t}'",
                ).format(i=number, t=bad[1]),
                located.at(bad[2]),
                show_pairs(done + pairs),
            )
        if len(window) < 3:
            raise read_error(
                Text("第 {i} 对不完整，应写成「输入→输出」", "pair {i} is incomplete; write it as input→output").format(
                    i=number
                ),
                located.at(end),
                show_pairs(done + pairs),
            )
        source = _side(window[0][1], number, located, window[0][2], done + pairs)
        target = _side(window[2][1], number, located, window[2][2], done + pairs)
        pairs.append((source, target))
        position += 3
    return pairs


def _group_pair(located: Located, start: int, end: int, done: list[tuple[str, str]]) -> tuple[str, str]:
    """One bracketed pair: ``(BOS, blue)``, ``[BOS, blue]`` or ``(BOS→blue)``."""
    number = len(done) + 1
    text = located.text
    if not (text[start] in OPENERS and matching_close(text, start) == end - 1):
        raise read_error(
            Text("第 {i} 对应写成 (输入, 输出)", "pair {i} should look like (input, output)").format(i=number),
            located.at(start),
            show_pairs(done),
        )
    inner_start, inner_end = unwrap(text, start, end)
    if any(kind == "arrow" for kind, _, _ in _lex(text, inner_start, inner_end)):
        found = _arrow_pairs(located, inner_start, inner_end, done)
        if len(found) == 1:
            return found[0]
    sides = split_top(text, inner_start, inner_end, is_token_separator, merge_runs=True)
    if len(sides) != 2:
        raise read_error(
            Text("第 {i} 对应恰好有两个词元，读到 {n} 个", "pair {i} should hold exactly two tokens, read {n}").format(
                i=number, n=len(sides)
            ),
            located.at(start),
            show_pairs(done),
        )
    return (
        _side(text[sides[0][0] : sides[0][1]], number, located, sides[0][0], done),
        _side(text[sides[1][0] : sides[1][1]], number, located, sides[1][0], done),
    )


def _pairs_from_text(raw: str) -> list[tuple[str, str]]:
    """Pairs from typed text, either ``a→b, b→c`` or ``(a, b), (b, c)``, optionally inside brackets."""
    located = without_closing_stop(locate(raw))
    text = located.text
    start, end = strip_range(text, 0, len(text))
    if start == end:
        raise empty_input()
    check_brackets(located)
    inner_start, inner_end = unwrap(text, start, end)
    inner_has_groups = any(char in OPENERS for char in top_level_chars(text, inner_start, inner_end))
    if (inner_start, inner_end) != (start, end) and (
        inner_has_groups or any(kind == "arrow" for kind, _, _ in _lex(text, inner_start, inner_end))
    ):
        start, end = inner_start, inner_end
    if not any(char in OPENERS for char in top_level_chars(text, start, end)):
        return _arrow_pairs(located, start, end, [])
    groups = split_groups(text, start, end)
    check_count(len(groups))
    pairs: list[tuple[str, str]] = []
    for piece_start, piece_end in groups:
        pairs.append(_group_pair(located, piece_start, piece_end, pairs))
    return pairs


def _pairs_from_list(items: Sequence[object]) -> list[tuple[str, str]]:
    """Typed list: ``[["BOS","blue"], ...]`` or ``["BOS→blue", ...]``."""
    guard(list(items), PAIRS_EXPECTED)
    pairs: list[tuple[str, str]] = []
    for number, item in enumerate(items, start=1):
        try:
            if isinstance(item, str):
                found = _pairs_from_text(item)
            elif isinstance(item, (list, tuple)) and len(item) == 2 and all(isinstance(side, str) for side in item):
                found = [(read_token(item[0]), read_token(item[1]))]
            else:
                found = []
        except ReadError as error:
            raise ReadError(
                Text("第 {i} 项：", "item {i}:").format(i=number) + error.message, None, show_pairs(pairs)
            ) from None
        if len(found) != 1:
            raise ReadError(
                Text("第 {i} 项应是一对 [输入, 输出]", "item {i} should be one [input, output] pair").format(i=number),
                None,
                show_pairs(pairs),
            )
        pairs.append(found[0])
    return pairs


def read_pairs(raw: object) -> list[tuple[str, str]]:
    """(input, output) token pairs from JSON or text such as ``BOS→blue, blue->door, door→., .→EOS``."""
    guard(raw, PAIRS_EXPECTED)
    if isinstance(raw, (list, tuple)):
        return _pairs_from_list(raw)
    if not isinstance(raw, str):
        raise wrong_type(PAIRS_EXPECTED, raw)
    as_json = parse_json_list(locate(raw).text.strip())
    return _pairs_from_list(as_json) if as_json is not None else _pairs_from_text(raw)


def show_pairs(pairs: Sequence[tuple[str, str]]) -> str | None:
    """Pairs as echoed back: ``BOS→blue, blue→door`` (None when there are none)."""
    return ", ".join(f"{source}→{target}" for source, target in pairs) or None
