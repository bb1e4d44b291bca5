"""Words a student may write around a number: ``1.2448 nats``, ``128 维``, ``×4``, ``第 2 步``.

A field that names its units lets them through: they are blanked (replaced by spaces, so that error positions
still count from the student's first character) before the field's reader sees the text. Any other word stays
and is refused by the reader as before.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Units:
    """Unit words allowed before and after one field's number (matched case-insensitively)."""

    before: tuple[str, ...] = ()
    after: tuple[str, ...] = ()

    def blank(self, raw: object) -> object:
        """``raw`` with one leading and one trailing unit word turned into spaces; other values unchanged."""
        if not isinstance(raw, str):
            return raw
        text = raw
        unit_start = _trailing_unit(text, self.after)
        if unit_start is not None:
            text = text[:unit_start] + " " * (len(text) - unit_start)
        number_start = _after_leading_unit(text, self.before)
        if number_start is not None:
            text = " " * number_start + text[number_start:]
        return text


def _longest_first(words: tuple[str, ...]) -> list[str]:
    """``nats`` before ``nat``, so that the longer word wins."""
    return sorted(words, key=len, reverse=True)


def _trailing_unit(text: str, words: tuple[str, ...]) -> int | None:
    """Where the unit after the number begins (with the spaces or hyphen before it), if ``text`` ends with one of
    ``words`` and perhaps a full stop, and something comes before it; else None.

    Plain string scanning, not a regex: a backtracking pattern would take quadratic time on long runs of spaces.
    """
    end = len(text.rstrip())
    if end and text[end - 1] in "。.":
        end = len(text[: end - 1].rstrip())
    for word in _longest_first(words):
        start = end - len(word)
        if start > 0 and text[start:end].lower() == word.lower():
            body_end = len(text[:start].rstrip().rstrip("-").rstrip())
            if body_end > 0:
                return body_end
    return None


def _after_leading_unit(text: str, words: tuple[str, ...]) -> int | None:
    """Where the number begins, if ``text`` starts with one of ``words`` (then spaces or a colon) followed by
    something; else None."""
    start = len(text) - len(text.lstrip())
    for word in _longest_first(words):
        end = start + len(word)
        if text[start:end].lower() == word.lower():
            rest = text[end:].lstrip(" \t:：")
            if rest.strip():
                return len(text) - len(rest)
    return None


LOSS = Units(after=("nat", "nats", "奈特"))
LOSS_PER_TOKEN = Units(after=(*LOSS.after, "nat/token", "nats/token", "nat per token", "nats per token"))
FACTOR = Units(before=("×", "x"), after=("倍", "x", "×", "times", "fold"))
STEP = Units(before=("第", "step", "t=", "t ="), after=("步",))
COUNT = Units(after=("次", "个"))
DOT_PRODUCTS = Units(after=("次", "个", "个点积", "次点积", "dot products", "products"))
WIDTH = Units(after=("维", "dim", "dims", "dimensions", "dimensional"))
WEIGHTS = Units(after=("个", "个参数", "个权重", "参数", "params", "parameters", "weights"))
