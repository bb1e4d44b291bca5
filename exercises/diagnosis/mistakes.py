"""How each operator-level mistake is said, in both languages, for the step it was made in."""

from __future__ import annotations

from exercises.diagnosis.steps import StepInfo
from exercises.i18n import Text

# Mistake id (its prefix before ':' for mistakes with an argument) -> wording; {step} is "step 2 (W_x x)".
WORDING: dict[str, Text] = {
    "use": Text("{step}用成了 {other}，而不是 {operand}", "in {step} you used {other} instead of {operand}"),
    "transpose-left": Text("{step}把 {left} 转置了", "in {step} you transposed {left}"),
    "transpose-right": Text("{step}把 {right} 转置了", "in {step} you transposed {right}"),
    "swap-order": Text(
        "{step}把 {left} 和 {right} 的乘法顺序颠倒了", "in {step} you multiplied {left} and {right} in the other order"
    ),
    "entrywise": Text(
        "{step}把 {left} 和 {right} 逐元素相乘了，而不是矩阵乘法",
        "in {step} you multiplied {left} and {right} entry by entry instead of as matrices",
    ),
    "drop": Text("{step}漏掉了 {term} 这一项", "in {step} you left out the term {term}"),
    "subtract": Text("{step}把 {term} 减掉了，而不是加上", "in {step} you subtracted {term} instead of adding it"),
    "double": Text("{step}把 {term} 加了两次", "in {step} you added {term} twice"),
    "skip": Text("跳过了{step}", "you skipped {step}"),
    "multiply": Text(
        "{step}乘以了 {divisor}，而不是除以它", "in {step} you multiplied by {divisor} instead of dividing"
    ),
    "by": Text("{step}除以的是 {other}，而不是 {divisor}", "in {step} you divided by {other} instead of {divisor}"),
    "other-axis": Text(
        "{step}的 softmax 沿列做了，而不是沿行", "in {step} the softmax ran over columns instead of rows"
    ),
    "all-entries": Text(
        "{step}把整个矩阵一起做了 softmax，而不是每行分别做",
        "in {step} the softmax ran over the whole matrix at once instead of each row",
    ),
    "hardmax": Text(
        "{step}用了硬的 argmax（最大者取 1，其余取 0），而不是 softmax",
        "in {step} you took a hard argmax (1 for the largest, 0 elsewhere) instead of the softmax",
    ),
    "no-exp": Text(
        "{step}直接把分数除以它们的和，漏了指数",
        "in {step} you divided the scores by their sum, without the exponential",
    ),
    "tanh": Text("{step}用了 tanh", "in {step} you used tanh"),
    "relu": Text("{step}用了 ReLU", "in {step} you used ReLU"),
    "sigmoid": Text("{step}用了 sigmoid", "in {step} you used the sigmoid"),
    "clip": Text("{step}只把数截到 [-1, 1]，没有用 tanh", "in {step} you only clipped to [-1, 1] instead of tanh"),
    "abs": Text("{step}取了绝对值", "in {step} you took absolute values"),
    "sum": Text("{step}只求了和，没有求平均", "in {step} you took the sum, not the average"),
    "divisor-plus-one": Text("{step}的除数多算了一个", "in {step} the divisor counts one too many"),
    "divisor-minus-one": Text("{step}的除数少算了一个", "in {step} the divisor counts one too few"),
    "log2": Text(
        "{step}用了以 2 为底的对数，而不是自然对数", "in {step} you used log base 2 instead of the natural log"
    ),
    "log10": Text(
        "{step}用了以 10 为底的对数，而不是自然对数", "in {step} you used log base 10 instead of the natural log"
    ),
    "no-negate": Text("{step}漏了负号（−ln p 才是损失）", "in {step} you dropped the minus sign (the loss is −ln p)"),
    "plus-one": Text("{step}多数了一个", "in {step} you counted one too many"),
    "minus-one": Text("{step}少数了一个", "in {step} you counted one too few"),
    "reversed": Text("{step}把顺序弄反了", "in {step} you reversed the order"),
}
STEP = Text("第 {number} 步（{label}）", "step {number} ({label})")
GENERIC = Text("{step}做法有误", "{step} went wrong")


def step_words(info: StepInfo) -> Text:
    """The step as the feedback names it: "step 2 (W_x x)"."""
    return Text(
        STEP.zh.format(number=info.number, label=info.label.zh), STEP.en.format(number=info.number, label=info.label.en)
    )


def describe(info: StepInfo, mistake: str) -> Text:
    """What the student did wrong in ``info``'s step, as a clause in both languages."""
    kind, _, argument = mistake.partition(":")
    template = info.words.get(mistake) if kind not in WORDING else WORDING[kind]
    if template is None:
        template = GENERIC
    step = step_words(info)
    blank = Text("", "")
    values = {
        "step": step,
        "left": info.words.get("left", blank),
        "right": info.words.get("right", blank),
        "operand": info.words.get("operand", info.label),
        "divisor": info.words.get("divisor", blank),
        "other": info.words.get(mistake, blank),
        "term": info.words.get(f"term:{argument}", blank),
    }
    if kind == "use":
        values["other"] = info.words.get(mistake, blank)
    return Text(
        template.zh.format(**{key: value.zh for key, value in values.items()}),
        template.en.format(**{key: value.en for key, value in values.items()}),
    )


def sentence(clauses: list[Text]) -> Text:
    """Clauses as one sentence in each language: "你第 2 步…；第 3 步…。" / "In step 2 …, and in step 3 …"."""
    zh = "你" + "；".join(clause.zh.removeprefix("你") for clause in clauses) + "。"
    en = ", and ".join(clause.en for clause in clauses)
    return Text(zh, en[:1].upper() + en[1:] + ".")
