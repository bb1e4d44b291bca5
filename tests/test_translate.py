"""Feedback in the reader's language: texts re-rendered by the same engine, the stored verdict always kept."""

from __future__ import annotations

from typing import Any

from exercises import api as engine
from grader.grading.translate import feedback_in
from grader.models import Submission, SubmissionStatus

SHIFT = "ch13.shift-pairs"
# Wrong on purpose: BOS scored and a wrong count, so there is feedback text to translate.
WRONG = {"pairs": "BOS→blue, blue→door, door→., .→EOS", "bos_scored": "是", "eos_scored": "是", "scored_count": "5"}
UNREADABLE = {"pairs": "BOS→blue", "bos_scored": "也许", "eos_scored": "是", "scored_count": "五个"}


def stored(answer: dict[str, Any], lang: str, **changes: Any) -> Submission:
    """A submission as the worker stores it after grading ``answer`` in ``lang`` (book variant)."""
    result = engine.grade(SHIFT, 0, answer, lang)
    fields = {
        "exercise_id": SHIFT,
        "seed": 0,
        "lang": lang,
        "raw_answer": answer,
        "status": result["status"],
        "score": result["score"],
        "parts": result["parts"],
        "errors": result["errors"],
        "engine_version": result["engine_version"],
    }
    return Submission(**{**fields, **changes})


def test_graded_feedback_is_translated_and_the_verdict_kept() -> None:
    submission = stored(WRONG, "zh")
    shown = feedback_in(submission, "en")
    english = engine.grade(SHIFT, 0, WRONG, "en")["parts"]
    assert shown.lang == "en"
    for name, part in shown.parts.items():
        assert part["feedback"] == english[name]["feedback"]
        assert {k: part[k] for k in ("score", "correct", "misconception")} == {
            k: submission.parts[name][k] for k in ("score", "correct", "misconception")
        }
    wrong_parts = [name for name, part in shown.parts.items() if not part["correct"]]
    assert wrong_parts and all(shown.parts[n]["feedback"] != submission.parts[n]["feedback"] for n in wrong_parts)


def test_invalid_answer_errors_are_translated() -> None:
    submission = stored(UNREADABLE, "zh")
    assert submission.status == SubmissionStatus.INVALID
    shown = feedback_in(submission, "en")
    assert [e["message"] for e in shown.errors] == [
        e["message"] for e in engine.grade(SHIFT, 0, UNREADABLE, "en")["errors"]
    ]
    assert shown.errors != submission.errors


def test_stored_texts_stay_when_anything_does_not_line_up() -> None:
    same_language = stored(WRONG, "en")
    assert feedback_in(same_language, "en").parts == same_language.parts
    older_engine = stored(WRONG, "zh", engine_version="0.9.0")
    assert feedback_in(older_engine, "en").parts == older_engine.parts  # a regrade might say otherwise
    altered = stored(WRONG, "zh")
    altered.parts = {**altered.parts, "scored_count": {**altered.parts["scored_count"], "score": 1.0, "correct": True}}
    assert feedback_in(altered, "en").parts == altered.parts  # stored verdict differs from the engine's: keep it
    assert feedback_in(altered, "en").lang == "zh"
    queued = stored(WRONG, "zh", status=SubmissionStatus.QUEUED, parts=None)
    assert feedback_in(queued, "en").parts == {}
