"""ch13.loss-average: sequence probability, total loss and the two per-token averages (with and without EOS)."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from exercises import units
from exercises.base import Answer, AnswerField, Data, Misconception, Variant
from exercises.ch13.common import BOOK_TABLE, BOOK_TARGET, BOS, CANDIDATES, tokens_text
from exercises.ch13.decoding import (
    fill_table,
    random_candidates,
    random_target,
    sentence_successors,
    table_block,
    table_paragraph,
    teacher_forced_probabilities,
    tenths_row,
    untied_table_fault,
)
from exercises.comparators import DEFAULT_TOLERANCE
from exercises.diagnosis.steps import Steps
from exercises.i18n import Text
from exercises.plugin import Exercise
from exercises.readers import display

ID = "ch13.loss-average"
TITLE = Text("序列损失与平均方式", "Sequence loss and how it is averaged")
MIN_SEQUENCE_PROBABILITY = 0.05  # keeps the product well above the absolute tolerance
EOS_BELOW_ONE_SHARE = 0.6


def book_data() -> Data:
    """Example 13.2 and exercise 13.5: table 13.4 and the reference red key . EOS."""
    return {
        "candidates": list(CANDIDATES),
        "table": {k: list(row) for k, row in BOOK_TABLE.items()},
        "target": list(BOOK_TARGET),
    }


def random_data(rng: np.random.Generator, seed: int) -> Data:
    """A target sentence whose teacher-forced probabilities are 0.3–0.9, the final EOS often below 1."""
    candidates = random_candidates(rng)
    target = random_target(rng, candidates)
    table = fill_table(rng, candidates, sentence_successors(rng, candidates))
    eos_units = int(rng.integers(5, 10)) if rng.random() < EOS_BELOW_ONE_SHARE else 10
    units = [int(rng.integers(3, 10)) for _ in target[:-1]] + [eos_units]
    for previous, token, share in zip([BOS, *target[:-1]], target, units):
        table[previous] = tenths_row(rng, len(candidates), fixed={candidates.index(token): share})
    return {"candidates": candidates, "table": table, "target": target}


def _probabilities(variant: Variant) -> list[float]:
    """The teacher-forced probability of each target token."""
    data = variant.data
    return teacher_forced_probabilities(data["candidates"], data["table"], data["target"])


def _answer(probabilities: list[float], log: Any = math.log, sign: float = -1.0) -> Answer:
    """Probability, total loss and both averages, for a given logarithm and sign convention."""
    losses = [sign * log(p) for p in probabilities]
    return {
        "sequence_probability": math.prod(probabilities),
        "total_loss": sum(losses),
        "mean_loss_with_eos": sum(losses) / len(losses),
        "mean_loss_without_eos": sum(losses[:-1]) / (len(losses) - 1),
    }


def solve(variant: Variant) -> Answer:
    """Product of the target probabilities; −ln of it in nats; divided by n, and without EOS by n − 1."""
    return _answer(_probabilities(variant))


def quality(variant: Variant) -> str | None:
    """Reject ties, bad rows, zero or tiny probabilities, and answers that can be read off the question."""
    data = variant.data
    fault = untied_table_fault(data["table"])
    if fault is not None:
        return fault
    probabilities = _probabilities(variant)
    if min(probabilities) <= 0 or math.prod(probabilities) < MIN_SEQUENCE_PROBABILITY:
        return "target probability zero or sequence probability too small"
    shown = prompt(variant, "zh") + prompt(variant, "en") + json.dumps(dict(data), ensure_ascii=False)
    if any(display("number", value) in shown for value in solve(variant).values()):
        return "an answer appears in the question"
    return None


def _log10(variant: Variant) -> Answer:
    """Uses base-10 logarithms."""
    return {k: v for k, v in _answer(_probabilities(variant), math.log10).items() if k != "sequence_probability"}


def _log2(variant: Variant) -> Answer:
    """Uses base-2 logarithms (bits instead of nats)."""
    return {k: v for k, v in _answer(_probabilities(variant), math.log2).items() if k != "sequence_probability"}


def _no_negation(variant: Variant) -> Answer:
    """Forgets the minus sign, so every loss comes out negative."""
    return {k: v for k, v in _answer(_probabilities(variant), sign=1.0).items() if k != "sequence_probability"}


def _eos_excluded_same_divisor(variant: Variant) -> Answer:
    """Drops the EOS term but still divides by the full target length."""
    losses = [-math.log(p) for p in _probabilities(variant)]
    return {"mean_loss_without_eos": sum(losses[:-1]) / len(losses)}


def _eos_kept_divisor_reduced(variant: Variant) -> Answer | None:
    """Divides by one fewer but keeps the EOS term in the sum (the same as the key where p(EOS) = 1)."""
    losses = [-math.log(p) for p in _probabilities(variant)]
    return None if losses[-1] == 0 else {"mean_loss_without_eos": sum(losses) / (len(losses) - 1)}


def _mean_of_probabilities(variant: Variant) -> Answer:
    """Averages the probabilities instead of the losses."""
    probabilities = _probabilities(variant)
    return {
        "mean_loss_with_eos": sum(probabilities) / len(probabilities),
        "mean_loss_without_eos": sum(probabilities[:-1]) / (len(probabilities) - 1),
    }


LOOKUP_MISTAKES = {
    "row-max": Text(
        "{step}取的是每行最大的概率，而不是目标 token 的概率",
        "in {step} you took each row's largest probability, not the target token's",
    ),
    "own-row": Text(
        "{step}按当前 token 而不是前一个 token 选了行",
        "in {step} you picked the row by the current token, not the previous one",
    ),
}
PRODUCT_MISTAKES = {
    "sum": Text("{step}把概率相加了，而不是相乘", "in {step} you added the probabilities instead of multiplying them"),
    "mean": Text("{step}求了概率的平均，而不是乘积", "in {step} you averaged the probabilities instead of multiplying"),
    "drop-eos": Text("{step}漏乘了 EOS 那一步的概率", "in {step} you left out the probability of EOS"),
}
LOSS_MISTAKES = {
    "log2": Text("{step}用了以 2 为底的对数", "in {step} you used log base 2"),
    "log10": Text("{step}用了以 10 为底的对数", "in {step} you used log base 10"),
    "no-negate": Text("{step}漏了负号", "in {step} you dropped the minus sign"),
    "one-minus": Text("{step}算成了 1 − p，而不是 −ln p", "in {step} you took 1 − p instead of −ln p"),
}
REPORT_MISTAKES = {
    "exp": Text(
        "{step}报的是困惑度 exp(平均损失)，而不是平均损失本身",
        "in {step} you gave the perplexity exp(mean loss) instead of the mean loss",
    )
}
WITHOUT_MISTAKES = {
    "keep-eos": Text("{step}没有去掉 EOS 那一项", "in {step} you kept the EOS term"),
    "drop-first": Text(
        "{step}去掉的是第一项，而不是 EOS 那一项", "in {step} you removed the first term, not the EOS one"
    ),
}


def steps(variant: Variant, run: Steps) -> Answer:
    """The solve as named steps: look up each target probability, multiply, −ln each, sum, average with EOS, drop
    the EOS term, average without it."""
    data = variant.data
    candidates, table, target = data["candidates"], data["table"], data["target"]
    rows = [table[previous] for previous in [BOS, *target[:-1]]]
    own_rows = [table.get(token, row) for token, row in zip(target, rows)]
    probabilities = run.custom(
        "lookup",
        Text("查出每个目标 token 的概率", "looking up each target token's probability"),
        lambda: _probabilities(variant),
        {
            "row-max": lambda: [float(max(row)) for row in rows],
            "own-row": lambda: [float(row[candidates.index(token)]) for token, row in zip(target, own_rows)],
        },
        LOOKUP_MISTAKES,
    )
    n = len(probabilities)
    product = run.custom(
        "product",
        Text("序列概率 = 各概率之积", "sequence probability = the product"),
        lambda: math.prod(probabilities),
        {
            "sum": lambda: sum(probabilities),
            "mean": lambda: sum(probabilities) / n,
            "drop-eos": lambda: math.prod(probabilities[:-1]),
        },
        PRODUCT_MISTAKES,
    )
    losses = run.custom(
        "losses",
        Text("每步损失 −ln p", "each step's loss −ln p"),
        lambda: [-math.log(p) for p in probabilities],
        {
            "log2": lambda: [-math.log2(p) for p in probabilities],
            "log10": lambda: [-math.log10(p) for p in probabilities],
            "no-negate": lambda: [math.log(p) for p in probabilities],
            "one-minus": lambda: [1 - p for p in probabilities],
        },
        LOSS_MISTAKES,
    )
    total = float(
        run.total(
            "total",
            Text("总损失 = 各步损失之和", "total loss = the sum of the losses"),
            losses,
            [Text(f"第 {i + 1} 步的损失", f"the loss of step {i + 1}") for i in range(n)],
        )
    )
    mean_with = run.mean("mean_with", Text("除以目标 token 数 n", "dividing by the n target tokens"), [total], n)
    kept = run.custom(
        "without",
        Text("去掉 EOS 那一项", "removing the EOS term"),
        lambda: losses[:-1],
        {"keep-eos": lambda: losses, "drop-first": lambda: losses[1:]},
        WITHOUT_MISTAKES,
    )
    mean_without = run.mean(
        "mean_without", Text("除以 n − 1", "dividing by n − 1"), [sum(kept)], n - 1, {"n": (float(n), Text("n", "n"))}
    )
    report = Text("报告平均损失", "reporting the mean loss")
    with_eos = run.custom(
        "report_with", report, lambda: mean_with, {"exp": lambda: math.exp(mean_with)}, REPORT_MISTAKES
    )
    without_eos = run.custom(
        "report_without", report, lambda: mean_without, {"exp": lambda: math.exp(mean_without)}, REPORT_MISTAKES
    )
    return {
        "sequence_probability": float(product),
        "total_loss": total,
        "mean_loss_with_eos": float(with_eos),
        "mean_loss_without_eos": float(without_eos),
    }


MISCONCEPTIONS = (
    Misconception(
        "log10",
        _log10,
        Text(
            "你用的是以 10 为底的对数。规则：本章的损失用自然对数 ln，单位是 nat；换底会让每一项都缩小同一个倍数（ln 10）。",
            "You used base-10 logarithms. Rule: the chapter's loss uses the natural log ln, in nats; another base "
            "scales every term by the same factor (ln 10).",
        ),
        name=Text("用了以 10 为底的对数", "Used log base 10"),
    ),
    Misconception(
        "log2",
        _log2,
        Text(
            "你用的是以 2 为底的对数（单位成了 bit）。规则：这里的损失用自然对数 ln，单位是 nat。",
            "You used base-2 logarithms (bits). Rule: the loss here uses the natural log ln, in nats.",
        ),
        name=Text("用了以 2 为底的对数", "Used log base 2"),
    ),
    Misconception(
        "no-negation",
        _no_negation,
        Text(
            "你的损失是负数，漏了负号。规则：损失是 −ln p；概率不超过 1，所以每一项损失都不小于 0。",
            "Your loss is negative: the minus sign is missing. Rule: the loss is −ln p; a probability is at most 1, "
            "so every loss term is at least 0.",
        ),
        name=Text("漏了负号", "Missing minus sign"),
    ),
    Misconception(
        "eos-excluded-same-divisor",
        _eos_excluded_same_divisor,
        Text(
            "你去掉了 EOS 那一项损失，却仍按完整长度去除。规则：不计 EOS 时，求和少一项，分母也要少一（目标长度减一）。",
            "You dropped the EOS loss term but still divided by the full length. Rule: without EOS the sum has one "
            "term fewer, so the divisor is one fewer too (target length minus one).",
        ),
        name=Text("去掉 EOS 未改分母", "Dropped EOS, kept the divisor"),
    ),
    Misconception(
        "eos-kept-divisor-reduced",
        _eos_kept_divisor_reduced,
        Text(
            "你把分母改成了目标长度减一，却仍把 EOS 那一项 −ln p 留在和里。规则：不计 EOS 时，和里要去掉 EOS 这一项，"
            "分母也相应少一。",
            "You divided by one fewer but kept EOS's −ln p in the sum. Rule: without EOS, remove its term from the sum "
            "as well as one from the divisor.",
        ),
        name=Text("改了分母，留着 EOS 项", "Kept EOS, cut the divisor"),
        draws_variants=False,
    ),
    Misconception(
        "mean-of-probabilities",
        _mean_of_probabilities,
        Text(
            "你平均的是概率，而不是损失。规则：先把每个目标概率变成损失 −ln p，再对这些损失求平均。",
            "You averaged the probabilities rather than the losses. Rule: turn each target probability into a loss "
            "−ln p first, then average those losses.",
        ),
        name=Text("平均了概率", "Averaged probabilities, not losses"),
    ),
)


def _is_number(value: object) -> bool:
    """A read number (never a bool)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


# The factor a consistent wrong logarithm puts on every loss term (ln gives 1): another base, no minus sign, or both.
# A student's total is read in one of these units only when it matches a natural-log total times the factor.
WRONG_LOG_FACTORS = (1 / math.log(10), 1 / math.log(2), -1.0, -1 / math.log(10), -1 / math.log(2))


def _loss_factor(total: float, natural_totals: list[float]) -> float:
    """The factor of the student's logarithm: 1 for ln, or the wrong base/sign that turns a natural total into theirs."""
    if any(DEFAULT_TOLERANCE.close(total, natural) for natural in natural_totals):
        return 1.0  # a natural-log total (right, or from their own probability): their EOS loss is ln's too
    for factor in WRONG_LOG_FACTORS:
        if any(DEFAULT_TOLERANCE.close(total, factor * natural) for natural in natural_totals):
            return factor
    return 1.0  # a slip in the total, not a unit: the EOS term they leave out is still −ln p


def follow_through(variant: Variant, answer: Answer) -> Mapping[str, Any]:
    """Total loss from the student's probability; both averages from the student's own total loss."""
    final_loss = -math.log(_probabilities(variant)[-1])
    count = len(variant.data["target"])
    implied: dict[str, Any] = {}
    probability: Any = answer.get("sequence_probability")
    total: Any = answer.get("total_loss")
    natural_totals = [solve(variant)["total_loss"]]
    # A probability of 1 gives a total of 0: "1, 0" is a blank answer, not a logarithm taken.
    if _is_number(probability) and probability > 0 and not DEFAULT_TOLERANCE.close(-math.log(probability), 0.0):
        implied["total_loss"] = -math.log(probability)
        natural_totals.append(implied["total_loss"])
    if _is_number(total):
        # The EOS term comes off in the student's own units: a total taken with log10 (or log2, or without the
        # minus sign) loses log10's EOS loss, so both averages treat one consistent wrong procedure alike.
        eos_loss = _loss_factor(total, natural_totals) * final_loss
        # Each average is carried forward only where dividing by the other count would give another number:
        # a total of 0 (or, without EOS, a total equal to EOS's own loss) makes both counts agree, so the
        # part would earn credit for the very distinction it tests without showing it.
        with_eos, without_eos = total / count, (total - eos_loss) / (count - 1)
        if not DEFAULT_TOLERANCE.close(total / (count - 1), with_eos):
            implied["mean_loss_with_eos"] = with_eos
        if not DEFAULT_TOLERANCE.close((total - eos_loss) / count, without_eos):
            implied["mean_loss_without_eos"] = without_eos
    return implied


def _number_field(
    name: str,
    label: Text,
    hint: Text,
    rule: Text,
    unit: units.Units = units.Units(),
    uses: tuple[str, ...] | None = None,
) -> AnswerField:
    """A numeric answer part with the catalogue's default tolerance."""
    return AnswerField(name, "number", label, hint, rule, units=unit, uses=uses)


FIELDS = (
    _number_field(
        "sequence_probability",
        Text("整条目标序列的概率", "Probability of the whole target"),
        Text(
            "一个数（至少 3 位小数），也可写分数或乘积，如 0.4*0.8",
            "a number (at least 3 decimals); a fraction or product such as 0.4*0.8 is fine",
        ),
        Text(
            "沿正确前缀逐步取出每个目标 token 的条件概率，再全部相乘。",
            "Take each target token's probability along the correct prefix and multiply them all.",
        ),
        units.PROBABILITY,
    ),
    _number_field(
        "total_loss",
        Text("总损失（nat，计入 EOS）", "Total loss (nats, EOS counted)"),
        Text(
            "一个数（至少 3 位小数），也可写 -ln(0.5) 这样的式子",
            "a number (at least 3 decimals); expressions like -ln(0.5) are fine",
        ),
        Text(
            "总损失是各步 −ln p 之和，也就是 −ln(序列概率)，用自然对数。",
            "The total loss is the sum of −ln p over the steps, i.e. −ln of the sequence probability, "
            "with the natural log.",
        ),
        units.LOSS,
    ),
    _number_field(
        "mean_loss_with_eos",
        Text("平均损失（计入 EOS）", "Mean loss (EOS counted)"),
        Text("一个数（nat/token），至少保留 3 位小数", "a number (nats per token), to at least 3 decimals"),
        Text(
            "总损失除以目标 token 数，EOS 也算一个。",
            "The total loss divided by the number of target tokens, EOS included.",
        ),
        units.LOSS_PER_TOKEN,
        uses=("sequence_probability", "total_loss"),
    ),
    _number_field(
        "mean_loss_without_eos",
        Text("平均损失（不计 EOS）", "Mean loss (EOS not counted)"),
        Text("一个数（nat/token），至少保留 3 位小数", "a number (nats per token), to at least 3 decimals"),
        Text(
            "去掉 EOS 那一项 −ln p，再除以剩下的 token 数（目标长度减一）。",
            "Remove the EOS term −ln p, then divide by the tokens left (target length minus one).",
        ),
        # Parallel to the mean with EOS: a mistake shown here is not ruled out by that one answered right.
        units.LOSS_PER_TOKEN,
        uses=("sequence_probability", "total_loss"),
    ),
)


def prompt(variant: Variant, lang: str) -> str:
    """The question with this variant's table and reference target."""
    data = variant.data
    target = tokens_text(data["target"])
    return table_paragraph(variant, lang) + Text(
        f"用教师强制评价参考目标 [{target}]，第 1 步的输入是 BOS。损失用自然对数，单位为 nat。\n"
        "1. 整条目标序列的概率是多少？\n2. 总损失是多少（EOS 计入）？\n3. 计入 EOS 时，每个目标 token 的平均损失是多少？\n"
        "4. 不计 EOS 时，每个目标 token 的平均损失是多少？",
        f"Score the reference target [{target}] under teacher forcing; the input at step 1 is BOS. Losses use the "
        "natural log, in nats.\n1. What is the probability of the whole target sequence?\n"
        "2. What is the total loss (EOS counted)?\n3. What is the mean loss per target token, EOS counted?\n"
        "4. What is the mean loss per target token when EOS is not counted?",
    ).get(lang)


EXERCISE = Exercise.declared_in(globals(), data_text=table_block)
