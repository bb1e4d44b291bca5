"""ch13.exposure-divergence: the first wrong prediction versus the first step where the decoder's inputs differ."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from exercises import units
from exercises.base import Answer, AnswerField, Data, Misconception, Variant
from exercises.ch13.common import BOOK_TABLE, BOOK_TARGET, BOS, CANDIDATES, EOS, MAX_STEPS, NO_TOKEN, tokens_text
from exercises.ch13.decoding import (
    Decode,
    fill_table,
    greedy_decode,
    random_candidates,
    random_target,
    sentence_successors,
    table_block,
    table_paragraph,
    teacher_forced_probabilities,
    untied_table_fault,
)
from exercises.diagnosis.steps import Steps
from exercises.i18n import Text
from exercises.plugin import Exercise

ID = "ch13.exposure-divergence"
TITLE = Text("暴露偏差：预测出错与输入分歧", "Exposure bias: first mistake versus first input divergence")
EARLY_EOS_SHARE = 0.15  # variants whose first mistake is EOS itself, so the inputs never get to differ


def book_data() -> Data:
    """Example 13.2: table 13.4 and the reference red key . EOS."""
    return {
        "candidates": list(CANDIDATES),
        "table": {k: list(row) for k, row in BOOK_TABLE.items()},
        "target": list(BOOK_TARGET),
        "max_steps": MAX_STEPS,
    }


def random_data(rng: np.random.Generator, seed: int) -> Data:
    """A target sentence and a table whose greedy choice first goes wrong at a chosen step before the last."""
    candidates = random_candidates(rng)
    target = random_target(rng, candidates)
    inputs = [BOS, *target[:-1]]
    wrong_step = int(rng.integers(1, len(target)))
    row_token, expected = inputs[wrong_step - 1], target[wrong_step - 1]
    if rng.random() < EARLY_EOS_SHARE:
        mistake = EOS
    else:
        options = [token for token in candidates if token not in (expected, row_token, EOS)]
        mistake = options[int(rng.integers(len(options)))]
    successors = sentence_successors(rng, candidates)
    for step in range(1, wrong_step):
        successors[inputs[step - 1]] = target[step - 1]
    successors[row_token] = mistake
    # Every target token keeps some probability, so the teacher-forced path is a real possibility.
    fixed = {
        previous: {token: int(rng.integers(1, 5 if previous == row_token else 4))}
        for previous, token in zip(inputs, target)
    }
    return {
        "candidates": candidates,
        "table": fill_table(rng, candidates, successors, fixed),
        "target": target,
        "max_steps": MAX_STEPS,
    }


def _decode(variant: Variant) -> Decode:
    """Free greedy generation with the variant's table."""
    data = variant.data
    return greedy_decode(data["candidates"], data["table"], int(data["max_steps"]))


def _first_wrong_step(variant: Variant) -> int | None:
    """The first (1-based) step whose greedy choice is not the target token; None if there is none."""
    generated, target = _decode(variant).tokens, variant.data["target"]
    for step, token in enumerate(target, start=1):
        if step > len(generated) or generated[step - 1] != token:
            return step
    return None


def _divergence_after(generated: tuple[str, ...], wrong_step: int) -> int | None:
    """The step whose inputs first differ, given the first wrong step: the next one, unless that mistake was EOS."""
    return None if generated[wrong_step - 1] == EOS else wrong_step + 1


def solve(variant: Variant) -> Answer:
    """The first wrong step s; inputs first differ at s+1 (target token vs generated token) unless EOS stopped it."""
    generated, target = _decode(variant).tokens, variant.data["target"]
    wrong_step = _first_wrong_step(variant)
    if wrong_step is None:
        raise ValueError("greedy decoding reproduces the target: quality() rejects such variants")
    divergence = _divergence_after(generated, wrong_step)
    if divergence is None:
        return {
            "first_wrong_step": wrong_step,
            "first_input_divergence_step": None,
            "teacher_forced_input": NO_TOKEN,
            "generated_input": NO_TOKEN,
        }
    return {
        "first_wrong_step": wrong_step,
        "first_input_divergence_step": divergence,
        "teacher_forced_input": target[wrong_step - 1],
        "generated_input": generated[wrong_step - 1],
    }


def quality(variant: Variant) -> str | None:
    """Reject ties, rows not summing to one, zero target probabilities, and a first mistake at the last step."""
    data = variant.data
    fault = untied_table_fault(data["table"])
    if fault is not None:
        return fault
    if min(teacher_forced_probabilities(data["candidates"], data["table"], data["target"])) <= 0:
        return "a target token has probability 0"
    wrong_step = _first_wrong_step(variant)
    if wrong_step is None or wrong_step >= len(data["target"]):
        return "no wrong step before the last target step"
    return None


DIVERGENCE_WORDS = {
    "two-later": Text("{step}记晚了一步", "in {step} you put it one step too late"),
    "past-eos": Text(
        "{step}没有注意到出错的预测是 EOS，生成已经停了",
        "in {step} you missed that the wrong prediction was EOS, which ends generation",
    ),
    "never": Text("{step}说输入从不分歧", "in {step} you said the inputs never differ"),
}
INPUT_WORDS = {
    "earlier": Text("{step}取了早一步的 token", "in {step} you took the token one step earlier"),
    "later": Text("{step}取了晚一步的 token", "in {step} you took the token one step later"),
}


def _token_at(tokens: tuple[str, ...] | list[str], index: int) -> str:
    """The token at ``index`` (0-based), or none outside the list."""
    return tokens[index] if 0 <= index < len(tokens) else NO_TOKEN


def _input_at(run: Steps, name: str, label: Text, inputs: list[str], at: int) -> Any:
    """The step naming the token a timeline feeds as input ``at``; its mistakes read the one before or after it."""
    return run.custom(
        name,
        label,
        lambda: _token_at(inputs, at),
        {"earlier": lambda: _token_at(inputs, at - 1), "later": lambda: _token_at(inputs, at + 1)},
        INPUT_WORDS,
    )


def steps(variant: Variant, run: Steps) -> Answer:
    """The solve as named steps: the first wrong prediction, the step the inputs first differ, and the input each
    regime feeds there."""
    generated, target = _decode(variant).tokens, list(variant.data["target"])
    first = _first_wrong_step(variant)
    if first is None:
        raise ValueError("greedy decoding reproduces the target: quality() rejects such variants")
    wrong = run.index("wrong", Text("第一次预测出错的步", "the first wrong prediction"), first, 1)
    stopped = _token_at(generated, wrong - 1) == EOS
    divergence = run.custom(
        "divergence",
        Text("输入第一次不同的步", "the step where the inputs first differ"),
        lambda: None if stopped else wrong + 1,
        {"two-later": lambda: None if stopped else wrong + 2, "past-eos": lambda: wrong + 1, "never": lambda: None},
        DIVERGENCE_WORDS,
    )
    if divergence is None:
        return {
            "first_wrong_step": wrong,
            "first_input_divergence_step": None,
            "teacher_forced_input": NO_TOKEN,
            "generated_input": NO_TOKEN,
        }
    at = divergence - 1  # the input at step s: BOS at step 1, then the token of step s − 1
    taught, fed_back = [BOS, *target], [BOS, *generated]
    teacher = _input_at(run, "teacher", Text("教师强制送入的 token", "the token teacher forcing feeds"), taught, at)
    fed = _input_at(run, "generated", Text("自由生成送入的 token", "the token free generation feeds"), fed_back, at)
    return {
        "first_wrong_step": wrong,
        "first_input_divergence_step": divergence,
        "teacher_forced_input": teacher,
        "generated_input": fed,
    }


def _same_step(variant: Variant) -> Answer | None:
    """Puts the input divergence at the very step of the wrong prediction."""
    return {"first_input_divergence_step": solve(variant)["first_wrong_step"]}


def _teacher_forcing_feeds_prediction(variant: Variant) -> Answer | None:
    """Says teacher forcing feeds the model's own (wrong) prediction."""
    reference = solve(variant)
    if reference["first_input_divergence_step"] is None:
        return None
    return {"teacher_forced_input": reference["generated_input"]}


def _generation_feeds_reference(variant: Variant) -> Answer | None:
    """Says free generation feeds the reference token."""
    reference = solve(variant)
    if reference["first_input_divergence_step"] is None:
        return None
    return {"generated_input": reference["teacher_forced_input"]}


def _zero_based_steps(variant: Variant) -> Answer:
    """Numbers the steps from 0 (the BOS step as step 0). Only the first step is given: the divergence one less, in
    the student's own count, already earns follow-through from it (``follow_through``)."""
    return {"first_wrong_step": solve(variant)["first_wrong_step"] - 1}


MISCONCEPTIONS = (
    Misconception(
        "same-step",
        _same_step,
        Text(
            "你把输入分歧放在了预测出错的同一步。规则：某一步的预测要到下一步才成为输入，所以输入最早在下一步才会不同；"
            "出错那一步两边的输入仍然相同。若出错的预测正是 EOS，生成就此停止，下一步不再有生成输入，输入也就不会分歧（填“无”）。",
            "You put the input divergence at the same step as the wrong prediction. Rule: a prediction only becomes "
            "an input at the following step, so the inputs can first differ one step later; at the wrong step "
            "itself both inputs are still the same. If the wrong prediction is EOS, generation stops there, there is "
            "no next generated input, and the inputs never differ (null).",
        ),
        name=Text("分歧记在同一步", "Divergence at the same step"),
        builds_on=("first_wrong_step",),
    ),
    Misconception(
        "teacher-forcing-feeds-prediction",
        _teacher_forcing_feeds_prediction,
        Text(
            "你认为教师强制会把模型预测的 token 送进下一步。规则：教师强制的下一步输入总是参考目标里的正确 token，"
            "无论模型这一步预测了什么。",
            "You took teacher forcing to feed the model's predicted token onward. Rule: under teacher forcing the next "
            "input is always the correct token from the reference target, whatever the model predicted.",
        ),
        name=Text("教师强制喂了预测", "Teacher forcing feeds predictions"),
    ),
    Misconception(
        "generation-feeds-reference",
        _generation_feeds_reference,
        Text(
            "你认为生成时下一步输入的是参考答案里的 token。规则：生成时没有参考答案可用，下一步输入是模型自己刚选出的 token。",
            "You took generation to feed the reference token. Rule: at generation time no reference is available; "
            "the next input is the token the model itself just chose.",
        ),
        name=Text("生成时喂了参考", "Generation feeds the reference"),
    ),
    Misconception(
        "zero-based-steps",
        _zero_based_steps,
        Text(
            "你的步数从 0 数起，每一步都少了一。规则：输入为 BOS、预测第一个目标 token 的那一步是第 1 步。",
            "You counted the steps from 0, so every step number is one short. Rule: the step whose input is BOS and "
            "which predicts the first target token is step 1.",
        ),
        name=Text("步数从 0 数起", "Counted steps from 0"),
        draws_variants=False,
    ),
)


def follow_through(variant: Variant, answer: Answer) -> Mapping[str, Any]:
    """The divergence step from the student's wrong step, and the two inputs at the student's divergence step."""
    generated, target = _decode(variant).tokens, variant.data["target"]
    implied: dict[str, Any] = {}
    wrong_step: Any = answer.get("first_wrong_step")
    # Step 0 only exists for a student counting from 0: their step k is step k + 1, and the divergence they imply is
    # one more than k in their own count (the same "next step" rule, applied consistently).
    zero_based = wrong_step == 0 and not isinstance(wrong_step, bool)
    at = wrong_step + 1 if zero_based else wrong_step
    if isinstance(at, int) and 1 <= at <= min(len(generated), len(target)):
        divergence = _divergence_after(generated, at)
        implied["first_input_divergence_step"] = divergence - 1 if zero_based and divergence else divergence
    step = answer.get("first_input_divergence_step", 0)
    # "No divergence" never carries forward to the inputs as none/none: the earlier error empties both parts, and
    # "none, none" shows nothing of which token each process feeds in. (Naming the final EOS step, where the
    # generated and reference tokens agree, as the "first mistake" turned a blank answer into three quarters.)
    # Where none/none is the key itself, the inputs match it without follow-through.
    if isinstance(step, int) and 1 <= step <= min(len(generated), len(target)):
        forced, fed_back = ([BOS, *target])[step - 1], ([BOS, *generated])[step - 1]
        # Only at a step where the two inputs really differ: before the first mistake both timelines feed the
        # same token, and "X, X" as the pair of diverging inputs shows nothing of what the parts test.
        if forced != fed_back:
            implied["teacher_forced_input"], implied["generated_input"] = forced, fed_back
    return implied


FIELDS = (
    AnswerField(
        "first_wrong_step",
        "int",
        Text("第一次预测错误的步数", "Step of the first wrong prediction"),
        Text("一个整数，第 1 步的输入是 BOS", "a whole number; step 1 has input BOS"),
        Text(
            "在第一次出错之前两种过程的输入相同、预测也相同，所以它就是贪心选择第一次不等于目标 token 的那一步。",
            "Until the first mistake both processes see the same inputs and make the same choice, so it "
            "is the first step whose greedy choice differs from the target token.",
        ),
        units=units.STEP,
    ),
    AnswerField(
        "first_input_divergence_step",
        "optional_int",
        Text("两种过程的输入第一次不同的步数", "Step where the inputs first differ"),
        Text(
            "一个整数；若生成在输入分歧前已选到 EOS 而停止，填“无”",
            "a whole number; null if generation chose EOS and stopped before the inputs could differ",
        ),
        Text(
            "错误的预测要到下一步才被当作输入，所以输入分歧比第一次错误晚一步；若那次错误就是 EOS，生成已停止，没有分歧步。",
            "A wrong prediction is only fed in at the next step, so the inputs first differ one step "
            "after the first mistake; if that mistake is EOS, generation has stopped and they never do.",
        ),
        units=units.STEP,
    ),
    AnswerField(
        "teacher_forced_input",
        "token",
        Text("该步教师强制的输入", "Teacher-forced input at that step"),
        Text("一个 token；没有分歧步时填“无”", "one token; none if there is no divergence step"),
        Text(
            "教师强制的输入是参考目标中的前一个 token，与模型预测无关。",
            "The teacher-forced input is the previous token of the reference target, whatever the model predicted.",
        ),
    ),
    AnswerField(
        "generated_input",
        "token",
        Text("该步生成时的输入", "Generated input at that step"),
        Text("一个 token；没有分歧步时填“无”", "one token; none if there is no divergence step"),
        Text(
            "自回归生成的输入是模型自己上一步选出的 token。",
            "In autoregressive generation the input is the token the model itself chose at the step before.",
        ),
    ),
)


def prompt(variant: Variant, lang: str) -> str:
    """The question with this variant's table and reference target."""
    data = variant.data
    target, steps = tokens_text(data["target"]), data["max_steps"]
    return table_paragraph(variant, lang) + Text(
        f"参考目标为 [{target}]。同一张表用两种方式运行，第 1 步的输入都是 BOS：训练时使用教师强制；"
        f"生成时做贪心解码（每步选概率最大者，并列取靠前的候选，选到 EOS 或满 {steps} 次预测即停止）。\n"
        "1. 第几步的贪心预测第一次与参考目标不同？\n"
        "2. 训练与生成两条时间线的解码器输入第一次不同是在第几步？若生成在那之前已选到 EOS 而停止，填“无”。\n"
        "3. 在第 2 问那一步，教师强制的输入是什么？\n4. 在同一步，生成时的输入是什么？（第 3、4 问若没有这一步，填“无”）",
        f"The reference target is [{target}]. The same table is run in two ways, both with input BOS at step 1: "
        "training uses teacher forcing; generation decodes greedily (take the most probable candidate, a tie goes "
        f"to the candidate listed first, stop after EOS or after {steps} predictions).\n"
        "1. At which step does the greedy prediction first differ from the reference target?\n"
        "2. At which step do the decoder inputs of the training and generation timelines first differ? "
        "Write null if generation chose EOS and stopped before that.\n"
        "3. At the step of question 2, what is the teacher-forced input?\n"
        "4. At the same step, what is the generated input? (For 3 and 4, write none if there is no such step.)",
    ).get(lang)


EXERCISE = Exercise.declared_in(globals(), data_text=table_block)
