"""A submission read through the API shows its stored result, with the texts rendered from the stored messages in
the language asked for: reading grades nothing again (a row whose answer would now grade otherwise still shows its
stored verdict and feedback), and a row stored before messages keeps its texts."""

from __future__ import annotations

from typing import Any

from flask import Flask

from exercises import api as engine
from grader.extensions import get_db
from grader.models import Submission

from .support import Api

SHIFT = "ch13.shift-pairs"
WRONG = {"pairs": "BOS→blue, blue→door, door→., .→EOS", "bos_scored": "是", "eos_scored": "是", "scored_count": "5"}
RIGHT = {"pairs": "BOS→blue, blue→door, door→., .→EOS", "bos_scored": "否", "eos_scored": "是", "scored_count": "4"}


def _store(app: Flask, api: Api, parts: dict[str, Any], raw_answer: dict[str, str]) -> int:
    """Alice's row on the practice assignment holding the zh result of WRONG (book variant) with ``parts``."""
    result = engine.grade(SHIFT, 0, WRONG, "zh")
    with get_db(app).session() as session:
        row = Submission(
            user_id=api.school.user_ids["alice"],
            assignment_id=api.school.practice_assignment,
            exercise_id=SHIFT,
            seed=0,
            lang="zh",
            raw_answer=raw_answer,
            parsed_answer=result["parsed"],
            status="graded",
            score=result["score"],
            parts=parts,
            errors=[],
            engine_version=result["engine_version"],
        )
        session.add(row)
        session.commit()
        return row.id


def _feedback(parts: dict[str, Any]) -> dict[str, str]:
    """Each part's feedback text."""
    return {name: part["feedback"] for name, part in parts.items()}


def test_a_stored_result_reads_in_either_language_without_grading_again(api_app: Flask, api: Api) -> None:
    # The stored answer is a right one: grading it again would say "correct" on every part.
    stored = engine.grade(SHIFT, 0, WRONG, "zh")["parts"]
    submission_id = _store(api_app, api, stored, RIGHT)
    for lang in ("en", "zh"):
        body = api.get(f"/submissions/{submission_id}?lang={lang}", "alice").get_json()
        assert body["feedback_lang"] == lang and body["score"] == engine.grade(SHIFT, 0, WRONG, lang)["score"] < 1
        assert _feedback(body["parts"]) == _feedback(engine.grade(SHIFT, 0, WRONG, lang)["parts"])
        assert _feedback(body["parts"]) != _feedback(engine.grade(SHIFT, 0, RIGHT, lang)["parts"])
        assert all(part["meaning"] == stored[name]["meaning"] for name, part in body["parts"].items())
    assert api.get(f"/submissions/{submission_id}", "alice").get_json()["feedback_lang"] == "zh"


def test_a_row_stored_without_messages_keeps_its_texts(api_app: Flask, api: Api) -> None:
    parts = {
        name: {key: value for key, value in part.items() if key != "meaning"}
        for name, part in engine.grade(SHIFT, 0, WRONG, "zh")["parts"].items()
    }
    submission_id = _store(api_app, api, parts, WRONG)
    body = api.get(f"/submissions/{submission_id}?lang=en", "alice").get_json()
    assert body["feedback_lang"] == "zh" and _feedback(body["parts"]) == _feedback(parts)
