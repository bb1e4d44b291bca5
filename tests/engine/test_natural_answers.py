"""Right answers written the way students write them are read (null for "none", e1, ≈, 答：, 相同, red。, 8步, nats
in brackets, 2x2, 2nd), while every refusal that protects a verdict stays (a percentage or bits on a loss, a
per-token unit on a total, red. as two tokens); and a none key says so when the student named something."""

from __future__ import annotations

import pytest

from exercises import api
from exercises.ch13.common import STOP_ALIASES
from exercises.readers import display
from exercises.registry import EXERCISES, get_exercise
from exercises.word_readers import squeeze, words
from tests.engine.verdict_support import variants

EXPOSURE, LOSS, GREEDY = "ch13.exposure-divergence", "ch13.loss-average", "ch13.greedy-decode"
NUMERIC = {"number", "int", "optional_int", "vector", "matrix", "vectors"}


def read(exercise_id: str, field: str, typed: object, lang: str = "en") -> tuple[object, list[dict]]:
    """What the preview reads for one part, and its errors."""
    report = api.validate(exercise_id, {field: typed}, lang)
    return report["parsed"].get(field), [e for e in report["errors"] if e["field"] == field]


def _typed_key(exercise_id: str, seed: int) -> dict[str, str]:
    exercise = get_exercise(exercise_id)
    key = exercise.solve(variants(exercise_id, 101)[seed])
    return {f.name: display(f.kind, key[f.name], "zh") for f in exercise.fields}


# --- JSON null on a part that takes "none" -----------------------------------------------------------------------


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_json_null_on_the_token_parts_is_the_empty_answer(lang: str) -> None:
    key = api.answer_key(EXPOSURE, 3)
    assert key["teacher_forced_input"] == "none"  # the generation stopped at EOS before the inputs differed
    result = api.grade(
        EXPOSURE,
        3,
        {
            "first_wrong_step": key["first_wrong_step"],
            "first_input_divergence_step": None,
            "teacher_forced_input": None,
            "generated_input": None,
        },
        lang,
    )
    assert result["status"] == "graded" and result["score"] == 1.0


def test_json_null_where_no_empty_answer_exists_is_refused_without_asking_for_null() -> None:
    _, errors = read("ch13.shift-pairs", "bos_scored", None, "zh")
    assert errors and "空值（null）" in errors[0]["message"]


# --- index, about-words, answer prefixes and labels ---------------------------------------------------------------


@pytest.mark.parametrize("typed", ["e1", "e₁", "E1", "e_1", "e 1"])
def test_an_index_written_like_the_prompts_e_1_reads_as_the_index(typed: str) -> None:
    assert read("l03.superposition-readback", "nearest", typed) == (1, [])


def test_e1_is_not_an_index_where_the_part_is_not_one() -> None:
    assert read(LOSS, "total_loss", "e1")[1]
    assert read("l03.superposition-readback", "nearest", "exp(1)")[1]  # e is not the start of exp


@pytest.mark.parametrize(
    ("exercise_id", "field", "typed", "value"),
    [
        (LOSS, "mean_loss_without_eos", "approximately 0.4149", 0.4149),
        (LOSS, "total_loss", "approx. 1.2448", 1.2448),
        (LOSS, "mean_loss_without_eos", "~0.4149", 0.4149),
        (LOSS, "total_loss", "约等于1.2448", 1.2448),
        ("ch09.attention-cost", "causal_pairs", "约500500", 500500),
        ("ch09.attention-cost", "pairs", "≈1000000对", 1000000),
        ("ch09.rnn-step", "h", "≈[0.85, -0.64]", [0.85, -0.64]),
        (LOSS, "total_loss", "答：1.2448", 1.2448),
        (LOSS, "total_loss", "答:1.2448", 1.2448),
        (LOSS, "total_loss", "Answer: 1.2448 nats", 1.2448),
        ("ch13.shift-pairs", "scored_count", "共4个", 4),
        ("ch09.multihead-shapes", "head_dim", "每头128维", 128),
        (LOSS, "sequence_probability", "P=0.288", 0.288),
        (LOSS, "sequence_probability", "P = 0.288", 0.288),
        ("ch09.rnn-step", "h", "h = [0.85, -0.64]", [0.85, -0.64]),
        ("ch13.encoder-collision", "post_activation", "h: [0, a]", [0.0, 0.6931471805599453]),
    ],
)
def test_noise_words_and_labels_before_the_value_are_read(
    exercise_id: str, field: str, typed: str, value: object
) -> None:
    assert read(exercise_id, field, typed) == (value, [])


def test_error_positions_still_point_at_the_students_characters() -> None:
    for typed in ("approximately 0.4q149", "答：≈ 0.4q", "L = 1.2q nats"):
        _, [error] = read(LOSS, "total_loss", typed)
        assert typed[error["position"]] == "q", (typed, error)


def test_a_label_needs_its_equals_sign() -> None:
    assert read(LOSS, "sequence_probability", "P 0.288")[1]
    assert read(LOSS, "sequence_probability", "pi/10")[0] == pytest.approx(0.3141592653589793)


@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda e: e.id)
def test_every_key_with_an_answer_prefix_and_about_words_still_scores_one(exercise) -> None:
    for seed in range(0, 101, 5):
        typed = _typed_key(exercise.id, seed)
        prefixed = {
            f.name: ("答：≈ " if f.kind in NUMERIC and typed[f.name] != "无" else "答：") + typed[f.name]
            for f in exercise.fields
        }
        result = api.grade(exercise.id, seed, prefixed, "zh")
        assert result["status"] == "graded" and result["score"] == 1.0, (seed, prefixed, result["errors"])


# --- yes/no words one question makes unambiguous -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("exercise_id", "field", "typed", "value"),
    [
        ("ch13.encoder-collision", "final_equal", "相同", True),
        ("ch13.encoder-collision", "final_equal", "相等", True),
        ("ch13.encoder-collision", "final_equal", "不同", False),
        ("ch09.scaled-dot-attention", "diagonal_dominant", "都是", True),
        ("ch09.scaled-dot-attention", "diagonal_dominant", "不都是", False),
        ("ch13.shift-pairs", "bos_scored", "不计入", False),
        ("ch13.shift-pairs", "eos_scored", "计入", True),
    ],
)
def test_question_specific_yes_and_no(exercise_id: str, field: str, typed: str, value: bool) -> None:
    assert read(exercise_id, field, typed, "zh") == (value, [])


def test_question_specific_words_stay_unreadable_elsewhere() -> None:
    assert read("ch13.shift-pairs", "bos_scored", "相同", "zh")[1]
    assert read("ch13.encoder-collision", "teacher_forcing_separates", "计入", "zh")[1]


# --- tokens and letters ending a sentence -------------------------------------------------------------------------


def test_a_chinese_full_stop_after_one_token_ends_the_sentence() -> None:
    assert read(EXPOSURE, "teacher_forced_input", "red。") == ("red", [])
    assert read(EXPOSURE, "teacher_forced_input", "。") == (".", [])  # the period token itself
    assert read(EXPOSURE, "teacher_forced_input", "。。") == (".", [])


def test_an_ascii_period_after_one_token_is_still_the_period_token() -> None:
    value, [error] = read(EXPOSURE, "teacher_forced_input", "red.")
    assert value is None and "period" in error["message"] and error["interpreted"] == "red ."


@pytest.mark.parametrize("typed", ["bdaccadb.", "BDACCADB。", "b, d, a, c, c, a, d, b!"])
def test_concept_check_letters_ending_a_sentence(typed: str) -> None:
    assert read("l03.concept-check", "choices", typed) == (list("bdaccadb"), [])


# --- the stop reason ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "typed",
    [
        "到达 8 步上限",
        "8步",
        "达到最大步数8",
        "reached max steps (8)",
        "max_steps=8",
        "满8步",
        "because the cap of 8 steps was reached",
        "hit the 8-step cap",
    ],
)
def test_the_cap_written_with_its_number(typed: str) -> None:
    assert read(GREEDY, "stopped_by", typed, "zh") == ("cap", [])


def test_no_phrase_reads_as_both_reasons_once_spaces_and_brackets_are_ignored() -> None:
    squeezed = {reason: {squeeze(words(name)) for name in (reason, *names)} for reason, names in STOP_ALIASES.items()}
    assert not squeezed["EOS"] & squeezed["cap"]
    assert read(GREEDY, "stopped_by", "没有 遇到 EOS", "zh")[1]


# --- units on a loss ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("field", "typed"),
    [
        ("total_loss", "1.2448 (nats)"),
        ("mean_loss_with_eos", "0.3112 nats / token"),
        ("total_loss", "1.2448 ｎａｔｓ"),
        ("total_loss", "1.2448 nats\u200b"),
        ("mean_loss_with_eos", "0.3112 (nats/token)"),
        ("mean_loss_with_eos", "0.3112 纳特/词元"),
    ],
)
def test_loss_units_in_brackets_full_width_or_with_spaced_slashes(field: str, typed: str) -> None:
    value, errors = read(LOSS, field, typed)
    assert errors == [] and value == pytest.approx(float(typed.split()[0]))


@pytest.mark.parametrize(
    "typed", ["0.449 比特/词元", "0.449 bits / token", "0.449 bit per token", "0.449 bits/tok", "0.449 bits/词元"]
)
def test_bits_per_token_is_refused_as_another_log_unit(typed: str) -> None:
    for lang in ("zh", "en"):
        value, [error] = read(LOSS, "mean_loss_with_eos", typed, lang)
        assert value is None and "nat" in error["message"] and error["interpreted"] is None
        assert error["position"] == 6 and typed[6:] in error["message"]


def test_a_per_token_unit_on_the_total_is_refused_saying_why() -> None:
    for lang in ("zh", "en"):
        _, [error] = read(LOSS, "total_loss", "1.2448 nat/token", lang)
        assert "nat/token" in error["message"] and ("总损失" in error["message"] or "total" in error["message"])


def test_a_percentage_is_never_a_loss_but_still_a_probability() -> None:
    for field in ("total_loss", "mean_loss_with_eos", "mean_loss_without_eos"):
        value, [error] = read(LOSS, field, "31.12%")
        assert value is None and error["position"] == 5
    assert read(LOSS, "sequence_probability", "28.8%")[0] == pytest.approx(0.288)
    assert read("l03.additive-attention", "weights", "31.94%, 55.88%, 12.18%")[0] == pytest.approx(
        [0.3194, 0.5588, 0.1218]
    )


# --- multiplication by x, whole numbers and ordinals --------------------------------------------------------------


@pytest.mark.parametrize(
    ("exercise_id", "field", "typed", "value"),
    [
        ("ch09.attention-cost", "growth", "2x2", 4.0),
        ("ch09.attention-cost", "growth", "2 X 2", 4.0),
        ("ch09.attention-cost", "growth", "4x", 4.0),
        ("ch09.multihead-shapes", "projection_params", "4 x 12288^2", 603979776),
        ("ch09.multihead-shapes", "projection_params", "4x10^6", 4000000),
    ],
)
def test_x_between_numbers_multiplies(exercise_id: str, field: str, typed: str, value: float) -> None:
    assert read(exercise_id, field, typed) == (value, [])


@pytest.mark.parametrize("typed", ["the", "nd", "step"])
def test_whole_number_parts_do_not_advertise_math_names(typed: str) -> None:
    for field in ("first_wrong_step",):
        _, [error] = read(EXPOSURE, field, typed)
        assert "ln" not in error["message"] and "pi" not in error["message"], error


@pytest.mark.parametrize(("typed", "value"), [("2nd", 2), ("2nd step", 2), ("the 2nd step", 2), ("1st", 1), ("3rd", 3)])
def test_english_ordinals_on_step_parts(typed: str, value: int) -> None:
    assert read(EXPOSURE, "first_wrong_step", typed) == (value, [])


@pytest.mark.parametrize("typed", ["2nd", "the 2nd read", "after the 2nd read", "2nd read"])
def test_english_ordinals_on_read_parts(typed: str) -> None:
    assert read("ch13.encoder-collision", "collision_step", typed) == (2, [])


# --- a none key and a named token ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("lang", "says"), [("zh", "就填“无”"), ("en", "if it does not, the answer is none")])
def test_a_wrong_token_is_told_that_none_may_be_the_answer_whatever_the_key(lang: str, says: str) -> None:
    # The feedback used to say "the answer here is none" only where the key was none, which gave the answer away
    # before the assignment's key rule allowed; the hint now comes after every wrong answer to such a part.
    exposure = get_exercise(EXPOSURE)
    seeds = {exposure.solve(v)["teacher_forced_input"] == "none": v.seed for v in variants(EXPOSURE, 60)}
    assert set(seeds) == {True, False}
    feedback = set()
    for seed in seeds.values():
        key = api.answer_key(EXPOSURE, seed)
        typed = {**{k: str(v) if v is not None else "无" for k, v in key.items()}, "teacher_forced_input": "zebra"}
        part = api.grade(EXPOSURE, seed, typed, lang)["parts"]["teacher_forced_input"]
        assert part["score"] == 0.0 and part["misconception"] is None and says in part["feedback"].lower()
        feedback.add(part["feedback"])
    assert len(feedback) == 1  # the same words whether the key is none or a token


def test_a_wrong_step_reads_the_same_whether_or_not_the_key_is_none() -> None:
    collision = get_exercise("ch13.encoder-collision")
    seeds = {collision.solve(v)["collision_step"] is None: v.seed for v in variants("ch13.encoder-collision", 60)}
    assert set(seeds) == {True, False}
    feedback = set()
    for seed in seeds.values():
        typed = {**api.answer_key("ch13.encoder-collision", seed), "collision_step": 9}
        part = api.grade("ch13.encoder-collision", seed, typed, "en")["parts"]["collision_step"]
        assert part["misconception"] is None and "the answer is none" in part["feedback"]
        assert "the answer here is none" not in part["feedback"].lower()
        feedback.add(part["feedback"])
    assert len(feedback) == 1
