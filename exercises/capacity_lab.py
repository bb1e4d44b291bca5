"""The capacity lab (lesson 3): how many words a fixed d-vector holds, against keeping every state and attending.

Each sentence has T random unit word vectors e_t (Gaussian, normalised) and random ±1 position keys k_t.
The fixed-vector side stores c = Σ k_t ⊙ e_t and reads position t back as k_t ⊙ c = e_t + crosstalk; the
read-back is right when, by cosine, it is nearest to e_t among the sentence's own T words. The candidates
are the sentence's words, not a larger vocabulary, because that is what the lesson's simulator and the
graded ``l03.superposition-readback`` exercise do, the chance level (1/T) is then plain, and no
vocabulary-size knob the lesson never mentions changes the curve. The attention side keeps all T word
vectors and reads position t back as Σ_s α_s e_s with α = softmax(k_t·k_s / (√d·τ)), the probed key as the
query; a small temperature τ makes the weights nearly one-hot, so its accuracy stays ≈ 1.

Each sentence is read back at every position, or at 8 evenly spread ones when it is longer (positions are
exchangeable in a sum, so this only trims the sample). Sentences of length T are the first T words of one
64-word draw per trial (common random numbers), so the curves are smooth in T and a T's numbers do not
depend on t_min or t_max. Each d has its own random stream, so a d's curve does not depend on which other
d's were asked for. Vectors are float32: the lab ranks candidates, it needs no more precision.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from exercises.base import ENGINE_VERSION, SEED_LIMIT
from exercises.i18n import Text

CAPACITY_LAB_ID = "l03.capacity-lab"
CAPACITY_LAB_TITLE = Text(
    "容量实验台：定长向量 vs 保留全部状态 + 注意力",
    "Capacity lab: one fixed vector vs keeping every state with attention",
)

ALLOWED_DIMENSIONS = (32, 64, 128, 256)
MAX_LENGTH = 64
MAX_TRIALS = 2000
THRESHOLD = 0.9
TEMPERATURE = 0.1
# Every position is exchangeable in a sum, so probing at most this many per sentence loses nothing but
# sample size (still trials x 8 read-backs per point), and it keeps the full grid well under two seconds.
PROBES_PER_SENTENCE = 8
TRIAL_BLOCK = 200  # trials drawn and scored together; bounds memory at trials = 2000, d = 256
DTYPE = np.float32


def _check_int(name: str, value: object, low: int, high: int) -> int:
    """``value`` as an int in [low, high], or a ValueError naming the parameter."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{name} must be an integer, got {type(value).__name__}")
    if not low <= int(value) <= high:
        raise ValueError(f"{name} must be between {low} and {high}, got {int(value)}")
    return int(value)


def _check_dimensions(ds: object) -> list[int]:
    """The requested d's, sorted without repeats, each one of ALLOWED_DIMENSIONS."""
    if isinstance(ds, (str, bytes)) or not isinstance(ds, Sequence) or len(ds) == 0:
        raise ValueError(f"ds must be a non-empty list of dimensions from {list(ALLOWED_DIMENSIONS)}")
    for d in ds:
        if isinstance(d, bool) or not isinstance(d, (int, np.integer)) or int(d) not in ALLOWED_DIMENSIONS:
            raise ValueError(f"ds: each d must be one of {list(ALLOWED_DIMENSIONS)}, got {d!r}")
    return sorted({int(d) for d in ds})


def probe_positions(length: int) -> np.ndarray:
    """The positions read back in a sentence of ``length`` words: all, or evenly spread ones."""
    if length <= PROBES_PER_SENTENCE:
        return np.arange(length)
    return np.unique(np.linspace(0, length - 1, PROBES_PER_SENTENCE).round().astype(int))


def _draw_block(seed: int, d: int, block: int, size: int) -> tuple[np.ndarray, np.ndarray]:
    """Unit word vectors and ±1 keys, shape (size, MAX_LENGTH, d), fixed by (seed, d, block)."""
    shape = (size, MAX_LENGTH, d)
    words = np.random.default_rng([seed, d, block, 0]).standard_normal(shape, dtype=DTYPE)
    words /= np.linalg.norm(words, axis=2, keepdims=True)
    # One random bit per key entry, taken eight to a byte.
    bits = np.frombuffer(np.random.default_rng([seed, d, block, 1]).bytes(math.prod(shape) // 8), np.uint8)
    keys = np.unpackbits(bits).reshape(shape).astype(DTYPE) * 2 - 1
    return words, keys


def _score_block(words: np.ndarray, keys: np.ndarray, lengths: Sequence[int]) -> np.ndarray:
    """Per length: [fixed hits, attention hits, fixed cosine sum, attention weight sum, probes] for a block."""
    d = words.shape[2]
    memories = np.cumsum(keys * words, axis=1)  # memories[:, T-1] is c for the first T words
    word_gram = words @ words.transpose(0, 2, 1)
    attention_logits = (keys @ keys.transpose(0, 2, 1)) / (math.sqrt(d) * TEMPERATURE)
    self_logit = d / (math.sqrt(d) * TEMPERATURE)  # k_t·k_t = d is the largest logit any row can hold
    totals = np.zeros((len(lengths), 5))
    for row, length in enumerate(lengths):
        probes = probe_positions(length)
        probed = np.arange(len(probes))
        memory = memories[:, length - 1]
        readbacks = keys[:, probes] * memory[:, None, :]
        # |k_t ⊙ c| = |c| for every t (keys are ±1) and words are unit vectors, so ranking candidates by
        # dot product ranks them by cosine.
        fixed_scores = readbacks @ words[:, :length].transpose(0, 2, 1)
        memory_norm = np.maximum(np.linalg.norm(memory, axis=1), np.finfo(DTYPE).tiny)
        fixed_cosine = fixed_scores[:, probed, probes] / memory_norm[:, None]
        weights = np.exp(attention_logits[:, probes, :length] - self_logit)
        weights /= weights.sum(axis=2, keepdims=True)
        # (Σ_s α_s e_s)·e_u = (α @ Gram)_u, and the read-back's norm is shared by all candidates u.
        attention_scores = weights @ word_gram[:, :length, :length]
        totals[row] = (
            np.sum(fixed_scores.argmax(axis=2) == probes),
            np.sum(attention_scores.argmax(axis=2) == probes),
            float(fixed_cosine.sum()),
            float(weights[:, probed, probes].sum()),
            fixed_scores.shape[0] * len(probes),
        )
    return totals


def _simulate_dimension(d: int, lengths: Sequence[int], trials: int, seed: int) -> np.ndarray:
    """Summed counts per length over all trials for one d, drawn block by block."""
    totals = np.zeros((len(lengths), 5))
    for block, start in enumerate(range(0, trials, TRIAL_BLOCK)):
        words, keys = _draw_block(seed, d, block, min(TRIAL_BLOCK, trials - start))
        totals += _score_block(words, keys, lengths)
    return totals


def first_below(accuracies: Sequence[float], lengths: Sequence[int], threshold: float = THRESHOLD) -> int | None:
    """The first length whose accuracy is below ``threshold``, or None when none is."""
    return next((length for length, accuracy in zip(lengths, accuracies) if accuracy < threshold), None)


def run_capacity_lab(
    ds: Sequence[int],
    t_max: int,
    trials: int = 200,
    seed: int = 0,
    t_min: int = 1,
    progress: Callable[[float], None] | None = None,
) -> dict[str, Any]:
    """Read-back accuracy against sentence length T for each d, fixed vector vs attention; JSON-ready.

    Raises ValueError naming the parameter for d outside {32, 64, 128, 256}, T outside 1..64 (or
    t_min > t_max), trials outside 1..2000 or a negative seed. ``progress`` gets the fraction done after
    each d, weighted by d because the work grows with d.
    """
    dimensions = _check_dimensions(ds)
    t_max = _check_int("t_max", t_max, 1, MAX_LENGTH)
    t_min = _check_int("t_min", t_min, 1, MAX_LENGTH)
    if t_min > t_max:
        raise ValueError(f"t_min ({t_min}) must not exceed t_max ({t_max})")
    trials = _check_int("trials", trials, 1, MAX_TRIALS)
    seed = _check_int("seed", seed, 0, SEED_LIMIT - 1)
    lengths = list(range(t_min, t_max + 1))
    fixed, attention, cosine, weight, below = {}, {}, {}, {}, {}
    done, total_work = 0, sum(dimensions)
    for d in dimensions:
        hits_fixed, hits_attention, cosine_sum, weight_sum, probes = _simulate_dimension(d, lengths, trials, seed).T
        key = str(d)
        fixed[key] = [round(float(x), 6) for x in hits_fixed / probes]
        attention[key] = [round(float(x), 6) for x in hits_attention / probes]
        cosine[key] = [round(float(x), 6) for x in cosine_sum / probes]
        weight[key] = [round(float(x), 6) for x in weight_sum / probes]
        below[key] = first_below(fixed[key], lengths)
        done += d
        if progress is not None:
            progress(done / total_work)
    return {
        "ds": dimensions,
        "ts": lengths,
        "fixed_accuracy": fixed,
        "attention_accuracy": attention,
        "first_below_90": below,
        "fixed_cosine": cosine,
        "attention_weight_on_target": weight,
        "params": {
            "ds": dimensions,
            "t_min": t_min,
            "t_max": t_max,
            "trials": trials,
            "seed": seed,
            "temperature": TEMPERATURE,
            "probes_per_sentence": PROBES_PER_SENTENCE,
            "threshold": THRESHOLD,
            "candidates": "sentence",
        },
        "engine_version": ENGINE_VERSION,
    }
