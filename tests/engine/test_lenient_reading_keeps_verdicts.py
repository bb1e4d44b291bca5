"""Regression tests from a red-team review of grading: right answers typed as students type them score 1,
and the readers' new leniency never turns a wrong answer right."""

from __future__ import annotations

from typing import Any

import pytest

from exercises import api
from exercises.readers import display
from exercises.registry import get_exercise
from tests.engine.verdict_support import seeded

GREEDY, EXPOSURE = "ch13.greedy-decode", "ch13.exposure-divergence"
GREEDY_CAP_SEED = 2  # decodes "lamp . lamp . lamp . lamp ." into the cap
EOS_FIRST_SEED = 3  # exposure-divergence: the first mistake is EOS, so the inputs never differ ("none")
BOOK_CHOICES = "bdaccadb"


def typed_key(exercise_id: str, seed: int, **typed: str) -> dict[str, Any]:
    """The reference answer as text, with some parts typed the way a student might."""
    exercise = get_exercise(exercise_id)
    key = exercise.solve(seeded(exercise, seed))
    return {f.name: typed.get(f.name, display(f.kind, key[f.name], "en")) for f in exercise.fields}


def verdict(exercise_id: str, seed: int, answer: dict[str, Any]) -> dict[str, Any]:
    """The graded result; an answer that can't be read fails the test with its errors."""
    result = api.grade(exercise_id, seed, answer, "zh")
    assert result["status"] == "graded", result["errors"]
    return result


RIGHT_ANSWERS_TYPED = [
    # Lenticular brackets 【】 from a Chinese IME were not brackets: lists were invalid, tokens read as "【blue".
    (GREEDY, 0, "tokens", "【blue，key，。，<eos>】"),
    ("ch13.encoder-states", 0, "states", "【a，0】，【0，a】，【0，0】"),
    ("ch13.encoder-collision", 0, "pre_activation", "【−a，a】"),
    ("ch13.shift-pairs", 0, "pairs", "【BOS，blue】 【blue，door】 【door，。】 【。，EOS】"),
    ("ch09.rnn-step", 0, "h", "【0.8483，−0.6351】"),
    ("l03.superposition-readback", 0, "memory", "【-1，1，3，-1】"),
    ("l03.concept-check", 0, "choices", "【b】【d】【a】【c】【c】【a】【d】【b】"),
    # Bracket groups written side by side, with no separator between them.
    ("ch13.encoder-states", 0, "states", "[a,0][0,a][0,0]"),
    ("ch13.shift-pairs", 0, "pairs", "(BOS,blue)(blue,door)(door,.)(.,EOS)"),
    # Rows split by ";" inside one bracket were read as one long row: a shape error scoring 0.
    ("ch13.encoder-states", 0, "states", "[a, 0; 0, a; 0, 0]"),
    ("ch09.scaled-dot-attention", 0, "scores", "[0.7071, 0, 1.4142; 0, 0.7071, 1.4142; 0.7071, 0.7071, 2.8284]"),
    # A function's parentheses were taken for a bracketed row.
    ("ch13.encoder-states", 0, "states", "ln(2), 0\n0, ln(2)\n0, 0"),
    ("ch13.encoder-states", 0, "states", "[ln(2), 0; 0, ln(2); 0, 0]"),
    ("ch13.encoder-states", 0, "states", "(ln(2), 0), (0, ln(2)), (0, 0)"),
    # A sentence-ending 。 after a number or a list.
    ("ch13.shift-pairs", 0, "scored_count", "4。"),
    ("ch13.encoder-collision", 0, "collision_step", "2。"),
    ("ch09.multihead-shapes", 0, "projection_params", "603979776。"),
    ("ch13.loss-average", 0, "sequence_probability", "0.288。"),
    ("ch13.encoder-states", 0, "states", "[a, 0], [0, a], [0, 0]。"),
    ("l03.additive-attention", 0, "context", "[0.1976, 0.5588]。"),
    # Percentages.
    ("ch13.loss-average", 0, "sequence_probability", "28.8%"),
    ("ch13.loss-average", 0, "sequence_probability", "２８．８％"),
    # "No such token" written as null / 无 / 没有 / — was graded wrong against the canonical "none".
    (EXPOSURE, EOS_FIRST_SEED, "teacher_forced_input", "null"),
    (EXPOSURE, EOS_FIRST_SEED, "teacher_forced_input", "无"),
    (EXPOSURE, EOS_FIRST_SEED, "generated_input", "没有"),
    (EXPOSURE, EOS_FIRST_SEED, "generated_input", "—"),
    (EXPOSURE, EOS_FIRST_SEED, "generated_input", "N/A"),
    # Arrows between the tokens of a sequence were read as tokens.
    (GREEDY, 0, "tokens", "blue → key → . → EOS"),
    (GREEDY, 0, "tokens", "blue -> key -> 。 -> </s>"),
    (GREEDY, 0, "tokens", "blue=>key=>.=><eos>"),
    # A full stop ending the sentence after EOS (nothing is ever predicted after EOS).
    (GREEDY, 0, "tokens", "blue key . EOS。"),
    (GREEDY, 0, "tokens", "blue key 。<eos>。"),
    (GREEDY, 0, "tokens", "[blue, key, ., EOS]。"),
    (GREEDY, GREEDY_CAP_SEED, "tokens", "[lamp, ., lamp, ., lamp, ., lamp, .]。"),
    # Numbered choices with a space or 、 after the number.
    ("l03.concept-check", 0, "choices", "1. B; 2. D; 3. A; 4. C; 5. C; 6. A; 7. D; 8. B"),
    ("l03.concept-check", 0, "choices", "\n".join(f"{i}. {c}" for i, c in enumerate(BOOK_CHOICES, 1))),
    ("l03.concept-check", 0, "choices", " ".join(f"{i}、{c}" for i, c in enumerate(BOOK_CHOICES, 1))),
    ("l03.concept-check", 0, "choices", " ".join(f"{i}) {c}" for i, c in enumerate(BOOK_CHOICES, 1))),
    # The stop reason in a few more words.
    (GREEDY, 0, "stopped_by", "因为 EOS"),
    (GREEDY, GREEDY_CAP_SEED, "stopped_by", "到达步数上限"),
    (GREEDY, GREEDY_CAP_SEED, "stopped_by", "the step cap"),
]


@pytest.mark.parametrize(("exercise_id", "seed", "field", "text"), RIGHT_ANSWERS_TYPED)
def test_right_answer_typed_by_a_student_scores_one(exercise_id: str, seed: int, field: str, text: str) -> None:
    result = verdict(exercise_id, seed, typed_key(exercise_id, seed, **{field: text}))
    assert result["parts"][field]["correct"], result["parts"][field]
    assert result["score"] == 1.0


WRONG_ANSWERS_TYPED = [
    # Only one sentence stop after EOS is dropped; a second period is an extra (wrong) token.
    (GREEDY, 0, "tokens", "blue key . EOS . ."),
    # A capped decode's final period is a real token: leaving it out is still wrong.
    (GREEDY, GREEDY_CAP_SEED, "tokens", "lamp . lamp . lamp . lamp"),
    # "none" is right only where there is no divergence step.
    (EXPOSURE, 0, "teacher_forced_input", "null"),
    (EXPOSURE, 0, "generated_input", "无"),
    # A missing row is not rescued by the ";" row reading.
    ("ch13.encoder-states", 0, "states", "[a, 0; 0, a]"),
    # Without the % sign, 28.8 is not a probability of 0.288.
    ("ch13.loss-average", 0, "sequence_probability", "28.8"),
    # Two decimals fall outside the 1e-3 relative tolerance (the hints ask for at least three).
    ("ch13.loss-average", 0, "mean_loss_with_eos", "0.31"),
]


@pytest.mark.parametrize(("exercise_id", "seed", "field", "text"), WRONG_ANSWERS_TYPED)
def test_wrong_answer_stays_wrong(exercise_id: str, seed: int, field: str, text: str) -> None:
    result = verdict(exercise_id, seed, typed_key(exercise_id, seed, **{field: text}))
    assert not result["parts"][field]["correct"]
    assert result["score"] < 1.0


@pytest.mark.parametrize(
    ("exercise_id", "field", "text"),
    [
        ("l03.concept-check", "choices", "1. b 3. d"),  # numbering must still match the item
        (GREEDY, "tokens", "[blue, key, ., EOS"),  # an unclosed 【 or [ is still reported
        ("ch13.encoder-states", "states", "【a，0】【0，a"),
    ],
)
def test_malformed_text_is_still_invalid(exercise_id: str, field: str, text: str) -> None:
    result = api.grade(exercise_id, 0, typed_key(exercise_id, 0, **{field: text}), "en")
    assert result["status"] == "invalid"
    assert [error["field"] for error in result["errors"]] == [field]


def test_three_decimals_always_pass_the_default_tolerance() -> None:
    """The hints promise that 3 decimals suffice: rounding error 5e-4 is within atol for every ch13 number."""
    for seed in range(0, 40):
        key = api.answer_key("ch13.loss-average", seed)
        answer = {name: f"{value:.3f}" for name, value in key.items()}
        assert verdict("ch13.loss-average", seed, answer)["score"] == 1.0, (seed, answer)
