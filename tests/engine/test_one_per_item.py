"""Parts with one entry per item (the concept check's letters): a wrong count is unreadable, never graded."""

from __future__ import annotations

import pytest

from exercises import api

CHECK = "l03.concept-check"


@pytest.mark.parametrize("seed", [0, 1, 7, 12345])
@pytest.mark.parametrize("change", ["drop-first", "drop-last", "extra"])
def test_skipped_or_extra_letters_are_invalid_not_graded(seed: int, change: str) -> None:
    key = api.answer_key(CHECK, seed)["choices"]
    letters = {"drop-first": key[1:], "drop-last": key[:-1], "extra": [*key, "a"]}[change]
    answer = {"choices": ", ".join(letters)}
    graded = api.grade(CHECK, seed, answer, "en")
    assert graded["status"] == "invalid" and graded["score"] is None and graded["parts"] == {}
    [error] = graded["errors"]
    assert error["field"] == "choices" and f"Expected {len(key)} entries" in error["message"]
    assert f"read {len(letters)}" in error["message"]
    # The preview says so too once it knows the variant; the text alone cannot tell.
    assert api.validate(CHECK, answer, "zh", seed)["errors"][0]["message"].startswith(f"应有 {len(key)} 项")
    assert api.validate(CHECK, answer, "zh")["status"] == "valid"


@pytest.mark.parametrize("seed", [0, 1, 7, 12345])
def test_the_right_count_is_graded_as_before(seed: int) -> None:
    key = api.answer_key(CHECK, seed)["choices"]
    one_wrong = ["a" if letter != "a" else "b" for letter in key[:1]] + key[1:]
    assert api.validate(CHECK, {"choices": ", ".join(key)}, "en", seed)["status"] == "valid"
    assert api.grade(CHECK, seed, {"choices": ", ".join(key)}, "en")["score"] == 1.0
    graded = api.grade(CHECK, seed, {"choices": ", ".join(one_wrong)}, "en")
    assert graded["status"] == "graded" and graded["score"] == pytest.approx(1 - 1 / len(key))
