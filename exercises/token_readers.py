"""Readers for token answers: one token and a token sequence (pairs of tokens: ``pair_readers``)."""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Sequence
from typing import Any

from exercises.comparators import canonical_token
from exercises.engine_errors import ReadError
from exercises.i18n import Text
from exercises.text_input import (
    Located,
    check_brackets,
    check_count,
    guard,
    locate,
    read_error,
    split_top,
    strip_range,
    unwrap,
    without_final_stop,
    wrong_type,
)
from exercises.typed_chars import TOKEN_MARKS, is_invisible, without_invisible

_QUOTES = "'\"`‘’“”「」『』"
ARROWS = "⇒⟶⟹→➔➜➡➝➞⇨↦"  # arrow characters students type or paste between tokens and in pairs
_TOKEN_PARTS = re.compile(r"<[^<>\s]*>|[.。]|[^.。<]+|<")
TOKENS_EXPECTED = Text("词元列表（如 blue door . EOS）", "a list of tokens (e.g. blue door . EOS)")

_TOKEN_MARK_TABLE = str.maketrans(TOKEN_MARKS)
_TAG = re.compile(r"<[^<>]+>")
_DASHES = re.compile(r"-+")
_WORD_SEPARATORS = re.compile(r"[\s,;、" + ARROWS + r"]+|-+>|=+>")


def is_token_separator(char: str) -> bool:
    """Whitespace, commas (ASCII or full width after NFKC), semicolons, the enumeration comma and arrows."""
    return char.isspace() or char in ",;、" + ARROWS


def parse_json_list(text: str) -> list[Any] | None:
    """The list in ``text`` when it is JSON text such as ``["blue","door"]``; None otherwise."""
    if not text.startswith("["):
        return None
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, list) else None


def split_tokens(piece: str) -> list[str]:
    """Canonical tokens in ``piece``; a period glued to a word becomes its own token, but ``<eos>`` stays whole.

    Arrows separate tokens, so a sequence typed ``blue → key → EOS`` reads as three tokens.
    """
    tokens: list[str] = []
    piece = without_invisible(piece).translate(_TOKEN_MARK_TABLE)
    for word in _WORD_SEPARATORS.split(piece):
        tokens.extend(canonical_token(part) for part in _TOKEN_PARTS.findall(word.strip(_QUOTES)))
    return [token for token in tokens if token]


def bad_character(token: str) -> str | None:
    """A bracket or quote left inside a token, or an angle bracket outside a whole tag such as ``<pad>``, which
    means the text was not what it seemed (``< eos >`` is not the three tokens ``<``, ``EOS``, ``>``)."""
    stray = "[](){}" + _QUOTES + ("" if _TAG.fullmatch(token) else "<>")
    return next((char for char in token if char in stray), None)


def _stray_dash(typed: str, count: int) -> bool:
    """Whether ``typed`` is only dashes inside a list of ``count`` tokens: ``blue - key`` uses the dash as a
    separator, and reading it as the token ``none`` ("no such token") would be a guess."""
    return count > 1 and bool(_DASHES.fullmatch(typed.strip().translate(_TOKEN_MARK_TABLE)))


STRAY_DASH = Text(
    "第 {i} 个词元「{t}」只是一个短横线；词元之间请用空格、逗号或箭头分隔",
    "token {i} '{t}' is only a dash; separate tokens with spaces, commas or arrows",
)


def _tokens_from_list(items: Sequence[object]) -> list[str]:
    """Typed list: each element is text holding exactly one token."""
    guard(list(items), TOKENS_EXPECTED)
    tokens: list[str] = []
    for number, item in enumerate(items, start=1):
        if not isinstance(item, str):
            raise ReadError(
                Text("第 {i} 项应为文本词元", "item {i} should be a text token").format(i=number)
                + wrong_type(Text("文本", "text"), item).message,
                None,
                " ".join(tokens) or None,
            )
        found = split_tokens(item)
        if len(found) != 1 or bad_character(found[0]):
            raise ReadError(
                Text(
                    "第 {i} 项应恰好是一个词元，读到「{t}」", "item {i} should be exactly one token, read '{t}'"
                ).format(i=number, t=item.strip()),
                None,
                " ".join(tokens) or None,
            )
        if _stray_dash(item, len(items)):
            raise ReadError(STRAY_DASH.format(i=number, t=item.strip()), None, " ".join(tokens) or None)
        tokens.append(found[0])
    return tokens


def _tokens_from_text(located: Located) -> list[str]:
    """Free text: tokens split at whitespace, commas, semicolons and 、, optionally inside brackets."""
    check_brackets(located)
    text = located.text
    start, end = unwrap(text, 0, len(text))
    tokens: list[str] = []
    pieces = split_top(text, start, end, is_token_separator, merge_runs=True)
    for piece_start, piece_end in pieces:
        if _stray_dash(text[piece_start:piece_end], len(pieces)):
            raise read_error(
                STRAY_DASH.format(i=len(tokens) + 1, t=text[piece_start:piece_end]),
                located.at(piece_start),
                " ".join(tokens) or None,
            )
        for token in split_tokens(text[piece_start:piece_end]):
            bad = bad_character(token)
            if bad:
                position = text.find(bad, piece_start)
                message = (
                    Text(
                        "第 {i} 个词元处有多余的「{c}」；标记请连写，如 <eos>",
                        "token {i} has a stray '{c}'; write a tag without spaces, e.g. <eos>",
                    )
                    if bad in "<>"
                    else Text("第 {i} 个词元「{t}」含有多余的「{c}」", "token {i} '{t}' contains a stray '{c}'")
                )
                raise read_error(
                    message.format(i=len(tokens) + 1, t=token, c=bad), located.at(position), " ".join(tokens) or None
                )
            tokens.append(token)
    if _numbered(tokens):
        raise read_error(NUMBERED, None, " ".join(tokens))
    tokens = _full_stops_joined(tokens)
    check_count(len(tokens))
    return tokens


NUMBERED = Text(
    "词元像是编了号（1. 2. …）；请只写词元本身，如 blue key . EOS",
    "the tokens look numbered (1. 2. …); write only the tokens, e.g. blue key . EOS",
)


def _numbered(tokens: list[str]) -> bool:
    """Whether the text was a numbered list, ``1. blue 2. key``: read as tokens, the numbers would be graded."""
    numbers = [int(token) for token, after in itertools.pairwise(tokens) if token.isdigit() and after == "."]
    return numbers[:2] == [1, 2]


def _full_stops_joined(tokens: list[str]) -> list[str]:
    """``full stop`` written as two words is the period token, as it is when written as one alias."""
    joined: list[str] = []
    for token in tokens:
        if joined and joined[-1].lower() == "full" and token.lower() == "stop":
            joined[-1] = canonical_token("full stop")
        else:
            joined.append(token)
    return joined


def empty_input() -> ReadError:
    """Empty text is never an answer (an empty list must be written ``[]``)."""
    return ReadError(Text("输入为空", "empty input"), 0, None)


def read_tokens(raw: object) -> list[str]:
    """A token sequence from a JSON list or from text such as ``blue door . EOS`` or ``红色 钥匙 。``."""
    guard(raw, TOKENS_EXPECTED)
    if isinstance(raw, (list, tuple)):
        return _tokens_from_list(raw)
    if not isinstance(raw, str):
        raise wrong_type(TOKENS_EXPECTED, raw)
    located = locate(raw)
    start, end = strip_range(located.text, 0, len(located.text))
    if start == end:
        raise empty_input()
    as_json = parse_json_list(located.text[start:end])
    return _tokens_from_list(as_json) if as_json is not None else _tokens_from_text(without_closing_stop(located))


def without_closing_stop(located: Located) -> Located:
    """Drop a full stop that ends the sentence rather than the sequence: after EOS or after a closing bracket.

    Nothing is ever predicted after EOS, so ``blue key . EOS。`` or ``[blue, key, ., EOS]。`` has four tokens.
    """
    trimmed = without_final_stop(located, ".。")
    if trimmed is located:
        return located
    before = trimmed.text.rstrip()
    if before.endswith(("]", ")")) or (split_tokens(before) or [""])[-1] == "EOS":
        return trimmed
    return located


def _without_sentence_stop(raw: str) -> str:
    """``red。`` on a one-token part is ``red`` ended as a Chinese sentence: the ``。`` is blanked. Never a ``.``: the
    period is a token of these vocabularies, so ``red.`` stays two tokens (and unreadable as one); and never a lone
    ``。``, which is the period token itself."""
    last = len(raw) - 1
    while last >= 0 and (raw[last].isspace() or is_invisible(raw[last])):
        last -= 1
    if last > 0 and raw[last] in "。｡" and raw[:last].strip() and without_invisible(raw[:last]).strip():
        return raw[:last] + " " * (len(raw) - last)
    return raw


def read_token(raw: object) -> str:
    """Exactly one token, such as ``door``, ``。`` or ``<eos>``; JSON null is the empty answer, as ``无`` is."""
    if raw is None:
        # A token part takes "no such token" (none, 无) as text; a JSON client sends it as null.
        return canonical_token("none")
    expected = Text("一个词元", "one token")
    guard(raw, expected)
    if not isinstance(raw, str):
        raise wrong_type(expected, raw)
    tokens = read_tokens(_without_sentence_stop(raw))
    if len(tokens) == 2 and tokens[1] == "." and tokens[0] != ".":
        raise ReadError(
            Text(
                "应填一个词元，读到 2 个：「{t}」和句号「.」；句号本身也是一个词元，若它只是句末标点，请删去",
                "expected one token, read 2: '{t}' and the period '.', which is a token itself; if it "
                "only ends your sentence, remove it",
            ).format(t=tokens[0]),
            None,
            " ".join(tokens),
        )
    if len(tokens) != 1:
        raise ReadError(
            Text("应填一个词元，读到 {n} 个", "expected one token, read {n}").format(n=len(tokens)),
            None,
            " ".join(tokens) or None,
        )
    return tokens[0]
