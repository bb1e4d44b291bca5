"""Read what a person typed (or sent as JSON) into Python values, one reader per answer kind."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping, Sequence

from exercises.comparators import canonical_token
from exercises.engine_errors import ReadError
from exercises.expr import evaluate
from exercises.i18n import Text, normalise_lang
from exercises.number_readers import read_matrix, read_number, read_vector, read_vectors
from exercises.pair_readers import read_pairs, show_pairs
from exercises.text_input import (
    check_count,
    finite_float,
    format_number,
    format_numbers,
    guard,
    matching_close,
    wrong_type,
)
from exercises.token_readers import parse_json_list, read_token, read_tokens
from exercises.typed_chars import BRACKETS, without_invisible
from exercises.word_readers import read_enum, words

__all__ = [
    "READERS",
    "canonical_token",
    "display",
    "read_bool",
    "read_choice",
    "read_choices",
    "read_enum",
    "read_int",
    "read_kind",
    "read_matrix",
    "read_number",
    "read_optional_int",
    "read_pairs",
    "read_token",
    "read_tokens",
    "read_vector",
    "read_vectors",
]

_NULL_WORDS = {"null", "none", "nil", "never", "n/a", "na", "-", "—", "–", "无", "没有", "不存在", "从不", "不会"}
_TRUE_WORDS = {"true", "t", "yes", "y", "1", "是", "对", "能", "会", "真", "正确", "是的", "可以", "✓", "√"}
_FALSE_WORDS = {
    "false",
    "f",
    "no",
    "n",
    "0",
    "否",
    "错",
    "不能",
    "不会",
    "假",
    "不是",
    "不对",
    "错误",
    "不可以",
    "不",
    "✗",
    "×",
    "没有",
    "没",
    "不全是",
    "并非",
    "并不是",
}
NO_SUCH_TOKEN = "none"  # what the token readers make of none, null, 无, 没有 ... (comparators._NONE)
_PLAIN_INT = re.compile(r"[+-]?\d+")
_GROUPED_INT = re.compile(r"[+-]?\d{1,3}(,\d{3})+")
_SPACED_INT = re.compile(r"[+-]?\d{1,3}( \d{3})+")  # "1 000 000", thousands set apart by spaces (SI style)
_CHOICE = re.compile(r"(?:(\d+)\s*[.):、=\-–—]?\s*)?[(\[]?([a-z])[)\].:、]?")
_BRACKET_TABLE = str.maketrans(BRACKETS)
# "1. b", "2) c", "3、a": an item number is glued to its letter (as "1.b") before the text is split.
# "(1)B (2)C" / "（1）B（2）C": an item number in brackets is written "1." (and set apart) before anything else.
_BRACKETED_NUMBER = re.compile(r"[(\[](\d+)[)\]]\s*(?=[(\[]?[A-Za-z](?![A-Za-z]))")
_SPACED_NUMBER = re.compile(r"(?<![\w.])(\d+)\s*(?:([.):、=\-–—])\s*|\s+)(?=[(\[]?[A-Za-z](?![A-Za-z]))")
_MAX_EXACT_FLOAT_INT = 2**53
_MAX_INT_DIGITS = 100
INT_EXPECTED = Text("一个整数（如 4）", "a whole number (e.g. 4)")
BOOL_EXPECTED = Text("是或否（true/false、是/否、对/错、能/不能）", "yes or no (true/false, 是/否, 对/错, 能/不能)")
CHOICE_EXPECTED = Text("一个选项字母 a–z", "one option letter a–z")


def _empty() -> ReadError:
    """Empty input is never an answer."""
    return ReadError(Text("输入为空", "empty input"), 0, None)


def read_int(raw: object) -> int:
    """A whole number: ``4``, ``4.0`` (JSON), ``" ４ "``, ``64^2``; never ``true`` or ``4.5``."""
    guard(raw, INT_EXPECTED)
    if isinstance(raw, bool) or not isinstance(raw, (int, float, str)):
        raise wrong_type(INT_EXPECTED, raw)
    if isinstance(raw, int):
        if abs(raw) >= 10**_MAX_INT_DIGITS:  # a JSON integer of any length arrives here; echoing it would fail
            raise _too_long()
        return raw
    if isinstance(raw, float):
        value = finite_float(raw)
    else:
        raw = raw.rstrip().removesuffix("。")  # "4。" typed as a Chinese sentence
        text = unicodedata.normalize("NFKC", without_invisible(raw)).strip()
        if not text:
            raise _empty()
        # NFKC turns a superscript into a digit ("1000²" into "10002"): such text is an expression, not digits.
        superscript = any(unicodedata.category(char) == "No" for char in raw)
        if not superscript and (
            _PLAIN_INT.fullmatch(text) or _GROUPED_INT.fullmatch(text) or _SPACED_INT.fullmatch(text)
        ):
            if len(text) > _MAX_INT_DIGITS:  # also keeps int() below Python's digit limit
                raise _too_long(_MAX_INT_DIGITS)
            return int(text.replace(",", "").replace(" ", ""))
        if "," in text and re.fullmatch(r"[+-]?[\d,]+", text):
            # Digits and commas that are not thousands in threes ("100,00", "1,5"): a decimal comma or a slip.
            raise ReadError(
                Text(
                    "应填一个整数；逗号只能三位一组分隔千位（如 10,000），也可以不写逗号；小数点请用「.」",
                    "expected a whole number; a comma may only group thousands in threes (e.g. 10,000), "
                    "or leave commas out; a decimal point is written '.'",
                ),
                next(i for i, char in enumerate(raw) if unicodedata.normalize("NFKC", char) == ","),
                None,
            )
        try:
            value = evaluate(raw, advertise=False)
        except ReadError as error:
            raise ReadError(
                Text("应填一个整数。", "expected a whole number.") + error.message, error.position, error.interpreted
            ) from None
    if value.is_integer() and abs(value) > _MAX_EXACT_FLOAT_INT:
        raise ReadError(
            Text(
                "整数 {v} 太大，无法按小数或表达式精确读出；请直接写出全部数字（如 603979776）",
                "the whole number {v} is too large to be read exactly as a decimal or an expression; "
                "write out all its digits (e.g. 603979776)",
            ).format(v=format_number(value)),
            None,
            format_number(value),
        )
    if not value.is_integer():
        raise ReadError(
            Text("应填一个整数，读到 {v}", "expected a whole number, read {v}").format(v=format_number(value)),
            None,
            format_number(value),
        )
    return int(value)


def _too_long(position: int | None = None) -> ReadError:
    """A whole number with more digits than any answer has."""
    return ReadError(
        Text("整数过长（超过 {m} 位）", "whole number too long (over {m} digits)").format(m=_MAX_INT_DIGITS),
        position,
        None,
    )


def read_optional_int(raw: object) -> int | None:
    """A whole number, or null written as JSON null, ``null``, ``none``, ``无``, ``不存在``, ``-``, ``never``..."""
    if raw is None:
        return None
    if isinstance(raw, str) and len(raw) <= 100 and words(raw) in _NULL_WORDS and raw.strip():
        return None
    return read_int(raw)


def read_bool(raw: object, aliases: Mapping[str, Iterable[str]] | None = None) -> bool:
    """Yes or no: JSON true/false, or ``true/false/yes/no/是/否/对/错/能/不能/1/0`` as text; ``aliases`` adds the words
    one question makes unambiguous (``相同`` for "are they equal?") under ``"true"`` and ``"false"``."""
    guard(raw, BOOL_EXPECTED)
    if isinstance(raw, bool):
        return raw
    if not isinstance(raw, str):
        raise wrong_type(BOOL_EXPECTED, raw)
    word = words(raw)
    if not raw.strip():
        raise _empty()
    extra = aliases or {}
    if word in _TRUE_WORDS or word in {words(name) for name in extra.get("true", ())}:
        return True
    if word in _FALSE_WORDS or word in {words(name) for name in extra.get("false", ())}:
        return False
    raise ReadError(
        Text(
            "无法读作是/否：「{w}」；可填 true/false、是/否、对/错、能/不能",
            "cannot read '{w}' as yes/no; write true/false, yes/no, 是/否, 对/错 or 能/不能",
        ).format(w=raw.strip()[:40]),
        0,
        None,
    )


def offered(letters: list[str], options: Sequence[str], *, single: bool) -> list[str]:
    """``letters`` if each is one of ``options``; a letter that is not offered cannot be graded (invalid)."""
    for number, letter in enumerate(letters, start=1):
        if letter not in options:
            shown = ", ".join(options)
            message = Text("「{c}」不是选项之一；可选：{o}", "'{c}' is not one of the options {o}").format(
                c=letter, o=shown
            )
            if not single:
                message = Text("第 {i} 题：", "item {i}:").format(i=number) + message
            raise ReadError(message, None, ", ".join(letters[: number - 1]) or None)
    return letters


def _choice_letter(piece: str, position: int | None) -> str:
    """One option letter from ``b``, ``B``, ``(b)``, ``b.``, ``b)``, ``Ｂ``, or numbered ``2b``."""
    match = _CHOICE.fullmatch(words(piece))
    if not match:
        raise ReadError(
            Text("无法读作选项字母：「{p}」", "cannot read '{p}' as an option letter").format(p=piece.strip()[:40])
        )
    shown = piece.strip()[:40]
    if match.group(1) and position is None:
        raise ReadError(
            Text("单个选项前不应有题号：「{p}」", "a single option takes no item number: '{p}'").format(p=shown)
        )
    if match.group(1) and match.group(1).lstrip("0") != str(position):
        raise ReadError(Text("「{p}」的题号应为 {n}", "'{p}' should be numbered {n}").format(p=shown, n=position))
    return match.group(2)


def read_choice(raw: object) -> str:
    """One option id, a lower-case letter a–z."""
    guard(raw, CHOICE_EXPECTED)
    if not isinstance(raw, str):
        raise wrong_type(CHOICE_EXPECTED, raw)
    if not raw.strip():
        raise _empty()
    return _choice_letter(raw, None)


def read_choices(raw: object) -> list[str]:
    """Option ids in item order: ``a, c, b``, ``a c b``, ``acb``, ``1a 2c 3b`` or a JSON list."""
    expected = Text("选项字母列表（如 a, c, b）", "a list of option letters (e.g. a, c, b)")
    guard(raw, expected)
    if isinstance(raw, str):
        text = unicodedata.normalize("NFKC", without_invisible(raw).translate(_BRACKET_TABLE)).strip()
        if not text:
            raise _empty()
        # "bdaccadb." / "BDACCADB。": a sentence's final punctuation, not part of the last letter.
        text = text.rstrip(".。!?").rstrip() or text
        as_json = parse_json_list(text)
        if as_json is not None:
            return read_choices(as_json)
        inner = text[1:-1] if text[:1] == "[" and matching_close(text, 0) == len(text) - 1 else text
        inner = _BRACKETED_NUMBER.sub(lambda match: f" {match.group(1)}.", inner).strip()
        inner = _SPACED_NUMBER.sub(lambda match: match.group(1) + ("." if match.group(2) else ""), inner)
        pieces = [piece for piece in re.split(r"[\s,;、/|]+|(?<=[\])])(?=[\[(])", inner) if piece]
        if len(pieces) == 1 and re.fullmatch(r"[A-Za-z]{2,}", pieces[0]):
            pieces = list(pieces[0])
        elif len(pieces) == 1 and re.fullmatch(r"(?:\d+[A-Za-z]){2,}", pieces[0]):
            pieces = re.findall(r"\d+[A-Za-z]", pieces[0])  # "1b2d3a": the item numbers still have to run 1, 2, 3
    elif isinstance(raw, (list, tuple)):
        pieces = list(raw)
    else:
        raise wrong_type(expected, raw)
    check_count(len(pieces))
    letters: list[str] = []
    for number, piece in enumerate(pieces, start=1):
        try:
            if not isinstance(piece, str):
                raise wrong_type(CHOICE_EXPECTED, piece)
            letters.append(_choice_letter(piece, number))
        except ReadError as error:
            raise ReadError(
                Text("第 {i} 题：", "item {i}:").format(i=number) + error.message, None, ", ".join(letters) or None
            ) from None
    return letters


def display(kind: str, value: object, lang: str = "zh") -> str:
    """The canonical echo of what was read ("interpreted as ..."), in ``lang`` where words are involved."""
    if value is None:
        return "null" if normalise_lang(lang) == "en" else "无"  # both are read back as None
    if kind == "token" and value == NO_SUCH_TOKEN and normalise_lang(lang) != "en":
        return "无"  # "no such token": the Chinese prompts ask for 无, and the token reader reads it as this
    if kind == "number":
        return format_number(float(value))  # type: ignore[arg-type]
    if kind == "bool":
        words = ("yes", "no") if normalise_lang(lang) == "en" else ("是", "否")  # as the hints ask: "yes / no"
        return words[0] if value else words[1]
    if kind == "tokens":
        return " ".join(str(token) for token in value)  # type: ignore[attr-defined]
    if kind == "pairs":
        return show_pairs([tuple(pair) for pair in value]) or ""  # type: ignore[attr-defined]
    if kind == "vector":
        return format_numbers(value)  # type: ignore[arg-type]
    if kind in ("matrix", "vectors"):
        return "[" + ", ".join(format_numbers(row) for row in value) + "]"  # type: ignore[attr-defined]
    if kind == "choices":
        return ", ".join(str(letter) for letter in value)  # type: ignore[attr-defined]
    return str(value)


READERS: Mapping[str, Callable[..., object]] = {
    "number": read_number,
    "int": read_int,
    "optional_int": read_optional_int,
    "bool": read_bool,
    "token": read_token,
    "tokens": read_tokens,
    "pairs": read_pairs,
    "vector": read_vector,
    "matrix": read_matrix,
    "vectors": read_vectors,
    "choice": read_choice,
    "choices": read_choices,
}
_TAKES_SYMBOLS = {"number", "vector", "matrix", "vectors"}


def read_kind(
    kind: str,
    raw: object,
    symbols: Mapping[str, float] | None = None,
    aliases: Mapping[str, Iterable[str]] | None = None,
    options: Sequence[str] | None = None,
) -> object:
    """Read ``raw`` as answer kind ``kind`` (``enum`` needs ``aliases``; ``choice``/``choices`` may name the
    ``options`` offered); unknown kinds are a programming error."""
    if kind == "enum":
        if aliases is None:
            raise ValueError("kind 'enum' needs aliases")
        return read_enum(raw, aliases)
    if kind == "bool" and aliases is not None:
        return read_bool(raw, aliases)
    if kind == "choice" and options is not None:
        return offered([read_choice(raw)], options, single=True)[0]
    if kind == "choices" and options is not None:
        return offered(read_choices(raw), options, single=False)
    reader = READERS[kind]
    return reader(raw, symbols=symbols) if kind in _TAKES_SYMBOLS else reader(raw)
