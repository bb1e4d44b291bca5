"""Feedback sentences shared by every exercise, in Chinese and English."""

from __future__ import annotations

from collections.abc import Sequence

from exercises.base import AnswerField, Misconception
from exercises.comparators import Comparison
from exercises.diagnosis.search import TAG_PREFIX as GENERATED_PREFIX
from exercises.i18n import Text
from exercises.said import Said, literal, misconception, rule, say

UNKNOWN_FIELD = Text(
    "没有名为“{name}”的答案项；可填写的项为：{expected}。",
    "There is no answer part called '{name}'; the parts are: {expected}.",
)
MISSING_FIELD = Text("这一项还没有填写。", "This part has not been answered yet.")
NOT_JSON = Text("答案以“{”开头，却不是合法的 JSON 对象。", "The answer starts with '{' but is not a valid JSON object.")
NOT_OBJECT = Text("答案应是一个对象，每个答案项一个键。", "The answer must be an object with one key per answer part.")

WRONG_COUNT = Text(
    "应有 {expected} 项（每题一项），读到 {read} 项；漏答或多答一项会让后面的每一项都对应错题目。",
    "Expected {expected} entries (one per item), read {read}; a skipped or extra entry would put every "
    "later one against the wrong item.",
)
WRONG_SHAPE = Text(
    "形状不对的答案无法逐项核对，所以不评分；请按题目要求的形状改写。",
    "An answer of another shape cannot be checked entry by entry, so it is not graded; rewrite it in "
    "the shape the question asks for.",
)
# How to write each shaped kind, for the student who typed its numbers in one run ("0.1, 0.2, …" for a 3×3 matrix).
SHAPE_LAYOUT: dict[str, Text] = {
    "matrix": Text(
        "矩阵按行写，如 [[1, 2], [3, 4]]，或每行一行。",
        "Write a matrix row by row, e.g. [[1, 2], [3, 4]], or one row per line.",
    ),
    "vectors": Text(
        "每个向量写在自己的括号里，如 [1, 2], [3, 4]。", "Put each vector in brackets of its own, e.g. [1, 2], [3, 4]."
    ),
}
RIGHT = Text("正确。", "Correct.")
NOT_YET = Text("还不对。", "Not right yet.")
TOO_COARSE = Text(
    "这个数是正确结果按你写的小数位四舍五入（或截断）得到的：方法没错，但精度不够，超出了允许的误差。请按本题"
    "提示多保留几位小数。",
    "This number is the right result rounded (or cut) to the decimals you wrote: the method is right, but "
    "the number is too coarse for the check. Keep more decimal places, as this part's hint asks.",
)
TOO_COARSE_ENTRIES = Text(
    "这些数是正确结果按你写的小数位四舍五入（或截断）得到的：方法没错，但精度不够，超出了允许的误差。"
    "请按本题提示多保留几位小数。",
    "These numbers are the right result rounded (or cut) to the decimals you wrote: the method is "
    "right, but the numbers are too coarse for the check. Keep more decimal places, as this "
    "part's hint asks.",
)
PARTLY = Text(
    "部分正确：{matched} 个位置对了，第 {positions} 个位置还不对。",
    "Partly right: {matched} position(s) match; position(s) {positions} do not.",
)
PARTLY_ENTRIES = Text(
    "部分正确：{matched} 个元素对了，{zh_cells}还不对。",
    "Partly right: {matched} entries match; {en_cells} {verb} not.",
)
FOLLOW_THROUGH = Text(
    "按你自己前面一步的结果，这一步的做法是对的，所以给了连带分（follow-through）；错误出在更早的一步。",
    "Given your own earlier step, this step is done correctly, so it earns follow-through credit; "
    "the mistake is in an earlier step.",
)
FOLLOW_THROUGH_HALF = Text(
    "本作业的连带分只计一半。",
    "In this assignment follow-through credit counts half.",
)
FOLLOW_THROUGH_UNCREDITED = Text(
    "按你自己前面一步的结果，这一步的做法是对的，但本作业不给连带分；错误出在更早的一步。",
    "Given your own earlier step, this step is done correctly, but this assignment gives no follow-through "
    "credit; the mistake is in an earlier step.",
)
FOLLOW_THROUGH_PARTLY_UNCREDITED = Text(
    "按你自己前面一步的结果，这一步只有一部分做对了，但在本作业中这一部分不计连带分；其余部分无论按哪一步都不对。",
    "Given your own earlier step, only part of this step is done correctly, which earns no credit in this "
    "assignment; the rest is not right either way.",
)
FOLLOW_THROUGH_PARTLY = Text(
    "按你自己前面一步的结果，这一步只有一部分做对了，这部分给了连带分（follow-through）；其余部分无论按哪一步都不对。",
    "Given your own earlier step, only part of this step is done correctly, and that part earns follow-through "
    "credit; the rest is not right either way.",
)
PROBABLY = Text("你可能是这样做的：", "What you probably did:")
# Said after any wrong answer to a part whose key may be 无 / none, whatever this variant's key is: said only when
# the key is none, it told the student the answer before the assignment's key rule allowed.
MAY_BE_NONE = Text(
    "另外请先想清楚：若它所问的那一步在这里并不存在，就填“无”。",
    "Also check first whether the step this part asks about happens here at all; if it does not, the answer is none.",
)


# Every shared sentence by its stored id: a stored result names these, so an id is never reused for another meaning
# (rename a constant freely, never its id).
CATALOGUE: dict[str, Text] = {
    "unknown_field": UNKNOWN_FIELD,
    "missing_field": MISSING_FIELD,
    "not_json": NOT_JSON,
    "not_object": NOT_OBJECT,
    "wrong_count": WRONG_COUNT,
    "wrong_shape": WRONG_SHAPE,
    "shape_layout.matrix": SHAPE_LAYOUT["matrix"],
    "shape_layout.vectors": SHAPE_LAYOUT["vectors"],
    "right": RIGHT,
    "not_yet": NOT_YET,
    "too_coarse": TOO_COARSE,
    "too_coarse_entries": TOO_COARSE_ENTRIES,
    "partly": PARTLY,
    "partly_entries": PARTLY_ENTRIES,
    "follow_through": FOLLOW_THROUGH,
    "follow_through_partly": FOLLOW_THROUGH_PARTLY,
    "follow_through_uncredited": FOLLOW_THROUGH_UNCREDITED,
    "follow_through_partly_uncredited": FOLLOW_THROUGH_PARTLY_UNCREDITED,
    "follow_through_half": FOLLOW_THROUGH_HALF,
    "probably": PROBABLY,
    "may_be_none": MAY_BE_NONE,
}
_IDS = {id(text): message_id for message_id, text in CATALOGUE.items()}


def shared(text: Text, **args: object) -> Said:
    """One of the shared sentences above (``text`` is the constant), by its catalogue id, with ``args`` filled in."""
    return say(_IDS[id(text)], text, **args)


def _sentence(fragment: Text) -> Said:
    """A comparator's fragment ("expected a 2×3 matrix, read 2×2") as a sentence of its own."""
    return literal(Text(fragment.zh + "。", fragment.en[:1].upper() + fragment.en[1:] + "."))


def _rule(answer_field: AnswerField, exercise_id: str | None) -> Said:
    """The part's rule: by its exercise and field where the exercise is known, else as its text."""
    return (
        literal(answer_field.rule) if exercise_id is None else rule(exercise_id, answer_field.name, answer_field.rule)
    )


def _explained(found: Misconception, exercise_id: str | None) -> Said:
    """A misconception's feedback: by its tag when hand-written (declared, worded once); a generated one is worded
    from its own run on the variant, so it is kept as its text."""
    if exercise_id is None or found.tag.startswith(GENERATED_PREFIX):
        return literal(found.feedback)
    return misconception(exercise_id, found.tag, found.feedback)


def wrong_shape(kind: str, problem: Text, one_run: bool = False) -> Said:
    """Why a part of the wrong shape is unreadable: the shape expected and read, why, and (for numbers read as
    ``one_run``, one row or one column) how to write its rows."""
    said = _sentence(problem) + shared(WRONG_SHAPE)
    return said + shared(SHAPE_LAYOUT[kind]) if one_run and kind in SHAPE_LAYOUT else said


def correct(answer_field: AnswerField, exercise_id: str | None = None) -> Said:
    """Praise for a right part, restating the rule it applied (named by ``exercise_id``'s field when given)."""
    return shared(RIGHT) + _rule(answer_field, exercise_id)


def _follow_through_credit(whole: bool, credit_share: float) -> Said:
    """What a part consistent with the student's earlier steps (``whole``: all of it) earns under the assignment's
    share of follow-through credit: the same diagnosis, said with the credit that is really given."""
    if credit_share <= 0:
        return shared(FOLLOW_THROUGH_UNCREDITED if whole else FOLLOW_THROUGH_PARTLY_UNCREDITED)
    credit = shared(FOLLOW_THROUGH if whole else FOLLOW_THROUGH_PARTLY)
    return credit + shared(FOLLOW_THROUGH_HALF) if credit_share < 1 else credit


def wrong(
    answer_field: AnswerField,
    misconceptions: Sequence[Misconception],
    tags: Sequence[str],
    comparison: Comparison,
    follow_through: float,
    may_be_none: bool = False,
    too_coarse: bool = False,
    exercise_id: str | None = None,
    credit_share: float = 1.0,
) -> Said:
    """Feedback for a wrong part: the shape problem, follow-through credit (``follow_through``: the share of the
    part it covers, 0 for none; ``credit_share``: the share of that credit the assignment gives, 1, 0.5 or 0), the matched misconception (also after follow-through: it says why the number
    differs from the key), the key rounded too coarsely (``too_coarse``), or the rule to re-check (after saying the
    part's key may be 无 / none, ``may_be_none``: said whatever the key is, so that it gives nothing away).

    With ``exercise_id`` the part's rule and hand-written misconceptions are stored by id, else as their texts.
    """
    if comparison.shape_error is not None:
        return shared(NOT_YET) + _sentence(comparison.shape_error) + _rule(answer_field, exercise_id)
    credit = None
    if follow_through > 0:
        # Only a wholly consistent part may be called "done correctly".
        credit = _follow_through_credit(follow_through >= 1, credit_share)
    by_tag = {m.tag: m for m in misconceptions}
    explained = [_explained(by_tag[tag], exercise_id) for tag in dict.fromkeys(tags) if tag in by_tag]
    if explained:
        said = credit + shared(PROBABLY) if credit is not None else shared(PROBABLY)
        for feedback in explained:
            said = said + feedback
        return said
    if credit is not None:
        return credit
    if too_coarse:
        return shared(NOT_YET) + shared(TOO_COARSE if answer_field.kind == "number" else TOO_COARSE_ENTRIES)
    said = shared(NOT_YET)
    if comparison.elements:
        mismatched = [i for i, ok in enumerate(comparison.elements) if not ok]
        matched = sum(comparison.elements)
        if matched and mismatched:
            said = _partly(matched, mismatched, comparison.columns)
    said = said + _rule(answer_field, exercise_id)
    return said + shared(MAY_BE_NONE) if may_be_none else said


def _partly(matched: int, mismatched: Sequence[int], columns: int | None) -> Said:
    """Which positions of a list, or which cells of a matrix (by row and column), are not right yet."""
    if not columns:
        return shared(PARTLY, matched=matched, positions=", ".join(str(i + 1) for i in mismatched))
    cells = [(i // columns + 1, i % columns + 1) for i in mismatched]
    return shared(
        PARTLY_ENTRIES,
        matched=matched,
        zh_cells="、".join(f"第 {r} 行第 {c} 列" for r, c in cells),
        en_cells="; ".join(f"row {r}, column {c}" for r, c in cells),
        verb="does" if len(cells) == 1 else "do",
    )
