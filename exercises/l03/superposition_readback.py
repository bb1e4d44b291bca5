"""l03.superposition-readback: bind words to ±1 keys, add them into one vector, and read one back."""

from __future__ import annotations

from typing import cast

import numpy as np

from exercises import units
from exercises.base import Answer, AnswerField, Data, Misconception, Variant
from exercises.comparators import DEFAULT_TOLERANCE
from exercises.diagnosis.steps import Steps, as_list
from exercises.i18n import Text
from exercises.linalg import Vector, cosine, unique_argmax, vector_text
from exercises.plugin import Exercise
from exercises.tagging import part_solver_tags

ID = "l03.superposition-readback"
TITLE = Text("叠加记忆的读回", "Reading back from a superposed memory")
WORD_LOW, WORD_HIGH = -2, 2
MIN_NEAREST_GAP = 0.02  # cosines closer than this could swap places after rounding by hand


def book_data() -> Data:
    """Seed 0: three 4-d words; reading back word 1 gives cosine 1/√2 and still finds word 1."""
    return {
        "words": [[1, 2, 0, 1], [0, 1, 2, -1], [2, 0, 1, 1]],
        "keys": [[1, 1, -1, 1], [1, -1, 1, 1], [-1, 1, 1, -1]],
        "probe": 1,
    }


def random_data(rng: np.random.Generator, seed: int) -> Data:
    """T = 3 or 4 words of dimension 3 or 4 (small integers), random ±1 keys, a random probe."""
    count, dim = int(rng.integers(3, 5)), int(rng.integers(3, 5))
    return {
        "words": rng.integers(WORD_LOW, WORD_HIGH + 1, size=(count, dim)).tolist(),
        "keys": rng.choice((-1, 1), size=(count, dim)).tolist(),
        "probe": int(rng.integers(0, count)),
    }


def _memory(data: Data) -> Vector:
    """c = Σ_t k_t ⊙ e_t."""
    return cast(
        Vector, (np.asarray(data["keys"], dtype=float) * np.asarray(data["words"], dtype=float)).sum(axis=0).tolist()
    )


def _unbind(data: Data, memory: Vector) -> Vector:
    """k_probe ⊙ memory."""
    return cast(
        Vector, (np.asarray(data["keys"][data["probe"]], dtype=float) * np.asarray(memory, dtype=float)).tolist()
    )


def _cosines(data: Data, readback: Vector) -> list[float] | None:
    """Cosine of ``readback`` with every word, or None when the readback is the zero vector."""
    values = [cosine(readback, word) for word in data["words"]]
    if any(value is None for value in values):
        return None
    return [float(value) for value in values if value is not None]


def _nearest(data: Data, readback: Vector) -> int | None:
    """The word with the largest cosine, or None when that is not clear by MIN_NEAREST_GAP."""
    values = _cosines(data, readback)
    return None if values is None else unique_argmax(values, MIN_NEAREST_GAP)


def _read(data: Data, readback: Vector) -> Answer:
    """The readback with its cosine to the probed word and the nearest word."""
    values = _cosines(data, readback) or [0.0] * len(data["words"])
    return {"readback": readback, "cosine": values[data["probe"]], "nearest": int(np.argmax(values))}


def solve(variant: Variant) -> Answer:
    """Memory, unbound readback, its cosine with the probed word, and the nearest word by cosine."""
    memory = _memory(variant.data)
    return {"memory": memory, **_read(variant.data, _unbind(variant.data, memory))}


def _no_unbinding(variant: Variant) -> Answer:
    """Reads the memory as it is, without multiplying by the probe's key."""
    return _read(variant.data, _memory(variant.data))


def _dot_for_cosine(variant: Variant) -> Answer:
    """Reports the dot product of readback and word instead of their cosine."""
    data = variant.data
    readback = _unbind(data, _memory(data))
    return {"cosine": float(np.dot(readback, data["words"][data["probe"]]))}


def _nearest_by_dot(data: Data) -> int | None:
    """The word the dot-for-cosine student names: the largest dot product with the readback, when that is clear."""
    readback = _unbind(data, _memory(data))
    return unique_argmax([float(np.dot(readback, word)) for word in data["words"]], MIN_NEAREST_GAP)


def tag_part(variant: Variant, name: str, student: object) -> tuple[str, ...]:
    """Tags by match with each wrong procedure, plus dot-for-cosine on a nearest word picked by dot product.

    The solver gives only the cosine, so that the variant rules stay those the variants were drawn under; the
    nearest word by dot product is read here from the part itself.
    """
    reference = solve(variant)[name]
    tags = part_solver_tags(FIELDS, MISCONCEPTIONS, variant, name, student, reference)
    if name == "nearest" and student != reference and student == _nearest_by_dot(variant.data):
        tags.append("dot-for-cosine")
    return tuple(tags)


ADDED = Text(
    "{step}把 k_t 和 e_t 相加了，而不是逐元素相乘",
    "in {step} you added k_t and e_t instead of multiplying them entry by entry",
)
COSINE_MISTAKES = {
    "dot": Text(
        "{step}报的是点积，没有除以两个长度", "in {step} you gave the dot product, not divided by the two lengths"
    ),
    "one-length": Text("{step}只除以了读回向量的长度", "in {step} you divided by the readback's length only"),
    "word-length": Text("{step}只除以了原词的长度", "in {step} you divided by the word's length only"),
    "memory": Text(
        "{step}算的是记忆向量 c 与原词的余弦，而不是读回向量",
        "in {step} you took the cosine of the memory c with the word, not of the readback",
    ),
    "key": Text(
        "{step}算的是读回与键 k_p 的余弦，而不是与原词",
        "in {step} you took the cosine of the readback with the key k_p, not with the word",
    ),
}
NEAREST_MISTAKES = {
    "argmin": Text("{step}选了余弦最小的词", "in {step} you picked the word with the smallest cosine"),
    "from-one": Text("{step}从 1 开始数了，本题从 0 数", "in {step} you counted from 1; here words count from 0"),
}


def _cos(first: np.ndarray, second: np.ndarray) -> float:
    """The cosine, 0 where either vector is zero (as ``_read`` reports it)."""
    value = cosine(first.tolist(), second.tolist())
    return 0.0 if value is None else value


def steps(variant: Variant, run: Steps) -> Answer:
    """The solve as named steps: bind each word to its key, superpose, pick the probe, unbind, the cosine, the
    nearest word."""
    data = variant.data
    words = np.asarray(data["words"], dtype=float)
    keys = np.asarray(data["keys"], dtype=float)
    bound = run.custom(
        "bind", Text("k_t ⊙ e_t", "k_t ⊙ e_t"), lambda: keys * words, {"add": lambda: keys + words}, {"add": ADDED}
    )
    memory = run.total(
        "superpose",
        Text("c = Σ_t k_t ⊙ e_t", "c = Σ_t k_t ⊙ e_t"),
        list(bound),
        [Text(f"k_{t} ⊙ e_{t}", f"k_{t} ⊙ e_{t}") for t in range(len(words))],
    )
    probe = run.index(
        "probe", Text("要读回的词的编号 p", "the probed word's index p"), int(data["probe"]), 0, len(words) - 1
    )
    readback = run.custom("unbind", Text("k_p ⊙ c", "k_p ⊙ c"), lambda: keys[probe] * memory, {"skip": lambda: memory})
    values = [_cos(readback, word) for word in words]
    dots = words @ readback
    length, word_length = float(np.linalg.norm(readback)), float(np.linalg.norm(words[probe]))
    cosine_value = run.custom(
        "cosine",
        Text("cos(读回, e_p)", "cos(readback, e_p)"),
        lambda: values[probe],
        {
            "dot": lambda: float(dots[probe]),
            "one-length": lambda: float(dots[probe]) / length if length else 0.0,
            "word-length": lambda: float(dots[probe]) / word_length if word_length else 0.0,
            "memory": lambda: _cos(memory, words[probe]),
            "key": lambda: _cos(readback, keys[probe]),
        },
        COSINE_MISTAKES,
    )
    nearest = run.custom(
        "nearest",
        Text("余弦最大的词", "the word with the largest cosine"),
        lambda: int(np.argmax(values)),
        {"argmin": lambda: int(np.argmin(values)), "from-one": lambda: int(np.argmax(values)) + 1},
        NEAREST_MISTAKES,
    )
    return {
        "memory": as_list(memory),
        "readback": as_list(readback),
        "cosine": float(cosine_value),
        "nearest": int(nearest),
    }


MISCONCEPTIONS = (
    Misconception(
        "no-unbinding",
        _no_unbinding,
        Text(
            "直接拿记忆向量 c 去比较，没有先用钥匙解绑。规则：读回第 p 个词要算 k_p ⊙ c——±1 钥匙自乘为 1，"
            "这一步把 e_p 还原出来，其余词变成串扰。",
            "You compared the memory c as it is, without unbinding it first. Rule: reading word p back means "
            "k_p ⊙ c; a ±1 key times itself is 1, so this restores e_p and turns the other words into crosstalk.",
        ),
        name=Text("没有先解绑", "Skipped unbinding"),
    ),
    Misconception(
        "dot-for-cosine",
        _dot_for_cosine,
        Text(
            "你用点积代替了余弦（当作余弦写出，或按点积挑最接近的词）。规则：余弦 = 点积 / (两个向量长度之积)，总在 -1 到 1 "
            "之间；按余弦比较时，长度大的词不会因为长度占便宜。",
            "You used the dot product where the cosine is asked for (as the cosine itself, or to pick the nearest "
            "word). Rule: cosine = dot product / (product of the two lengths), which always lies between -1 and 1; "
            "compared by cosine, a longer word gains nothing from its length.",
        ),
        name=Text("把点积当余弦", "Dot product for cosine"),
        builds_on=("memory", "readback"),
    ),
)


def quality(variant: Variant) -> str | None:
    """Reject zero vectors, near-tied nearest words (with or without unbinding)."""
    data = variant.data
    if any(not any(word) for word in data["words"]):
        return "a word is the zero vector"
    memory = _memory(data)
    if not any(memory):
        return "the memory is the zero vector"
    if _nearest(data, _unbind(data, memory)) is None or _nearest(data, memory) is None:
        return "nearest word is not clear"
    return None


def _direction(vector: Vector) -> Vector:
    """``vector`` divided by its largest magnitude: the same cosines, without overflow or underflow in the norm."""
    largest = max(abs(float(value)) for value in vector)
    return [float(value) / largest for value in vector] if largest > 0 else [0.0] * len(vector)


def follow_through(variant: Variant, answer: Answer) -> dict[str, object]:
    """Readback from the student's memory; cosine and nearest word from the student's readback.

    A readback is carried forward only where unbinding changes the student's memory: on a memory that is
    zero wherever the probe's key is -1 (an all-zero memory, say), copying it unchanged (the no-unbinding
    mistake) would earn the credit too. Likewise no cosine is carried forward from a readback parallel to the
    probed word (its cosine is ±1 with nothing to compute: the student who thinks unbinding returns the word
    exactly, crosstalk and all, writes r = e_p and cosine 1), and no nearest word from a readback parallel to
    some word (that word is its nearest by sight).
    """
    data = variant.data
    dim = len(data["words"][0])
    own: dict[str, object] = {}
    memory, readback = answer.get("memory"), answer.get("readback")
    if isinstance(memory, (list, tuple)) and len(memory) == dim:
        unbound = _unbind(data, list(memory))
        # Nor from a readback that is the student's memory copied unchanged (the no-unbinding mistake): where the
        # probe's key is +1 the copy would match the unbound value without any unbinding done.
        copied = (
            isinstance(readback, (list, tuple))
            and len(readback) == dim
            and all(DEFAULT_TOLERANCE.close(float(read), float(value)) for read, value in zip(readback, memory))
        )
        if not copied and not all(DEFAULT_TOLERANCE.close(new, float(value)) for new, value in zip(unbound, memory)):
            own["readback"] = unbound
    if isinstance(readback, (list, tuple)) and len(readback) == dim:
        values = _cosines(data, _direction(list(readback)))
        if values is not None:
            if not DEFAULT_TOLERANCE.close(abs(values[data["probe"]]), 1.0):
                own["cosine"] = values[data["probe"]]
            nearest = unique_argmax(values, MIN_NEAREST_GAP)
            if nearest is not None and not DEFAULT_TOLERANCE.close(values[nearest], 1.0):
                own["nearest"] = nearest
    return own


FIELDS = (
    AnswerField(
        "memory",
        "vector",
        Text("记忆向量 c", "memory vector c"),
        Text("d 个整数", "d integers"),
        Text("c = Σ_t k_t ⊙ e_t，⊙ 是逐元素相乘。", "c = Σ_t k_t ⊙ e_t, where ⊙ multiplies element by element."),
    ),
    AnswerField(
        "readback",
        "vector",
        Text("读回向量 k_p ⊙ c", "readback k_p ⊙ c"),
        Text("d 个整数", "d integers"),
        Text(
            "用被查询词的钥匙逐元素乘记忆：k_p ⊙ c。",
            "Multiply the memory element by element by the probed key: k_p ⊙ c.",
        ),
    ),
    AnswerField(
        "cosine",
        "number",
        Text("读回与原词的余弦", "cosine of readback and the probed word"),
        Text(
            "一个数，保留 4 位小数，或写成 1/sqrt(2) 这样的表达式",
            "a number, 4 decimals or an expression like 1/sqrt(2)",
        ),
        Text("cos = (r·e_p) / (|r| |e_p|)。", "cos = (r·e_p) / (|r| |e_p|)."),
    ),
    AnswerField(
        "nearest",
        "int",
        Text("读回最接近哪个词（从 0 数）", "nearest word to the readback (from 0)"),
        Text("一个整数下标，从 0 开始", "an integer index, counting from 0"),
        Text(
            "比较读回向量与每个词的余弦，取最大者的下标。",
            "Compare the readback's cosine with every word and take the index of the largest.",
        ),
        units=units.INDEX,
    ),
)


def prompt(variant: Variant, lang: str) -> str:
    """The question with this variant's words, keys and probe."""
    data = variant.data
    rows = "\n".join(
        f"e_{t} = {vector_text(word)}    k_{t} = {vector_text(key)}"
        for t, (word, key) in enumerate(zip(data["words"], data["keys"]))
    )
    count, dim, probe = len(data["words"]), len(data["words"][0]), data["probe"]
    return Text(
        f"把 {count} 个 {dim} 维词向量各自乘上一把 ±1 钥匙（逐元素），再全部加进一个向量（下标从 0 开始）：\n{rows}\n"
        f"1. 记忆向量 c = Σ_t k_t ⊙ e_t；\n2. 用钥匙 k_{probe} 读回下标为 {probe} 的词 e_{probe}：r = k_{probe} ⊙ c；\n"
        f"3. r 与 e_{probe} 的余弦；\n4. 按余弦，r 最接近哪个词？写出它的下标。",
        f"{count} word vectors of dimension {dim} are each multiplied element by element by a ±1 key and then "
        f"added into one vector (indices start at 0):\n{rows}\n"
        f"1. the memory c = Σ_t k_t ⊙ e_t;\n2. read word e_{probe} back with its key: r = k_{probe} ⊙ c;\n"
        f"3. the cosine between r and e_{probe};\n4. by cosine, which word is r nearest to? Give its index.",
    ).get(lang)


EXERCISE = Exercise.declared_in(globals())
