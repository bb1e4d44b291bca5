"""Typed text the engine refuses as unreadable, never reading, storing or echoing it: control characters (NUL and
the like), text-direction overrides, and one word far longer than any answer word; the same way on every field."""

from __future__ import annotations

import pytest

from exercises import api
from exercises.text_input import MAX_WORD_CHARS

CASES = [
    ("ch13.greedy-decode", "tokens", {"stopped_by": "EOS"}),
    ("ch13.shift-pairs", "pairs", {}),
    ("ch09.rnn-step", "pre_activation", {"h": "[0.1, 0.2]"}),
    (
        "ch13.loss-average",
        "total_loss",
        {"sequence_probability": "0.1", "mean_loss_with_eos": "1", "mean_loss_without_eos": "1"},
    ),
]
BAD = [
    ("nul", "blue\x00 key", "U+0000"),
    ("bell", "1\x07", "U+0007"),
    ("escape", "\x1b[31mred", "U+001B"),
    ("right-to-left override", "blue \u202ekey", "U+202E"),
    ("left-to-right embedding", "\u202a1.5", "U+202A"),
    ("isolate", "key\u2066 .", "U+2066"),
    ("pop isolate", "1\u2069", "U+2069"),
]


def _answer(exercise_id: str, field: str, others: dict[str, str], typed: object) -> dict[str, object]:
    return {**others, field: typed}


@pytest.mark.parametrize("exercise_id, field, others", CASES, ids=[case[0] for case in CASES])
@pytest.mark.parametrize("label, typed, code", BAD, ids=[case[0] for case in BAD])
@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_control_or_direction_character_is_refused_and_not_echoed(
    exercise_id, field, others, label, typed, code, lang
):
    for report in (
        api.validate(exercise_id, _answer(exercise_id, field, others, typed), lang, 0),
        api.grade(exercise_id, 0, _answer(exercise_id, field, others, typed), lang),
    ):
        assert report["status"] == "invalid"
        [error] = [e for e in report["errors"] if e["field"] == field]
        assert code in error["message"] and error["interpreted"] is None
        assert typed not in str(report) and field not in report["parsed"]


@pytest.mark.parametrize("exercise_id, field, others", CASES, ids=[case[0] for case in CASES])
def test_a_control_character_inside_a_json_list_is_refused(exercise_id, field, others):
    report = api.grade(exercise_id, 0, {**others, field: ["blue", "k\x00ey"]}, "en")
    assert report["status"] == "invalid"
    assert any("U+0000" in e["message"] for e in report["errors"] if e["field"] == field)


@pytest.mark.parametrize("exercise_id, field, others", CASES, ids=[case[0] for case in CASES])
@pytest.mark.parametrize("length", [MAX_WORD_CHARS + 1, 9_990])
def test_one_word_far_longer_than_any_answer_word_is_refused_and_not_echoed(exercise_id, field, others, length):
    word = "a" * length
    report = api.grade(exercise_id, 0, {**others, field: f"blue {word}"}, "en")
    assert report["status"] == "invalid"
    [error] = [e for e in report["errors"] if e["field"] == field]
    assert str(length) in error["message"] and word not in str(report)


@pytest.mark.parametrize("typed", ["blue key . EOS", "blue\tkey\n. EOS", "blue key . EOS\r\n", "a" * MAX_WORD_CHARS])
def test_ordinary_whitespace_and_long_but_plausible_words_still_read(typed):
    report = api.validate("ch13.greedy-decode", {"tokens": typed, "stopped_by": "EOS"}, "en", 0)
    assert not [e for e in report["errors"] if "U+" in e["message"] or "characters long" in e["message"]]
