"""ch09.multihead-shapes: the per-head width and the projection weights of one multi-head attention layer."""

from __future__ import annotations

import numpy as np

from exercises import units
from exercises.base import Answer, AnswerField, Data, Misconception, Variant
from exercises.diagnosis.steps import Steps
from exercises.i18n import Text
from exercises.plugin import Exercise

ID = "ch09.multihead-shapes"
TITLE = Text("多头注意力的形状与参数", "Multi-head shapes and parameters")
# (d_model, heads) of published models: the original Transformer, BERT/GPT-2 sizes, GPT-3 and LLaMA widths.
KNOWN_SHAPES = (
    (512, 8),
    (768, 12),
    (1024, 16),
    (1280, 20),
    (1600, 25),
    (2048, 16),
    (2560, 32),
    (4096, 32),
    (5120, 40),
    (8192, 64),
    (12288, 96),
)
HEAD_WIDTHS = (32, 64, 80, 96, 128)
HEAD_COUNTS = (4, 6, 8, 12, 16, 24, 32, 48)


def book_data() -> Data:
    """GPT-3 as chapter 9 describes it: width 12288 with 96 heads."""
    return {"d_model": 12288, "heads": 96}


def random_data(rng: np.random.Generator, seed: int) -> Data:
    """A published (d_model, heads) pair, or a random head count times a usual head width."""
    if rng.random() < 0.5:
        d_model, heads = KNOWN_SHAPES[int(rng.integers(len(KNOWN_SHAPES)))]
    else:
        heads = int(rng.choice(HEAD_COUNTS))
        d_model = heads * int(rng.choice(HEAD_WIDTHS))
    return {"d_model": int(d_model), "heads": int(heads)}


def solve(variant: Variant) -> Answer:
    """head_dim = d_model / heads; Q, K, V and output projections are each d_model × d_model."""
    d_model, heads = variant.data["d_model"], variant.data["heads"]
    return {"head_dim": d_model // heads, "projection_params": 4 * d_model * d_model}


SPLIT_WORDS = {
    "multiply": Text("{step}乘以了头数，而不是除以", "in {step} you multiplied by the heads instead of dividing")
}
PARAM_WORDS = {
    "with-bias": Text(
        "{step}把偏置也算进去了（本题只数矩阵）", "in {step} you counted the biases too (only the matrices count here)"
    ),
    "times-heads": Text("{step}又乘了一次头数", "in {step} you multiplied by the number of heads once more"),
    "per-head-squares": Text(
        "{step}按每个头一个 head_dim × head_dim 的方阵来数",
        "in {step} you counted one head_dim × head_dim square per head",
    ),
    "two": Text("{step}只数了 Q 和 K 两个投影", "in {step} you counted only the Q and K projections"),
    "one": Text("{step}只数了一个投影", "in {step} you counted only one projection"),
}


def steps(variant: Variant, run: Steps) -> Answer:
    """The solve as named steps: head_dim = d_model / heads, then four d_model × d_model projections."""
    d_model, heads = int(variant.data["d_model"]), int(variant.data["heads"])
    head_dim = run.custom(
        "split",
        Text("head_dim = d_model / 头数", "head_dim = d_model / heads"),
        lambda: d_model // heads,
        {"multiply": lambda: d_model * heads},
        SPLIT_WORDS,
    )
    square = d_model * d_model
    params = run.custom(
        "params",
        Text("4 个 d_model × d_model 的投影", "four d_model × d_model projections"),
        lambda: 4 * square,
        {
            "with-bias": lambda: 4 * square + 4 * d_model,
            "times-heads": lambda: 4 * square * heads,
            "per-head-squares": lambda: 4 * (d_model // heads) ** 2 * heads,
            "two": lambda: 2 * square,
            "one": lambda: square,
        },
        PARAM_WORDS,
    )
    return {"head_dim": head_dim, "projection_params": params}


def _not_split(variant: Variant) -> Answer:
    """Gives every head the full model width."""
    return {"head_dim": variant.data["d_model"]}


def _three_projections(variant: Variant) -> Answer:
    """Counts Q, K and V but forgets the output projection."""
    return {"projection_params": 3 * variant.data["d_model"] ** 2}


def _one_head_only(variant: Variant) -> Answer:
    """Counts one head's slice of each projection (d_model × head_dim) and never multiplies by the heads."""
    d_model, heads = variant.data["d_model"], variant.data["heads"]
    return {"projection_params": 4 * d_model * (d_model // heads)}


MISCONCEPTIONS = (
    Misconception(
        "not-split",
        _not_split,
        Text(
            "让每个头都用了完整的 d_model 维。多头注意力把 d_model 平均分给各个头：每头 d_model / heads 维，"
            "拼接后正好回到 d_model。",
            "You gave every head the full d_model width. Multi-head attention splits d_model evenly across the "
            "heads: each head gets d_model / heads dimensions, and concatenating them gives d_model back.",
        ),
        name=Text("没有按头切分维度", "Heads not split"),
    ),
    Misconception(
        "three-projections",
        _three_projections,
        Text(
            "只数了 Q、K、V 三个投影，漏掉了输出投影。各头的输出拼接后还要再乘一个 d_model × d_model 的矩阵，"
            "所以共 4·d_model² 个权重。",
            "You counted the Q, K and V projections but not the output projection. The concatenated head outputs "
            "are multiplied by one more d_model × d_model matrix, so there are 4·d_model² weights.",
        ),
        name=Text("漏了输出投影", "Forgot the output projection"),
    ),
    Misconception(
        "one-head-only",
        _one_head_only,
        Text(
            "你只数了一个头的那一份（d_model × head_dim），没有乘上头数（把每个头当成 head_dim × head_dim 的方阵再乘头数，"
            "得数也一样）。各头的切片合起来占满 d_model 列，所以每个投影都是 d_model × d_model。",
            "You counted one head's slice (d_model × head_dim) and did not multiply by the heads (taking each head as a "
            "head_dim × head_dim square times the heads gives the same number). The heads' slices together fill all "
            "d_model columns, so each projection is d_model × d_model.",
        ),
        name=Text("只数了一个头", "Counted one head only"),
        draws_variants=False,
    ),
)

FIELDS = (
    AnswerField(
        "head_dim",
        "int",
        Text("每个头的维度", "width of each head"),
        Text("一个整数", "an integer"),
        Text("每头维度 = d_model / heads。", "Head width = d_model / heads."),
        units=units.WIDTH,
    ),
    AnswerField(
        "projection_params",
        "int",
        Text("投影矩阵的权重总数（不含偏置）", "projection weights (no biases)"),
        Text(
            "一个整数，也可以写成只含数字的算式，如 3*2^10",
            "an integer; an expression in numbers only, such as 3*2^10, is fine",
        ),
        Text(
            "Q、K、V、输出四个投影各是 d_model × d_model：共 4·d_model²。",
            "Q, K, V and output projections are each d_model × d_model: 4·d_model² in total.",
        ),
        units=units.WEIGHTS,
        uses=(),
    ),
)


def prompt(variant: Variant, lang: str) -> str:
    """The question with this variant's width and head count."""
    d_model, heads = variant.data["d_model"], variant.data["heads"]
    book = variant.seed == 0
    return Text(
        ("GPT-3 每层的" if book else "一个 Transformer 层的")
        + f"多头自注意力：模型宽度 d_model = {d_model}，头数 heads = {heads}。Q、K、V 按头平均切分，"
        "各头输出拼接后再经过一个输出投影。\n1. 每个头的维度是多少？\n"
        "2. Q、K、V 三个投影加上输出投影，一共有多少个权重（只数矩阵元素，不数偏置）？",
        (
            "Multi-head self-attention in each GPT-3 layer"
            if book
            else "Multi-head self-attention in a Transformer layer"
        )
        + f": model width d_model = {d_model}, heads = {heads}. Q, K and V are split evenly across the heads, and "
        "the concatenated head outputs go through an output projection.\n1. What is the width of each head?\n"
        "2. How many weights do the Q, K, V and output projections hold together (matrix entries only, no biases)?",
    ).get(lang)


EXERCISE = Exercise.declared_in(globals())
