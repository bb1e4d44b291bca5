"""A result's texts are stored as messages: rendering them in either language gives exactly what grading in that
language gives, for right parts, wrong ones (hand-written and generated diagnoses, follow-through, partial credit)
and unreadable answers; and the messages are ids with arguments, not the texts themselves."""

from __future__ import annotations

from typing import Any

import pytest

from exercises import api
from exercises.grading_policy import FollowThrough, GradingPolicy
from exercises.messages import CATALOGUE
from exercises.readers import display
from exercises.registry import EXERCISES
from exercises.said import LITERAL
from tests.engine.verdict_support import seeded

LANGS = ("zh", "en")


def answers(exercise_id: str, seed: int) -> list[object]:
    """The key, each hand-written misconception's answer, a blank, a junk and two unreadable answers."""
    exercise = next(e for e in EXERCISES if e.id == exercise_id)
    variant = seeded(exercise, seed)
    key = exercise.solve(variant)
    typed = {f.name: display(f.kind, key[f.name], "en") for f in exercise.fields}
    found: list[object] = [typed, {name: "1" for name in typed}, {name: "" for name in typed}, "{not json", [1]]
    for misconception in exercise.misconceptions:
        wrong = misconception.solve(variant)
        if wrong:
            found.append(
                {**typed, **{f.name: display(f.kind, wrong[f.name], "en") for f in exercise.fields if f.name in wrong}}
            )
    return found


@pytest.mark.parametrize("exercise_id", [e.id for e in EXERCISES])
def test_stored_messages_render_as_grading_in_that_language_does(exercise_id: str) -> None:
    rendered = 0
    for seed in (0, 7):
        for answer in answers(exercise_id, seed):
            results = {lang: api.grade(exercise_id, seed, answer, lang) for lang in LANGS}
            for graded_in in LANGS:
                stored = results[graded_in]
                for read_in in LANGS:
                    expected = results[read_in]
                    for name, part in stored["parts"].items():
                        shown, said = api.texts_in(part, read_in)
                        assert said, (name, part)
                        assert (shown["feedback"], shown["read"]) == (
                            expected["parts"][name]["feedback"],
                            expected["parts"][name]["read"],
                        )
                        rendered += 1
                    for error, other in zip(stored["errors"], expected["errors"], strict=True):
                        shown, said = api.texts_in(error, read_in)
                        assert said and shown["message"] == other["message"], (error, other)
                        rendered += 1
    assert rendered > 0


def test_messages_are_ids_with_arguments() -> None:
    part = api.grade(
        "ch13.shift-pairs",
        0,
        {"pairs": "BOS→blue, blue→door, door→., .→EOS", "bos_scored": "是", "eos_scored": "是", "scored_count": "5"},
        "zh",
    )["parts"]
    bos = part["bos_scored"]["meaning"]["feedback"]
    assert [m["id"] for m in bos] == ["probably", "misconception"]
    assert bos[1]["args"] == {"exercise": "ch13.shift-pairs", "tag": "bos-scored"}
    right = part["pairs"]["meaning"]["feedback"]
    assert right == [{"id": "right"}, {"id": "field.rule", "args": {"exercise": "ch13.shift-pairs", "field": "pairs"}}]
    # Only what no id can say again is stored as text: here, how the answer reads back ("是" / "yes").
    assert all(m["id"] != LITERAL for m in bos)
    assert part["bos_scored"]["meaning"]["read"][0]["id"] == LITERAL


def test_partial_credit_stores_its_numbers_as_arguments() -> None:
    part = api.grade("ch09.rnn-step", 0, {"pre_activation": "[1.25, 9]", "h": "[0.8483, -0.6351]"}, "en")["parts"]
    first = part["pre_activation"]["meaning"]["feedback"][0]
    assert first == {"id": "partly", "args": {"matched": 1, "positions": "2"}}, part["pre_activation"]


def test_the_preview_says_an_unreadable_answer_with_the_same_messages_as_grading() -> None:
    answer = {"pairs": "BOS→", "bos_scored": "也许", "eos_scored": "是", "scored_count": "4"}
    reading = api.validate("ch13.shift-pairs", answer, "en")
    assert reading["errors"] and reading["errors"] == api.grade("ch13.shift-pairs", 0, answer, "en")["errors"]
    assert all(error["meaning"]["message"] for error in reading["errors"])


def test_an_unknown_stored_message_is_not_rendered() -> None:
    part: dict[str, Any] = {"feedback": "旧的", "read": "4", "meaning": {"feedback": [{"id": "no-such-message"}]}}
    assert api.texts_in(part, "en") == (part, False)
    assert api.texts_in({"feedback": "旧的"}, "en") == ({"feedback": "旧的"}, False)


def test_every_shared_sentence_has_one_id_and_both_languages() -> None:
    # A stored id names one sentence for good: two ids for one constant would store one of them only.
    assert len({id(text) for text in CATALOGUE.values()}) == len(CATALOGUE)
    assert all(text.zh and text.en for text in CATALOGUE.values())


@pytest.mark.parametrize("follow_through", list(FollowThrough))
def test_follow_through_under_an_assignments_policy_renders_as_graded(follow_through: FollowThrough) -> None:
    policy = GradingPolicy(partial_credit=False, follow_through=follow_through)
    answers = (
        {"pre_activation": "[1, -0.5]", "h": "[0.7616, 0.9]"},
        {"pre_activation": "[1, -0.5]", "h": "[0.7616, -0.4621]"},
    )
    for answer in answers:
        results = {lang: api.grade("ch09.rnn-step", 0, answer, lang, policy) for lang in LANGS}
        for graded_in, read_in in (("zh", "en"), ("en", "zh")):
            part = results[graded_in]["parts"]["h"]
            assert part["follow_through"]
            shown, said = api.texts_in(part, read_in)
            assert said and shown["feedback"] == results[read_in]["parts"]["h"]["feedback"]
