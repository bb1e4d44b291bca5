"""The whole path through HTTP with a real worker: submit, wait, read the engine's result back."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import pytest

from exercises import api as engine

from .support import CH13_IDS, Api, assert_error, set_exercises

pytestmark = pytest.mark.integration


def _book_answers() -> dict[str, dict[str, str]]:
    """The engine suite's book answers (typed as a student would), loaded from its file."""
    path = Path(__file__).resolve().parents[1] / "engine" / "test_book_answers.py"
    spec = importlib.util.spec_from_file_location("book_answers_for_api", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.BOOK_ANSWERS


BOOK_ANSWERS = _book_answers()


def _submit_and_wait(api: Api, who: str, body: dict[str, Any]) -> dict[str, Any]:
    """POST a submission (202) and fetch it with ?wait until graded."""
    created = api.post("/submissions", who, body)
    assert created.status_code == 202, created.get_json()
    assert created.get_json()["status"] in ("queued", "grading", "graded")
    result = api.get(f"/submissions/{created.get_json()['id']}?wait=10", who)
    assert result.status_code == 200
    return result.get_json()


@pytest.mark.parametrize("exercise_id", CH13_IDS)
def test_book_answer_is_graded_one_in_one_round_trip(api: Api, worker: Any, exercise_id: str) -> None:
    if exercise_id not in engine.exercise_ids():
        pytest.skip(f"{exercise_id} is not registered in the engine yet")
    answer = BOOK_ANSWERS[exercise_id]
    result = _submit_and_wait(api, "teacher", {"exercise_id": exercise_id, "answer": answer, "seed": 0, "lang": "en"})
    expected = engine.grade(exercise_id, 0, answer, "en")
    assert result["status"] == "graded"
    assert result["score"] == 1.0
    assert result["engine_version"] == engine.ENGINE_VERSION
    assert result["parts"] == expected["parts"]
    assert result["exercise_id"] == exercise_id and result["seed"] == 0
    assert result["created_at"] and result["finished_at"]


def test_wrong_answer_carries_its_misconception_tag(api: Api, worker: Any) -> None:
    answer = dict(BOOK_ANSWERS["ch13.shift-pairs"], bos_scored="是")
    result = _submit_and_wait(api, "teacher", {"exercise_id": "ch13.shift-pairs", "answer": answer, "seed": 0})
    assert result["status"] == "graded"
    assert result["score"] < 1
    assert result["parts"]["bos_scored"]["misconception"] == "bos-scored"
    assert result["parts"]["pairs"]["correct"] is True


def test_feedback_can_be_read_in_the_other_language(api: Api, worker: Any) -> None:
    answer = dict(BOOK_ANSWERS["ch13.shift-pairs"], bos_scored="是")
    chinese = _submit_and_wait(
        api, "teacher", {"exercise_id": "ch13.shift-pairs", "answer": answer, "seed": 0, "lang": "zh"}
    )
    english = api.get(f"/submissions/{chinese['id']}?lang=en", "teacher").get_json()
    expected = engine.grade("ch13.shift-pairs", 0, answer, "en")["parts"]
    assert (chinese["feedback_lang"], english["feedback_lang"], english["lang"]) == ("zh", "en", "zh")
    assert english["parts"]["bos_scored"]["feedback"] == expected["bos_scored"]["feedback"]
    assert english["parts"]["bos_scored"]["feedback"] != chinese["parts"]["bos_scored"]["feedback"]
    assert english["score"] == chinese["score"]
    assert_error(api.get(f"/submissions/{chinese['id']}?lang=fr", "teacher"), 400, "invalid_parameter", "lang")


def test_student_is_graded_on_the_assigned_variant_without_seeing_the_seed(api: Api, worker: Any) -> None:
    variant = api.get("/exercises/ch13.shift-pairs/variant?lang=en", "alice").get_json()
    assert "seed" not in variant
    target = variant["data"]["target"]
    pairs = ", ".join(f"{a}→{b}" for a, b in zip(["BOS", *target[:-1]], target))
    answer = {"pairs": pairs, "bos_scored": "no", "eos_scored": "yes", "scored_count": str(len(target))}
    result = _submit_and_wait(
        api,
        "alice",
        {"exercise_id": "ch13.shift-pairs", "answer": answer, "assignment_id": api.school.practice_assignment},
    )
    assert result["status"] == "graded" and result["score"] == 1.0
    assert "seed" not in result and "answer_key" not in result
    seen_by_admin = api.get(f"/submissions/{result['id']}", "admin").get_json()
    assert engine.variant("ch13.shift-pairs", seen_by_admin["seed"])["data"]["target"] == target


def test_answer_key_appears_only_when_the_key_rule_allows(api: Api, worker: Any) -> None:
    body = {
        "exercise_id": "ch13.shift-pairs",
        "answer": {"pairs": "BOS→x", "bos_scored": "no", "eos_scored": "no", "scored_count": "1"},
        "assignment_id": api.school.open_assignment,
    }
    # The school's not-yet-open and practice assignments set the same exercise, so they share alice's variant
    # and would keep the key hidden (tests/test_policy.py); here they set another one.
    for sharing in (api.school.future_assignment, api.school.practice_assignment):
        set_exercises(api.client.application, sharing, ["ch13.loss-average"])
    first = _submit_and_wait(api, "alice", body)
    assert first["status"] == "graded" and "answer_key" not in first
    second = _submit_and_wait(api, "alice", body)  # the last of 2 attempts: the after_attempts rule opens the key
    assert second["answer_key"]["scored_count"] == len(second["answer_key"]["pairs"])
    assert "answer_key" in api.get(f"/submissions/{first['id']}", "alice").get_json()
    assert_error(api.post("/submissions", "alice", body), 409, "attempts_exhausted")
    progress = api.get(f"/assignments/{api.school.open_assignment}/progress", "alice").get_json()
    row = progress["exercises"][0]
    assert (row["attempts_used"], row["attempts_left"]) == (2, 0)
    assert row["best_score"] == max(first["score"], second["score"]) and row["last_score"] == second["score"]


def test_wait_returns_at_once_when_already_final(api: Api, worker: Any) -> None:
    answer = BOOK_ANSWERS["ch13.shift-pairs"]
    result = _submit_and_wait(api, "teacher", {"exercise_id": "ch13.shift-pairs", "answer": answer, "seed": 0})
    again = api.get(f"/submissions/{result['id']}?wait=10", "teacher").get_json()
    assert again == result
