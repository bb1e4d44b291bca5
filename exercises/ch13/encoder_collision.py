"""ch13.encoder-collision: find where two source paths through the ReLU encoder become the same state."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from exercises import units
from exercises.base import Answer, AnswerField, Data, Misconception, Variant
from exercises.ch13.common import SYMBOLS, A, tokens_text
from exercises.ch13.encoder import (
    SOURCE_END,
    EncoderStep,
    book_encoder,
    book_vocab_units,
    clips,
    colour_tokens,
    encoder_chain,
    magnitude_in_a,
    noun_tokens,
    random_encoder,
    random_vocab_units,
    relu,
    run_encoder,
    same_state,
    setup_text,
    vocab_from_units,
)
from exercises.comparators import DEFAULT_TOLERANCE, equal
from exercises.diagnosis.steps import Steps, as_list
from exercises.i18n import Text
from exercises.plugin import Exercise
from exercises.tagging import part_solver_tags

ID = "ch13.encoder-collision"
TITLE = Text("定位编码器的状态碰撞", "Locating the encoder collision")
MAX_UNITS = 4
COLLIDING_SHARE = 0.7  # most variants show the chapter's collision; the rest never collide
DRAWS = 60


def book_data() -> Data:
    """Exercise 13.4: 红色 钥匙 。 against 蓝色 钥匙 。, probed at the second read of path B."""
    units = book_vocab_units()
    return {
        "a": A,
        "source_vocab": vocab_from_units(units),
        "source_vocab_in_a": units,
        "encoder": book_encoder(),
        "source_a": ["红色", "钥匙", SOURCE_END],
        "source_b": ["蓝色", "钥匙", SOURCE_END],
        "probe_step": 2,
    }


def random_data(rng: np.random.Generator, seed: int) -> Data:
    """Two sources differing only in their colour; a probe where ReLU clips path B before any collision."""
    want_collision = bool(rng.random() < COLLIDING_SHARE)
    data: dict[str, Any] = {}
    for _ in range(DRAWS):
        units = random_vocab_units(rng, colours=2, nouns=2)
        colour_a, colour_b = colour_tokens(units)
        nouns = [str(t) for t in rng.choice(noun_tokens(units), size=int(rng.integers(1, 3)), replace=False)]
        data = {
            "a": A,
            "source_vocab": vocab_from_units(units),
            "source_vocab_in_a": units,
            "encoder": random_encoder(rng),
            "source_a": [colour_a, *nouns, SOURCE_END],
            "source_b": [colour_b, *nouns, SOURCE_END],
            "probe_step": 1,
        }
        steps_a, steps_b = _runs(data)
        probes, collision = _probe_candidates(steps_a, steps_b), _collision_step(steps_a, steps_b)
        if probes and collision != 1 and (collision is not None) == want_collision:
            data["probe_step"] = int(rng.choice(probes))
            return data
    return data  # quality() rejects it and the next sub-seed draws again


def _runs(data: Mapping[str, Any], activation: str = "relu") -> tuple[list[EncoderStep], list[EncoderStep]]:
    """Both paths through the encoder."""
    vocab, encoder = data["source_vocab"], data["encoder"]
    return (
        run_encoder(vocab, encoder, data["source_a"], activation),
        run_encoder(vocab, encoder, data["source_b"], activation),
    )


def _collision_step(steps_a: Sequence[EncoderStep], steps_b: Sequence[EncoderStep]) -> int | None:
    """The first read (1-based) after which both states are equal, or None."""
    for index, (step_a, step_b) in enumerate(zip(steps_a, steps_b), start=1):
        if same_state(step_a.state, step_b.state):
            return index
    return None


def _probe_candidates(steps_a: Sequence[EncoderStep], steps_b: Sequence[EncoderStep]) -> list[int]:
    """Reads where ReLU clips path B and path A's numbers differ there, up to the first collision."""
    last = _collision_step(steps_a, steps_b) or len(steps_b)
    return [
        j
        for j in range(1, last + 1)
        if clips(steps_b[j - 1]) and not same_state(steps_a[j - 1].pre, steps_b[j - 1].pre)
    ]


def _answer(steps_a: Sequence[EncoderStep], steps_b: Sequence[EncoderStep], probe: int) -> Answer:
    """The four computed parts for two runs and a probe step."""
    return {
        "pre_activation": list(steps_b[probe - 1].pre),
        "post_activation": list(steps_b[probe - 1].state),
        "collision_step": _collision_step(steps_a, steps_b),
        "final_equal": same_state(steps_a[-1].state, steps_b[-1].state),
    }


def solve(variant: Variant) -> Answer:
    """Path B at the probe, the first equal read, whether the contexts match, and teacher forcing: no."""
    steps_a, steps_b = _runs(variant.data)
    return {**_answer(steps_a, steps_b, variant.data["probe_step"]), "teacher_forcing_separates": False}


COLLISION_WORDS = {
    "pre-equal": Text(
        "{step}比较的是激活前的值，而不是状态", "in {step} you compared the pre-activations, not the states"
    ),
    "from-zero": Text("{step}从 0 开始数读入", "in {step} you counted the reads from 0"),
    "last-differ": Text(
        "{step}报的是两条路径最后一次不同的那一步", "in {step} you gave the last read where the paths still differ"
    ),
}
PATH_WORDS = {"a": Text("{step}用的是路径 A", "in {step} you used path A")}
FINAL_WORDS = {
    "pre-equal": Text(
        "{step}比较的是激活前的值，而不是状态", "in {step} you compared the pre-activations, not the states"
    )
}
TEACHER_WORDS = {"flip": Text("{step}答反了", "you answered {step} the other way")}


def _first_equal(reads_a: Sequence[tuple[Any, Any]], reads_b: Sequence[tuple[Any, Any]], part: int) -> int | None:
    """The first read (1-based) after which both paths' ``part`` (0: pre-activation, 1: state) agree, or None."""
    for index, (read_a, read_b) in enumerate(zip(reads_a, reads_b), start=1):
        if same_state(as_list(read_a[part]), as_list(read_b[part])):
            return index
    return None


def steps(variant: Variant, run: Steps) -> Answer:
    """The solve as named steps: both encoder runs (``encoder_chain``), the probed read and path, the first equal
    read, whether the final states are equal, and whether teacher forcing separates them."""
    data = variant.data
    vocab, encoder = data["source_vocab"], data["encoder"]
    reads_a = encoder_chain(run, vocab, encoder, data["source_a"])
    reads_b = encoder_chain(run, vocab, encoder, data["source_b"])
    probe = run.index("probe", Text("所问的那一步", "the read asked about"), int(data["probe_step"]), 1, len(reads_b))
    probed = run.custom(
        "path",
        Text("所问的路径 B", "path B, as asked"),
        lambda: reads_b[probe - 1],
        {"a": lambda: reads_a[probe - 1]},
        PATH_WORDS,
    )
    first = _first_equal(reads_a, reads_b, 1)
    last_differ = None if first is None or first == 1 else first - 1
    collision = run.custom(
        "collision",
        Text("第一次相等的读入", "the first read where the states are equal"),
        lambda: first,
        {
            "pre-equal": lambda: _first_equal(reads_a, reads_b, 0),
            "from-zero": lambda: None if first is None else first - 1,
            "last-differ": lambda: last_differ,
        },
        COLLISION_WORDS,
    )
    final = run.custom(
        "final",
        Text("最终状态是否相等", "whether the final states are equal"),
        lambda: same_state(as_list(reads_a[-1][1]), as_list(reads_b[-1][1])),
        {"pre-equal": lambda: same_state(as_list(reads_a[-1][0]), as_list(reads_b[-1][0]))},
        FINAL_WORDS,
    )
    teacher = run.custom(
        "teacher",
        Text("“教师强制能否区分”", "whether teacher forcing separates them"),
        lambda: False,
        {"flip": lambda: True},
        TEACHER_WORDS,
    )
    # Written down as steps of their own (no mistakes of their own), so that the worked solution shows them.
    pre = run.custom("pre", Text("该步的激活前", "the pre-activation there"), lambda: as_list(probed[0]), {})
    post = run.custom("post", Text("该步的新状态", "the new state there"), lambda: as_list(probed[1]), {})
    return {
        "pre_activation": pre,
        "post_activation": post,
        "collision_step": collision,
        "final_equal": bool(final),
        "teacher_forcing_separates": teacher,
    }


def _no_relu(variant: Variant) -> Answer:
    """Runs both paths without ReLU, so nothing is ever clipped and the paths keep their difference."""
    steps_a, steps_b = _runs(variant.data, "none")
    return _answer(steps_a, steps_b, variant.data["probe_step"])


def _path_a_state(variant: Variant) -> Answer:
    """Reports path A's numbers at the probe step instead of path B's."""
    steps_a, _ = _runs(variant.data)
    step = steps_a[variant.data["probe_step"] - 1]
    return {"pre_activation": list(step.pre), "post_activation": list(step.state)}


def _collision_at_final(variant: Variant) -> Answer | None:
    """Names the last read as the collision, as if only the final context vectors could coincide."""
    steps_a, steps_b = _runs(variant.data)
    collision = _collision_step(steps_a, steps_b)
    if collision is None or collision == len(steps_b):
        return None
    return {"collision_step": len(steps_b)}


def _teacher_forcing_separates(variant: Variant) -> Answer:
    """Believes feeding the correct previous target token can tell the two sources apart at the first step."""
    return {"teacher_forcing_separates": True}


def quality(variant: Variant) -> str | None:
    """The colours must survive the first read; the probe must clip path B and differ from path A; within 4a."""
    data = variant.data
    steps_a, steps_b = _runs(data)
    if _collision_step(steps_a, steps_b) == 1:
        return "the colours already collide at the first read"
    if data["probe_step"] not in _probe_candidates(steps_a, steps_b):
        return "probe step does not clip path B, or path A has the same numbers there"
    if max(magnitude_in_a(steps_a), magnitude_in_a(steps_b)) > MAX_UNITS:
        return "coordinates grow beyond 4a"
    return None


def follow_through(variant: Variant, answer: Answer) -> Mapping[str, Any]:
    """The state after ReLU, computed from the student's own pre-activation."""
    pre = answer.get("pre_activation")
    if not isinstance(pre, (list, tuple)):
        return {}
    post = [relu(float(value)) for value in pre]
    # Only where ReLU clips something: on a pre-activation without negative coordinates, copying it unchanged
    # (the no-ReLU mistake) would earn the credit too.
    if all(DEFAULT_TOLERANCE.close(clipped, float(value)) for clipped, value in zip(post, pre, strict=True)):
        return {}
    return {"post_activation": post}


def tag_part(variant: Variant, name: str, student: Any) -> tuple[str, ...]:
    """Tags by match with each wrong procedure, plus no-relu for a state after ReLU copied from the sum before it.

    The no-relu solver runs both paths without ReLU from the start, so where path B was clipped before the probe
    its numbers differ from a student who added correctly and only skipped ReLU at the probed read; that student
    wrote the pre-activation again as the state, which is the no-relu mistake itself.
    """
    reference = solve(variant)
    tags = part_solver_tags(FIELDS, MISCONCEPTIONS, variant, name, student, reference[name])
    if (
        name == "post_activation"
        and "no-relu" not in tags
        and equal("vector", student, reference["pre_activation"])
        and not equal("vector", reference["pre_activation"], reference["post_activation"])
    ):
        tags.append("no-relu")
    return tuple(tags)


MISCONCEPTIONS = (
    Misconception(
        "no-relu",
        _no_relu,
        Text(
            "计算时没有经过 ReLU：激活后的状态与激活前相同，负坐标一直保留，两条路径也就不会重合。规则：每次读取都要"
            "先求和、再逐坐标取 max(0, ·)；正是这一步截断把两条路径的区别抹掉了。",
            "You left out ReLU: the state after activation equals the sum before it, negative coordinates survive, and "
            "the two paths never meet. Rule: every read sums first, then takes max(0, ·) coordinate by coordinate; "
            "that clipping is what erases the difference between the paths.",
        ),
        name=Text("漏了 ReLU", "Skipped ReLU"),
    ),
    Misconception(
        "path-a-state",
        _path_a_state,
        Text(
            "写的是路径 A 在这一步的数值。题目问的是路径 B：用 B 的颜色嵌入出发，沿 B 自己的状态算到探查的那一步。",
            "You gave path A's numbers at this step. The question asks about path B: start from B's colour "
            "embedding and follow B's own states up to the probed read.",
        ),
        name=Text("算成了路径 A", "Gave path A's state"),
    ),
    Misconception(
        "collision-at-final",
        _collision_at_final,
        Text(
            "以为只有读完全部源 token 的最终向量才会相同。请逐次比较两条路径的状态：它们在更早的一次读取之后就已经"
            "完全相同，之后输入一样，状态也就一直相同。",
            "You assumed only the final vectors can coincide. Compare the two paths read by read: they are already "
            "identical after an earlier read, and with the same inputs from then on they stay identical.",
        ),
        name=Text("以为只在末尾重合", "Collision only at the end"),
    ),
    Misconception(
        "teacher-forcing-separates",
        _teacher_forcing_separates,
        Text(
            "以为教师强制能区分两条源序列。第一个目标步两边收到的都是 BOS，教师强制还没有提供任何先前的目标 token；"
            "能区分 A、B 的只有源序列的表示，教师强制改变不了编码器算出的向量。",
            "You expected teacher forcing to tell the sources apart. At the first target step both decoders receive "
            "BOS, and teacher forcing has not supplied any earlier target token yet; only the source representation "
            "could separate A from B, and teacher forcing does not change what the encoder computed.",
        ),
        name=Text("以为教师强制能区分", "Teacher forcing tells them apart"),
    ),
)

FIELDS = (
    AnswerField(
        "pre_activation",
        "vector",
        Text("路径 B 在探查步的激活前向量", "path B's pre-activation at the probed read"),
        Text(
            "二维向量 [x, y]；坐标可写 0、a、-2a 或至少 3 位小数",
            "a 2-vector [x, y]; entries like 0, a, -2a or decimals to at least 3 places",
        ),
        Text(
            "激活前 = x_j W_x + h_(j-1) W_h + b，用路径 B 自己的上一状态。",
            "Pre-activation = x_j W_x + h_(j-1) W_h + b, with path B's own previous state.",
        ),
        units=units.Units(labels=("z", "pre", "激活前")),
    ),
    AnswerField(
        "post_activation",
        "vector",
        Text("路径 B 在探查步经过 ReLU 后的状态", "path B's state after ReLU at the probed read"),
        Text(
            "二维向量 [x, y]；坐标可写 0、a、-2a 或至少 3 位小数",
            "a 2-vector [x, y]; entries like 0, a, -2a or decimals to at least 3 places",
        ),
        Text(
            "新状态 = ReLU(激活前)，负坐标变成 0。", "New state = ReLU(pre-activation): negative coordinates become 0."
        ),
        units=units.Units(labels=("h", "state", "状态")),
    ),
    AnswerField(
        "collision_step",
        "optional_int",
        Text("两条路径第一次状态相同的读取序号", "first read after which the two states are equal"),
        Text(
            "整数（从 1 数起）；若从不相同，填“无”",
            "an integer counted from 1; write 'none' if they never become equal",
        ),
        Text(
            "逐次比较 A、B 的状态，找出第一次两个坐标都相等的读取。",
            "Compare A's and B's states read by read and find the first read where both coordinates agree.",
        ),
        units=units.READ,
    ),
    AnswerField(
        "final_equal",
        "bool",
        Text("最终状态（上下文向量）是否相同", "are the final states (context vectors) equal?"),
        Text("是 / 否", "yes / no"),
        Text(
            "上下文向量是读完最后一个源 token 后的状态；比较两条路径的这个向量。",
            "The context vector is the state after the last source token; compare it for the two paths.",
        ),
        aliases={
            "true": (
                "相同",
                "相等",
                "一样",
                "完全相同",
                "是相同的",
                "相同的",
                "same",
                "equal",
                "the same",
                "identical",
            ),
            "false": (
                "不同",
                "不相同",
                "不相等",
                "不一样",
                "不同的",
                "different",
                "not equal",
                "not the same",
                "unequal",
            ),
        },
    ),
    AnswerField(
        "teacher_forcing_separates",
        "bool",
        Text(
            "第一个目标步，教师强制给的输入本身能否区分 A、B",
            "at the first target step, can the input teacher forcing gives tell A and B apart by itself?",
        ),
        Text("是 / 否", "yes / no"),
        Text(
            "第一个目标步两边都只收到 BOS，教师强制提供不了任何区分两条源序列的信息。",
            "At the first target step both sides receive only BOS, so teacher forcing supplies nothing "
            "that could separate the two sources.",
        ),
    ),
)


def prompt(variant: Variant, lang: str) -> str:
    """The question with this variant's paths and probe step."""
    data = variant.data
    path_a, path_b = tokens_text(data["source_a"]), tokens_text(data["source_b"])
    probe = data["probe_step"]
    token = data["source_b"][probe - 1]
    questions = Text(
        f"\n源序列 A = [{path_a}]，源序列 B = [{path_b}]，两条路径用同一套权重编码。\n"
        f"1. 路径 B 第 {probe} 次读取（读入 {token}）时，ReLU 之前的向量是多少？\n"
        "2. 同一步经过 ReLU 之后的状态是多少？\n"
        "3. 从哪一次读取之后，A、B 两条路径的状态第一次完全相同？（若始终不同，填“无”）\n"
        "4. 读完整个源序列后，两条路径的最终状态（上下文向量）是否相同？\n"
        "5. 在第一个目标步，教师强制喂给解码器的输入本身能否把 A、B 区分开？（只问这个输入，不论两条路径的上下文向量是否相同）",
        f"\nSource A = [{path_a}] and source B = [{path_b}] are encoded with the same weights.\n"
        f"1. At read {probe} of path B (the token {token}), what is the vector before ReLU?\n"
        "2. What is the state after ReLU at that read?\n"
        "3. After which read are the states of paths A and B equal for the first time? (Write 'none' if never.)\n"
        "4. After the whole source is read, are the two final states (context vectors) equal?\n"
        "5. At the first target step, can the input that teacher forcing feeds the decoder tell A and B apart by "
        "itself? (Only that input, whether or not the two context vectors are equal.)",
    )
    return setup_text(data, lang) + questions.get(lang)


EXERCISE = Exercise.declared_in(globals(), symbols=SYMBOLS)
