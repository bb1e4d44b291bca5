"""The hunt: plausible wrong procedures per exercise that no hand-written solver names, each as code that gives the
wrong (whole) answer from a variant. Written independently of the chains in exercises/diagnosis, so that they
measure the generic search rather than restate it."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from exercises.base import Answer, Variant

Procedure = Callable[[Variant], Answer]


def _a(value: Any) -> np.ndarray:
    return np.asarray(value, dtype=float)


def _softmax(x: np.ndarray, axis: int | None = -1) -> np.ndarray:
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 1 / (1 + np.exp(-x))


# ch09.rnn-step -------------------------------------------------------------------------------------------------
def _rnn(w_h: Any, w_x: Any, h: Any, x: Any, b: Any, squash: Callable[[np.ndarray], np.ndarray] = np.tanh) -> Answer:
    pre = _a(w_h) @ _a(h) + _a(w_x) @ _a(x) + _a(b)
    return {"pre_activation": pre.tolist(), "h": squash(pre).tolist()}


def _rnn_parts(v: Variant) -> tuple[np.ndarray, ...]:
    d = v.data
    return _a(d["w_h"]), _a(d["w_x"]), _a(d["h_prev"]), _a(d["x"]), _a(d["b"])


def _rnn_custom(pre: np.ndarray, h: np.ndarray) -> Answer:
    return {"pre_activation": pre.tolist(), "h": h.tolist()}


RNN: dict[str, Procedure] = {
    "swapped W_h and W_x": lambda v: (lambda w_h, w_x, h, x, b: _rnn(w_x, w_h, h, x, b))(*_rnn_parts(v)),
    "only W_h transposed": lambda v: (lambda w_h, w_x, h, x, b: _rnn(w_h.T, w_x, h, x, b))(*_rnn_parts(v)),
    "only W_x transposed": lambda v: (lambda w_h, w_x, h, x, b: _rnn(w_h, w_x.T, h, x, b))(*_rnn_parts(v)),
    "bias subtracted": lambda v: (lambda w_h, w_x, h, x, b: _rnn(w_h, w_x, h, x, -b))(*_rnn_parts(v)),
    "h_prev and x swapped": lambda v: (lambda w_h, w_x, h, x, b: _rnn(w_h, w_x, x, h, b))(*_rnn_parts(v)),
    "recurrent term left out": lambda v: (lambda w_h, w_x, h, x, b: _rnn(0 * w_h, w_x, h, x, b))(*_rnn_parts(v)),
    "input term left out": lambda v: (lambda w_h, w_x, h, x, b: _rnn(w_h, 0 * w_x, h, x, b))(*_rnn_parts(v)),
    "clipped instead of tanh": lambda v: _rnn(*_rnn_parts(v), squash=lambda z: np.clip(z, -1, 1)),
    "bias added twice": lambda v: (lambda w_h, w_x, h, x, b: _rnn(w_h, w_x, h, x, 2 * b))(*_rnn_parts(v)),
    "h_prev used for x too": lambda v: (lambda w_h, w_x, h, x, b: _rnn(w_h, w_x, h, h, b))(*_rnn_parts(v)),
    "W_h transposed, no bias": lambda v: (lambda w_h, w_x, h, x, b: _rnn(w_h.T, w_x, h, x, 0 * b))(*_rnn_parts(v)),
    "tanh before the bias": lambda v: (
        lambda w_h, w_x, h, x, b: _rnn_custom(w_h @ h + w_x @ x + b, np.tanh(w_h @ h + w_x @ x) + b)
    )(*_rnn_parts(v)),
}


# ch09.scaled-dot-attention -------------------------------------------------------------------------------------
def _attention(
    q: np.ndarray,
    k: np.ndarray,
    v: np.ndarray,
    scale: float = math.sqrt(2),
    axis: int | None = 1,
    weigh: Callable[[np.ndarray], np.ndarray] | None = None,
    transpose_weights: bool = False,
) -> Answer:
    scores = q @ k.T / scale
    weights = weigh(scores) if weigh is not None else _softmax(scores, axis)
    output = (weights.T if transpose_weights else weights) @ v
    dominant = all(int(np.argmax(row)) == i for i, row in enumerate(weights))
    return {
        "scores": scores.tolist(),
        "weights": weights.tolist(),
        "output": output.tolist(),
        "diagonal_dominant": dominant,
    }


def _qkv(v: Variant) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return _a(v.data["q"]), _a(v.data["k"]), _a(v.data["v"])


def _hard(scores: np.ndarray) -> np.ndarray:
    hard = np.zeros_like(scores)
    hard[np.arange(len(scores)), scores.argmax(axis=1)] = 1.0
    return hard


ATTENTION: dict[str, Procedure] = {
    "multiplied by √d_k": lambda v: _attention(*_qkv(v), scale=1 / math.sqrt(2)),
    "weights transposed in the output": lambda v: _attention(*_qkv(v), transpose_weights=True),
    "softmax over the whole matrix": lambda v: _attention(*_qkv(v), axis=None),
    "hard argmax weights": lambda v: _attention(*_qkv(v), weigh=_hard),
    "scores divided by their row sum": lambda v: _attention(*_qkv(v), weigh=lambda s: s / s.sum(axis=1, keepdims=True)),
    "values from the queries": lambda v: (lambda q, k, val: _attention(q, k, q))(*_qkv(v)),
    "keys from the queries": lambda v: (lambda q, k, val: _attention(q, q, val))(*_qkv(v)),
    "divided by d_k, softmax down columns": lambda v: _attention(*_qkv(v), scale=2.0, axis=0),
    "unscaled, softmax down columns": lambda v: _attention(*_qkv(v), scale=1.0, axis=0),
    "unscaled weights transposed": lambda v: _attention(*_qkv(v), scale=1.0, transpose_weights=True),
    "columns softmax, transposed in output": lambda v: _attention(*_qkv(v), axis=0, transpose_weights=True),
    "K and V swapped": lambda v: (lambda q, k, val: _attention(q, val, k))(*_qkv(v)),
}


# l03.additive-attention ----------------------------------------------------------------------------------------
def _additive(
    v: Variant,
    w: np.ndarray | None = None,
    u: np.ndarray | None = None,
    swap_roles: bool = False,
    squash: Callable[[np.ndarray], np.ndarray] = np.tanh,
    after: bool = False,
    query_out: bool = False,
    keys_out: bool = False,
    hard: bool = False,
    linear: bool = False,
) -> Answer:
    d = v.data
    s, hs, vv = _a(d["s_prev"]), _a(d["hs"]), _a(d["v"])
    w = _a(d["w"]) if w is None else w
    u = _a(d["u"]) if u is None else u
    query = (u @ s) if swap_roles else (w @ s)
    keys = (hs @ w.T) if swap_roles else (hs @ u.T)
    pre = (0 * keys if query_out else query) + (0 * keys if keys_out else keys)
    scores = squash(pre @ vv) if after else squash(pre) @ vv
    if hard:
        weights = np.eye(len(scores))[int(np.argmax(scores))]
    elif linear:
        weights = scores / scores.sum()
    else:
        weights = _softmax(scores)
    return {"scores": scores.tolist(), "weights": weights.tolist(), "context": (weights @ hs).tolist()}


ADDITIVE: dict[str, Procedure] = {
    "tanh after v": lambda v: _additive(v, after=True),
    "row convention for U": lambda v: _additive(v, u=_a(v.data["u"]).T),
    "W transposed": lambda v: _additive(v, w=_a(v.data["w"]).T),
    "both transposed": lambda v: _additive(v, w=_a(v.data["w"]).T, u=_a(v.data["u"]).T),
    "hard argmax context": lambda v: _additive(v, hard=True),
    "normalised without exp": lambda v: _additive(v, linear=True),
    "W s left out": lambda v: _additive(v, query_out=True),
    "U h_j left out": lambda v: _additive(v, keys_out=True),
    "W and U swapped": lambda v: _additive(v, swap_roles=True),
    "sigmoid for tanh": lambda v: _additive(v, squash=_sigmoid),
    "relu for tanh": lambda v: _additive(v, squash=lambda z: np.maximum(z, 0)),
    "W used for U too": lambda v: _additive(v, u=_a(v.data["w"])),
}

HUNT: dict[str, dict[str, Procedure]] = {
    "ch09.rnn-step": RNN,
    "ch09.scaled-dot-attention": ATTENTION,
    "l03.additive-attention": ADDITIVE,
}


# l03.superposition-readback ------------------------------------------------------------------------------------
def _cosine(a: np.ndarray, b: np.ndarray) -> float:
    lengths = float(np.linalg.norm(a) * np.linalg.norm(b))
    return float(a @ b) / lengths if lengths else 0.0


def _superposition(
    v: Variant,
    bind: str = "product",
    leave_out: int | None = None,
    probe_shift: int = 0,
    against: str = "word",
    cosine: str = "cosine",
    nearest: str = "argmax",
) -> Answer:
    d = v.data
    words, keys, p = _a(d["words"]), _a(d["keys"]), int(d["probe"])
    bound = keys * words if bind == "product" else keys + words
    if leave_out is not None:
        bound = np.delete(bound, leave_out, axis=0)
    memory = bound.sum(axis=0)
    q = p + probe_shift if 0 <= p + probe_shift < len(words) else p - probe_shift
    readback = keys[q] * memory
    other = {"word": words[p], "key": keys[q]}.get(against, words[p])
    first = memory if against == "memory" else readback
    if cosine == "cosine":
        value = _cosine(first, other)
    elif cosine == "readback-length":
        value = float(first @ other) / float(np.linalg.norm(first))
    else:
        value = float(first @ other) / float(other @ other)
    values = [_cosine(readback, word) for word in words]
    index = int(np.argmin(values)) if nearest == "argmin" else int(np.argmax(values)) + (nearest == "from-one")
    return {"memory": memory.tolist(), "readback": readback.tolist(), "cosine": value, "nearest": index}


SUPERPOSITION: dict[str, Procedure] = {
    "added instead of bound": lambda v: _superposition(v, bind="sum"),
    "last word left out of the memory": lambda v: _superposition(v, leave_out=-1),
    "first word left out of the memory": lambda v: _superposition(v, leave_out=0),
    "the neighbouring key": lambda v: _superposition(v, probe_shift=1),
    "cosine against the memory": lambda v: _superposition(v, against="memory"),
    "cosine against the key": lambda v: _superposition(v, against="key"),
    "cosine over the readback length only": lambda v: _superposition(v, cosine="readback-length"),
    "nearest by the smallest cosine": lambda v: _superposition(v, nearest="argmin"),
    "nearest counted from 1": lambda v: _superposition(v, nearest="from-one"),
    "projection coefficient for the cosine": lambda v: _superposition(v, cosine="projection"),
    "neighbouring key, counted from 1": lambda v: _superposition(v, probe_shift=1, nearest="from-one"),
}


# ch13.loss-average ---------------------------------------------------------------------------------------------
def _loss(
    v: Variant,
    lookup: str = "target",
    product: str = "product",
    loss: str = "ln",
    total_without_eos: bool = False,
    with_divisor: int = 0,
    without_divisor: int = 0,
    drop: str = "eos",
    perplexity: str = "",
) -> Answer:
    d = v.data
    candidates, table, target = d["candidates"], d["table"], d["target"]
    rows = [table[previous] for previous in ["BOS", *target[:-1]]]
    if lookup == "row-max":
        p = [float(max(row)) for row in rows]
    else:
        p = [float(row[candidates.index(token)]) for token, row in zip(target, rows)]
    n = len(p)
    probability = {"product": math.prod(p), "sum": sum(p), "drop-eos": math.prod(p[:-1])}[product]
    losses = [1 - q for q in p] if loss == "one-minus" else [-math.log(q) for q in p]
    total = sum(losses[:-1]) if total_without_eos else sum(losses)
    with_eos = total / (n + with_divisor)
    kept = losses[1:] if drop == "first" else losses[:-1]
    without_eos = sum(kept) / (n - 1 + without_divisor)
    if "with" in perplexity.split(","):
        with_eos = math.exp(with_eos)
    if "without" in perplexity.split(","):
        without_eos = math.exp(without_eos)
    return {
        "sequence_probability": probability,
        "total_loss": total,
        "mean_loss_with_eos": with_eos,
        "mean_loss_without_eos": without_eos,
    }


LOSS: dict[str, Procedure] = {
    "perplexity for the mean loss": lambda v: _loss(v, perplexity="with"),
    "perplexity for the mean without EOS": lambda v: _loss(v, perplexity="without"),
    "perplexity for both means": lambda v: _loss(v, perplexity="with,without"),
    "each row's largest probability": lambda v: _loss(v, lookup="row-max"),
    "probabilities added": lambda v: _loss(v, product="sum"),
    "EOS left out of the total": lambda v: _loss(v, total_without_eos=True),
    "BOS counted in the divisor": lambda v: _loss(v, with_divisor=1),
    "first term dropped instead of EOS": lambda v: _loss(v, drop="first"),
    "1 − p as the loss": lambda v: _loss(v, loss="one-minus"),
    "EOS left out of the product": lambda v: _loss(v, product="drop-eos"),
    "without EOS over n − 2": lambda v: _loss(v, without_divisor=-1),
    "mean with EOS over n − 1": lambda v: _loss(v, with_divisor=-1),
}

HUNT["l03.superposition-readback"] = SUPERPOSITION
HUNT["ch13.loss-average"] = LOSS


# ch13.greedy-decode ----------------------------------------------------------------------------------------------
def _greedy(
    v: Variant,
    cap_shift: int = 0,
    feed: str = "last",
    rule: str = "max",
    reverse: bool = False,
    flip_reason: bool = False,
) -> Answer:
    d = v.data
    candidates, table, cap = d["candidates"], d["table"], int(d["max_steps"]) + cap_shift
    tokens: list[str] = []
    while len(tokens) < cap and (not tokens or tokens[-1] != "EOS"):
        previous = "BOS" if feed == "bos" or not tokens else tokens[-1]
        row = np.asarray(table[previous], dtype=float)
        order = np.argsort(-row, kind="stable")
        tokens.append(candidates[int(order[1] if rule == "second" else order[0])])
    reason = "EOS" if tokens[-1] == "EOS" else "cap"
    if flip_reason:
        reason = "cap" if reason == "EOS" else "EOS"
    return {"tokens": tokens[::-1] if reverse else tokens, "stopped_by": reason}


GREEDY: dict[str, Procedure] = {
    "one prediction short of the cap": lambda v: _greedy(v, cap_shift=-1),
    "one short of the cap, said EOS": lambda v: _greedy(v, cap_shift=-1, flip_reason=True),
    "two short of the cap": lambda v: _greedy(v, cap_shift=-2),
    "one past the cap, said cap": lambda v: _greedy(v, cap_shift=1),
    "the BOS row at every step": lambda v: _greedy(v, feed="bos"),
    "the BOS row at every step, said EOS": lambda v: _greedy(v, feed="bos", flip_reason=True),
    "the other stop reason": lambda v: _greedy(v, flip_reason=True),
    "predictions written backwards": lambda v: _greedy(v, reverse=True),
    "the runner-up each step": lambda v: _greedy(v, rule="second"),
    "backwards and the other reason": lambda v: _greedy(v, reverse=True, flip_reason=True),
}


# ch13.shift-pairs ------------------------------------------------------------------------------------------------
def _shift(
    v: Variant,
    extra_eos: bool = False,
    drop_last: bool = False,
    direction: bool = False,
    reverse: bool = False,
    count_shift: int = 0,
    eos_scored: bool = True,
    drop_first: bool = False,
    no_period: bool = False,
    start: str = "BOS",
) -> Answer:
    target = [t for t in v.data["target"] if not (no_period and t == ".")]
    first = target[0] if start == "first" else start
    pairs = list(zip([first, *target[:-1]], target))
    if extra_eos:
        pairs.append(("EOS", "EOS"))
    if drop_last:
        pairs = pairs[:-1]
    if drop_first:
        pairs = pairs[1:]
    if direction:
        pairs = [(b, a) for a, b in pairs]
    count = len(pairs) + count_shift
    return {
        "pairs": pairs[::-1] if reverse else pairs,
        "bos_scored": False,
        "eos_scored": eos_scored,
        "scored_count": count,
    }


SHIFT: dict[str, Procedure] = {
    "an extra EOS→EOS pair": lambda v: _shift(v, extra_eos=True),
    "stopped before .→EOS": lambda v: _shift(v, drop_last=True),
    "pairs written (target → input)": lambda v: _shift(v, direction=True),
    "pairs in reverse order": lambda v: _shift(v, reverse=True),
    "extra EOS pair, count unchanged": lambda v: _shift(v, extra_eos=True, count_shift=-1),
    "extra EOS pair, EOS not scored": lambda v: _shift(v, extra_eos=True, eos_scored=False),
    "first pair left out": lambda v: _shift(v, drop_first=True),
    "period skipped": lambda v: _shift(v, no_period=True),
    "started from the first word": lambda v: _shift(v, start="first"),
    "stopped before .→EOS, count unchanged": lambda v: _shift(v, drop_last=True, count_shift=1),
    "reversed pairs written (target → input)": lambda v: _shift(v, direction=True, reverse=True),
}

HUNT["ch13.greedy-decode"] = GREEDY
HUNT["ch13.shift-pairs"] = SHIFT


# ch13.encoder-states ---------------------------------------------------------------------------------------------
def _encode(
    v: Variant,
    reverse: bool = False,
    column: str = "",
    reset: bool = False,
    swap: bool = False,
    with_h0: bool = False,
    list_pre: bool = False,
    bias: float = 1.0,
    squash: str = "relu",
    bias_after: bool = False,
    carry_pre: bool = False,
) -> Answer:
    d = v.data
    enc, vocab = d["encoder"], d["source_vocab"]
    w_x, w_h = _a(enc["W_x"]), _a(enc["W_h"])
    if swap:
        w_x, w_h = w_h, w_x
    if "x" in column:
        w_x = w_x.T
    if "h" in column:
        w_h = w_h.T
    h0 = _a(enc["h_0"])
    h, rows = h0, []
    for token in d["source"][::-1] if reverse else d["source"]:
        pre = _a(vocab[token]) @ w_x + (h0 if reset else h) @ w_h + (0 if bias_after else bias * _a(enc["b"]))
        state = {"relu": np.maximum(pre, 0), "tanh": np.tanh(pre)}[squash] + (_a(enc["b"]) if bias_after else 0)
        rows.append((pre if list_pre else state).tolist())
        h = pre if carry_pre else state
    return {"states": ([h0.tolist()] if with_h0 else []) + rows}


ENCODER: dict[str, Procedure] = {
    "read backwards": lambda v: _encode(v, reverse=True),
    "column convention": lambda v: _encode(v, column="xh"),
    "state not carried": lambda v: _encode(v, reset=True),
    "W_x and W_h swapped": lambda v: _encode(v, swap=True),
    "h_0 listed too": lambda v: _encode(v, with_h0=True),
    "pre-activations listed": lambda v: _encode(v, list_pre=True),
    "bias subtracted": lambda v: _encode(v, bias=-1.0),
    "tanh for ReLU": lambda v: _encode(v, squash="tanh"),
    "bias after the ReLU": lambda v: _encode(v, bias_after=True),
    "only W_x transposed": lambda v: _encode(v, column="x"),
    "pre-activation carried": lambda v: _encode(v, carry_pre=True),
}

HUNT["ch13.encoder-states"] = ENCODER


# ch13.encoder-collision ------------------------------------------------------------------------------------------
def _reads(
    v: Variant,
    source: list[str],
    reverse: bool = False,
    column: bool = False,
    reset: bool = False,
    swap: bool = False,
    squash: str = "relu",
) -> list[tuple[np.ndarray, np.ndarray]]:
    d = v.data
    enc, vocab = d["encoder"], d["source_vocab"]
    w_x, w_h = (_a(enc["W_h"]), _a(enc["W_x"])) if swap else (_a(enc["W_x"]), _a(enc["W_h"]))
    if column:
        w_x, w_h = w_x.T, w_h.T
    h0 = _a(enc["h_0"])
    h, reads = h0, []
    for token in source[::-1] if reverse else source:
        pre = _a(vocab[token]) @ w_x + (h0 if reset else h) @ w_h + _a(enc["b"])
        h = np.maximum(pre, 0) if squash == "relu" else np.tanh(pre)
        reads.append((pre, h))
    return reads


def _collide(
    v: Variant,
    probe_shift: int = 0,
    compare: int = 1,
    count_from: int = 1,
    last_differ: bool = False,
    final_pre: bool = False,
    **encoder: Any,
) -> Answer:
    d = v.data
    a, b = _reads(v, d["source_a"], **encoder), _reads(v, d["source_b"], **encoder)
    probe = min(max(int(d["probe_step"]) + probe_shift, 1), len(b))
    equal = [j for j, (x, y) in enumerate(zip(a, b), start=1) if np.allclose(x[compare], y[compare])]
    first = equal[0] if equal else None
    if first is not None and last_differ:
        first = first - 1 if first > 1 else None
    elif first is not None:
        first = first - 1 + count_from
    final = a[-1][0 if final_pre else 1], b[-1][0 if final_pre else 1]
    return {
        "pre_activation": b[probe - 1][0].tolist(),
        "post_activation": b[probe - 1][1].tolist(),
        "collision_step": first,
        "final_equal": bool(np.allclose(*final)),
        "teacher_forcing_separates": False,
    }


COLLISION: dict[str, Procedure] = {
    "the read after the probe": lambda v: _collide(v, probe_shift=1),
    "the read before the probe": lambda v: _collide(v, probe_shift=-1),
    "collision counted from 0": lambda v: _collide(v, count_from=0),
    "collision by pre-activations": lambda v: _collide(v, compare=0),
    "the last read that differs": lambda v: _collide(v, last_differ=True),
    "final equality by pre-activations": lambda v: _collide(v, final_pre=True),
    "state not carried": lambda v: _collide(v, reset=True),
    "W_x and W_h swapped": lambda v: _collide(v, swap=True),
    "tanh for ReLU": lambda v: _collide(v, squash="tanh"),
    "read backwards": lambda v: _collide(v, reverse=True),
    "column convention": lambda v: _collide(v, column=True),
}

HUNT["ch13.encoder-collision"] = COLLISION


# ch09.attention-cost ---------------------------------------------------------------------------------------------
def _cost(
    v: Variant,
    pairs: Callable[[int], float] = lambda n: n * n,
    causal: Callable[[int], float] = lambda n: n * (n + 1) // 2,
    growth: Callable[[float], float] = lambda f: f**2,
    extra: int = 0,
) -> Answer:
    n, factor = int(v.data["n"]) + extra, float(v.data["factor"])
    return {"pairs": pairs(n), "causal_pairs": causal(n), "growth": growth(factor)}


COST: dict[str, Procedure] = {
    "pairs without self": lambda v: _cost(v, pairs=lambda n: n * (n - 1)),
    "causal without the diagonal": lambda v: _cost(v, causal=lambda n: n * (n - 1) // 2),
    "mask ignored": lambda v: _cost(v, causal=lambda n: n * n),
    "cubic growth": lambda v: _cost(v, growth=lambda f: f**3),
    "doubled factor": lambda v: _cost(v, growth=lambda f: 2 * f),
    "one token more (BOS counted)": lambda v: _cost(v, extra=1),
    "causal not halved": lambda v: _cost(v, causal=lambda n: n * (n + 1)),
    "causal count for all pairs": lambda v: _cost(v, pairs=lambda n: n * (n + 1) // 2),
    "2n pairs": lambda v: _cost(v, pairs=lambda n: 2 * n),
    "without self, without the diagonal": lambda v: _cost(
        v, pairs=lambda n: n * (n - 1), causal=lambda n: n * (n - 1) // 2
    ),
    "one token fewer": lambda v: _cost(v, extra=-1),
}


# ch09.multihead-shapes -------------------------------------------------------------------------------------------
def _heads(
    v: Variant,
    head: Callable[[int, int], int] = lambda d, h: d // h,
    params: Callable[[int, int], int] = lambda d, h: 4 * d * d,
) -> Answer:
    d, h = int(v.data["d_model"]), int(v.data["heads"])
    return {"head_dim": head(d, h), "projection_params": params(d, h)}


HEADS: dict[str, Procedure] = {
    "head_dim multiplied": lambda v: _heads(v, head=lambda d, h: d * h),
    "biases counted": lambda v: _heads(v, params=lambda d, h: 4 * d * d + 4 * d),
    "times the heads again": lambda v: _heads(v, params=lambda d, h: 4 * d * d * h),
    "Q, K, V with biases": lambda v: _heads(v, params=lambda d, h: 3 * d * d + 3 * d),
    "only Q and K": lambda v: _heads(v, params=lambda d, h: 2 * d * d),
    "one matrix": lambda v: _heads(v, params=lambda d, h: d * d),
    "per-head squares": lambda v: _heads(v, params=lambda d, h: 4 * (d // h) ** 2 * h),
    "4 d h": lambda v: _heads(v, params=lambda d, h: 4 * d * h),
    "multiplied, and biases": lambda v: _heads(v, head=lambda d, h: d * h, params=lambda d, h: 4 * d * d + 4 * d),
    "multiplied, times the heads": lambda v: _heads(v, head=lambda d, h: d * h, params=lambda d, h: 4 * d * d * h),
}

HUNT["ch09.attention-cost"] = COST
HUNT["ch09.multihead-shapes"] = HEADS


# ch13.exposure-divergence ----------------------------------------------------------------------------------------
def _exposure(
    v: Variant,
    wrong_shift: int = 0,
    later: int = 1,
    past_eos: bool = False,
    never: bool = False,
    teacher_shift: int = 0,
    generated_shift: int = 0,
) -> Answer:
    d = v.data
    candidates, table, target = d["candidates"], d["table"], list(d["target"])
    generated: list[str] = []
    while len(generated) < int(d["max_steps"]) and (not generated or generated[-1] != "EOS"):
        row = table[generated[-1] if generated else "BOS"]
        generated.append(candidates[int(np.argmax(row))])
    first = next(s for s, token in enumerate(target, start=1) if s > len(generated) or generated[s - 1] != token)
    wrong = first + wrong_shift
    stopped = wrong - 1 < len(generated) and generated[wrong - 1] == "EOS"
    divergence = None if never or (stopped and not past_eos) else wrong + later
    if divergence is None:
        return {
            "first_wrong_step": wrong,
            "first_input_divergence_step": None,
            "teacher_forced_input": "none",
            "generated_input": "none",
        }
    taught, fed = ["BOS", *target], ["BOS", *generated]

    def at(tokens: list[str], index: int) -> str:
        return tokens[index] if 0 <= index < len(tokens) else "none"

    return {
        "first_wrong_step": wrong,
        "first_input_divergence_step": divergence,
        "teacher_forced_input": at(taught, divergence - 1 + teacher_shift),
        "generated_input": at(fed, divergence - 1 + generated_shift),
    }


EXPOSURE: dict[str, Procedure] = {
    "divergence two steps later": lambda v: _exposure(v, later=2),
    "divergence after an EOS mistake": lambda v: _exposure(v, past_eos=True),
    "first wrong step one late": lambda v: _exposure(v, wrong_shift=1),
    "teacher input one later": lambda v: _exposure(v, teacher_shift=1),
    "teacher input one earlier": lambda v: _exposure(v, teacher_shift=-1),
    "generated input one earlier": lambda v: _exposure(v, generated_shift=-1),
    "generated input one later": lambda v: _exposure(v, generated_shift=1),
    "inputs never differ": lambda v: _exposure(v, never=True),
    "both inputs one later": lambda v: _exposure(v, teacher_shift=1, generated_shift=1),
    "both inputs one earlier": lambda v: _exposure(v, teacher_shift=-1, generated_shift=-1),
    "late divergence, inputs at the wrong step": lambda v: _exposure(v, later=2, teacher_shift=-1, generated_shift=-1),
}

HUNT["ch13.exposure-divergence"] = EXPOSURE
