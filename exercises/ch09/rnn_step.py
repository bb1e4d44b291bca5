"""ch09.rnn-step: one step of a vanilla RNN, h = tanh(W_h h_prev + W_x x + b), by hand."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, cast

import numpy as np

from exercises.base import Answer, AnswerField, Data, Misconception, Variant
from exercises.comparators import DEFAULT_TOLERANCE
from exercises.diagnosis.steps import Steps, as_list
from exercises.i18n import Text
from exercises.plugin import Exercise
from exercises.units import Units

ID = "ch09.rnn-step"
TITLE = Text("RNN 的一步更新", "One RNN step")
WEIGHT_TENTHS = np.arange(-10, 11)  # weights are one-decimal numbers in [-1, 1]
MIN_CLEAR = 0.5  # one pre-activation entry this far from 0, so tanh(z) and z differ beyond tolerance
MAX_PRE = 3.0  # beyond this tanh is flat at ±1 and the step teaches nothing
MIN_DIFFERENCE = 0.05


def book_data() -> Data:
    """A fixed worked step (chapter 9 gives the formula but no numbers)."""
    return {
        "w_h": [[0.5, -1.0], [1.0, 0.5]],
        "w_x": [[0.5, 0.0], [1.0, 1.0]],
        "b": [0.0, -1.0],
        "h_prev": [0.5, -0.5],
        "x": [1.0, -1.0],
    }


def _tenths(rng: np.random.Generator, shape: tuple[int, ...], low: int = -10, high: int = 10) -> list[Any]:
    """Random one-decimal numbers in [low/10, high/10] as nested lists."""
    return cast(list[Any], (rng.integers(low, high + 1, size=shape) / 10).tolist())


def random_data(rng: np.random.Generator, seed: int) -> Data:
    """One-decimal weights in [-1, 1], a previous state in [-0.9, 0.9], a small integer input, a small bias."""
    return {
        "w_h": _tenths(rng, (2, 2)),
        "w_x": _tenths(rng, (2, 2)),
        "b": _tenths(rng, (2,), -5, 5),
        "h_prev": _tenths(rng, (2,), -9, 9),
        "x": rng.integers(-2, 3, size=2).astype(float).tolist(),
    }


def _pre_activation(data: Mapping[str, Any], transposed: bool = False) -> list[float]:
    """W_h h_prev + W_x x + b with column vectors (or the transposed weights, as row-vector users do)."""
    w_h, w_x = np.array(data["w_h"], dtype=float), np.array(data["w_x"], dtype=float)
    if transposed:
        w_h, w_x = w_h.T, w_x.T
    pre = w_h @ np.array(data["h_prev"], dtype=float) + w_x @ np.array(data["x"], dtype=float) + np.array(data["b"])
    return [round(float(value), 12) for value in pre]


def _tanh(values: Sequence[float]) -> list[float]:
    """tanh entry by entry."""
    return [math.tanh(value) for value in values]


def solve(variant: Variant) -> Answer:
    """The pre-activation and the new state h = tanh(pre-activation)."""
    pre = _pre_activation(variant.data)
    return {"pre_activation": pre, "h": _tanh(pre)}


def _no_tanh(variant: Variant) -> Answer:
    """Stops at the weighted sum and reports it as the new state."""
    return {"h": _pre_activation(variant.data)}


def _relu_for_tanh(variant: Variant) -> Answer:
    """Squashes with ReLU instead of tanh."""
    return {"h": [max(0.0, value) for value in _pre_activation(variant.data)]}


def _transposed_weights(variant: Variant) -> Answer | None:
    """Multiplies as h_prev W_h + x W_x (row vectors), i.e. with the transposed matrices."""
    pre = _pre_activation(variant.data, transposed=True)
    if np.allclose(pre, _pre_activation(variant.data)):
        return None
    return {"pre_activation": pre, "h": _tanh(pre)}


def _no_bias(variant: Variant) -> Answer | None:
    """Leaves the bias b out of the sum (None where b is zero)."""
    data = variant.data
    if not any(data["b"]):
        return None
    pre = [value - b for value, b in zip(_pre_activation(data), data["b"])]
    return {"pre_activation": pre, "h": _tanh(pre)}


def _sigmoid_for_tanh(variant: Variant) -> Answer:
    """Squashes with the logistic sigmoid instead of tanh."""
    return {"h": [1 / (1 + math.exp(-value)) for value in _pre_activation(variant.data)]}


def quality(variant: Variant) -> str | None:
    """Keep steps where tanh, identity and ReLU give clearly different states and tanh is not saturated."""
    pre = _pre_activation(variant.data)
    magnitudes = [abs(value) for value in pre]
    if max(magnitudes) < MIN_CLEAR:
        return "pre-activation too close to zero: tanh(z) ≈ z"
    if max(magnitudes) > MAX_PRE:
        return "tanh saturates"
    if min(pre) > -MIN_DIFFERENCE:
        return "no clearly negative entry: ReLU would look like the identity"
    transposed = _pre_activation(variant.data, transposed=True)
    if max(abs(u - v) for u, v in zip(pre, transposed)) < MIN_DIFFERENCE:
        return "transposing the weights barely changes the result"
    return None


def follow_through(variant: Variant, answer: Answer) -> Mapping[str, Any]:
    """h recomputed as tanh of the student's own pre-activation (two numbers).

    Only where tanh does something: on a pre-activation whose every coordinate tanh leaves as it is (near 0)
    or flattens to ±1 (far from 0, the saturation quality() keeps out of the reference), copying it
    unchanged (the no-tanh mistake) or writing it clipped to [-1, 1] would earn the credit too.
    """
    pre = answer.get("pre_activation")
    if not isinstance(pre, (list, tuple)) or len(pre) != len(variant.data["h_prev"]):
        return {}
    values = [float(value) for value in pre]
    squashed = _tanh(values)
    if all(DEFAULT_TOLERANCE.close(new, min(1.0, max(-1.0, value))) for value, new in zip(values, squashed)):
        return {}
    return {"h": squashed}


def steps(variant: Variant, run: Steps) -> Answer:
    """The solve as named steps: read the matrices and vectors, the two products, their sum with b, the tanh."""
    data = variant.data
    w_h = run.operand("w_h", Text("W_h", "W_h"), data["w_h"], {"w_x": (data["w_x"], Text("W_x", "W_x"))})
    w_x = run.operand("w_x", Text("W_x", "W_x"), data["w_x"], {"w_h": (data["w_h"], Text("W_h", "W_h"))})
    h_prev = run.operand("h_prev", Text("h_prev", "h_prev"), data["h_prev"], {"x": (data["x"], Text("x", "x"))})
    x = run.operand("x", Text("x", "x"), data["x"], {"h_prev": (data["h_prev"], Text("h_prev", "h_prev"))})
    recurrent = run.product(
        "recurrent", Text("W_h h_prev", "W_h h_prev"), w_h, h_prev, Text("W_h", "W_h"), Text("h_prev", "h_prev")
    )
    incoming = run.product("input", Text("W_x x", "W_x x"), w_x, x, Text("W_x", "W_x"), Text("x", "x"))
    pre = run.total(
        "sum",
        Text("W_h h_prev + W_x x + b", "W_h h_prev + W_x x + b"),
        [recurrent, incoming, data["b"]],
        [Text("W_h h_prev", "W_h h_prev"), Text("W_x x", "W_x x"), Text("b", "b")],
    )
    h = run.activation("tanh", Text("h = tanh(激活前)", "h = tanh(pre-activation)"), pre, "tanh")
    return {"pre_activation": as_list(pre), "h": as_list(h)}


MISCONCEPTIONS = (
    Misconception(
        "no-tanh",
        _no_tanh,
        Text(
            "把加权和直接当成了新状态，没有再过 tanh。规则：h = tanh(W_h h_prev + W_x x + b)，每个坐标都要压进 (-1, 1)。",
            "You reported the weighted sum itself as the new state, without tanh. Rule: h = tanh(W_h h_prev + W_x x + b); "
            "every coordinate is squashed into (-1, 1).",
        ),
        name=Text("漏了 tanh", "Skipped tanh"),
    ),
    Misconception(
        "relu-for-tanh",
        _relu_for_tanh,
        Text(
            "用 ReLU 代替了 tanh，负数被截成 0、正数原样保留。这个 RNN 的激活是 tanh：负数仍是负数，所有值落在 (-1, 1) 内。",
            "You used ReLU instead of tanh, cutting negatives to 0 and keeping positives unchanged. This RNN uses tanh: "
            "negatives stay negative and every value lands in (-1, 1).",
        ),
        name=Text("用 ReLU 代替 tanh", "ReLU instead of tanh"),
    ),
    Misconception(
        "transposed-weights",
        _transposed_weights,
        Text(
            "按行向量把向量乘在矩阵左边（h_prev W_h + x W_x），相当于用了转置的权重。本题用列向量：W_h h_prev 的第 i 个"
            "坐标是 W_h 第 i 行与 h_prev 的点积。",
            "You multiplied with the vector on the left (h_prev W_h + x W_x), which uses the transposed weights. Here "
            "vectors are columns: coordinate i of W_h h_prev is row i of W_h dotted with h_prev.",
        ),
        name=Text("权重用成了转置", "Used transposed weights"),
    ),
    Misconception(
        "no-bias",
        _no_bias,
        Text(
            "加权和里漏了偏置 b。规则：激活前 = W_h h_prev + W_x x + b，b 逐坐标加上去之后再过 tanh。",
            "You left the bias b out of the sum. Rule: the pre-activation is W_h h_prev + W_x x + b; add b coordinate "
            "by coordinate, then apply tanh.",
        ),
        name=Text("漏了偏置", "Left out the bias"),
        draws_variants=False,
    ),
    Misconception(
        "sigmoid-for-tanh",
        _sigmoid_for_tanh,
        Text(
            "用 sigmoid 代替了 tanh，结果都落在 (0, 1)。这个 RNN 的激活是 tanh：输出在 (-1, 1) 内，负的激活前仍得负数。",
            "You used the sigmoid instead of tanh, so every value landed in (0, 1). This RNN uses tanh: outputs lie in "
            "(-1, 1), and a negative pre-activation stays negative.",
        ),
        name=Text("用 sigmoid 代替 tanh", "Sigmoid instead of tanh"),
        draws_variants=False,
    ),
)

FIELDS = (
    AnswerField(
        "pre_activation",
        "vector",
        Text("激活前的向量 W_h h_prev + W_x x + b", "pre-activation W_h h_prev + W_x x + b"),
        Text("两个数，例如 [0.3, -1.2]", "two numbers, e.g. [0.3, -1.2]"),
        Text(
            "列向量约定：第 i 个坐标 = W_h 第 i 行·h_prev + W_x 第 i 行·x + b_i。",
            "Column-vector convention: coordinate i = (row i of W_h)·h_prev + (row i of W_x)·x + b_i.",
        ),
        units=Units(labels=("z", "pre", "pre-activation", "激活前")),
    ),
    AnswerField(
        "h",
        "vector",
        Text("新的隐藏状态 h", "new hidden state h"),
        Text(
            "两个数，保留至少三位小数，例如 [0.291, -0.834]",
            "two numbers with at least three decimals, e.g. [0.291, -0.834]",
        ),
        Text("h = tanh(激活前)，逐坐标计算。", "h = tanh(pre-activation), coordinate by coordinate."),
        units=Units(labels=("h", "h_t", "h'", "h_new", "新的 h")),
    ),
)


def _matrix_text(matrix: Sequence[Sequence[float]]) -> str:
    """A 2×2 matrix row by row."""
    return "[" + ", ".join("[" + ", ".join(f"{v:g}" for v in row) + "]" for row in matrix) + "]"


def _vector_text(vector: Sequence[float]) -> str:
    """A vector written as a column's entries."""
    return "[" + ", ".join(f"{v:g}" for v in vector) + "]"


def prompt(variant: Variant, lang: str) -> str:
    """The question with this variant's weights, state and input."""
    data = variant.data
    w_h, w_x = _matrix_text(data["w_h"]), _matrix_text(data["w_x"])
    b, h_prev, x = _vector_text(data["b"]), _vector_text(data["h_prev"]), _vector_text(data["x"])
    return Text(
        f"一个二维隐藏状态的 RNN 按 h = tanh(W_h h_prev + W_x x + b) 更新，向量都是列向量（矩阵乘在向量左边）。\n"
        f"W_h = {w_h}，W_x = {w_x}（逐行写出），b = {b}，h_prev = {h_prev}，x = {x}。\n"
        "1. 求激活前的向量 W_h h_prev + W_x x + b。\n2. 求新的隐藏状态 h。",
        f"An RNN with a 2-dimensional hidden state updates as h = tanh(W_h h_prev + W_x x + b), with column vectors "
        f"(the matrix multiplies from the left).\nW_h = {w_h}, W_x = {w_x} (written row by row), b = {b}, "
        f"h_prev = {h_prev}, x = {x}.\n1. Compute the pre-activation W_h h_prev + W_x x + b.\n"
        "2. Compute the new hidden state h.",
    ).get(lang)


EXERCISE = Exercise.declared_in(globals())
