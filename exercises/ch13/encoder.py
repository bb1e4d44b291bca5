"""Chapter 13's toy encoder: the ReLU recurrence over row vectors, vocabularies in units of a, and rendering."""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from exercises.ch13.common import BOOK_SOURCE_VOCAB_UNITS, COLOURS, NOUNS, A
from exercises.diagnosis.steps import Steps
from exercises.i18n import Text

Vector = tuple[float, float]
Matrix = list[list[int]]

SOURCE_END = "。"
IDENTITY: Matrix = [[1, 0], [0, 1]]
# Small integer matrices keep every state an integer multiple of a, so each step stays hand-computable.
MATRIX_POOL: tuple[Matrix, ...] = (
    [[1, 0], [0, 1]],
    [[1, 0], [0, 1]],
    [[0, 1], [1, 0]],
    [[1, 1], [0, 1]],
    [[1, 0], [1, 1]],
    [[1, 0], [0, -1]],
    [[-1, 0], [0, 1]],
    [[1, -1], [0, 1]],
    [[2, 0], [0, 1]],
    [[1, 0], [-1, 1]],
)
EMBEDDING_UNITS = (-2, -1, 0, 1, 2)
SAME = 1e-9  # states are sums of integer multiples of a; anything closer than this is the same state


def relu(value: float) -> float:
    """max(0, value)."""
    return value if value > 0.0 else 0.0


def identity(value: float) -> float:
    """The value unchanged (an encoder that forgot its activation)."""
    return value


ACTIVATIONS: dict[str, Callable[[float], float]] = {"relu": relu, "none": identity, "abs": abs}


@dataclass(frozen=True)
class EncoderStep:
    """One read of the encoder: the pre-activation sum and the new state."""

    token: str
    pre: Vector
    state: Vector


def book_encoder() -> dict[str, list[Any]]:
    """The chapter's weights: W_x = W_h = I, b = 0, h_0 = 0."""
    return {
        "W_x": [row[:] for row in IDENTITY],
        "W_h": [row[:] for row in IDENTITY],
        "b": [0.0, 0.0],
        "h_0": [0.0, 0.0],
    }


def random_encoder(rng: np.random.Generator) -> dict[str, list[Any]]:
    """Identity or another small integer matrix for W_x and W_h; b and h_0 stay zero as in the book."""
    return {"W_x": _pick_matrix(rng), "W_h": _pick_matrix(rng), "b": [0.0, 0.0], "h_0": [0.0, 0.0]}


def _pick_matrix(rng: np.random.Generator) -> Matrix:
    """A copy of one matrix of the pool (identity twice as likely as the others)."""
    return [row[:] for row in MATRIX_POOL[int(rng.integers(len(MATRIX_POOL)))]]


def vocab_from_units(units: Mapping[str, Sequence[int]]) -> dict[str, list[float]]:
    """Embeddings as numbers: each coefficient times a."""
    return {token: [float(k) * A for k in pair] for token, pair in units.items()}


def book_vocab_units() -> dict[str, list[int]]:
    """Table 13.1 in units of a."""
    return {token: list(pair) for token, pair in BOOK_SOURCE_VOCAB_UNITS.items()}


def random_vocab_units(rng: np.random.Generator, colours: int, nouns: int) -> dict[str, list[int]]:
    """Distinct random embeddings in [-2a, 2a] for some colours and nouns of the chapter's pools, plus 。."""
    colours_drawn = [COLOURS[name] for name in rng.permutation(sorted(COLOURS))[:colours]]
    nouns_drawn = [NOUNS[name] for name in rng.permutation(sorted(NOUNS))[:nouns]]
    units: dict[str, list[int]] = {}
    for token in [*colours_drawn, *nouns_drawn, SOURCE_END]:
        while True:
            pair = [int(rng.choice(EMBEDDING_UNITS)), int(rng.choice(EMBEDDING_UNITS))]
            if pair not in units.values():
                break
        units[token] = pair
    return units


def colour_tokens(vocab: Mapping[str, object]) -> list[str]:
    """The colour tokens of a vocabulary, in its order."""
    return [token for token in vocab if token in COLOURS.values()]


def noun_tokens(vocab: Mapping[str, object]) -> list[str]:
    """The noun tokens of a vocabulary, in its order."""
    return [token for token in vocab if token in NOUNS.values()]


def _row_times(vector: Sequence[float], matrix: Sequence[Sequence[float]]) -> list[float]:
    """Row vector times matrix (the chapter's convention x W)."""
    return [sum(vector[i] * matrix[i][j] for i in range(len(vector))) for j in range(len(matrix[0]))]


def encoder_step(
    x: Sequence[float], h_prev: Sequence[float], encoder: Mapping[str, list[Any]], activation: str = "relu"
) -> tuple[Vector, Vector]:
    """(pre, state) for one read: pre = x W_x + h_prev W_h + b, state = activation(pre) entry by entry."""
    from_input = _row_times(x, encoder["W_x"])
    from_state = _row_times(h_prev, encoder["W_h"])
    pre = tuple(float(u + v + c) for u, v, c in zip(from_input, from_state, encoder["b"]))
    squash = ACTIVATIONS[activation]
    return (pre[0], pre[1]), (squash(pre[0]), squash(pre[1]))


def run_encoder(
    vocab: Mapping[str, Sequence[float]],
    encoder: Mapping[str, list[Any]],
    source: Sequence[str],
    activation: str = "relu",
) -> list[EncoderStep]:
    """Every read of ``source`` from h_0, with the given activation."""
    state: Sequence[float] = encoder["h_0"]
    steps: list[EncoderStep] = []
    for token in source:
        pre, state = encoder_step(vocab[token], state, encoder, activation)
        steps.append(EncoderStep(token, pre, state))
    return steps


def same_state(first: Sequence[float], second: Sequence[float]) -> bool:
    """Whether two encoder states are the same vector."""
    return all(abs(u - v) < SAME for u, v in zip(first, second))


def clips(step: EncoderStep) -> bool:
    """Whether ReLU changed this step (some pre-activation entry was negative)."""
    return any(value < -SAME for value in step.pre)


def units_text(value: float) -> str:
    """A multiple of a written with the symbol: 0, a, -a, 2a, -2a."""
    k = round(value / A)
    if k == 0:
        return "0"
    if abs(k) == 1:
        return "a" if k > 0 else "-a"
    return f"{k}a"


def vector_text(vector: Sequence[float]) -> str:
    """A state or embedding written in units of a, e.g. [a, 0]."""
    return "[" + ", ".join(units_text(value) for value in vector) + "]"


def matrix_text(matrix: Sequence[Sequence[int]]) -> str:
    """A small integer matrix written row by row, e.g. [[1, 0], [0, 1]]."""
    return "[" + ", ".join("[" + ", ".join(str(v) for v in row) + "]" for row in matrix) + "]"


def vocab_text(vocab: Mapping[str, Sequence[float]], separator: str) -> str:
    """The vocabulary as 'token [x, y]' entries, in units of a."""
    return separator.join(f"{token} {vector_text(embedding)}" for token, embedding in vocab.items())


def states_list(steps: Sequence[EncoderStep]) -> list[list[float]]:
    """The states of a run as plain float lists (the answer form of kind "vectors")."""
    return [list(step.state) for step in steps]


def magnitude_in_a(steps: Sequence[EncoderStep]) -> int:
    """The largest |coefficient of a| in any pre-activation or state of a run."""
    values = [abs(v) for step in steps for v in (*step.pre, *step.state)]
    return round(max(values, default=0.0) / A)


def setup_text(data: Mapping[str, Any], lang: str) -> str:
    """The shared first paragraph of encoder prompts: a, embeddings, weights and the recurrence."""
    encoder = data["encoder"]
    vocab = vocab_text(data["source_vocab"], "；" if lang == "zh" else "; ")
    w_x, w_h = matrix_text(encoder["W_x"]), matrix_text(encoder["W_h"])
    b, h_0 = vector_text(encoder["b"]), vector_text(encoder["h_0"])
    if lang == "zh":
        return (
            f"取 a = ln 2 ≈ {A:.6f}（答案中可直接写 a、-a、2a 等）。源词表的嵌入（二维行向量）：{vocab}。\n"
            f"编码器按行向量计算：h_j = ReLU(x_j W_x + h_(j-1) W_h + b)，其中 W_x = {w_x}，W_h = {w_h}，"
            f"b = {b}，初始状态 h_0 = {h_0}；ReLU 逐个坐标把负数变成 0。"
        )
    return (
        f"Let a = ln 2 ≈ {A:.6f} (you may write a, -a, 2a and so on in answers). Source embeddings "
        f"(2-dimensional row vectors): {vocab}.\nThe encoder works on row vectors: "
        f"h_j = ReLU(x_j W_x + h_(j-1) W_h + b) with W_x = {w_x}, W_h = {w_h}, b = {b} and initial "
        f"state h_0 = {h_0}; ReLU turns every negative coordinate into 0."
    )


CARRY_WORDS = {
    "reset": Text(
        "{step}每读一个词都从 h_0 重新开始，没有带上上一步的状态",
        "in {step} you started every read from h_0 instead of the previous state",
    )
}
ORDER_LABEL = Text("按源句顺序逐词读入", "reading the source in order")
# The chain's words, made once: the generic search runs the chain hundreds of times per variant, and making its
# hundred-odd labels afresh on each run was about a quarter of the run (bench/README.md, 2026-12-03).
W_X, W_H, X, H, B = (Text(word, word) for word in ("W_x", "W_h", "x", "h", "b"))
INPUT_LABEL = Text("x W_x", "x W_x")
CARRY_LABEL = Text("带入上一步的状态", "carrying the previous state")
STATE_LABEL = Text("h W_h", "h W_h")
SUM_LABEL = Text("x W_x + h W_h + b", "x W_x + h W_h + b")
SUM_WORDS = (INPUT_LABEL, STATE_LABEL, B)
RELU_LABEL = Text("ReLU", "ReLU")


def encoder_chain(
    run: Steps, vocab: Mapping[str, Sequence[float]], encoder: Mapping[str, list[Any]], source: Sequence[str]
) -> list[tuple[Any, Any]]:
    """The encoder as named steps, (pre-activation, state) per read: the reading order, x W_x, h W_h (row vectors),
    their sum with b, ReLU, and the state carried to the next read. Both paths of a comparison use the same names,
    so a mistake is made the same way on each."""
    w_x = run.operand("w_x", W_X, encoder["W_x"], {"w_h": (encoder["W_h"], W_H)})
    w_h = run.operand("w_h", W_H, encoder["W_h"], {"w_x": (encoder["W_x"], W_X)})
    start = np.asarray(encoder["h_0"], dtype=float)
    state, reads = start, []
    for token in run.order("order", ORDER_LABEL, list(source)):
        from_input = run.product("input", INPUT_LABEL, vocab[token], w_x, X, W_X)
        carried = run.custom(
            "carry", CARRY_LABEL, functools.partial(np.asarray, state), {"reset": lambda: start}, CARRY_WORDS
        )
        from_state = run.product("state", STATE_LABEL, carried, w_h, H, W_H)
        pre = run.total("sum", SUM_LABEL, [from_input, from_state, encoder["b"]], SUM_WORDS)
        state = run.activation("relu", RELU_LABEL, pre, "relu")
        reads.append((pre, state))
    return reads
