"""Reading words: the normalised form answers are compared in, and an enum part's names and aliases."""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterable, Mapping

from exercises.engine_errors import ReadError
from exercises.i18n import Text
from exercises.text_input import guard, wrong_type
from exercises.typed_chars import BRACKETS, TOKEN_MARKS, without_invisible

_WORD_TABLE = str.maketrans({**BRACKETS, **{mark: plain for mark, plain in TOKEN_MARKS.items() if plain in "<>"}})


def words(text: str) -> str:
    """Text as compared against word lists: NFKC, trimmed, lower case, without a final full stop (and without
    invisible characters; a Chinese IME's 《eos》 reads as <eos>)."""
    text = without_invisible(text).translate(_WORD_TABLE)
    return unicodedata.normalize("NFKC", text).strip().lower().rstrip(".。!！").strip()


def read_enum(raw: object, aliases: Mapping[str, Iterable[str]]) -> str:
    """The canonical key whose name or aliases (case-insensitive, NFKC) match the text."""
    accepted = ", ".join(aliases)
    expected = Text(f"以下之一：{accepted}", f"one of: {accepted}")
    guard(raw, expected)
    if not isinstance(raw, str):
        raise wrong_type(expected, raw)
    word = words(raw)
    if not word:
        raise ReadError(Text("输入为空", "empty input"), 0, None)
    entries = tuple((key, tuple(names)) for key, names in aliases.items())
    key = _alias_index(entries).get(word)
    if key is None:
        key = _squeezed_index(entries).get(squeeze(word))
    if key is not None:
        return key
    raise ReadError(
        Text("无法识别「{w}」；可填：{a}", "cannot read '{w}'; accepted: {a}").format(w=raw.strip()[:40], a=accepted),
        0,
        None,
    )


# Spacing and brackets carry no meaning in a phrase: "到达 8 步上限" is "到达8步上限", "max steps (8)" is "max steps 8".
_SQUEEZED = re.compile(r"[\s()\[\]{}\"'“”‘’`,，、:;=_\-–—·]+")


def squeeze(word: str) -> str:
    """A normalised phrase without spaces, brackets, quotes and joining punctuation."""
    return _SQUEEZED.sub("", word)


@functools.lru_cache(maxsize=64)
def _squeezed_index(entries: tuple[tuple[str, tuple[str, ...]], ...]) -> dict[str, str]:
    """Squeezed name → key for one alias table; a squeezed name two keys share is left out (never a guess)."""
    index: dict[str, str] = {}
    shared: set[str] = set()
    for key, names in entries:
        for name in (key, *names):
            squeezed = squeeze(words(name))
            if squeezed and index.setdefault(squeezed, key) != key:
                shared.add(squeezed)
    return {name: key for name, key in index.items() if name not in shared}


@functools.lru_cache(maxsize=64)
def _alias_index(entries: tuple[tuple[str, tuple[str, ...]], ...]) -> dict[str, str]:
    """Normalised name → key for one alias table, built once (tables run to hundreds of phrasings); the first key
    listing a name keeps it."""
    index: dict[str, str] = {}
    for key, names in entries:
        for name in (key, *names):
            index.setdefault(words(name), key)
    return index
