"""Shared plumbing for the readers: input guards, normalised text that remembers positions, bracket splitting."""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from exercises.engine_errors import ReadError
from exercises.i18n import Text
from exercises.typed_chars import normalise_with_map

MAX_TEXT_CHARS = 10_000
MAX_LIST_ITEMS = 1_000
OPENERS = {"[": "]", "(": ")", "{": "}"}
CLOSERS = {close: open_ for open_, close in OPENERS.items()}


def where(position: int) -> Text:
    """How a message names a (0-based) character position to a person: 1-based."""
    return Text("（第 {n} 个字符处）", "(at character {n})").format(n=position + 1)


def read_error(message: Text, position: int | None = None, interpreted: str | None = None) -> ReadError:
    """A ReadError whose message ends by naming the position when there is one."""
    return ReadError(message + where(position) if position is not None else message, position, interpreted)


def describe(raw: object) -> Text:
    """What kind of JSON value a person sent, for 'expected X, got Y' messages."""
    if raw is None:
        return Text("空值（null）", "null")
    if isinstance(raw, bool):
        return Text("布尔值", "true/false")
    if isinstance(raw, (int, float)):
        return Text("数字", "a number")
    if isinstance(raw, str):
        return Text("文本", "text")
    if isinstance(raw, (list, tuple)):
        return Text("列表", "a list")
    return Text("对象", "an object")


def wrong_type(expected: Text, raw: object) -> ReadError:
    """The error for a JSON value of the wrong type."""
    got = describe(raw)
    return ReadError(Text(f"应填{expected.zh}，收到的是{got.zh}", f"expected {expected.en}, got {got.en}"))


def guard(raw: object, expected: Text) -> None:
    """Refuse objects, over-long text and over-long lists before any parsing work."""
    if isinstance(raw, dict) or not isinstance(raw, (str, int, float, bool, list, tuple, type(None))):
        raise wrong_type(expected, raw)
    if isinstance(raw, str) and len(raw) > MAX_TEXT_CHARS:
        raise ReadError(
            Text("输入过长：{n} 个字符，最多 {m} 个", "input too long: {n} characters, at most {m}").format(
                n=len(raw), m=MAX_TEXT_CHARS
            )
        )
    if isinstance(raw, (list, tuple)) and len(raw) > MAX_LIST_ITEMS:
        raise ReadError(
            Text("列表过长：{n} 项，最多 {m} 项", "list too long: {n} items, at most {m}").format(
                n=len(raw), m=MAX_LIST_ITEMS
            )
        )


BIDI_CONTROLS = frozenset(chr(code) for code in [*range(0x202A, 0x202F), *range(0x2066, 0x206A)])
ALLOWED_CONTROLS = frozenset("\t\n\r")
MAX_WORD_CHARS = 64  # far longer than any vocabulary word, unit or number anyone types
WORD_RUN = re.compile(r"\w+")
UNREADABLE_CHARACTER = Text(
    "有一个无法读取的字符（{code}，{kind}），答案不会被保存；请删掉它后重新输入",
    "there is an unreadable character ({code}, {kind}); the answer is not kept: delete it and type the answer again",
)
CONTROL_KIND = Text("控制字符", "a control character")
BIDI_KIND = Text("改变文字方向的字符", "a text-direction override")
WORD_TOO_LONG = Text(
    "有一个 {n} 个字符长的词，比任何可能的答案词都长得多，无法读取（最多 {m} 个字符）",
    "one word is {n} characters long, far longer than any answer word, so it cannot be read (at most {m} characters)",
)


def refuse_unreadable(raw: object) -> None:
    """Refuse typed text holding a control character (NUL and the like, which nothing can store or show), a
    text-direction override (which makes what is shown differ from what was typed) or one word far longer than any
    answer word: such text is never read, stored or echoed. Strings inside lists are checked the same way."""
    if isinstance(raw, (list, tuple)):
        for item in raw[: MAX_LIST_ITEMS + 1]:
            refuse_unreadable(item)
        return
    if not isinstance(raw, str):
        return
    # Control characters and overrides are never printable, so printable text (nearly every answer) skips the scan.
    if not raw.isprintable():
        _refuse_unreadable_characters(raw)
    for run in WORD_RUN.finditer(raw):
        if len(run.group()) > MAX_WORD_CHARS:
            raise read_error(WORD_TOO_LONG.format(n=len(run.group()), m=MAX_WORD_CHARS), run.start())


def _refuse_unreadable_characters(text: str) -> None:
    """Refuse the first control character or text-direction override in ``text``, naming it and where it is."""
    for index, char in enumerate(text):
        bidi = char in BIDI_CONTROLS
        if bidi or (unicodedata.category(char) == "Cc" and char not in ALLOWED_CONTROLS):
            kind = BIDI_KIND if bidi else CONTROL_KIND
            raise read_error(
                Text(
                    UNREADABLE_CHARACTER.zh.format(code=f"U+{ord(char):04X}", kind=kind.zh),
                    UNREADABLE_CHARACTER.en.format(code=f"U+{ord(char):04X}", kind=kind.en),
                ),
                index,
            )


def check_count(count: int) -> None:
    """Refuse more than MAX_LIST_ITEMS items read out of text."""
    if count > MAX_LIST_ITEMS:
        raise ReadError(
            Text("项数过多：{n} 项，最多 {m} 项", "too many items: {n}, at most {m}").format(n=count, m=MAX_LIST_ITEMS)
        )


def finite_float(raw: int | float) -> float:
    """A JSON number as a float; NaN, infinities and huge integers are invalid input."""
    try:
        value = float(raw)
    except OverflowError:
        value = math.inf
    if not math.isfinite(value):
        raise ReadError(
            Text("不是有限数（NaN 和无穷大不能作为答案）", "not a finite number (NaN and infinity are not accepted)")
        )
    return value


def format_number(value: float) -> str:
    """A number with up to 6 significant digits, as echoed back to the person."""
    text = f"{value:.6g}"
    return "0" if text == "-0" else text


def format_numbers(values: Sequence[float]) -> str:
    """A list of numbers as ``[0, 0.693147]``."""
    return "[" + ", ".join(format_number(v) for v in values) + "]"


@dataclass(frozen=True)
class Located:
    """Normalised text plus, for each of its characters, the index in what the person typed."""

    raw: str
    text: str
    origin: tuple[int, ...]

    def at(self, index: int) -> int:
        """Position in the typed text of normalised index ``index`` (the end maps to the end)."""
        return self.origin[index] if 0 <= index < len(self.origin) else len(self.raw)

    def prefix(self, index: int) -> str | None:
        """What was typed before normalised index ``index``, stripped (None when nothing)."""
        return self.raw[: self.at(index)].strip() or None


def locate(raw: str, arithmetic: bool = False) -> Located:
    """Normalise typed text (NFKC; with ``arithmetic`` also minus signs, ``×``, superscripts)."""
    text, origin = normalise_with_map(raw, arithmetic)
    return Located(raw, text, tuple(origin))


FULL_STOPS = "。"


def without_final_stop(located: Located, stops: str = FULL_STOPS) -> Located:
    """The text without one sentence-ending ``。`` (a number or list typed as a Chinese sentence)."""
    start, end = strip_range(located.text, 0, len(located.text))
    if end > start and located.text[end - 1] in stops:
        return Located(located.raw, located.text[: end - 1], located.origin[: end - 1])
    return located


def check_brackets(located: Located) -> None:
    """Every ``(``, ``[`` and ``{`` is closed by its own kind, in order."""
    stack: list[int] = []
    for index, char in enumerate(located.text):
        if char in OPENERS:
            stack.append(index)
        elif char in CLOSERS:
            if not stack or located.text[stack[-1]] != CLOSERS[char]:
                raise read_error(
                    Text(f"「{char}」没有配对的左括号", f"'{char}' has no matching opening bracket"),
                    located.at(index),
                    located.prefix(index),
                )
            stack.pop()
    if stack:
        opened = stack[-1]
        raise read_error(
            Text(f"括号「{located.text[opened]}」没有闭合", f"bracket '{located.text[opened]}' is never closed"),
            located.at(opened),
            located.prefix(opened),
        )


def strip_range(text: str, start: int, end: int) -> tuple[int, int]:
    """Shrink ``[start, end)`` past surrounding whitespace."""
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def matching_close(text: str, open_index: int) -> int:
    """Index of the bracket closing the one at ``open_index`` (brackets already checked as balanced)."""
    depth = 0
    for index in range(open_index, len(text)):
        if text[index] in OPENERS:
            depth += 1
        elif text[index] in CLOSERS:
            depth -= 1
            if depth == 0:
                return index
    return len(text)


def unwrap(text: str, start: int, end: int) -> tuple[int, int]:
    """Drop one pair of brackets that encloses the whole (stripped) range, if there is one."""
    start, end = strip_range(text, start, end)
    if end - start >= 2 and text[start] in OPENERS and matching_close(text, start) == end - 1:
        return strip_range(text, start + 1, end - 1)
    return start, end


def split_top(
    text: str, start: int, end: int, is_separator: Callable[[str], bool], merge_runs: bool = False
) -> list[tuple[int, int]]:
    """Split ``[start, end)`` at separators outside brackets into stripped ranges (empty ones kept unless merged)."""
    pieces: list[tuple[int, int]] = []
    depth = 0
    piece_start = start
    for index in range(start, end):
        char = text[index]
        depth += 1 if char in OPENERS else -1 if char in CLOSERS else 0
        if depth == 0 and is_separator(char):
            pieces.append(strip_range(text, piece_start, index))
            piece_start = index + 1
    pieces.append(strip_range(text, piece_start, end))
    if merge_runs:
        return [piece for piece in pieces if piece[0] < piece[1]]
    if pieces and pieces[-1][0] == pieces[-1][1] and len(pieces) > 1:
        pieces.pop()  # one trailing separator, as in "1, 2," is harmless
    return pieces


def split_groups(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """Split ``[start, end)`` at separators outside brackets and between touching groups such as ``[1,2][3,4]``."""
    pieces: list[tuple[int, int]] = []
    for piece_start, piece_end in split_top(text, start, end, lambda c: c.isspace() or c in ",;、", merge_runs=True):
        depth, cut = 0, piece_start
        for index in range(piece_start, piece_end):
            if text[index] in OPENERS:
                if depth == 0 and index > cut and text[index - 1] in CLOSERS:
                    pieces.append((cut, index))
                    cut = index
                depth += 1
            elif text[index] in CLOSERS:
                depth -= 1
        pieces.append((cut, piece_end))
    return pieces


def top_level_chars(text: str, start: int, end: int) -> str:
    """The characters of ``[start, end)`` that sit outside every bracket."""
    depth = 0
    outside = []
    for char in text[start:end]:
        if char in CLOSERS:
            depth -= 1
        elif depth == 0:
            outside.append(char)
        if char in OPENERS:
            depth += 1
    return "".join(outside)
