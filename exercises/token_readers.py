"""Readers for token answers: one token, a token sequence, and (input, output) pairs."""
from __future__ import annotations

import json
import re
from collections.abc import Sequence

from exercises.comparators import canonical_token
from exercises.errors import ReadError
from exercises.typed_chars import TOKEN_MARKS, is_invisible, without_invisible
from exercises.i18n import Text
from exercises.text_input import (
    OPENERS, Located, check_brackets, check_count, guard, locate, matching_close, read_error, split_groups,
    split_top, strip_range, top_level_chars, unwrap, without_final_stop, wrong_type,
)

_QUOTES = "'\"`‘’“”「」『』"
_ARROWS = "⇒⟶⟹→➔➜➡➝➞⇨↦"  # arrow characters students type or paste between tokens and in pairs
_TOKEN_PARTS = re.compile(r"<[^<>\s]*>|[.。]|[^.。<]+|<")
_PAIR_LEXER = re.compile(
    r"(?P<tag></?[A-Za-z]+>)|(?P<arrow>-+>|=+>|[" + _ARROWS + r">:])|(?P<sep>[\s,;、]+)"
    r"|(?P<word>(?:(?!-+>|=+>)[^\s,;、<>:" + _ARROWS + r"])+)|(?P<other>.)", re.S)
TOKENS_EXPECTED = Text("词元列表（如 blue door . EOS）", "a list of tokens (e.g. blue door . EOS)")
PAIRS_EXPECTED = Text("输入→输出 对的列表（如 BOS→blue, blue→door）", "a list of input→output pairs (e.g. BOS→blue, blue→door)")

_TOKEN_MARK_TABLE = str.maketrans(TOKEN_MARKS)
_TAG = re.compile(r"<[^<>]+>")
_DASHES = re.compile(r"-+")
_WORD_SEPARATORS = re.compile(r"[\s,;、" + _ARROWS + r"]+|-+>|=+>")


def _is_token_separator(char: str) -> bool:
    """Whitespace, commas (ASCII or full width after NFKC), semicolons, the enumeration comma and arrows."""
    return char.isspace() or char in ",;、" + _ARROWS


def parse_json_list(text: str) -> list | None:
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


def _bad_character(token: str) -> str | None:
    """A bracket or quote left inside a token, or an angle bracket outside a whole tag such as ``<pad>``, which
    means the text was not what it seemed (``< eos >`` is not the three tokens ``<``, ``EOS``, ``>``)."""
    stray = "[](){}" + _QUOTES + ("" if _TAG.fullmatch(token) else "<>")
    return next((char for char in token if char in stray), None)


def _stray_dash(typed: str, count: int) -> bool:
    """Whether ``typed`` is only dashes inside a list of ``count`` tokens: ``blue - key`` uses the dash as a
    separator, and reading it as the token ``none`` ("no such token") would be a guess."""
    return count > 1 and bool(_DASHES.fullmatch(typed.strip().translate(_TOKEN_MARK_TABLE)))


STRAY_DASH = Text("第 {i} 个词元「{t}」只是一个短横线；词元之间请用空格、逗号或箭头分隔",
                  "token {i} '{t}' is only a dash; separate tokens with spaces, commas or arrows")


def _tokens_from_list(items: Sequence[object]) -> list[str]:
    """Typed list: each element is text holding exactly one token."""
    guard(list(items), TOKENS_EXPECTED)
    tokens: list[str] = []
    for number, item in enumerate(items, start=1):
        if not isinstance(item, str):
            raise ReadError(Text("第 {i} 项应为文本词元", "item {i} should be a text token").format(i=number)
                            + wrong_type(Text("文本", "text"), item).message, None, " ".join(tokens) or None)
        found = split_tokens(item)
        if len(found) != 1 or _bad_character(found[0]):
            raise ReadError(Text("第 {i} 项应恰好是一个词元，读到「{t}」", "item {i} should be exactly one token, read '{t}'")
                            .format(i=number, t=item.strip()), None, " ".join(tokens) or None)
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
    pieces = split_top(text, start, end, _is_token_separator, merge_runs=True)
    for piece_start, piece_end in pieces:
        if _stray_dash(text[piece_start:piece_end], len(pieces)):
            raise read_error(STRAY_DASH.format(i=len(tokens) + 1, t=text[piece_start:piece_end]),
                             located.at(piece_start), " ".join(tokens) or None)
        for token in split_tokens(text[piece_start:piece_end]):
            bad = _bad_character(token)
            if bad:
                position = text.find(bad, piece_start)
                message = (Text("第 {i} 个词元处有多余的「{c}」；标记请连写，如 <eos>",
                                "token {i} has a stray '{c}'; write a tag without spaces, e.g. <eos>")
                           if bad in "<>" else
                           Text("第 {i} 个词元「{t}」含有多余的「{c}」", "token {i} '{t}' contains a stray '{c}'"))
                raise read_error(message.format(i=len(tokens) + 1, t=token, c=bad),
                                 located.at(position), " ".join(tokens) or None)
            tokens.append(token)
    if _numbered(tokens):
        raise read_error(NUMBERED, None, " ".join(tokens))
    tokens = _full_stops_joined(tokens)
    check_count(len(tokens))
    return tokens


NUMBERED = Text("词元像是编了号（1. 2. …）；请只写词元本身，如 blue key . EOS",
                "the tokens look numbered (1. 2. …); write only the tokens, e.g. blue key . EOS")


def _numbered(tokens: list[str]) -> bool:
    """Whether the text was a numbered list, ``1. blue 2. key``: read as tokens, the numbers would be graded."""
    numbers = [int(token) for token, after in zip(tokens, tokens[1:]) if token.isdigit() and after == "."]
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


def _empty() -> ReadError:
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
        raise _empty()
    as_json = parse_json_list(located.text[start:end])
    return _tokens_from_list(as_json) if as_json is not None else _tokens_from_text(_without_closing_stop(located))


def _without_closing_stop(located: Located) -> Located:
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
        raise ReadError(Text("应填一个词元，读到 2 个：「{t}」和句号「.」；句号本身也是一个词元，若它只是句末标点，请删去",
                             "expected one token, read 2: '{t}' and the period '.', which is a token itself; if it "
                             "only ends your sentence, remove it").format(t=tokens[0]), None, " ".join(tokens))
    if len(tokens) != 1:
        raise ReadError(Text("应填一个词元，读到 {n} 个", "expected one token, read {n}").format(n=len(tokens)),
                        None, " ".join(tokens) or None)
    return tokens[0]


def _lex(text: str, start: int, end: int) -> list[tuple[str, str, int]]:
    """(kind, text, index) items of pair text; separators are dropped."""
    return [(m.lastgroup or "other", m.group(), start + m.start()) for m in _PAIR_LEXER.finditer(text[start:end])
            if m.lastgroup != "sep"]


def _side(word: str, pair_number: int, located: Located, index: int, done: list[tuple[str, str]]) -> str:
    """One side of a pair: a single canonical token."""
    tokens = split_tokens(word)
    if len(tokens) != 1 or _bad_character(tokens[0]):
        raise read_error(Text("第 {i} 对中「{w}」应是一个词元（句号请单独写）", "pair {i}: '{w}' should be one token "
                              "(write a period as its own token)").format(i=pair_number, w=word),
                         located.at(index), show_pairs(done))
    return tokens[0]


def _arrow_pairs(located: Located, start: int, end: int, done: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Pairs written ``in→out`` separated by commas, semicolons, 、 or new lines."""
    items = _lex(located.text, start, end)
    check_count(len(items) // 3)
    pairs: list[tuple[str, str]] = []
    position = 0
    while position < len(items):
        number = len(done) + len(pairs) + 1
        window = items[position:position + 3]
        bad = next((item for item, want in zip(window, ("side", "arrow", "side"))
                    if (item[0] == "arrow") != (want == "arrow") or item[0] == "other"), None)
        if bad is not None:
            raise read_error(Text("第 {i} 对应写成「输入→输出」，在「{t}」处读不下去",
                                  "pair {i} should look like input→output; stuck at '{t}'").format(i=number, t=bad[1]),
                             located.at(bad[2]), show_pairs(done + pairs))
        if len(window) < 3:
            raise read_error(Text("第 {i} 对不完整，应写成「输入→输出」", "pair {i} is incomplete; write it as input→output")
                             .format(i=number), located.at(end), show_pairs(done + pairs))
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
        raise read_error(Text("第 {i} 对应写成 (输入, 输出)", "pair {i} should look like (input, output)").format(i=number),
                         located.at(start), show_pairs(done))
    inner_start, inner_end = unwrap(text, start, end)
    if any(kind == "arrow" for kind, _, _ in _lex(text, inner_start, inner_end)):
        found = _arrow_pairs(located, inner_start, inner_end, done)
        if len(found) == 1:
            return found[0]
    sides = split_top(text, inner_start, inner_end, _is_token_separator, merge_runs=True)
    if len(sides) != 2:
        raise read_error(Text("第 {i} 对应恰好有两个词元，读到 {n} 个", "pair {i} should hold exactly two tokens, read {n}")
                         .format(i=number, n=len(sides)), located.at(start), show_pairs(done))
    return (_side(text[sides[0][0]:sides[0][1]], number, located, sides[0][0], done),
            _side(text[sides[1][0]:sides[1][1]], number, located, sides[1][0], done))


def _pairs_from_text(raw: str) -> list[tuple[str, str]]:
    """Pairs from typed text, either ``a→b, b→c`` or ``(a, b), (b, c)``, optionally inside brackets."""
    located = _without_closing_stop(locate(raw))
    text = located.text
    start, end = strip_range(text, 0, len(text))
    if start == end:
        raise _empty()
    check_brackets(located)
    inner_start, inner_end = unwrap(text, start, end)
    inner_has_groups = any(char in OPENERS for char in top_level_chars(text, inner_start, inner_end))
    if (inner_start, inner_end) != (start, end) and (inner_has_groups or any(
            kind == "arrow" for kind, _, _ in _lex(text, inner_start, inner_end))):
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
            raise ReadError(Text("第 {i} 项：", "item {i}:").format(i=number) + error.message, None,
                            show_pairs(pairs)) from None
        if len(found) != 1:
            raise ReadError(Text("第 {i} 项应是一对 [输入, 输出]", "item {i} should be one [input, output] pair")
                            .format(i=number), None, show_pairs(pairs))
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
