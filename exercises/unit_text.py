"""Finding words around an answer's value in typed text, whatever its width, case or invisible characters.

Every match is made on a view of the text (NFKC, lower case, no invisible format characters, no spaces beside a
``/``) that remembers where each of its characters was typed, so that callers blank the student's own characters
(replace them by spaces) and error positions still count from the student's first character.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Sequence

from exercises.typed_chars import is_invisible


def _plain(char: str) -> str:
    """One typed character as the view holds it."""
    return "" if is_invisible(char) else unicodedata.normalize("NFKC", char).lower()


SHORT_TEXT = 256  # longer texts (a matrix typed out) have a cache of their own, a few entries long


def view(text: str) -> tuple[str, tuple[int, ...]]:
    """The comparison view of ``text`` and, per view character, its index in ``text``."""
    return _cached_view(text) if len(text) <= SHORT_TEXT else _cached_long_view(text)


@functools.lru_cache(maxsize=1024)  # one text is viewed once per unit word list and pair of a field
def _cached_view(text: str) -> tuple[str, tuple[int, ...]]:
    """``view`` of a short text, remembered."""
    return _view(text)


# A field's text is viewed dozens of times (each unit word list, each side); worked out afresh each time, a long
# text cost ~40 µs per character per field, enough for a few requests of junk to keep a web process busy.
@functools.lru_cache(maxsize=16)
def _cached_long_view(text: str) -> tuple[str, tuple[int, ...]]:
    """``view`` of a long text, remembered while its answer is read."""
    return _view(text)


def _view(text: str) -> tuple[str, tuple[int, ...]]:
    """``view`` worked out."""
    if text.isascii() and "/" not in text:
        # NFKC keeps every ASCII character and none is invisible; without a slash no space is dropped.
        return text.lower(), tuple(range(len(text)))
    chars: list[str] = []
    origin: list[int] = []
    for index, char in enumerate(text):
        for piece in _plain(char):
            chars.append(piece)
            origin.append(index)
    # "nats / token" is "nats/token": drop whitespace runs that touch a slash (one pass each way, never quadratic).
    drop = [False] * len(chars)
    for order in (range(len(chars)), range(len(chars) - 1, -1, -1)):
        slash = False
        for index in order:
            if chars[index].isspace():
                drop[index] = drop[index] or slash
            else:
                slash = chars[index] == "/"
    kept = [index for index in range(len(chars)) if not drop[index]]
    return "".join(chars[index] for index in kept), tuple(origin[index] for index in kept)


def word_form(word: str) -> str:
    """A listed word as the view would hold it."""
    return _view(word)[0]


def _letter(char: str) -> bool:
    """An ASCII letter: a word that starts or ends with one must not run into another (``e`` is not ``exp``)."""
    return char.isascii() and char.isalpha()


def longest_first(words: Sequence[str]) -> tuple[str, ...]:
    """``nats`` before ``nat``, so that the longer word wins (as the view holds them)."""
    return _longest_first(tuple(words))


@functools.lru_cache(maxsize=256)
def _longest_first(words: tuple[str, ...]) -> tuple[str, ...]:
    """``longest_first`` for one word list, worked out once."""
    return tuple(sorted({word_form(word) for word in words} - {""}, key=len, reverse=True))


@functools.lru_cache(maxsize=256)
def _by_end(words: tuple[str, ...], last: bool) -> dict[str, tuple[str, ...]]:
    """The word list (longest first) by its first or ``last`` character: a match is only tried where it can fit."""
    index: dict[str, list[str]] = {}
    for word in _longest_first(words):
        index.setdefault(word[-1] if last else word[0], []).append(word)
    return {char: tuple(found) for char, found in index.items()}


def trailing(text: str, words: Sequence[str]) -> int | None:
    """Where the word after the value begins in ``text`` (the index after the value's last character), if the text
    ends with one of ``words``, perhaps in brackets (``(nats)``) and followed by a full stop, with something before
    it; else None.

    Plain string scanning, not a regex: a backtracking pattern would take quadratic time on long runs of spaces.
    """
    shown, origin = view(text)
    end = len(shown.rstrip())
    if end and shown[end - 1] in "。.":
        end = len(shown[: end - 1].rstrip())
    ends = [(end, False)]
    if end and shown[end - 1] == ")":
        ends.insert(0, (len(shown[: end - 1].rstrip()), True))
    for word_end, bracketed in ends:
        for word in _by_end(tuple(words), True).get(shown[word_end - 1 : word_end], ()):
            start = word_end - len(word)
            if start <= 0 or shown[start:word_end] != word or (_letter(word[0]) and _letter(shown[start - 1])):
                continue
            before = shown[:start].rstrip()
            if bracketed:
                if not before.endswith("("):
                    continue
                before = before[:-1].rstrip()
            body_end = len(before.rstrip("-").rstrip())
            if body_end > 0:
                return origin[body_end - 1] + 1
    return None


def leading(text: str, words: Sequence[str], separators: str = " \t:") -> int | None:
    """Where the value begins in ``text`` (an index into it), if the text starts with one of ``words`` (then any of
    ``separators``) followed by something; else None."""
    shown, origin = view(text)
    start = len(shown) - len(shown.lstrip())
    for word in _by_end(tuple(words), False).get(shown[start : start + 1], ()):
        end = start + len(word)
        if shown[start:end] != word or (_letter(word[-1]) and end < len(shown) and _letter(shown[end])):
            continue
        while end < len(shown) and shown[end] in separators:
            end += 1
        if shown[end:].strip():
            return origin[end]
    return None


def blank_before(text: str, index: int) -> str:
    """``text`` with everything before ``index`` turned into spaces."""
    return " " * index + text[index:]


def blank_after(text: str, index: int) -> str:
    """``text`` with everything from ``index`` on turned into spaces."""
    return text[:index] + " " * (len(text) - index)


@functools.lru_cache(maxsize=64)
def words_pattern(words: tuple[str, ...]) -> re.Pattern[str]:
    """A pattern finding any of ``words`` in a view, never inside a longer Latin word (``bit`` in ``orbit``)."""
    alternatives = []
    for word in longest_first(words):
        escaped = re.escape(word)
        head = r"(?<![a-z])" if _letter(word[0]) else ""
        tail = r"(?![a-z])" if _letter(word[-1]) else ""
        alternatives.append(head + escaped + tail)
    return re.compile("|".join(alternatives))


def find_after_number(text: str, pattern: re.Pattern[str] | str) -> tuple[int, str] | None:
    """The first match of ``pattern`` in the view that comes after a digit: where the unit holding it was typed, and
    that unit as typed (from the start of its word to the end of the text: ``nat/token``, ``bits/词元``)."""
    shown, origin = view(text)
    for match in re.finditer(pattern, shown):
        if match.end() > match.start() and re.search(r"\d", shown[: match.start()]):
            # Back to the end of the value ("nats per token", not "per token"), then past the spaces after it.
            start = origin[match.start()]
            while start > 0 and not (text[start - 1].isdigit() or text[start - 1] in ")]）】"):
                start -= 1
            while text[start].isspace() or is_invisible(text[start]):
                start += 1
            return start, text[start:].strip().rstrip("。.").strip()
    return None


# Words before a number that only say it is rounded ("≈1.2448", "约 500500", "approximately 0.4149"): the tolerance
# allows for the rounding, so they are noise on a numeric part.
ABOUT = (
    "approximately",
    "approx.",
    "approx",
    "about",
    "around",
    "roughly",
    "circa",
    "ca.",
    "~",
    "≈",
    "≃",
    "≅",
    "约等于",
    "大约等于",
    "大约是",
    "大约为",
    "约为",
    "约是",
    "大约",
    "大概是",
    "大概",
    "约",
)
# Words that introduce any answer ("答：4", "Answer: blue"): never part of the answer itself.
ANSWER = (
    "答：",
    "答:",
    "答案：",
    "答案:",
    "答案是",
    "答案为",
    "answer:",
    "answer is",
    "the answer is",
    "ans:",
    "my answer:",
    "我的答案：",
    "我的答案:",
)
# "4 x 12288^2", "2x2": an x between two numbers on a scalar part is a multiplication sign (× already is).
_TIMES_X = re.compile(r"(?<=[\d)])(\s*)[xX](?=\s*[\d(])")


def blank_noise(raw: object, numeric: bool, times_x: bool = False) -> object:
    """``raw`` without a leading ``答：`` / ``Answer:`` and, on a ``numeric`` part, ``≈`` / ``约`` / ``about`` before
    the value; with ``times_x``, an ``x`` between numbers reads as ×. Other values unchanged; lengths kept."""
    if not isinstance(raw, str):
        return raw
    text = raw
    for words in (ANSWER, ABOUT) if numeric else (ANSWER,):
        start = leading(text, words, " \t:=")
        if start is not None:
            text = blank_before(text, start)
    if times_x:
        text = _TIMES_X.sub(lambda match: match.group(1) + "*", text)
    return text
