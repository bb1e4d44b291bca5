"""l03.additive-attention: one decoder step of Bahdanau (additive) attention over T encoder states."""

from __future__ import annotations

from typing import Any, cast

import numpy as np

from exercises.base import Answer, AnswerField, Data, Misconception, Variant
from exercises.comparators import DEFAULT_TOLERANCE
from exercises.diagnosis.steps import Steps, as_list
from exercises.i18n import Text
from exercises.linalg import Vector, matrix_text, softmax, vector_text
from exercises.plugin import Exercise
from exercises.variant_generation import rows_not_summing_to_one

ID = "l03.additive-attention"
TITLE = Text("加性注意力的一步", "One step of additive attention")
STATE_VALUES = (-1.0, -0.5, 0.0, 0.5, 1.0)  # entries of s, h_j, W and U
V_VALUES = (-2.0, -1.0, 1.0, 2.0)
MIN_SCORE_SPREAD = 0.3  # below this the softmax is nearly uniform and uniform-average looks right


def book_data() -> Data:
    """Seed 0: W = U = I and v = [1, 1], so each score is tanh of s + h_j summed."""
    return {
        "s_prev": [1, 0],
        "hs": [[1, 0], [0, 1], [-1, 0]],
        "w": [[1, 0], [0, 1]],
        "u": [[1, 0], [0, 1]],
        "v": [1, 1],
    }


def random_data(rng: np.random.Generator, seed: int) -> Data:
    """T = 3 or 4 encoder states and the decoder state, weights in halves, v in small integers."""
    count = int(rng.integers(3, 5))

    def draw(*shape: int) -> list[Any]:
        return cast(list[Any], rng.choice(STATE_VALUES, size=shape).tolist())

    return {
        "s_prev": draw(2),
        "hs": draw(count, 2),
        "w": draw(2, 2),
        "u": draw(2, 2),
        "v": rng.choice(V_VALUES, size=2).tolist(),
    }


def _context(weights: Vector, hs: list[list[float]]) -> Vector:
    """Σ_j weight_j · h_j."""
    return cast(Vector, (np.asarray(weights, dtype=float) @ np.asarray(hs, dtype=float)).tolist())


def _scores(data: Data, squash: bool = True) -> Vector:
    """e_j = v · tanh(W s + U h_j) for each encoder state (without the tanh when not ``squash``)."""
    hs = np.asarray(data["hs"], dtype=float)
    query = np.asarray(data["w"], dtype=float) @ np.asarray(data["s_prev"], dtype=float)
    keys = hs @ np.asarray(data["u"], dtype=float).T
    hidden = np.tanh(query + keys) if squash else query + keys
    return cast(Vector, (hidden @ np.asarray(data["v"], dtype=float)).tolist())


def _chain(data: Data, scores: Vector) -> Answer:
    """Softmax of ``scores`` and the context they weigh."""
    weights = softmax(scores)
    return {"scores": scores, "weights": weights, "context": _context(weights, data["hs"])}


def solve(variant: Variant) -> Answer:
    """Additive scores, their softmax, and the weighted sum of encoder states."""
    return _chain(variant.data, _scores(variant.data))


def _dot_product_score(variant: Variant) -> Answer:
    """Scores each state by s · h_j, skipping W, U, tanh and v."""
    data = variant.data
    scores = (np.asarray(data["hs"], dtype=float) @ np.asarray(data["s_prev"], dtype=float)).tolist()
    return _chain(data, scores)


def _no_softmax(variant: Variant) -> Answer:
    """Weighs the states by the raw scores."""
    scores = _scores(variant.data)
    return {"weights": scores, "context": _context(scores, variant.data["hs"])}


def _uniform_average(variant: Variant) -> Answer:
    """Averages the states evenly, ignoring the scores."""
    count = len(variant.data["hs"])
    weights = [1.0 / count] * count
    return {"weights": weights, "context": _context(weights, variant.data["hs"])}


def _no_tanh(variant: Variant) -> Answer:
    """Leaves out the tanh: e_j = v · (W s + U h_j)."""
    return _chain(variant.data, _scores(variant.data, squash=False))


SQUASH_AFTER = Text(
    "{step}先与 v 做点积、再过 tanh，顺序反了", "in {step} you applied tanh after the dot product with v, not before"
)


def steps(variant: Variant, run: Steps) -> Answer:
    """The solve as named steps: W s, U h_j (rows of H times Uᵀ), their sum, tanh, the dot with v, the softmax and
    the weighted sum of the states."""
    data = variant.data
    s_word, h_word = Text("s", "s"), Text("h_j", "h_j")
    s_prev = run.operand("s", s_word, data["s_prev"], {})
    hs = np.asarray(data["hs"], dtype=float)
    w = run.operand("w", Text("W", "W"), data["w"], {"u": (data["u"], Text("U", "U"))})
    u = run.operand("u", Text("U", "U"), data["u"], {"w": (data["w"], Text("W", "W"))})
    query = run.product("query", Text("W s", "W s"), w, s_prev, Text("W", "W"), s_word)
    keys = run.product("keys", Text("U h_j", "U h_j"), hs, u.T, h_word, Text("Uᵀ", "Uᵀ"))
    pre = run.total(
        "hidden", Text("W s + U h_j", "W s + U h_j"), [query, keys], [Text("W s", "W s"), Text("U h_j", "U h_j")]
    )
    hidden = run.activation("tanh", Text("tanh", "tanh"), pre, "tanh")
    v = np.asarray(data["v"], dtype=float)
    scores = run.custom(
        "score",
        Text("与 v 点积", "the dot product with v"),
        lambda: hidden @ v,
        {"squash-after": lambda: np.tanh(pre @ v)},
        {"squash-after": SQUASH_AFTER},
    )
    weights = run.softmax("softmax", Text("softmax", "the softmax"), scores)
    context = run.product("context", Text("Σ_j α_j h_j", "Σ_j α_j h_j"), weights, hs, Text("α", "α"), Text("H", "H"))
    return {"scores": as_list(scores), "weights": as_list(weights), "context": as_list(context)}


MISCONCEPTIONS = (
    Misconception(
        "dot-product-score",
        _dot_product_score,
        Text(
            "把分数算成了 s·h_j 的点积。规则：这一课的加性打分是 e_j = v·tanh(W s + U h_j)——先各自线性变换、相加、过 tanh，"
            "再与 v 点积；点积打分是后来的做法。",
            "You scored each state with the dot product s·h_j. Rule: this lesson's additive score is "
            "e_j = v·tanh(W s + U h_j): transform both, add, apply tanh, then dot with v; the dot-product score "
            "came later.",
        ),
        name=Text("用了点积打分", "Used a dot-product score"),
    ),
    Misconception(
        "no-softmax",
        _no_softmax,
        Text(
            "直接用原始分数当权重。规则：权重 α_j = softmax(e)_j，非负且和为 1；上下文是按这些权重对 h_j 的加权和。",
            "You used the raw scores as weights. Rule: the weights are α_j = softmax(e)_j, non-negative and "
            "summing to 1; the context is the sum of the h_j weighted by them.",
        ),
        name=Text("漏了 softmax", "Skipped the softmax"),
    ),
    Misconception(
        "uniform-average",
        _uniform_average,
        Text(
            "把所有编码状态平均了，没有用分数。规则：注意力按相关度分配权重 α = softmax(e)，更相关的位置得到更大的权重。",
            "You averaged all encoder states evenly and ignored the scores. Rule: attention spreads its weight "
            "by relevance, α = softmax(e), so better-matching positions weigh more.",
        ),
        name=Text("平均分配了权重", "Plain average, scores ignored"),
    ),
    Misconception(
        "no-tanh",
        _no_tanh,
        Text(
            "打分时漏了 tanh：e_j = v·(W s + U h_j)。规则：加性注意力先把 W s + U h_j 过一次 tanh，再与 v 做点积，"
            "e_j = v·tanh(W s + U h_j)。",
            "You left out the tanh in the score: e_j = v·(W s + U h_j). Rule: additive attention passes W s + U h_j "
            "through tanh before the dot product with v, e_j = v·tanh(W s + U h_j).",
        ),
        name=Text("打分漏了 tanh", "Score without tanh"),
        draws_variants=False,
    ),
)


def quality(variant: Variant) -> str | None:
    """Reject near-equal scores, repeated encoder states."""
    reference = solve(variant)
    if max(reference["scores"]) - min(reference["scores"]) < MIN_SCORE_SPREAD:
        return "scores too close together"
    hs = [tuple(h) for h in variant.data["hs"]]
    if len(set(hs)) < len(hs):
        return "repeated encoder state"
    if rows_not_summing_to_one([reference["weights"]]):
        return "weights do not sum to one"
    return None


def follow_through(variant: Variant, answer: Answer) -> dict[str, object]:
    """Weights as the softmax of the student's scores; context from the student's weights.

    No weights are carried forward from scores that are all equal: their softmax is the even average, so the
    uniform-average mistake would earn the credit too; nor from scores so far apart that the softmax saturates
    to one-hot weights, which need no softmax at all. No context is carried forward from weights that are
    all zero or one-hot (the context is then zero or a copy of one state, so the credit would not show the
    weighted sum) or from weights so large that the sum overflows.
    """
    count = len(variant.data["hs"])
    own: dict[str, object] = {}
    scores, weights = answer.get("scores"), answer.get("weights")
    if (
        isinstance(scores, (list, tuple))
        and len(scores) == count
        and not all(DEFAULT_TOLERANCE.close(float(score), float(scores[0])) for score in scores)
    ):
        with np.errstate(over="ignore", invalid="ignore"):
            softened = softmax(scores)
        if not _one_hot(softened):
            own["weights"] = softened
    if isinstance(weights, (list, tuple)) and len(weights) == count:
        with np.errstate(over="ignore", invalid="ignore"):
            context = _context(list(weights), variant.data["hs"])
        if (
            all(np.isfinite(context))
            and not _one_hot(list(weights))
            and not all(DEFAULT_TOLERANCE.close(float(weight), 0.0) for weight in weights)
        ):
            own["context"] = context
    return own


def _one_hot(weights: list[float]) -> bool:
    """Whether the weights pick one state (one about 1, the rest about 0)."""
    top = max(range(len(weights)), key=lambda index: weights[index])
    return all(
        DEFAULT_TOLERANCE.close(float(value), 1.0 if index == top else 0.0) for index, value in enumerate(weights)
    )


PRECISION = Text("保留 4 位小数；", "4 decimals;")
FIELDS = (
    AnswerField(
        "scores",
        "vector",
        Text("打分 e_j", "scores e_j"),
        PRECISION + Text("每个编码状态一个数", "one number per encoder state"),
        Text(
            "e_j = v·tanh(W s + U h_j)，W s 与 U h_j 是矩阵乘列向量。",
            "e_j = v·tanh(W s + U h_j), where W s and U h_j are matrix-times-column-vector.",
        ),
    ),
    AnswerField(
        "weights",
        "vector",
        Text("注意力权重 α_j", "attention weights α_j"),
        PRECISION + Text("每个编码状态一个数，和为 1", "one number per encoder state, summing to 1"),
        Text("α = softmax(e)：α_j = exp(e_j) / Σ_k exp(e_k)。", "α = softmax(e): α_j = exp(e_j) / Σ_k exp(e_k)."),
    ),
    AnswerField(
        "context",
        "vector",
        Text("上下文向量 c", "context vector c"),
        PRECISION + Text("2 个数", "2 numbers"),
        Text("c = Σ_j α_j h_j。", "c = Σ_j α_j h_j."),
    ),
)


def prompt(variant: Variant, lang: str) -> str:
    """The question with this variant's states and parameters."""
    data = variant.data
    count = len(data["hs"])
    states = "\n".join(f"h_{j + 1} = {vector_text(h)}" for j, h in enumerate(data["hs"]))
    s_prev, v = vector_text(data["s_prev"]), vector_text(data["v"])
    w, u = matrix_text(data["w"]), matrix_text(data["u"])
    return Text(
        f"解码器上一步的状态 s = {s_prev}，编码器留下 {count} 个状态：\n{states}\n"
        f"参数 W = {w}，U = {u}（每个内层列表是一行，W s 为矩阵乘列向量），v = {v}。\n"
        "用加性（Bahdanau）注意力算这一步：\n1. 每个位置的分数 e_j = v·tanh(W s + U h_j)；\n"
        "2. 权重 α = softmax(e)；\n3. 上下文向量 c = Σ_j α_j h_j。",
        f"The decoder's previous state is s = {s_prev}; the encoder left {count} states:\n{states}\n"
        f"Parameters W = {w}, U = {u} (each inner list is a row; W s is matrix times column vector), v = {v}.\n"
        "Compute this step of additive (Bahdanau) attention:\n1. the score of each position, "
        "e_j = v·tanh(W s + U h_j);\n2. the weights α = softmax(e);\n3. the context vector c = Σ_j α_j h_j.",
    ).get(lang)


EXERCISE = Exercise.declared_in(globals())
