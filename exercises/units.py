"""Words a student may write around a number: ``1.2448 nats``, ``128 维``, ``×4``, ``第 2 步``, ``78对``, ``P = 0.288``.

A field that names its units lets them through: they are blanked (replaced by spaces, so that error positions
still count from the student's first character) before the field's reader sees the text. Words are matched
whatever their width or case, with invisible characters ignored, in brackets (``1.2448 (nats)``) and with spaces
beside a slash (``nats / token``). Any other word stays and is refused by the reader as before. A unit of another
quantity that the field names as ``refused`` (``bits`` on a loss in nats) is refused with a message saying so:
reading its number as if it were in the field's own unit could credit an answer whose unit says it is something
else; ``refusals`` add such groups as patterns, each with its own message (a percentage, or a per-token unit on a
total).
"""

from __future__ import annotations

from dataclasses import dataclass

from exercises.engine_errors import ReadError
from exercises.i18n import Text
from exercises.unit_text import blank_after, blank_before, find_after_number, leading, trailing, words_pattern


@dataclass(frozen=True)
class Units:
    """Unit words allowed before and after one field's number (matched case-insensitively).

    ``around`` holds (before, after) words allowed only as a pair: ``第 2 次`` is an ordinal ("the 2nd time"), while
    ``2 次`` alone is a count. ``refused`` words are units of another quantity, refused with ``refusal`` (``{w}`` is
    the word) instead of the reader's general message; ``refusals`` are (regex over the lower-cased NFKC text,
    message) pairs refused the same way when they follow a digit. ``labels`` name the value before an ``=`` or ``:``
    (``P = 0.288``, ``h: [..]``), never alone.
    """

    before: tuple[str, ...] = ()
    after: tuple[str, ...] = ()
    around: tuple[tuple[str, str], ...] = ()
    refused: tuple[str, ...] = ()
    refusal: Text | None = None
    refusals: tuple[tuple[str, Text], ...] = ()
    labels: tuple[str, ...] = ()

    @property
    def words(self) -> tuple[str, ...]:
        """Every word this field lets through (the pairs' words and the labels included), for tests and docs."""
        return tuple(
            dict.fromkeys([*self.before, *self.after, *(word for pair in self.around for word in pair), *self.labels])
        )

    def blank(self, raw: object) -> object:
        """``raw`` with one leading and one trailing unit word turned into spaces; other values unchanged.

        Raises ReadError when the text holds a ``refused`` unit after a number.
        """
        if not isinstance(raw, str):
            return raw
        self._refuse(raw)
        for before, after in self.around:
            paired = _blank_pair(raw, before, after)
            if paired is not None:
                return paired
        text = raw
        unit_start = trailing(text, self.after)
        if unit_start is not None:
            text = blank_after(text, unit_start)
        number_start = leading(text, self.before)
        if number_start is None and self.labels:
            number_start = _after_label(text, self.labels)
        if number_start is not None:
            text = blank_before(text, number_start)
        return text

    def _refuse(self, text: str) -> None:
        """Raise the matching refusal if ``text`` holds a unit of another quantity after a number."""
        groups = list(self.refusals)
        if self.refused:
            default = Text("「{w}」不是这一问的单位", "'{w}' is not this part's unit")
            groups.insert(0, (words_pattern(self.refused).pattern, self.refusal or default))
        for pattern, message in groups:
            found = find_after_number(text, pattern)
            if found is not None:
                position, word = found
                raise ReadError(message.format(w=word), position, None)


def _blank_pair(text: str, before: str, after: str) -> str | None:
    """``text`` with ``before`` and ``after`` blanked when it has both around a number; else None."""
    unit_start = trailing(text, (after,))
    if unit_start is None:
        return None
    blanked = blank_after(text, unit_start)
    number_start = leading(blanked, (before,))
    return None if number_start is None else blank_before(blanked, number_start)


def _after_label(text: str, labels: tuple[str, ...]) -> int | None:
    """Where the value begins after a label and its ``=`` or ``:`` (``P = 0.288``, ``h: [..]``); else None."""
    start = leading(text, labels, " \t")
    if start is None or text[start] not in "=:：＝":
        return None
    value = start + 1
    while value < len(text) and text[value].isspace():
        value += 1
    return value if text[value:].strip() else None


# Units of a logarithm in another base: a loss in nats written with one of these is some other number.
OTHER_LOG_UNITS = ("bit", "bits", "比特", "shannon", "shannons", "hartley", "hartleys", "ban", "bans", "dit", "dits")
# Neutral on purpose: it does not tell a student who took log2 to use ln (the graded answer's log2 tag does that).
OTHER_LOG_REFUSAL = Text(
    "「{w}」不是这一问的单位：损失以 nat（纳特）为单位。请写 nat，或不写单位",
    "'{w}' is not this part's unit: the loss is in nats. Write nats, or no unit",
)
# A loss is a number of nats, never a share: "31.12%" read as 0.3112 would credit a percentage as a loss.
PERCENT_REFUSAL = (
    r"%",
    Text(
        "损失不是百分数（「{w}」）：请直接写以 nat 为单位的数值，如 0.3112",
        "a loss is not a percentage ('{w}'): write the value in nats, e.g. 0.3112",
    ),
)
# The total loss is summed over the sentence: a per-token unit says the number is an average, some other number.
PER_TOKEN_REFUSAL = (
    r"(?:/|(?<![a-z])per(?![a-z])|每)\s*(?:个\s*)?(?:tokens?|toks?|词元|词|位置|positions?|steps?|步)",
    Text(
        "「{w}」是按词元平均的单位，而这一问是整句的总损失（单位 nat）。请写 nat，或不写单位",
        "'{w}' is a per-token unit, but this part is the total loss of the sentence (in nats). Write nats, or no unit",
    ),
)
LOSS = Units(
    labels=("L", "loss", "total", "total loss", "损失", "总损失"),
    after=("nat", "nats", "奈特", "纳特"),
    refused=OTHER_LOG_UNITS,
    refusal=OTHER_LOG_REFUSAL,
    refusals=(PERCENT_REFUSAL, PER_TOKEN_REFUSAL),
)
_PER_TOKEN = ("token", "tok", "词元", "个token", "个词元")
LOSS_PER_TOKEN = Units(
    labels=("L", "loss", "mean", "average", "mean loss", "损失", "平均损失", "平均"),
    after=(
        *LOSS.after,
        *(
            f"{nat}{per}{token}"
            for nat in ("nat", "nats", "纳特", "奈特")
            for per in ("/", " per ", "每")
            for token in _PER_TOKEN
        ),
    ),
    refused=OTHER_LOG_UNITS,
    refusal=OTHER_LOG_REFUSAL,
    refusals=(PERCENT_REFUSAL,),
)
PROBABILITY = Units(labels=("P", "P(y)", "P(target)", "prob", "probability", "概率"))
FACTOR = Units(
    before=("×", "x"), labels=("growth", "factor", "增长"), after=("倍", "x", "×", "times", "fold", "times as many")
)
# English ordinals on a step counted from 1: 2nd, the 2nd step, 3rd read.
_ORDINALS = ("st", "nd", "rd", "th")
# A step counted from 1: 第 2 步, step 2, t = 2, the 2nd step; 第 2 次 (预测) is the same ordinal, but 2 次 alone is a
# count.
STEP = Units(
    before=("第", "step", "at step", "t=", "t ="),
    after=("步", *_ORDINALS, *(f"{o} step" for o in _ORDINALS)),
    around=(
        ("第", "次"),
        ("第", "次预测"),
        ("第", "步预测"),
        *(("the", f"{o}{step}") for o in _ORDINALS for step in ("", " step")),
    ),
)
# A read of the source counted from 1: 第 2 次读取（之后）, 第 2 个 token, read 2, after read 2, the 2nd read.
READ = Units(
    before=(*STEP.before, "read", "after read", "读取"),
    after=("步", *_ORDINALS, *(f"{o} {word}" for o in _ORDINALS for word in ("read", "step"))),
    around=(
        ("第", "次"),
        ("第", "次读取"),
        ("第", "次读取后"),
        ("第", "次读取之后"),
        ("第", "次之后"),
        ("第", "步之后"),
        ("第", "个"),
        ("第", "个token"),
        ("第", "个 token"),
        *((first, f"{o}{word}") for first in ("the", "after the") for o in _ORDINALS for word in ("", " read")),
    ),
)
_IN_ALL = ("共", "一共", "总共", "共有", "一共有", "总共有", "in total", "total")
# Scored predictions in teacher forcing: as many as (input, target) pairs, positions and target tokens.
SCORED = Units(
    before=_IN_ALL,
    after=(
        "次",
        "个",
        "对",
        "个对",
        "pairs",
        "pair",
        "个预测",
        "次预测",
        "predictions",
        "个位置",
        "positions",
        "个 token",
        "个token",
        "tokens",
        "个目标",
        "targets",
    ),
)
# Query–key dot products: the prompt counts one as "one pair" (一个“对”), so 78对 and 144 pairs are counts too.
DOT_PRODUCTS = Units(
    before=_IN_ALL,
    after=(
        "次",
        "个",
        "个点积",
        "次点积",
        "dot products",
        "dot product",
        "products",
        "对",
        "个对",
        "对点积",
        "pairs",
        "pair",
        "query-key pairs",
        "query–key pairs",
        "qk pairs",
    ),
)
WIDTH = Units(
    before=("每头", "每个头", "每头各", "每个头各"),
    labels=("d_k", "d_head", "head_dim"),
    after=("维", "维度", "个维度", "dim", "dims", "dimension", "dimensions", "dimensional"),
)
WEIGHTS = Units(before=_IN_ALL, after=("个", "个参数", "个权重", "参数", "权重", "params", "parameters", "weights"))
# An index counted from 0, as the prompt names the words (e_0, e_1, ...; e1 and e₁ too). Never 第 … 个: that
# ordinal counts from 1.
INDEX = Units(before=("e_", "e", "下标", "index", "word", "词", "#"))
