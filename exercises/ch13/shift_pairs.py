"""ch13.shift-pairs: shift a target right under teacher forcing and say which positions are scored."""

from __future__ import annotations

import itertools

import numpy as np

from exercises import units
from exercises.base import Answer, AnswerField, Data, Misconception, Variant
from exercises.ch13.common import BOS, COLOURS, EOS, NOUNS, PERIOD, tokens_text
from exercises.diagnosis.steps import Steps
from exercises.i18n import Text
from exercises.plugin import Exercise

ID = "ch13.shift-pairs"
TITLE = Text("目标右移与教师强制", "Shifting the target for teacher forcing")


def book_data() -> Data:
    """Exercise 13.1: the target blue door . EOS."""
    return {"target": ["blue", "door", PERIOD, EOS]}


def random_data(rng: np.random.Generator, seed: int) -> Data:
    """A target of one to three content words from the chapter's pools, then a period and EOS."""
    colours, nouns = sorted(COLOURS), sorted(NOUNS)
    shape = int(rng.integers(0, 3))
    if shape == 0:
        words = [str(rng.choice(nouns))]
    elif shape == 1:
        words = [str(rng.choice(colours)), str(rng.choice(nouns))]
    else:
        words = [str(rng.choice(colours)), str(rng.choice(nouns)), str(rng.choice(nouns))]
    return {"target": [*words, PERIOD, EOS]}


def solve(variant: Variant) -> Answer:
    """Inputs are BOS then the target without its last token; every target token, EOS included, is scored."""
    target = list(variant.data["target"])
    inputs = [BOS, *target[:-1]]
    return {"pairs": list(zip(inputs, target)), "bos_scored": False, "eos_scored": True, "scored_count": len(target)}


START_WORDS = {
    "eos": Text("{step}用了 EOS", "in {step} you started from EOS"),
    "first-word": Text(
        "{step}用了目标的第一个词，而不是 BOS", "in {step} you started from the first target word, not BOS"
    ),
}
PAIR_WORDS = {
    "extra-eos": Text("{step}在最后多配了一对 EOS→EOS", "in {step} you added an extra pair EOS→EOS at the end"),
    "drop-last": Text("{step}在 .→EOS 之前就停了", "in {step} you stopped before the pair .→EOS"),
    "drop-first": Text("{step}漏了第一对 BOS→…", "in {step} you left out the first pair, from BOS"),
    "direction": Text("{step}把每对写成了（目标→输入）", "in {step} you wrote each pair as (target → input)"),
    "no-period": Text(
        "{step}把句号当成不是 token，跳过了它", "in {step} you skipped the period as if it were no token"
    ),
}
FLIP_WORDS = {"flip": Text("{step}答反了", "you answered {step} the other way")}


def steps(variant: Variant, run: Steps) -> Answer:
    """The solve as named steps: the first input, the shifted pairs, their order, which ends are scored, the count."""
    target = list(variant.data["target"])
    start = run.custom(
        "start",
        Text("第一个输入", "the first input"),
        lambda: BOS,
        {"eos": lambda: EOS, "first-word": lambda: target[0]},
        START_WORDS,
    )
    shifted = list(zip([start, *target[:-1]], target))
    words = [token for token in target if token != PERIOD]
    pairs = run.custom(
        "pairs",
        Text("右移一位配成（输入→目标）", "shifting right into (input → target) pairs"),
        lambda: shifted,
        {
            "extra-eos": lambda: [*shifted, (EOS, EOS)],
            "drop-last": lambda: shifted[:-1],
            "drop-first": lambda: shifted[1:],
            "direction": lambda: [(out, into) for into, out in shifted],
            "no-period": lambda: list(zip([start, *words[:-1]], words)),
        },
        PAIR_WORDS,
    )
    written = run.order("order", Text("按位置先后写出", "writing the pairs in order"), pairs)
    bos = run.custom(
        "bos_scored", Text("“BOS 是否计分”", "whether BOS is scored"), lambda: False, {"flip": lambda: True}, FLIP_WORDS
    )
    eos = run.custom(
        "eos_scored", Text("“EOS 是否计分”", "whether EOS is scored"), lambda: True, {"flip": lambda: False}, FLIP_WORDS
    )
    count = run.index("count", Text("计分位置的个数", "the number of scored positions"), len(pairs), 0)
    return {"pairs": written, "bos_scored": bos, "eos_scored": eos, "scored_count": count}


def _unshifted(variant: Variant) -> Answer:
    """Pairs each target token with the next one, so nothing is predicted from BOS.

    Only the pairs: the count this gives (length - 1) is count-off-by-one's answer, and claiming it here put the
    pairing diagnosis first on a count-only mistake whose pairs were right.
    """
    target = list(variant.data["target"])
    return {"pairs": list(itertools.pairwise(target))}


def _identity_pairs(variant: Variant) -> Answer:
    """Feeds each token as the input for predicting itself."""
    target = list(variant.data["target"])
    return {"pairs": [(token, token) for token in target]}


def _eos_as_input(variant: Variant) -> Answer:
    """Starts the decoder with EOS instead of BOS."""
    target = list(variant.data["target"])
    return {"pairs": list(zip([EOS, *target[:-1]], target))}


def _bos_scored(variant: Variant) -> Answer:
    """Counts BOS as a scored target."""
    return {"bos_scored": True, "scored_count": len(variant.data["target"]) + 1}


def _eos_not_scored(variant: Variant) -> Answer:
    """Leaves EOS out of the loss."""
    return {"eos_scored": False}


def _count_off_by_one(variant: Variant) -> Answer:
    """Counts the gaps between target tokens instead of the predictions."""
    return {"scored_count": len(variant.data["target"]) - 1}


def _count_includes_bos(variant: Variant) -> Answer:
    """Says BOS is not scored, yet counts it among the scored positions (every token of BOS + target)."""
    return {"scored_count": len(variant.data["target"]) + 1}


MISCONCEPTIONS = (
    Misconception(
        "unshifted",
        _unshifted,
        Text(
            "把目标序列和它自己错开一位配对，漏掉了以 BOS 为输入的第一步。规则：输入侧先放 BOS，再放目标去掉最后一个 token，"
            "这样第一个目标也有一个输入来预测它。",
            "You paired each target token with the next one and lost the first step, whose input is BOS. "
            "Rule: the input side is BOS followed by the target minus its last token, so the first target "
            "token is predicted too.",
        ),
        name=Text("漏掉了 BOS 输入那一步", "Missed the step from BOS"),
    ),
    Misconception(
        "identity-pairs",
        _identity_pairs,
        Text(
            "把每个 token 同时当作输入和目标，模型只需抄写输入。规则：当前输入是前一个正确 token，目标是下一个 token。",
            "You used each token as both input and target, so the model would only copy its input. "
            "Rule: the input is the previous correct token and the target is the next one.",
        ),
        name=Text("输入与目标相同", "Input paired with itself"),
    ),
    Misconception(
        "eos-as-input",
        _eos_as_input,
        Text(
            "用 EOS 启动了解码器。规则：解码器从 BOS 开始；EOS 在这里只作为要预测的目标出现。",
            "You started the decoder with EOS. Rule: decoding starts from BOS; here EOS only ever appears "
            "as a target to predict.",
        ),
        name=Text("用 EOS 开始解码", "Started decoding from EOS"),
    ),
    Misconception(
        "bos-scored",
        _bos_scored,
        Text(
            "把 BOS 也算成了要评分的目标。规则：BOS 只是第一个输入，模型从不预测它，因此它不贡献损失。",
            "You counted BOS as a scored target. Rule: BOS is only the first input; the model never "
            "predicts it, so it adds no loss.",
        ),
        name=Text("给 BOS 计了损失", "Scored the BOS position"),
    ),
    Misconception(
        "eos-not-scored",
        _eos_not_scored,
        Text(
            "把 EOS 排除在损失之外。规则：EOS 是模型必须学会预测的目标——它告诉生成何时停止——所以要评分。",
            "You left EOS out of the loss. Rule: EOS is a target the model must learn to predict (it is "
            "how generation knows when to stop), so it is scored.",
        ),
        name=Text("没给 EOS 计损失", "Left EOS out of the loss"),
    ),
    Misconception(
        "count-off-by-one",
        _count_off_by_one,
        Text(
            "数的是目标 token 之间的间隔。规则：每个目标 token（含 EOS）各被预测一次，评分位置数等于目标长度。",
            "You counted the gaps between target tokens. Rule: every target token, EOS included, is "
            "predicted once, so the number of scored positions equals the target length.",
        ),
        name=Text("数了间隔而非位置", "Counted gaps, not positions"),
    ),
    # Built on the right BOS answer: a student who says BOS is scored made the bos-scored mistake instead.
    Misconception(
        "count-includes-bos",
        _count_includes_bos,
        Text(
            "你说 BOS 不计损失，数评分位置时却把它也数了进去（数了 BOS 加整个目标）。规则：评分位置是模型的预测，每个目标 "
            "token（含 EOS）一个，数目等于目标长度。",
            "You said BOS is not scored but counted it among the scored positions (BOS plus the whole target). Rule: "
            "the scored positions are the model's predictions, one per target token, EOS included: as many as the "
            "target is long.",
        ),
        name=Text("数位置时算进了 BOS", "Counted BOS among positions"),
        builds_on=("bos_scored",),
        draws_variants=False,
    ),
)


def follow_through(variant: Variant, answer: Answer) -> dict[str, int]:
    """The count the student's own BOS and EOS answers imply: the tokens before EOS, plus each they say is scored.

    "EOS is not scored" then "3 predictions" for a four-token target is one mistake carried through, not a
    miscount (count-off-by-one is the count that does not follow from the student's own answers).
    """
    bos, eos = answer.get("bos_scored"), answer.get("eos_scored")
    if not isinstance(bos, bool) or not isinstance(eos, bool):
        return {}
    return {"scored_count": len(variant.data["target"]) - 1 + int(bos) + int(eos)}


# "Does BOS/EOS contribute to the loss?": 计入 / 不计入 (counted in / not) answer it as plainly as 是 / 否.
SCORED_WORDS = {
    "true": (
        "计入",
        "计入损失",
        "会计入",
        "算",
        "算入",
        "计算在内",
        "scored",
        "counted",
        "included",
        "it is scored",
        "it counts",
    ),
    "false": (
        "不计入",
        "不计入损失",
        "不会计入",
        "不算",
        "不算入",
        "不计算在内",
        "not scored",
        "not counted",
        "excluded",
        "it is not scored",
    ),
}


FIELDS = (
    AnswerField(
        "pairs",
        "pairs",
        Text("解码输入→目标 对", "decoder input → target pairs"),
        Text("例如 BOS→x, x→y（每对用逗号或换行分开）", "e.g. BOS→x, x→y (separate pairs by commas or lines)"),
        Text(
            "输入侧是 BOS 加上去掉最后一个 token 的目标，与目标逐位对齐。",
            "The input side is BOS plus the target without its last token, aligned position by position.",
        ),
    ),
    AnswerField(
        "bos_scored",
        "bool",
        Text("BOS 是否计入目标损失", "Does BOS contribute target loss?"),
        Text("是 / 否", "yes / no"),
        Text("BOS 只作输入，不被预测，也就没有损失。", "BOS is input only: never predicted, so no loss."),
        aliases=SCORED_WORDS,
    ),
    AnswerField(
        "eos_scored",
        "bool",
        Text("EOS 是否计入目标损失", "Does EOS contribute target loss?"),
        Text("是 / 否", "yes / no"),
        Text("EOS 是要预测的目标，计入损失。", "EOS is a predicted target and is scored."),
        aliases=SCORED_WORDS,
    ),
    AnswerField(
        "scored_count",
        "int",
        Text("评分的预测次数", "Number of scored predictions"),
        Text("一个整数", "an integer"),
        Text("每个目标 token 被预测一次，EOS 也算。", "Each target token is predicted once, EOS included."),
        units=units.SCORED,
    ),
)


def prompt(variant: Variant, lang: str) -> str:
    """The question with this variant's target sequence."""
    target = tokens_text(variant.data["target"])
    return Text(
        f"训练目标序列为 [{target}]，解码器用教师强制训练，以 BOS 作为起始输入。\n"
        "1. 按顺序写出每一步的“解码器输入→应预测的目标”对。\n"
        "2. BOS 会贡献目标损失吗？\n3. EOS 会贡献目标损失吗？\n4. 一共有多少个被评分的预测位置？",
        f"The training target is [{target}]. The decoder is trained with teacher forcing and starts "
        "from the input BOS.\n1. List, in order, every 'decoder input → target to predict' pair.\n"
        "2. Does BOS contribute to the target loss?\n3. Does EOS contribute to the target loss?\n"
        "4. How many predictions are scored in total?",
    ).get(lang)


EXERCISE = Exercise.declared_in(globals())
