"""ch13.encoder-states: run the chapter's ReLU encoder by hand and list the state after every read."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from exercises.base import Answer, AnswerField, Data, Misconception, Variant
from exercises.ch13.common import SYMBOLS, A, tokens_text
from exercises.ch13.encoder import (
    SOURCE_END,
    book_encoder,
    book_vocab_units,
    clips,
    colour_tokens,
    encoder_chain,
    encoder_step,
    magnitude_in_a,
    noun_tokens,
    random_encoder,
    random_vocab_units,
    run_encoder,
    setup_text,
    states_list,
    vocab_from_units,
)
from exercises.comparators import DEFAULT_TOLERANCE, equal
from exercises.diagnosis.steps import Steps, as_list
from exercises.i18n import Text
from exercises.plugin import Exercise
from exercises.tagging import part_solver_tags

ID = "ch13.encoder-states"
TITLE = Text("逐步计算编码器状态", "Encoder states, read by read")
MAX_UNITS = 4  # keeps every coordinate within 4a, so the arithmetic stays small


def _variant_data(units: Mapping[str, list[int]], encoder: dict[str, list[Any]], source: list[str]) -> Data:
    """The JSON data of a variant: embeddings as numbers and, for display, as coefficients of a."""
    return {
        "a": A,
        "source_vocab": vocab_from_units(units),
        "source_vocab_in_a": dict(units),
        "encoder": encoder,
        "source": source,
    }


def book_data() -> Data:
    """Example 13.1: the source 红色 钥匙 。 through the identity encoder."""
    return _variant_data(book_vocab_units(), book_encoder(), ["红色", "钥匙", SOURCE_END])


def random_data(rng: np.random.Generator, seed: int) -> Data:
    """A colour, one or two nouns and 。, random embeddings in [-2a, 2a], identity or small integer weights."""
    units = random_vocab_units(rng, colours=2, nouns=2)
    colour = str(rng.choice(colour_tokens(units)))
    nouns = [str(token) for token in rng.choice(noun_tokens(units), size=int(rng.integers(1, 3)), replace=False)]
    return _variant_data(units, random_encoder(rng), [colour, *nouns, SOURCE_END])


def _run(variant: Variant, activation: str = "relu") -> list[Any]:
    """The encoder run over the variant's source."""
    data = variant.data
    return run_encoder(data["source_vocab"], data["encoder"], data["source"], activation)


def solve(variant: Variant) -> Answer:
    """h_1 … h_n, one state per read, h_0 not listed."""
    return {"states": states_list(_run(variant))}


LIST_WORDS = {
    "with-h0": Text("{step}把 h_0 也列了进去", "in {step} you listed h_0 too"),
    "pre-activations": Text(
        "{step}列的是激活前的值，不是状态", "in {step} you listed the pre-activations, not the states"
    ),
}


def steps(variant: Variant, run: Steps) -> Answer:
    """The solve as named steps: the encoder's reads (``encoder_chain``), then the states listed from h_1."""
    data = variant.data
    reads = encoder_chain(run, data["source_vocab"], data["encoder"], data["source"])
    states = [as_list(state) for _, state in reads]
    listed = run.custom(
        "list",
        Text("列出 h_1 … h_n", "listing h_1 … h_n"),
        lambda: states,
        {
            "with-h0": lambda: [list(map(float, data["encoder"]["h_0"])), *states],
            "pre-activations": lambda: [as_list(pre) for pre, _ in reads],
        },
        LIST_WORDS,
    )
    return {"states": listed}


def _no_relu(variant: Variant) -> Answer | None:
    """Adds input and old state but never clips negatives."""
    steps = _run(variant)
    return {"states": states_list(_run(variant, "none"))} if any(clips(step) for step in steps) else None


def _abs_for_relu(variant: Variant) -> Answer | None:
    """Turns negatives positive (absolute value) instead of setting them to zero."""
    steps = _run(variant)
    return {"states": states_list(_run(variant, "abs"))} if any(clips(step) for step in steps) else None


def _includes_h0(variant: Variant) -> Answer:
    """Lists the initial state h_0 as if it were the first read."""
    return {"states": [list(variant.data["encoder"]["h_0"]), *states_list(_run(variant))]}


def _dropped_a(variant: Variant) -> Answer | None:
    """Writes each coordinate's multiple of a without the a ([1, 0] for [a, 0]); None if every state is zero."""
    states = states_list(_run(variant))
    if all(v == 0 for state in states for v in state):
        return None
    return {"states": [[v / A for v in state] for state in states]}


def quality(variant: Variant) -> str | None:
    """Reject runs where ReLU never clips (no-relu would be right) or the numbers grow large."""
    steps = _run(variant)
    if not any(clips(step) for step in steps):
        return "ReLU never clips, so forgetting it would give the right states"
    if magnitude_in_a(steps) > MAX_UNITS:
        return "coordinates grow beyond 4a"
    return None


def follow_through(variant: Variant, answer: Answer) -> Mapping[str, Any]:
    """State j recomputed from the student's own state j-1 (state 1 from h_0)."""
    data = variant.data
    student = answer.get("states")
    if not isinstance(student, (list, tuple)):
        return {}
    source = data["source"]
    own: list[list[float] | None] = []
    for index in range(len(student)):
        previous = data["encoder"]["h_0"] if index == 0 else student[index - 1]
        if index >= len(source) or not isinstance(previous, (list, tuple)) or len(previous) != 2:
            own.append(None)
            continue
        _, state = encoder_step(data["source_vocab"][source[index]], previous, data["encoder"])
        # A zero state handed back unchanged (a zero embedding, or everything clipped to 0) carries nothing
        # forward: typing zeros throughout, a blank answer, would earn it. A non-zero state handed back unchanged
        # is the read done right from the student's own state (the catalogue's rule), so it earns credit.
        blank_copied = index > 0 and _is_pair(previous) and _close(previous, [0.0, 0.0]) and _close(state, previous)
        own.append(None if blank_copied else list(state))
    return {"states": own}


def _is_pair(value: Any) -> bool:
    """A read 2-vector of numbers."""
    return (
        isinstance(value, (list, tuple))
        and len(value) == 2
        and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value)
    )


def _close(first: Any, second: Any) -> bool:
    """Two 2-vectors equal within the default tolerance, entry by entry."""
    return all(DEFAULT_TOLERANCE.close(float(u), float(v)) for u, v in zip(first, second))


def _skipped_relu(variant: Variant, student: Sequence[Any]) -> bool:
    """Whether some wrong state is the sum before ReLU, left unclipped, at a read where ReLU changes that sum.

    The sum is taken from the student's own previous state and from the key's previous state (the student who
    copied the pre-activation column). A state after ReLU never has a negative coordinate, so this match is the
    no-relu mistake itself, not a coincidence. (The absolute value is not diagnosed read by read: with small
    multiples of a, an ordinary slip or a list shifted by h_0 often equals |sum| at some read.)
    """
    data = variant.data
    reference = states_list(_run(variant))
    source, h_0 = data["source"], data["encoder"]["h_0"]
    for index, state in enumerate(student[: len(source)]):
        if not _is_pair(state) or _close(state, reference[index]):
            continue
        previous_states = (
            [h_0]
            if index == 0
            else [reference[index - 1]] + ([student[index - 1]] if _is_pair(student[index - 1]) else [])
        )
        for previous in previous_states:
            pre, clipped = encoder_step(data["source_vocab"][source[index]], previous, data["encoder"])
            if not _close(pre, clipped) and _close(state, pre):
                return True
    return False


def tag_part(variant: Variant, name: str, student: Any) -> tuple[str, ...]:
    """Tags by match with each wrong procedure over the whole run, plus no-relu for ReLU skipped at some read.

    The no-relu solver leaves every read unclipped from the start, so a student who skipped ReLU at one read, or
    listed the pre-activation sums computed from the right previous states, did not match it.
    """
    reference = solve(variant)[name]
    tags = part_solver_tags(FIELDS, MISCONCEPTIONS, variant, name, student, reference)
    if "no-relu" not in tags and isinstance(student, (list, tuple)) and _skipped_relu(variant, student):
        tags.append("no-relu")
    # h_0 listed first and the list cut to the right length: the same mistake as h_0 plus every state.
    started_at_h0 = [list(variant.data["encoder"]["h_0"]), *reference[:-1]]
    if (
        "includes-h0" not in tags
        and equal("vectors", student, started_at_h0)
        and not equal("vectors", started_at_h0, reference)
    ):
        tags.append("includes-h0")
    return tuple(tags)


MISCONCEPTIONS = (
    Misconception(
        "no-relu",
        _no_relu,
        Text(
            "每一步只把输入项和旧状态项相加，没有再过 ReLU，负坐标被原样带到了下一步。规则：相加之后要逐个坐标取 "
            "max(0, ·)，负数变成 0，再把这个结果当作新状态。",
            "You added the input term and the old-state term but skipped ReLU, so negative coordinates were carried "
            "into the next read. Rule: after the sum, take max(0, ·) coordinate by coordinate (negatives become 0); "
            "that clipped vector is the new state.",
        ),
        name=Text("漏了 ReLU", "Skipped ReLU"),
    ),
    Misconception(
        "abs-for-relu",
        _abs_for_relu,
        Text(
            "把负坐标变成了它的绝对值。ReLU 不翻转符号：负数一律变成 0，正数保持不变。",
            "You turned negative coordinates into their absolute values. ReLU does not flip signs: every negative "
            "coordinate becomes 0 and positive ones stay as they are.",
        ),
        name=Text("把 ReLU 当成绝对值", "ReLU taken as absolute value"),
    ),
    Misconception(
        "includes-h0",
        _includes_h0,
        Text(
            "把初始状态 h_0 也列成了一个读取结果。h_0 是读任何 token 之前给定的起点；每读一个源 token 才产生一个新状态，"
            "所以状态个数等于源序列长度。",
            "You listed the initial state h_0 as if it were a read. h_0 is the given starting point before any token "
            "is read; each source token read produces one new state, so there are as many states as source tokens.",
        ),
        name=Text("把 h_0 算作一次读取", "Listed h_0 as a read"),
    ),
    Misconception(
        "dropped-a",
        _dropped_a,
        Text(
            "你写的是 a 的系数，漏掉了 a 本身：[a, 0] 写成了 [1, 0]。规则：每个坐标都是 a = ln 2 ≈ 0.693 的倍数，"
            "要写成 2a、-a 这样带 a 的形式，或写出数值（如 1.386）。",
            "You wrote the coefficients of a and left the a out: [1, 0] for [a, 0]. Rule: each coordinate is a multiple "
            "of a = ln 2 ≈ 0.693; write it with the a (2a, -a) or as its value (1.386).",
        ),
        name=Text("漏写了 a", "Dropped the a"),
        draws_variants=False,
    ),
)

FIELDS = (
    AnswerField(
        "states",
        "vectors",
        Text("每次读取后的编码器状态 h_1, h_2, …", "encoder state after each read: h_1, h_2, …"),
        Text(
            "每次读取一个 [x, y]，按顺序用逗号或换行分开；坐标可写 0、a、-2a 或至少 3 位小数",
            "one [x, y] per read, in order, separated by commas or lines; entries like 0, a, -2a or "
            "decimals to at least 3 places",
        ),
        Text(
            "h_j = ReLU(x_j W_x + h_(j-1) W_h + b)，从 h_0 开始，每读一个源 token 记下一个状态，不列 h_0。",
            "h_j = ReLU(x_j W_x + h_(j-1) W_h + b) starting from h_0; record one state per source token read, "
            "without listing h_0.",
        ),
    ),
)


def prompt(variant: Variant, lang: str) -> str:
    """The question with this variant's embeddings, weights and source."""
    data = variant.data
    source, count = tokens_text(data["source"]), len(data["source"])
    question = Text(
        f"\n源序列为 [{source}]，编码器从左到右读，每次读一个 token。依次写出读完每个 token 后的状态 "
        f"h_1 … h_{count}（共 {count} 个二维向量，不要列出 h_0）。",
        f"\nThe source is [{source}], read left to right one token at a time. Write the state after each read, "
        f"h_1 … h_{count} ({count} 2-vectors in order; do not list h_0).",
    )
    return setup_text(data, lang) + question.get(lang)


EXERCISE = Exercise.declared_in(globals(), symbols=SYMBOLS)
