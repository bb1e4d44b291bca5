"""ch13.greedy-decode: decode greedily from a probability table, and say whether EOS or the step cap stopped it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from exercises.base import Answer, AnswerField, Data, Misconception, Variant
from exercises.ch13.common import (
    BOOK_TABLE,
    BOS,
    CANDIDATES,
    EOS,
    MAX_STEPS,
    PERIOD,
    STOP_ALIASES,
    STOPPED_BY_CAP,
    STOPPED_BY_EOS,
)
from exercises.ch13.decoding import (
    Decode,
    fill_table,
    greedy_decode,
    pick,
    random_candidates,
    sentence_successors,
    table_block,
    table_paragraph,
    tied_rows,
)
from exercises.comparators import canonical_token, equal
from exercises.diagnosis.steps import Steps
from exercises.i18n import Text
from exercises.plugin import Exercise
from exercises.tagging import part_solver_tags
from exercises.variant_generation import rows_not_summing_to_one

ID = "ch13.greedy-decode"
TITLE = Text("贪心解码与停止规则", "Greedy decoding and the stopping rule")
EXERCISE_3_BLUE_ROW = [0.0, 0.0, 0.8, 0.1, 0.1, 0.0]  # exercise 13.3 replaces only the blue row


def book_data() -> Data:
    """Exercise 13.3: table 13.4 with the blue row now favouring key."""
    table = {previous: list(row) for previous, row in BOOK_TABLE.items()}
    table["blue"] = list(EXERCISE_3_BLUE_ROW)
    return {"candidates": list(CANDIDATES), "table": table, "max_steps": MAX_STEPS}


def _walk(successors: Mapping[str, str], max_steps: int) -> list[str]:
    """The greedy path the favourites describe, as far as EOS or the cap."""
    path: list[str] = []
    while len(path) < max_steps and (not path or path[-1] != EOS):
        path.append(successors[path[-1] if path else BOS])
    return path


def _close_loop(rng: np.random.Generator, successors: dict[str, str]) -> None:
    """Point one later row of the sentence back at an earlier token, so decoding cycles into the cap."""
    path = _walk(successors, MAX_STEPS)
    if len(path) < 3:  # "noun EOS" has no earlier token to return to: make it "noun . EOS" first
        successors[path[0]] = PERIOD
        path = _walk(successors, MAX_STEPS)
    later = int(rng.integers(1, len(path) - 1))
    successors[path[later]] = path[int(rng.integers(0, later))]


def _tie_on_path(rng: np.random.Generator, candidates: list[str], successors: Mapping[str, str]) -> tuple[str, str]:
    """A row on the decode path and a later candidate that will share that row's maximum."""
    path = _walk(successors, MAX_STEPS)
    rows = sorted({previous for previous in [BOS, *path[:-1]] if successors[previous] != EOS}, key=str)
    row = rows[int(rng.integers(len(rows)))]
    favourite = candidates.index(successors[row])
    later = [token for token in candidates[favourite + 1 :] if token != row]
    return row, later[int(rng.integers(len(later)))]


def random_data(rng: np.random.Generator, seed: int) -> Data:
    """A table whose decode ends in EOS, cycles into the cap, or meets one deliberate tie on its path."""
    candidates = random_candidates(rng)
    successors = sentence_successors(rng, candidates)
    shape = rng.random()
    with_tie = shape >= 0.7
    if 0.35 <= shape < 0.7 or (with_tie and rng.random() < 0.5):
        _close_loop(rng, successors)
    tie = _tie_on_path(rng, candidates, successors) if with_tie else None
    return {"candidates": candidates, "table": fill_table(rng, candidates, successors, tie=tie), "max_steps": MAX_STEPS}


def _decode(variant: Variant, prefer_later: bool = False, extra_steps: int = 0) -> Decode:
    """Greedy decoding of the variant's table."""
    data = variant.data
    return greedy_decode(data["candidates"], data["table"], int(data["max_steps"]) + extra_steps, prefer_later)


def solve(variant: Variant) -> Answer:
    """Every predicted token, EOS included, and what stopped the decode."""
    decode = _decode(variant)
    return {"tokens": list(decode.tokens), "stopped_by": decode.stopped_by}


def quality(variant: Variant) -> str | None:
    """Reject rows not summing to one, and any tie except one two-way tie on the decode path."""
    table = variant.data["table"]
    if rows_not_summing_to_one(table.values()):
        return "probability row does not sum to 1"
    tied = tied_rows(table)
    if len(tied) > 1:
        return "more than one tied row"
    if tied:
        row = np.asarray(table[tied[0]], dtype=float)
        if int(np.sum(row == row.max())) != 2 or tied[0] not in _decode(variant).inputs:
            return "the tie is not a two-way tie on the decode path"
    return None


PICK_WORDS = {
    "runner-up": Text("{step}取了每行第二大的候选", "in {step} you took each row's second most probable candidate")
}
FEED_WORDS = {
    "bos-always": Text(
        "{step}每一步都用 BOS 那一行，没有把选出的词喂回去",
        "in {step} you read the BOS row at every step instead of feeding the chosen word back in",
    ),
    "two-back": Text("{step}用的是再前一个词的那一行", "in {step} you read the row of the word before the last one"),
}
REASON_WORDS = {"other": Text("{step}把停止原因说反了", "in {step} you gave the other stop reason")}


def _next_token(candidates: list[str], table: Mapping[str, list[float]], previous: str, rule: str) -> str:
    """The next token by ``rule``: the most probable (ties to the earlier), or the runner-up."""
    if rule == "max" or previous not in table:
        return pick(candidates, table.get(previous, table[BOS]))
    order = np.argsort(-np.asarray(table[previous], dtype=float), kind="stable")
    return candidates[int(order[1])]


def steps(variant: Variant, run: Steps) -> Answer:
    """The solve as named steps: the predictions allowed, the choice rule, the input fed back, the decode, the order
    written and the stop reason."""
    data = variant.data
    candidates, table = list(data["candidates"]), data["table"]
    cap = run.index("cap", Text("最多预测的次数", "the number of predictions allowed"), int(data["max_steps"]), 1)
    rule = run.custom(
        "pick",
        Text("每步取概率最大的候选", "taking the most probable candidate"),
        lambda: "max",
        {"runner-up": lambda: "runner-up"},
        PICK_WORDS,
    )
    feed = run.custom(
        "feed",
        Text("把选出的词作为下一步的输入", "feeding the chosen word back in"),
        lambda: "last",
        {"bos-always": lambda: "bos", "two-back": lambda: "two-back"},
        FEED_WORDS,
    )
    tokens: list[str] = []
    while len(tokens) < cap and (not tokens or tokens[-1] != EOS):
        back = {"last": 1, "two-back": 2}.get(feed, 0)
        previous = tokens[-back] if back and len(tokens) >= back else BOS
        tokens.append(_next_token(candidates, table, previous, rule))
    written = run.order("order", Text("按预测的先后写出", "writing the predictions in order"), tokens)
    stopped = STOPPED_BY_EOS if tokens[-1] == EOS else STOPPED_BY_CAP
    other = STOPPED_BY_CAP if stopped == STOPPED_BY_EOS else STOPPED_BY_EOS
    reason = run.custom(
        "reason", Text("停止原因", "the stop reason"), lambda: stopped, {"other": lambda: other}, REASON_WORDS
    )
    return {"tokens": written, "stopped_by": reason}


def _tie_to_later(variant: Variant) -> Answer | None:
    """Breaks a tie toward the later candidate."""
    reference, wrong = solve(variant), _decode(variant, prefer_later=True)
    produced = {"tokens": list(wrong.tokens), "stopped_by": wrong.stopped_by}
    return {name: value for name, value in produced.items() if value != reference[name]} or None


def _ignores_cap(variant: Variant) -> Answer | None:
    """Claims that EOS ended a decode the cap stopped.

    Only the stop reason: a student who names EOS after listing the right predictions made this mistake too, and
    a solver that also wrote tokens past the cap would predict a wrong list that such a student contradicts.
    Tokens past the cap, however many, are tagged by ``tag_part``.
    """
    if _decode(variant).stopped_by != STOPPED_BY_CAP:
        return None
    return {"stopped_by": STOPPED_BY_EOS}


def _eos_omitted(variant: Variant) -> Answer | None:
    """Lists the words but not the EOS that was predicted."""
    decode = _decode(variant)
    return {"tokens": list(decode.tokens[:-1])} if decode.stopped_by == STOPPED_BY_EOS else None


def _stops_at_period(variant: Variant) -> Answer | None:
    """Stops at the first period as if it ended decoding (only where something other than EOS follows it).

    On a capped decode this student, who stopped long before the cap, names EOS as the reason (the only other
    choice is the cap), so the stop reason is theirs too and not the ignores-cap mistake.
    """
    decode = _decode(variant)
    tokens = list(decode.tokens)
    if PERIOD not in tokens:
        return None
    end = tokens.index(PERIOD) + 1
    if end >= len(tokens) or tokens[end] == EOS:
        return None
    return {"tokens": tokens[:end], **({"stopped_by": STOPPED_BY_EOS} if decode.stopped_by == STOPPED_BY_CAP else {})}


def _bos_listed(variant: Variant) -> Answer:
    """Lists the start token BOS as if it were the first prediction, then the predictions."""
    return {"tokens": [BOS, *_decode(variant).tokens]}


MISCONCEPTIONS = (
    Misconception(
        "tie-to-later",
        _tie_to_later,
        Text(
            "在概率并列最大时选了排在后面的候选。规则：并列时取候选顺序中靠前的那个，之后的输入也随之确定。",
            "At a tie for the largest probability you took the later candidate. Rule: a tie goes to the candidate "
            "listed first, and every later input follows from that choice.",
        ),
        name=Text("并列时取了靠后者", "Tie went to the later one"),
    ),
    Misconception(
        "ignores-cap",
        _ignores_cap,
        Text(
            "解码陷入循环后你没有在上限处停下（写出了超过上限的预测，或说是 EOS 让它停止）。"
            f"规则：最多预测 {MAX_STEPS} 次（题目给的步数上限）；若始终没选到 EOS，就在上限处停止，并报告停止原因是上限而不是 EOS。",
            "The decode cycles, and you did not stop at the cap (you wrote predictions past it, or said EOS ended it). "
            f"Rule: make at most {MAX_STEPS} predictions (the question's step cap); if EOS never comes, stop there and "
            "report the cap, not EOS.",
        ),
        name=Text("忽略了步数上限", "Ignored the step cap"),
    ),
    Misconception(
        "eos-omitted",
        _eos_omitted,
        Text(
            "输出列表里漏掉了 EOS。规则：EOS 和其他词一样是模型选出的一个预测，要写进输出列表；正是它让解码停止。",
            "You left EOS out of the output. Rule: EOS is a prediction like any other word and belongs in the list; "
            "choosing it is what stops the decode.",
        ),
        name=Text("输出漏了 EOS", "Omitted EOS from the output"),
    ),
    Misconception(
        "stops-at-period",
        _stops_at_period,
        Text(
            "你在句号处就停了。规则：句号只是一个普通候选，选到它后仍要把它作为输入继续预测；只有 EOS 或步数上限才让解码停止。",
            "You stopped at the period. Rule: the period is an ordinary candidate; after choosing it you feed it back "
            "and keep predicting; only EOS or the step cap ends decoding.",
        ),
        name=Text("在句号处停止", "Stopped at the period"),
    ),
    Misconception(
        "bos-listed",
        _bos_listed,
        Text(
            "你把起始符 BOS 也写成了第一个预测。规则：BOS 是第一步的输入，不是模型预测出来的；输出列表从第一步的预测开始。",
            "You listed the start token BOS as the first prediction. Rule: BOS is the input of step 1, not something "
            "the model predicts; the output starts with step 1's prediction.",
        ),
        name=Text("把 BOS 列为预测", "Listed BOS as a prediction"),
        draws_variants=False,
    ),
)


def tag_part(variant: Variant, name: str, student: Any) -> tuple[str, ...]:
    """Tags by exact match with each wrong procedure, plus any answer that runs past the cap."""
    tags = part_solver_tags(FIELDS, MISCONCEPTIONS, variant, name, student, solve(variant)[name])
    if "ignores-cap" not in tags and _runs_past_cap(variant, name, student):
        tags.append("ignores-cap")
    # "EOS" on a capped decode matches both ignores-cap and a tie broken the other way; the checker keeps the one
    # the student's own tokens support (checking.consistent_tags), so no order is forced here.
    return tuple(tags)


def _runs_past_cap(variant: Variant, name: str, student: Any) -> bool:
    """On a capped decode: more tokens than the cap starting with the right ones, or 'stopped by EOS'."""
    reference = _decode(variant)
    if reference.stopped_by != STOPPED_BY_CAP:
        return False
    if name == "stopped_by":
        return bool(student == STOPPED_BY_EOS)
    steps = int(variant.data["max_steps"])
    return len(student) > steps and equal("tokens", list(student[:steps]), list(reference.tokens))


def follow_through(variant: Variant, answer: Answer) -> Mapping[str, Any]:
    """Token t right given the student's token t-1 (argmax of its row); the stop reason their list implies."""
    data = variant.data
    candidates, table, steps = data["candidates"], data["table"], int(data["max_steps"])
    student = [canonical_token(str(token)) for token in answer.get("tokens", [])]
    own: list[str | None] = []
    for index in range(len(student)):
        previous = BOS if index == 0 else student[index - 1]
        usable = index < steps and EOS not in student[:index] and previous in table
        own.append(pick(candidates, table[previous]) if usable else None)
    implied: dict[str, Any] = {"tokens": own}
    # A list that reaches EOS only after the cap ran past it: the cap, not EOS, would have stopped that decode,
    # so "EOS" is the ignores-cap mistake itself and earns no follow-through.
    if student and student[-1] == EOS and EOS not in student[:-1] and len(student) <= steps:
        implied["stopped_by"] = STOPPED_BY_EOS
    elif len(student) == steps and EOS not in student:
        implied["stopped_by"] = STOPPED_BY_CAP
    return implied


FIELDS = (
    AnswerField(
        "tokens",
        "tokens",
        Text("贪心解码输出的全部 token", "Every token greedy decoding outputs"),
        Text(
            "按顺序用空格分开，选到的 EOS 也要写，如 blue key . EOS",
            "in order, separated by spaces, EOS included if chosen, e.g. blue key . EOS",
        ),
        Text(
            "每步取所在行概率最大的候选（并列取靠前者），再把它作为下一步输入；选到 EOS 或预测满上限次数即停止。",
            "Each step takes the largest entry of the current row (ties to the earlier candidate) and "
            "feeds it back in; decoding stops after EOS or after the cap number of predictions.",
        ),
    ),
    AnswerField(
        "stopped_by",
        "enum",
        Text("解码停止的原因", "What stopped the decode"),
        Text("EOS 或 cap（步数上限）", "EOS or cap (the step limit)"),
        Text(
            "选到 EOS 就是 EOS 停止；始终没有 EOS、预测满上限次数才是上限停止。",
            "Choosing EOS means EOS stopped it; only a decode that never chooses EOS stops at the cap.",
        ),
        aliases=STOP_ALIASES,
    ),
)


def prompt(variant: Variant, lang: str) -> str:
    """The question with this variant's probability table and step cap."""
    data = variant.data
    steps = data["max_steps"]
    return table_paragraph(variant, lang) + Text(
        f"从 BOS 开始做贪心解码：每步选概率最大的候选，若并列则选候选顺序中靠前的那个，再把选中的 token 作为下一步输入。"
        f"选到 EOS 后停止；若一直没有 EOS，则在第 {steps} 次预测后停止。\n"
        "1. 按顺序写出全部预测出的 token（若选到 EOS，也写上）。\n2. 解码是因为 EOS 停止，还是因为到达步数上限（cap）？",
        "Decode greedily from BOS: at each step choose the most probable candidate (a tie goes to the candidate "
        "listed first) and feed the chosen token in as the next input. Stop after choosing EOS; if EOS never "
        f"comes, stop after prediction {steps}.\n"
        "1. List every predicted token in order (EOS too, if it was chosen).\n"
        "2. Did decoding stop because of EOS or because it reached the step cap (cap)?",
    ).get(lang)


EXERCISE = Exercise.declared_in(globals(), data_text=table_block)
