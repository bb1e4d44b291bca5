"""The arithmetic reader's tokenizer: normalised text into numbers, names, operators and brackets."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Protocol

from exercises.engine_errors import ReadError
from exercises.i18n import Text

_NUMBER = re.compile(r"(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
_NAME = re.compile(r"[A-Za-z_π∞]+")
_LOG_BASE = re.compile(r"(2|10)(?![\d.])\s*(?=[(\d.A-Za-z_π])")
# Chinese large-number units written after a number: "100万" is 1,000,000, "1.5亿" 150,000,000.
_UNIT_MULTIPLIERS = {"万": 1e4, "亿": 1e8}


@dataclass(frozen=True)
class Token:
    """One lexical unit: kind is 'num', 'name', 'op', '(', ')' or 'end'."""

    kind: str
    text: str
    start: int
    value: float = 0.0


class ErrorAt(Protocol):
    """Builds a ReadError for a position in the normalised text."""

    def __call__(self, position: int, zh: str, en: str, **values: object) -> ReadError: ...


def tokenize(text: str, error: ErrorAt) -> list[Token]:
    """Split normalised text into tokens; an unknown character is a read error."""
    tokens: list[Token] = []
    index = 0
    while index < len(text):
        char = text[index]
        if char.isspace():
            index += 1
            continue
        number = _NUMBER.match(text, index)
        if number:
            tokens.append(Token("num", number.group(), index, float(number.group())))
            index = number.end()
            continue
        if char in _UNIT_MULTIPLIERS and tokens and tokens[-1].kind == "num":
            # Part of the number it follows, so that "1/100万" is one over a million, not (1/100)·10,000.
            last = tokens[-1]
            tokens[-1] = Token("num", text[last.start : index + 1], last.start, last.value * _UNIT_MULTIPLIERS[char])
            index += 1
            continue
        if char == "√":
            # The root sign is the sqrt function as one character, so "1 √2" stays two pieces in a list split at
            # spaces, and "√e" does not run into a name "sqrte".
            tokens.append(Token("name", "√", index))
            index += 1
            continue
        name = _NAME.match(text, index)
        if name:
            tokens.append(Token("name", name.group(), index))
            index = name.end()
            base = _LOG_BASE.match(text, index) if name.group().lower() == "log" else None
            if base:  # "log2 8" / "log10(x)" are base-2/10 logs; a bare "log2" is ln 2
                tokens[-1] = Token("name", "log" + base.group(1), name.start())
                index = base.end(1)
            continue
        if text.startswith("**", index):
            tokens.append(Token("op", "^", index))
            index += 2
            continue
        if char in "+-*/^":
            tokens.append(Token("op", char, index))
        elif char in "()%":
            tokens.append(Token(char, char, index))
        else:
            if char == ",":
                hint = Text(
                    "；小数点请用「.」，数字中也不要用逗号分隔千位",
                    "; write decimals with '.' and no thousands separators",
                )
            elif char == "。":  # a Chinese IME in Chinese punctuation mode types "." as "。"
                hint = Text(
                    "；小数点请用半角「.」（可把输入法切换到英文标点）",
                    "; write the decimal point as '.' (switch the input method to English punctuation)",
                )
            else:
                hint = Text("", "")
            raise error(index, "无法识别的字符「{c}」" + hint.zh, "unexpected character '{c}'" + hint.en, c=char)
        index += 1
    tokens.append(Token("end", "", len(text)))
    return tokens
