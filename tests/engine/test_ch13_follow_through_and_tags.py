"""Regression tests from a further grading audit of the chapter-13 exercises: a near-blank answer that earned
three quarters through follow-through, known misconception answers left untagged, feedback that sent students to
a wrong answer, and stop reasons phrased as students phrase them."""

from __future__ import annotations

import pytest

from exercises import api
from exercises.base import Variant
from exercises.ch13 import encoder_collision, encoder_states, exposure_divergence
from exercises.ch13.common import EOS, STOP_ALIASES, STOPPED_BY_CAP, STOPPED_BY_EOS
from exercises.ch13.encoder import encoder_step
from exercises.readers import read_enum
from tests.engine.verdict_support import feedback_of, grade, variants

EXPOSURE, STATES, COLLISION, GREEDY = (
    "ch13.exposure-divergence",
    "ch13.encoder-states",
    "ch13.encoder-collision",
    "ch13.greedy-decode",
)
SEED_COUNT = 151


# --- ch13.exposure-divergence: "none, none" is never carried forward into the input parts ----------------------

BLANK_AFTER_EOS = {"first_input_divergence_step": "null", "teacher_forced_input": "none", "generated_input": "none"}


def test_exposure_naming_the_final_eos_step_does_not_turn_a_blank_answer_into_marks() -> None:
    # Book: generation ends "... . EOS" at step 4 just as the reference does. Calling step 4 the first mistake and
    # then answering null, none, none scored 0.75 although no input of either process was named.
    result = grade(EXPOSURE, 0, {"first_wrong_step": "4", **BLANK_AFTER_EOS})
    for name in ("teacher_forced_input", "generated_input"):
        part = result["parts"][name]
        assert part["score"] == 0.0 and not part["follow_through"], (name, part)
    assert result["score"] <= 0.25


def test_exposure_none_none_earns_nothing_unless_it_is_the_key() -> None:
    checked = 0
    for variant in variants(EXPOSURE, SEED_COUNT):
        key = exposure_divergence.solve(variant)
        generated = exposure_divergence._decode(variant).tokens
        target = variant.data["target"]
        for step in range(1, min(len(generated), len(target)) + 1):
            if generated[step - 1] != EOS or step == key["first_wrong_step"]:
                continue
            parts = grade(EXPOSURE, variant.seed, {"first_wrong_step": str(step), **BLANK_AFTER_EOS})["parts"]
            for name in ("teacher_forced_input", "generated_input"):
                expected = 1.0 if key[name] == "none" else 0.0
                assert parts[name]["score"] == expected and not parts[name]["follow_through"], (variant.seed, name)
            checked += 1
    assert checked > 30


def test_exposure_right_eos_answer_still_scores_one() -> None:
    stopped = [
        v for v in variants(EXPOSURE, SEED_COUNT) if exposure_divergence.solve(v)["first_input_divergence_step"] is None
    ]
    assert stopped
    for variant in stopped:
        key = exposure_divergence.solve(variant)
        assert (
            grade(EXPOSURE, variant.seed, {"first_wrong_step": str(key["first_wrong_step"]), **BLANK_AFTER_EOS}, "zh")[
                "score"
            ]
            == 1.0
        )


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_exposure_same_step_feedback_covers_an_eos_mistake(lang: str) -> None:
    # Where the first mistake is EOS the key is null; the old feedback only said "one step later", which is wrong
    # there too.
    variant = next(
        v for v in variants(EXPOSURE, SEED_COUNT) if exposure_divergence.solve(v)["first_input_divergence_step"] is None
    )
    key = exposure_divergence.solve(variant)
    step = str(key["first_wrong_step"])
    part = grade(
        EXPOSURE, variant.seed, {**BLANK_AFTER_EOS, "first_wrong_step": step, "first_input_divergence_step": step}, lang
    )["parts"]["first_input_divergence_step"]
    assert part["misconception"] == "same-step"
    # The empty answer as each language reads it back: null in English, 无 in Chinese (never "填 null").
    assert ("null" if lang == "en" else "填“无”") in part["feedback"] and "EOS" in part["feedback"]


# --- ch13.encoder-collision: the state after ReLU copied from the sum before it is the no-relu mistake ----------


def test_collision_post_activation_copied_from_the_pre_activation_is_tagged_no_relu() -> None:
    # The no-relu solver runs both paths unclipped from the first read; where path B was clipped earlier, a student
    # who added correctly and only skipped ReLU at the probe matched nothing and went untagged (about a third).
    earlier_clip = 0
    for variant in variants(COLLISION, SEED_COUNT):
        key = encoder_collision.solve(variant)
        no_relu_post = encoder_collision._no_relu(variant)["post_activation"]
        earlier_clip += no_relu_post != key["pre_activation"]
        for lang in ("en", "zh"):
            part = grade(COLLISION, variant.seed, {**key, "post_activation": key["pre_activation"]}, lang)["parts"][
                "post_activation"
            ]
            assert part["misconception"] == "no-relu", (variant.seed, part["tags"])
            assert feedback_of(encoder_collision, "no-relu", lang) in part["feedback"]
    assert earlier_clip > 20


def test_collision_other_wrong_post_activation_is_not_tagged_no_relu() -> None:
    for variant in variants(COLLISION, SEED_COUNT):
        key = encoder_collision.solve(variant)
        wrong = [value + 3 * 0.6931471805599453 for value in key["post_activation"]]
        part = grade(COLLISION, variant.seed, {**key, "post_activation": wrong})["parts"]["post_activation"]
        assert "no-relu" not in part["tags"], variant.seed


# --- ch13.encoder-states: ReLU skipped at one read, or the pre-activation column copied -------------------------


def _run_skipping_relu_once(variant: Variant) -> list[list[float]]:
    """The encoder run with ReLU left out at the first read where it clips, right everywhere else."""
    data = variant.data
    states, previous, skipped = [], data["encoder"]["h_0"], False
    for token in data["source"]:
        pre, state = encoder_step(data["source_vocab"][token], previous, data["encoder"])
        if not skipped and pre != state:
            state, skipped = pre, True
        states.append(list(state))
        previous = state
    return states


def test_states_with_relu_skipped_at_one_read_are_tagged_no_relu() -> None:
    for variant in variants(STATES, SEED_COUNT)[1:]:  # the book's red path is never clipped
        states = _run_skipping_relu_once(variant)
        assert states != encoder_states.solve(variant)["states"]
        part = grade(STATES, variant.seed, {"states": states})["parts"]["states"]
        assert part["misconception"] == "no-relu", (variant.seed, part["tags"])
        assert feedback_of(encoder_states, "no-relu") in part["feedback"]


def test_states_listing_the_pre_activation_sums_are_tagged_no_relu() -> None:
    for variant in variants(STATES, SEED_COUNT)[1:]:
        pres = [list(step.pre) for step in encoder_states._run(variant)]
        part = grade(STATES, variant.seed, {"states": pres}, "zh")["parts"]["states"]
        assert "no-relu" in part["tags"], (variant.seed, part["tags"])


def test_states_without_a_negative_coordinate_are_not_diagnosed_as_no_relu() -> None:
    # includes-h0 lists and a slip to a non-negative number are other mistakes: never "you skipped ReLU".
    for variant in variants(STATES, SEED_COUNT):
        key = encoder_states.solve(variant)["states"]
        h0_first = grade(STATES, variant.seed, {"states": [[0.0, 0.0], *key]})["parts"]["states"]
        assert h0_first["tags"] == ["includes-h0"], (variant.seed, h0_first["tags"])
        slipped = [list(state) for state in key]
        slipped[-1] = [slipped[-1][0] + 5 * 0.6931471805599453, slipped[-1][1]]
        assert "no-relu" not in grade(STATES, variant.seed, {"states": slipped})["parts"]["states"]["tags"]


# --- ch13.greedy-decode: the stop reason as students phrase it ------------------------------------------------


@pytest.mark.parametrize(
    ("typed", "reason"),
    [
        ("因为选到了EOS", STOPPED_BY_EOS),
        ("因为选到了 EOS", STOPPED_BY_EOS),
        ("遇到了 EOS", STOPPED_BY_EOS),
        ("遇到EOS而停止", STOPPED_BY_EOS),
        ("EOS 停止了", STOPPED_BY_EOS),
        ("选到结束符而停止", STOPPED_BY_EOS),
        ("EOS was predicted", STOPPED_BY_EOS),
        ("It chose EOS.", STOPPED_BY_EOS),
        ("because of the EOS token", STOPPED_BY_EOS),
        ("hit the step cap", STOPPED_BY_CAP),
        ("reached max_steps", STOPPED_BY_CAP),
        ("It hit the cap.", STOPPED_BY_CAP),
        ("达到8步上限", STOPPED_BY_CAP),
        ("因为达到了上限", STOPPED_BY_CAP),
        ("8 steps", STOPPED_BY_CAP),
    ],
)
def test_stop_reason_phrases_are_read(typed: str, reason: str) -> None:
    reading = api.validate(GREEDY, {"tokens": "blue key . EOS", "stopped_by": typed}, "zh")
    assert reading["status"] == "valid", reading["errors"]
    assert reading["parsed"]["stopped_by"] == reason


@pytest.mark.parametrize("typed", ["没有遇到EOS", "not EOS", "上限和EOS", "EOS or cap"])
def test_negated_or_double_stop_reasons_stay_invalid(typed: str) -> None:
    assert api.validate(GREEDY, {"tokens": "blue key . EOS", "stopped_by": typed}, "en")["status"] == "invalid"


def test_no_stop_alias_reads_as_the_other_reason() -> None:
    for reason, names in STOP_ALIASES.items():
        for name in names:
            assert read_enum(name, STOP_ALIASES) == reason, name
    # The enum reader indexes a table once (word_readers._alias_index, cached) and then looks a phrase up: the table may
    # hold a few thousand phrasings, but reading one must not normalise them all again.
    assert sum(len(names) for names in STOP_ALIASES.values()) < 3000
    from exercises import word_readers

    read_enum("cap", STOP_ALIASES)
    before = word_readers._alias_index.cache_info().hits
    read_enum("hit the cap", STOP_ALIASES)
    assert word_readers._alias_index.cache_info().hits == before + 1


def test_h0_listed_first_and_the_list_cut_short_is_tagged_includes_h0() -> None:
    tagged = seen = 0
    for variant in variants(STATES, SEED_COUNT):
        reference = encoder_states.solve(variant)["states"]
        started_at_h0 = [list(variant.data["encoder"]["h_0"]), *reference[:-1]]
        typed = "; ".join("[" + ", ".join(repr(float(x)) for x in row) + "]" for row in started_at_h0)
        part = grade(STATES, variant.seed, {"states": typed})["parts"]["states"]
        if part["correct"]:
            continue  # every state is h_0 itself: nothing to tell apart (see the stop note on such variants)
        seen += 1
        tagged += "includes-h0" in part["tags"]
    assert seen > 100 and tagged == seen
