"""ch09.attention-cost: count the query–key dot products of self-attention and how they grow with length."""

from __future__ import annotations

from typing import Any

import numpy as np

from exercises import units
from exercises.base import Answer, AnswerField, Data, Misconception, Variant
from exercises.diagnosis.steps import Steps
from exercises.i18n import Text
from exercises.plugin import Exercise
from exercises.tagging import part_solver_tags

ID = "ch09.attention-cost"
TITLE = Text("注意力的二次方代价", "The quadratic cost of attention")
SMALL_LENGTHS = tuple(range(3, 13))  # short enough to draw the n×n grid and count by hand
LONG_LENGTHS = (100, 512, 1000, 1024, 2000, 2048, 4096, 5000, 8192, 10000)
FACTORS = (2, 2, 3, 4, 8, 10, 1.5, 2.5)


def book_data() -> Data:
    """Chapter 9's example: 1000 words, and the sequence doubles."""
    return {"n": 1000, "factor": 2}


def random_data(rng: np.random.Generator, seed: int) -> Data:
    """A short or a realistic length and a growth factor that keeps the new length whole."""
    pool = SMALL_LENGTHS if rng.random() < 0.4 else LONG_LENGTHS
    n = int(rng.choice(pool))
    factor = FACTORS[int(rng.integers(len(FACTORS)))]
    if (factor * n) % 1:
        n += 1  # a half-integer factor needs an even length
    return {"n": n, "factor": factor}


def solve(variant: Variant) -> Answer:
    """n² pairs, n(n+1)/2 with a causal mask (each token sees itself and earlier ones), growth factor²."""
    n, factor = variant.data["n"], variant.data["factor"]
    return {"pairs": n * n, "causal_pairs": n * (n + 1) // 2, "growth": float(factor) ** 2}


PAIR_WORDS = {
    "no-self": Text("{step}没有算每个 token 与自己的那一对", "in {step} you left out each token's pair with itself"),
    "causal": Text("{step}只数了因果掩码下的一半", "in {step} you counted only the causal half"),
    "linear": Text("{step}只数了 2n，而不是 n × n", "in {step} you counted 2n, not n × n"),
}
CAUSAL_WORDS = {
    "no-diagonal": Text(
        "{step}漏了对角线（每个 token 也看自己）", "in {step} you left out the diagonal (each token also sees itself)"
    ),
    "no-mask": Text("{step}没有用掩码，数了全部 n × n", "in {step} you ignored the mask and counted all n × n"),
    "not-halved": Text("{step}忘了除以 2", "in {step} you forgot to halve"),
}
GROWTH_WORDS = {
    "cubic": Text("{step}按立方增长算了", "in {step} you let the cost grow with the cube"),
    "doubled": Text("{step}算成了倍数的两倍", "in {step} you doubled the factor instead of squaring it"),
}


def steps(variant: Variant, run: Steps) -> Answer:
    """The solve as named steps: the length, all n × n pairs, the causal triangle, the growth as the factor²."""
    n = run.index("n", Text("序列长度 n", "the length n"), int(variant.data["n"]), 1)
    factor = float(variant.data["factor"])
    pairs = run.custom(
        "pairs",
        Text("全部配对 n × n", "all pairs n × n"),
        lambda: n * n,
        {"no-self": lambda: n * (n - 1), "causal": lambda: n * (n + 1) // 2, "linear": lambda: 2 * n},
        PAIR_WORDS,
    )
    causal = run.custom(
        "causal",
        Text("因果配对 n(n+1)/2", "causal pairs n(n+1)/2"),
        lambda: n * (n + 1) // 2,
        {"no-diagonal": lambda: n * (n - 1) // 2, "no-mask": lambda: n * n, "not-halved": lambda: n * (n + 1)},
        CAUSAL_WORDS,
    )
    growth = run.custom(
        "growth",
        Text("代价增长为倍数的平方", "the growth as the factor squared"),
        lambda: factor**2,
        {"cubic": lambda: factor**3, "doubled": lambda: 2 * factor},
        GROWTH_WORDS,
    )
    return {"pairs": pairs, "causal_pairs": causal, "growth": growth}


def _linear_growth(variant: Variant) -> Answer:
    """Scales the cost with the length itself."""
    return {"growth": float(variant.data["factor"])}


def _causal_half_square(variant: Variant) -> Answer | None:
    """Halves the full square and forgets that each token also attends to itself (the diagonal)."""
    n = variant.data["n"]
    return {"causal_pairs": n * n // 2} if n % 2 == 0 else None


def tag_part(variant: Variant, name: str, student: Any) -> tuple[str, ...]:
    """Tags by match with each wrong procedure, plus causal-half-square on an odd length: n²/2 is then not whole
    (12.5 for n = 5), which a count field cannot hold, so the student who halved the square wrote it rounded."""
    reference = solve(variant)[name]
    tags = part_solver_tags(FIELDS, MISCONCEPTIONS, variant, name, student, reference)
    n = variant.data["n"]
    if (
        name == "causal_pairs"
        and n % 2
        and "causal-half-square" not in tags
        and isinstance(student, int)
        and student in (n * n // 2, n * n // 2 + 1)
        and student != reference
    ):
        tags.append("causal-half-square")
    return tuple(tags)


def _excludes_self(variant: Variant) -> Answer:
    """Leaves out each token's dot product with itself: n(n-1) pairs, n(n-1)/2 under the causal mask."""
    n = variant.data["n"]
    return {"pairs": n * (n - 1), "causal_pairs": n * (n - 1) // 2}


MISCONCEPTIONS = (
    Misconception(
        "linear-growth",
        _linear_growth,
        Text(
            "以为计算量与序列长度同比例增长。每个 query 都要与每个 key 做点积，点积对数是 n²；长度乘以 k，点积数乘以 k²。",
            "You scaled the cost in proportion to the length. Every query is dotted with every key, so there are n² "
            "dot products; multiplying the length by k multiplies them by k².",
        ),
        name=Text("以为线性增长", "Assumed linear growth"),
    ),
    Misconception(
        "causal-half-square",
        _causal_half_square,
        Text(
            "取了 n²/2，漏掉了对角线。因果掩码下第 i 个 token 看自己和它之前的所有 token，共 i 个，"
            "总数是 1 + 2 + … + n = n(n+1)/2。",
            "You took n²/2 and lost the diagonal. Under a causal mask token i attends to itself and every earlier "
            "token, i keys in all, so the total is 1 + 2 + … + n = n(n+1)/2.",
        ),
        name=Text("因果计数漏对角线", "Causal count missing the diagonal"),
    ),
    Misconception(
        "excludes-self",
        _excludes_self,
        Text(
            "漏掉了每个 token 与自己的点积，只数了不同 token 之间的对。自注意力里每个 query 也要和自己的 key 做点积："
            "不加掩码共 n² 个，因果掩码下第 i 个 token 看自己和之前的 token，共 1 + 2 + … + n = n(n+1)/2 个。",
            "You left out each token's dot product with itself and counted only pairs of different tokens. In "
            "self-attention every query is also dotted with its own key: n² products without a mask, and under a "
            "causal mask token i sees itself and every earlier token, 1 + 2 + … + n = n(n+1)/2 in all.",
        ),
        name=Text("漏了自身点积", "Left out self-pairs"),
    ),
)

FIELDS = (
    AnswerField(
        "pairs",
        "int",
        Text("完整自注意力的 query–key 点积个数", "query–key dot products, full self-attention"),
        Text("一个整数", "an integer"),
        Text("n 个 query 各与 n 个 key 做一次点积：n²。", "Each of n queries meets each of n keys once: n²."),
        units=units.DOT_PRODUCTS,
    ),
    AnswerField(
        "causal_pairs",
        "int",
        Text("因果掩码下的点积个数", "dot products under a causal mask"),
        Text("一个整数", "an integer"),
        Text(
            "第 i 个位置看位置 1…i：1 + 2 + … + n = n(n+1)/2。",
            "Position i sees positions 1…i: 1 + 2 + … + n = n(n+1)/2.",
        ),
        units=units.DOT_PRODUCTS,
        uses=(),
    ),
    AnswerField(
        "growth",
        "number",
        Text("完整点积数增长的倍数", "factor by which the full count grows"),
        Text("一个数（整数、小数或分数都可以）", "a number (whole, decimal or a fraction)"),
        Text(
            "点积数与长度的平方成正比：长度乘以 k，点积数乘以 k²。",
            "The count is proportional to the square of the length: length × k gives count × k².",
        ),
        units=units.FACTOR,
        uses=(),
    ),
)


def prompt(variant: Variant, lang: str) -> str:
    """The question with this variant's length and growth factor."""
    n, factor = variant.data["n"], variant.data["factor"]
    longer = round(n * factor)
    return Text(
        f"一段序列有 n = {n} 个 token，做一层单头自注意力，每个 query 与 key 的一次点积记为一个“对”。\n"
        "1. 不加掩码时，一共要算多少个 query–key 点积？\n"
        "2. 加因果掩码（每个 token 只看它自己和它前面的 token）时，要算多少个？\n"
        f"3. 序列长度变为原来的 {factor:g} 倍（{longer} 个 token）时，不加掩码的点积个数变为原来的多少倍？",
        f"A sequence has n = {n} tokens and goes through one single-head self-attention layer; one query–key "
        "dot product counts as one pair.\n1. Without a mask, how many query–key dot products are computed?\n"
        "2. With a causal mask (each token sees only itself and the tokens before it), how many?\n"
        f"3. If the sequence becomes {factor:g} times as long ({longer} tokens), by what factor does the unmasked "
        "count grow?",
    ).get(lang)


EXERCISE = Exercise.declared_in(globals())
