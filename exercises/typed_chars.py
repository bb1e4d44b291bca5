"""How typed characters are read before anything else: invisible ones dropped, full-width and IME forms mapped."""

from __future__ import annotations

import unicodedata

_SUPERSCRIPTS = {
    "⁰": "0",
    "¹": "1",
    "²": "2",
    "³": "3",
    "⁴": "4",
    "⁵": "5",
    "⁶": "6",
    "⁷": "7",
    "⁸": "8",
    "⁹": "9",
    "⁻": "-",
}
_AFTER_NFKC = {"−": "-", "–": "-", "‐": "-", "‑": "-", "×": "*", "·": "*", "⋅": "*", "∙": "*", "÷": "/", "⁄": "/"}
# Lenticular and tortoise-shell brackets (Chinese IMEs type them for "[") have no NFKC mapping; read them as [ ].
BRACKETS = {"【": "[", "】": "]", "〔": "[", "〕": "]", "〖": "[", "〗": "]", "〘": "[", "〙": "]"}
# Outside arithmetic (tokens, pairs, words): a Chinese IME types "<" and ">" as the title marks 《 》 (and some fonts
# offer 〈 〉), and "--" or Shift+"-" as dashes, so "<eos>" arrives as "《eos》" and "->" as "-》" or "—>".
TOKEN_MARKS = {"《": "<", "》": ">", "〈": "<", "〉": ">", "—": "-", "–": "-", "―": "-", "‒": "-", "‐": "-", "‑": "-"}


def is_invisible(char: str) -> bool:
    """A format character (zero-width space, joiners, BOM, soft hyphen, direction marks): invisible when typed or
    pasted, so it is dropped rather than read as part of a number or a token the person cannot see."""
    return unicodedata.category(char) == "Cf"


def without_invisible(text: str) -> str:
    """``text`` without its invisible format characters."""
    return "".join(char for char in text if not is_invisible(char))


def normalise_with_map(text: str, arithmetic: bool = True) -> tuple[str, list[int]]:
    """NFKC-normalise ``text`` char by char; also return, per output char, its index in ``text``."""
    if text.isascii():
        # No ASCII character is invisible, mapped or changed by NFKC: most answers are read as typed, for less.
        return text, list(range(len(text)))
    out: list[str] = []
    origin: list[int] = []
    for index, char in enumerate(text):
        if is_invisible(char):
            continue
        if arithmetic and char in _SUPERSCRIPTS:
            previous = index - 1
            while previous >= 0 and is_invisible(text[previous]):
                previous -= 1
            previous_was_superscript = previous >= 0 and text[previous] in _SUPERSCRIPTS
            piece = _SUPERSCRIPTS[char] if previous_was_superscript else "^" + _SUPERSCRIPTS[char]
        else:
            piece = (
                BRACKETS.get(char)
                or (None if arithmetic else TOKEN_MARKS.get(char))
                or unicodedata.normalize("NFKC", char)
            )
            if arithmetic:
                piece = "".join(_AFTER_NFKC.get(c, c) for c in piece)
        out.append(piece)
        origin.extend([index] * len(piece))
    return "".join(out), origin
