"""Feedback stored as meaning: each text is rendered from its stored messages in the reader's language, the stored
result is the truth (reading never grades again), and rows stored before messages keep their texts."""

from __future__ import annotations

from typing import Any

from exercises import api as engine
from grader.grading.feedback import feedback_in
from grader.models import Submission, SubmissionStatus

SHIFT = "ch13.shift-pairs"
# Wrong on purpose: BOS scored and a wrong count, so there is feedback text to render.
WRONG = {"pairs": "BOS→blue, blue→door, door→., .→EOS", "bos_scored": "是", "eos_scored": "是", "scored_count": "5"}
RIGHT = {"pairs": "BOS→blue, blue→door, door→., .→EOS", "bos_scored": "否", "eos_scored": "是", "scored_count": "4"}
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


def texts(parts: dict[str, Any]) -> dict[str, tuple[str, str]]:
    """Each part's feedback and read-back."""
    return {name: (part["feedback"], part["read"]) for name, part in parts.items()}


def test_graded_feedback_is_rendered_in_the_readers_language_with_the_verdict_kept() -> None:
    submission = stored(WRONG, "zh")
    shown = feedback_in(submission, "en")
    english = engine.grade(SHIFT, 0, WRONG, "en")["parts"]
    assert shown.lang == "en"
    assert texts(shown.parts) == texts(english)
    for name, part in shown.parts.items():
        assert {k: part[k] for k in ("score", "correct", "misconception", "tags")} == {
            k: submission.parts[name][k] for k in ("score", "correct", "misconception", "tags")
        }
        assert part["meaning"] == submission.parts[name]["meaning"]  # ids and arguments: the same in any language
    wrong_parts = [name for name, part in shown.parts.items() if not part["correct"]]
    assert wrong_parts and all(shown.parts[n]["feedback"] != submission.parts[n]["feedback"] for n in wrong_parts)
    assert texts(feedback_in(submission, "zh").parts) == texts(submission.parts)


def test_invalid_answer_errors_are_rendered_in_the_readers_language() -> None:
    submission = stored(UNREADABLE, "zh")
    assert submission.status == SubmissionStatus.INVALID
    shown = feedback_in(submission, "en")
    english = engine.grade(SHIFT, 0, UNREADABLE, "en")["errors"]
    assert [e["message"] for e in shown.errors] == [e["message"] for e in english]
    assert [e["field"] for e in shown.errors] == [e["field"] for e in submission.errors]
    assert shown.errors != submission.errors and shown.lang == "en"


def test_reading_shows_the_stored_result_even_where_the_answer_would_now_grade_otherwise() -> None:
    # The stored answer swapped for a right one and the seed for another variant: a reader that graded again would
    # say "correct" (or speak of other numbers); the stored verdict and its feedback are what both languages show.
    submission = stored(WRONG, "zh", raw_answer=RIGHT, seed=12345)
    for lang in ("zh", "en"):
        shown = feedback_in(submission, lang)
        assert texts(shown.parts) == texts(engine.grade(SHIFT, 0, WRONG, lang)["parts"])
        assert texts(shown.parts) != texts(engine.grade(SHIFT, 0, RIGHT, lang)["parts"])
        assert not shown.parts["bos_scored"]["correct"] and shown.lang == lang


def test_an_older_engines_result_is_rendered_from_its_messages_too() -> None:
    # Messages name ids, not an engine version: a row graded by an earlier 1.x engine still reads in either language.
    submission = stored(WRONG, "zh", engine_version="1.10.9")
    assert texts(feedback_in(submission, "en").parts) == texts(engine.grade(SHIFT, 0, WRONG, "en")["parts"])


def bare(item: dict[str, Any]) -> dict[str, Any]:
    """A part or an error as engines before 1.11 stored it: texts only."""
    return {key: value for key, value in item.items() if key != "meaning"}


def test_rows_stored_without_messages_keep_their_stored_texts() -> None:
    for answer in (WRONG, UNREADABLE):
        graded = stored(answer, "zh")
        old = stored(answer, "zh", engine_version="1.10.0")
        old.parts = {name: bare(part) for name, part in graded.parts.items()}
        old.errors = [bare(error) for error in graded.errors]
        shown = feedback_in(old, "en")
        assert (shown.parts, shown.errors, shown.lang) == (old.parts, old.errors, "zh")


def test_a_message_this_engine_cannot_say_keeps_the_whole_result_as_stored() -> None:
    submission = stored(WRONG, "zh")
    parts = dict(submission.parts)
    retired = {"id": "misconception", "args": {"exercise": SHIFT, "tag": "retired-tag"}}
    parts["bos_scored"] = {**parts["bos_scored"], "meaning": {"feedback": [retired]}}
    submission.parts = parts
    shown = feedback_in(submission, "en")
    # One language for the whole result: the other parts too stay in the language it was graded in.
    assert shown.lang == "zh" and texts(shown.parts) == texts(submission.parts)


def test_a_result_still_being_graded_has_nothing_to_render() -> None:
    queued = stored(WRONG, "zh", status=SubmissionStatus.QUEUED, parts=None, errors=None)
    shown = feedback_in(queued, "en")
    assert (shown.parts, shown.errors, shown.lang) == ({}, [], "en")
