"""Words a student may write around a number: ``1.2448 nats``, ``128 维``, ``×4``, ``第 2 步``, ``78对``.

A field that names its units lets them through: they are blanked (replaced by spaces, so that error positions
still count from the student's first character) before the field's reader sees the text. Any other word stays
and is refused by the reader as before. A unit of another quantity that the field names as ``refused`` (``bits``
on a loss in nats) is refused with a message saying so: reading its number as if it were in the field's own unit
could credit an answer whose unit says it is something else.
"""
from __future__ import annotations

from dataclasses import dataclass

from exercises.errors import ReadError
from exercises.i18n import Text


@dataclass(frozen=True)
class Units:
    """Unit words allowed before and after one field's number (matched case-insensitively).

    ``around`` holds (before, after) words allowed only as a pair: ``第 2 次`` is an ordinal ("the 2nd time"), while
    ``2 次`` alone is a count. ``refused`` words are units of another quantity, refused with ``refusal`` (``{w}`` is
    the word) instead of the reader's general message.
    """

    before: tuple[str, ...] = ()
    after: tuple[str, ...] = ()
    around: tuple[tuple[str, str], ...] = ()
    refused: tuple[str, ...] = ()
    refusal: Text | None = None

    @property
    def words(self) -> tuple[str, ...]:
        """Every word this field lets through (the pairs' words included), for tests and documentation."""
        return tuple(dict.fromkeys([*self.before, *self.after, *(word for pair in self.around for word in pair)]))

    def blank(self, raw: object) -> object:
        """``raw`` with one leading and one trailing unit word turned into spaces; other values unchanged.

        Raises ReadError when the text ends with a ``refused`` unit.
        """
        if not isinstance(raw, str):
            return raw
        for before, after in self.around:
            paired = _blank_pair(raw, before, after)
            if paired is not None:
                return paired
        text = raw
        unit_start = _trailing_unit(text, self.after)
        if unit_start is None and self.refused:
            _refuse(text, self.refused, self.refusal)
        if unit_start is not None:
            text = text[:unit_start] + " " * (len(text) - unit_start)
        number_start = _after_leading_unit(text, self.before)
        if number_start is not None:
            text = " " * number_start + text[number_start:]
        return text


def _blank_pair(text: str, before: str, after: str) -> str | None:
    """``text`` with ``before`` and ``after`` blanked when it has both around a number; else None."""
    unit_start = _trailing_unit(text, (after,))
    if unit_start is None:
        return None
    blanked = text[:unit_start] + " " * (len(text) - unit_start)
    number_start = _after_leading_unit(blanked, (before,))
    if number_start is None:
        return None
    return " " * number_start + blanked[number_start:]


def _refuse(text: str, refused: tuple[str, ...], refusal: Text | None) -> None:
    """Raise the field's refusal if ``text`` ends with one of the ``refused`` units after a number."""
    unit_start = _trailing_unit(text, refused)
    if unit_start is None:
        return
    word = text[unit_start:].strip(" \t-。.")
    message = (refusal or Text("「{w}」不是这一问的单位", "'{w}' is not this part's unit")).format(w=word)
    raise ReadError(message, text.index(word, unit_start), None)


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


# Units of a logarithm in another base: a loss in nats written with one of these is some other number.
OTHER_LOG_UNITS = ("bit", "bits", "比特", "shannon", "shannons", "hartley", "hartleys", "ban", "bans", "dit", "dits")
# Neutral on purpose: it does not tell a student who took log2 to use ln (the graded answer's log2 tag does that).
OTHER_LOG_REFUSAL = Text("「{w}」不是这一问的单位：损失以 nat（纳特）为单位。请写 nat，或不写单位",
                         "'{w}' is not this part's unit: the loss is in nats. Write nats, or no unit")
LOSS = Units(after=("nat", "nats", "奈特", "纳特"), refused=OTHER_LOG_UNITS, refusal=OTHER_LOG_REFUSAL)
LOSS_PER_TOKEN = Units(
    after=(*LOSS.after, "nat/token", "nats/token", "nat per token", "nats per token", "纳特/token", "奈特/token",
           "纳特/词元", "纳特每个token", "纳特/个token"),
    refused=(*OTHER_LOG_UNITS, "bit/token", "bits/token", "比特/token", "bits per token"), refusal=OTHER_LOG_REFUSAL)
FACTOR = Units(before=("×", "x"), after=("倍", "x", "×", "times", "fold", "times as many"))
# A step counted from 1: 第 2 步, step 2, t = 2; 第 2 次 (预测) is the same ordinal, but 2 次 alone is a count.
STEP = Units(before=("第", "step", "at step", "t=", "t ="), after=("步",),
             around=(("第", "次"), ("第", "次预测"), ("第", "步预测")))
# A read of the source counted from 1: 第 2 次读取（之后）, 第 2 个 token, read 2, after read 2.
READ = Units(before=(*STEP.before, "read", "after read", "读取"), after=("步",),
             around=(("第", "次"), ("第", "次读取"), ("第", "次读取后"), ("第", "次读取之后"), ("第", "次之后"),
                     ("第", "步之后"), ("第", "个"), ("第", "个token"), ("第", "个 token")))
# Scored predictions in teacher forcing: as many as (input, target) pairs, positions and target tokens.
SCORED = Units(after=("次", "个", "对", "个对", "pairs", "pair", "个预测", "次预测", "predictions", "个位置", "positions",
                      "个 token", "个token", "tokens", "个目标", "targets"))
# Query–key dot products: the prompt counts one as "one pair" (一个“对”), so 78对 and 144 pairs are counts too.
DOT_PRODUCTS = Units(after=("次", "个", "个点积", "次点积", "dot products", "dot product", "products", "对", "个对",
                            "对点积", "pairs", "pair", "query-key pairs", "query–key pairs", "qk pairs"))
WIDTH = Units(after=("维", "维度", "个维度", "dim", "dims", "dimension", "dimensions", "dimensional"))
WEIGHTS = Units(after=("个", "个参数", "个权重", "参数", "权重", "params", "parameters", "weights"))
# An index counted from 0, as the prompt names the words (e_0, e_1, ...). Never 第 … 个: that ordinal counts from 1.
INDEX = Units(before=("e_", "下标", "index", "word", "词", "#"))
