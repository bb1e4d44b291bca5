"""ch09.scaled-dot-attention: scaled dot-product attention by hand for three tokens with 2-d queries and keys."""

from __future__ import annotations

import math
from typing import Any, cast

import numpy as np

from exercises.base import Answer, AnswerField, Data, Misconception, Variant
from exercises.comparators import DEFAULT_TOLERANCE
from exercises.diagnosis.steps import Steps, as_list
from exercises.i18n import Text
from exercises.linalg import Matrix, is_square, matmul, matrix_text, softmax_columns, softmax_rows, unique_argmax
from exercises.plugin import Exercise
from exercises.variant_generation import has_tie_at_max, rows_not_summing_to_one

ID = "ch09.scaled-dot-attention"
TITLE = Text("手算缩放点积注意力", "Scaled dot-product attention by hand")
D_K = 2
TOKENS = 3
LOW, HIGH = -2, 2  # entries of Q, K, V are integers in this range
SELF_MATCH_SHARE = 0.4
SELF_MATCH_TRIES = 40


def book_data() -> Data:
    """Seed 0: the third token's key is long, so the first two queries look past themselves to it."""
    return {"q": [[1, 0], [0, 1], [1, 1]], "k": [[1, 0], [0, 1], [2, 2]], "v": [[1, 0], [0, 1], [1, 1]], "d_k": D_K}


def random_data(rng: np.random.Generator, seed: int) -> Data:
    """Q, K and V as 3×2 small-integer matrices; about 40% drawn so that every token matches itself best."""

    def draw() -> np.ndarray:
        return rng.integers(LOW, HIGH + 1, size=(TOKENS, D_K))

    q, k = draw(), draw()
    # Independent Q and K almost never put every maximum on the diagonal, so the "yes" case needs keys
    # that stay close to their own queries (one unit of noise), drawn until each row peaks on the diagonal.
    if rng.random() < SELF_MATCH_SHARE:
        for _ in range(SELF_MATCH_TRIES):
            q = draw()
            k = np.clip(q + rng.integers(-1, 2, size=(TOKENS, D_K)), LOW, HIGH)
            if _diagonal_dominant((q @ k.T).tolist()):
                break
    return {"q": q.tolist(), "k": k.tolist(), "v": draw().tolist(), "d_k": D_K}


def _scores(q: Matrix, k: Matrix, divisor: float) -> Matrix:
    """Q Kᵀ divided by ``divisor``."""
    return cast(Matrix, (np.asarray(matmul(q, np.asarray(k).T.tolist())) / divisor).tolist())


def _diagonal_dominant(weights: Matrix) -> bool | None:
    """Whether every row's largest weight sits on the diagonal; None when some row's maximum is tied."""
    winners = [unique_argmax(row) for row in weights]
    if any(winner is None for winner in winners):
        return None
    return all(winner == row for row, winner in enumerate(winners))


def _chain(variant: Variant, scores: Matrix) -> Answer:
    """Row softmax of ``scores`` and the weighted sum of the values."""
    weights = softmax_rows(scores)
    return {"scores": scores, "weights": weights, "output": matmul(weights, variant.data["v"])}


def solve(variant: Variant) -> Answer:
    """softmax(QKᵀ/√d_k) V, and whether each query weighs its own token most."""
    data = variant.data
    answer = dict(_chain(variant, _scores(data["q"], data["k"], math.sqrt(D_K))))
    answer["diagonal_dominant"] = bool(_diagonal_dominant(answer["weights"]))
    return answer


def _unscaled(variant: Variant) -> Answer:
    """Leaves out the division by √d_k."""
    return _chain(variant, _scores(variant.data["q"], variant.data["k"], 1.0))


def _scaled_by_d(variant: Variant) -> Answer:
    """Divides by d_k instead of its square root."""
    return _chain(variant, _scores(variant.data["q"], variant.data["k"], float(D_K)))


def _softmax_over_columns(variant: Variant) -> Answer:
    """Normalises each column (over queries) instead of each row (over keys)."""
    scores = _scores(variant.data["q"], variant.data["k"], math.sqrt(D_K))
    weights = softmax_columns(scores)
    return {"weights": weights, "output": matmul(weights, variant.data["v"])}


def _no_softmax(variant: Variant) -> Answer:
    """Uses the scaled scores themselves as weights."""
    scores = _scores(variant.data["q"], variant.data["k"], math.sqrt(D_K))
    return {"weights": scores, "output": matmul(scores, variant.data["v"])}


def _kq_transposed(variant: Variant) -> Answer:
    """Computes K Qᵀ, so row i holds key i against every query."""
    return _chain(variant, _scores(variant.data["k"], variant.data["q"], math.sqrt(D_K)))


def _values_from_keys(variant: Variant) -> Answer:
    """Averages the keys instead of the values: weights × K."""
    weights = solve(variant)["weights"]
    return {"output": matmul(weights, variant.data["k"])}


def _scaled_by_tokens(variant: Variant) -> Answer | None:
    """Divides by the square root of the number of tokens instead of √d_k (None where the two are equal)."""
    tokens = len(variant.data["q"])
    if tokens == D_K:
        return None
    return _chain(variant, _scores(variant.data["q"], variant.data["k"], math.sqrt(tokens)))


def steps(variant: Variant, run: Steps) -> Answer:
    """The solve as named steps: read Q, K, V; Q Kᵀ; divide by √d_k; the row softmax; weights × V."""
    data = variant.data
    named = {key: Text(key.upper(), key.upper()) for key in ("q", "k", "v")}
    q, k, v = (
        run.operand(key, named[key], data[key], {other: (data[other], named[other]) for other in named if other != key})
        for key in ("q", "k", "v")
    )
    raw = run.product("qk", Text("QKᵀ", "QKᵀ"), q, k.T, Text("Q", "Q"), Text("Kᵀ", "Kᵀ"))
    scores = run.scale(
        "scale",
        Text("除以 √d_k", "dividing by √d_k"),
        raw,
        math.sqrt(D_K),
        Text("√d_k", "√d_k"),
        {
            "d_k": (float(D_K), Text("d_k", "d_k")),
            "tokens": (math.sqrt(len(data["q"])), Text("√(token 数)", "√(number of tokens)")),
        },
    )
    weights = run.softmax("softmax", Text("按行 softmax", "the row softmax"), scores, axis=1)
    output = run.product(
        "output", Text("权重 × V", "weights × V"), weights, v, Text("权重矩阵", "the weights"), Text("V", "V")
    )
    return {
        "scores": as_list(scores),
        "weights": as_list(weights),
        "output": as_list(output),
        "diagonal_dominant": bool(_diagonal_dominant(as_list(weights))),
    }


MISCONCEPTIONS = (
    Misconception(
        "unscaled",
        _unscaled,
        Text(
            "没有把 QKᵀ 除以 √d_k。规则：打分是 QKᵀ/√d_k；缩放让点积不随维度变大而把 softmax 推向饱和。",
            "You did not divide QKᵀ by √d_k. Rule: the scores are QKᵀ/√d_k; the scaling keeps dot products "
            "from growing with the dimension and saturating the softmax.",
        ),
        name=Text("漏了缩放", "Scores not scaled"),
    ),
    Misconception(
        "scaled-by-d",
        _scaled_by_d,
        Text(
            "除以的是 d_k 本身，而不是它的平方根。规则：缩放因子是 √d_k（这里 d_k = 2，即除以约 1.414）。",
            "You divided by d_k itself rather than its square root. Rule: the scale factor is √d_k "
            "(here d_k = 2, so divide by about 1.414).",
        ),
        name=Text("除以了 d_k 本身", "Divided by d_k, not its root"),
    ),
    Misconception(
        "softmax-over-columns",
        _softmax_over_columns,
        Text(
            "softmax 是沿列（对所有查询）做的。规则：每个查询对所有键做 softmax，所以是按行归一化，每一行的权重和为 1。",
            "You applied the softmax down each column (over the queries). Rule: each query normalises over "
            "all keys, so the softmax runs along each row and every row of weights sums to 1.",
        ),
        name=Text("按列做了 softmax", "Softmax down the columns"),
    ),
    Misconception(
        "no-softmax",
        _no_softmax,
        Text(
            "直接把缩放后的分数当成了权重。规则：分数要先经过按行 softmax 变成非负、和为 1 的权重，再去加权 V。",
            "You used the scaled scores directly as weights. Rule: a row softmax first turns the scores into "
            "non-negative weights that sum to 1; only then are the values averaged.",
        ),
        name=Text("漏了 softmax", "Skipped the softmax"),
    ),
    Misconception(
        "kq-transposed",
        _kq_transposed,
        Text(
            "算成了 KQᵀ，行列对调了。规则：第 i 行第 j 列是查询 i 与键 j 的点积，即 QKᵀ；一行对应一个查询。",
            "You computed KQᵀ, which swaps rows and columns. Rule: row i, column j is query i dotted with "
            "key j, i.e. QKᵀ; each row belongs to one query.",
        ),
        name=Text("Q 与 K 对调", "Swapped Q and K"),
    ),
    Misconception(
        "values-from-keys",
        _values_from_keys,
        Text(
            "你用权重去加权了 K，而不是 V。规则：键 K 只用来打分；输出是权重乘值矩阵 V，每一行是各个值向量的加权平均。",
            "You averaged the keys K with the weights instead of the values V. Rule: the keys only serve the scores; "
            "the output is the weights times V, each row a weighted average of the value vectors.",
        ),
        name=Text("用 K 代替了 V", "Averaged keys, not values"),
        draws_variants=False,
    ),
    Misconception(
        "scaled-by-tokens",
        _scaled_by_tokens,
        Text(
            "你除以的是 token 个数的平方根，而不是 √d_k。规则：缩放因子取决于查询和键向量的维度 d_k，与序列长度无关。",
            "You divided by the square root of the number of tokens rather than √d_k. Rule: the scale depends on the "
            "dimension d_k of the query and key vectors, not on the length of the sequence.",
        ),
        name=Text("按 token 数缩放", "Scaled by the token count"),
        draws_variants=False,
    ),
)


def quality(variant: Variant) -> str | None:
    """Reject tied row maxima (the diagonal question would be ambiguous)."""
    reference = solve(variant)
    if any(has_tie_at_max(row) for row in reference["scores"]):
        return "tied maximum in a score row"
    if rows_not_summing_to_one(reference["weights"]):
        return "a weight row does not sum to one"
    return None


def _finite(matrix: Matrix) -> bool:
    """Whether every entry is a finite number (an overflowed inf would pass any tolerance check)."""
    return bool(np.all(np.isfinite(np.asarray(matrix, dtype=float))))


def _one_hot(row: list[float]) -> bool:
    """Whether a weight row picks one position (one entry about 1, the rest about 0): it weighs nothing."""
    top = max(range(len(row)), key=lambda index: row[index])
    return all(DEFAULT_TOLERANCE.close(float(value), 1.0 if index == top else 0.0) for index, value in enumerate(row))


def _even(row: list[float]) -> bool:
    """Whether a weight row is the plain average (every entry about 1/n)."""
    return all(DEFAULT_TOLERANCE.close(float(value), 1.0 / len(row)) for value in row)


def follow_through(variant: Variant, answer: Answer) -> dict[str, object]:
    """Weights from the student's scores, output from the student's weights, diagonal from those weights.

    No weights are carried forward where every row of the student's scores softens to something no softmax is
    needed for: the plain average (equal scores) or a one-hot row (scores so far apart that the softmax
    saturates). No output is carried forward from weights that are all zero or all one-hot (the output is then
    zero or rows of V copied, so the credit would not show the weighted sum), or from weights so large that the
    product overflows.
    """
    own: dict[str, object] = {}
    scores: Any = answer.get("scores")
    weights: Any = answer.get("weights")
    if is_square(scores, TOKENS):
        with np.errstate(over="ignore", invalid="ignore"):
            softened = softmax_rows(scores)
        if not all(_even(row) or _one_hot(row) for row in softened):
            own["weights"] = softened
    if is_square(weights, TOKENS):
        with np.errstate(over="ignore", invalid="ignore"):
            output = matmul(weights, variant.data["v"])
        if (
            _finite(output)
            and not all(DEFAULT_TOLERANCE.close(value, 0.0) for row in weights for value in row)
            and not all(_one_hot(list(row)) for row in weights)
        ):
            own["output"] = output
        dominant = _diagonal_dominant(weights)
        if dominant is not None:
            own["diagonal_dominant"] = dominant
    return own


PRECISION = Text("保留 4 位小数，或写成 1/sqrt(2) 这样的表达式；", "4 decimals, or expressions such as 1/sqrt(2);")
FIELDS = (
    AnswerField(
        "scores",
        "matrix",
        Text("缩放后的注意力分数 QKᵀ/√d_k", "scaled scores QKᵀ/√d_k"),
        PRECISION
        + Text("3×3 矩阵，第 i 行是查询 i 对三个键的分数", "a 3×3 matrix, row i = query i against the three keys"),
        Text("第 i 行第 j 列 = (q_i · k_j)/√d_k。", "Row i, column j = (q_i · k_j)/√d_k."),
    ),
    AnswerField(
        "weights",
        "matrix",
        Text("注意力权重（按行 softmax）", "attention weights (row softmax)"),
        PRECISION + Text("3×3 矩阵，每行之和为 1", "a 3×3 matrix whose rows each sum to 1"),
        Text("对分数矩阵的每一行分别做 softmax。", "Apply the softmax to each row of the scores separately."),
    ),
    AnswerField(
        "output",
        "matrix",
        Text("输出（权重 × V）", "output (weights × V)"),
        PRECISION + Text("3×2 矩阵，第 i 行是 token i 的输出", "a 3×2 matrix, row i = the output of token i"),
        Text("第 i 行输出 = Σ_j 权重[i][j] · v_j。", "Output row i = Σ_j weight[i][j] · v_j."),
    ),
    AnswerField(
        "diagonal_dominant",
        "bool",
        Text("每个查询是否都最关注自己", "Does every query weigh itself most?"),
        Text("是 / 否", "yes / no"),
        Text(
            "看每一行最大的权重是否落在对角线上（第 i 行第 i 列）。",
            "Check whether each row's largest weight is on the diagonal (row i, column i).",
        ),
        aliases={
            "true": (
                "都是",
                "全是",
                "全都是",
                "每个都是",
                "每行都是",
                "都在对角线上",
                "all",
                "all of them",
                "every query",
                "each query",
            ),
            "false": ("不都是", "并非都是", "不全都是", "不是都", "not all", "not every query"),
        },
    ),
)


def prompt(variant: Variant, lang: str) -> str:
    """The question with this variant's Q, K and V."""
    q, k, v = (matrix_text(variant.data[name]) for name in ("q", "k", "v"))
    return Text(
        f"三个 token 的查询、键、值（每行一个 token，d_k = {D_K}）：\nQ = {q}\nK = {k}\nV = {v}\n"
        "按 Attention(Q, K, V) = softmax(QKᵀ/√d_k) V 手算：\n"
        "1. 缩放后的分数矩阵 QKᵀ/√d_k（第 i 行是查询 i 对各个键）；\n2. 按行 softmax 得到的权重矩阵；\n"
        "3. 输出矩阵（权重 × V）；\n4. 每个 token 的最大权重是否都落在它自己身上（对角线）？",
        f"Three tokens have these queries, keys and values (one token per row, d_k = {D_K}):\n"
        f"Q = {q}\nK = {k}\nV = {v}\n"
        "Work out Attention(Q, K, V) = softmax(QKᵀ/√d_k) V by hand:\n"
        "1. the scaled score matrix QKᵀ/√d_k (row i = query i against each key);\n"
        "2. the weight matrix from a row-wise softmax;\n3. the output matrix (weights × V);\n"
        "4. does every token give its largest weight to itself (the diagonal)?",
    ).get(lang)


EXERCISE = Exercise.declared_in(globals())
