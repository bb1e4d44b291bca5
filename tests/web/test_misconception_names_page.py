"""A graded wrong part names its likely misconception on the student's pages: the short name in the page's language,
then the tag; a tag the engine no longer knows is shown bare."""

from __future__ import annotations

from collections.abc import Callable

from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import select

from exercises import api as engine
from grader.extensions import get_db
from grader.grading import pipeline
from grader.grading.variant_seeds import seed_for
from grader.models import Assignment, Submission, SubmissionStatus, User

SHIFT = "ch13.shift-pairs"
Login = Callable[[FlaskClient, str], str]


def _chapter13(app: Flask) -> int:
    """The id of the demo's chapter 13 assignment."""
    with app.app_context(), get_db(app).session() as session:
        return session.scalars(select(Assignment.id).where(Assignment.title_en.startswith("Chapter 13"))).one()


def _student_seed(app: Flask, username: str) -> int:
    """The seed of ``username``'s own variant of the shift-pairs exercise."""
    with app.app_context(), get_db(app).session() as session:
        student = session.scalars(select(User).where(User.username == username)).one()
        return seed_for(session, student.id, SHIFT)


def _submit_and_grade(app: Flask, client: FlaskClient, token: str, assignment_id: int, answer: dict[str, str]) -> str:
    """Submit through the plain form, grade by the grading task's own body (no worker here); the submission's URL."""
    response = client.post(
        f"/assignments/{assignment_id}/exercises/{SHIFT}",
        data={"csrf_token": token, **{f"answer.{k}": v for k, v in answer.items()}},
    )
    assert response.status_code == 302 and response.location.startswith("/submissions/"), response.status_code
    submission_id = int(response.location.rsplit("/", 1)[1])
    with app.app_context():
        outcome = pipeline.grade_submission(get_db(app), submission_id, worker="names-test", lease_seconds=30)
    assert outcome == pipeline.Outcome.GRADED
    return response.location


def test_wrong_part_shows_the_misconception_name_in_both_languages(
    app: Flask, client: FlaskClient, login: Login
) -> None:
    ch13 = _chapter13(app)
    token = login(client, "student1")
    # The key of the student's own variant, with BOS counted as a scored target: the bos-scored procedure.
    answer = {**engine.answer_key_text(SHIFT, _student_seed(app, "student1"), "zh"), "bos_scored": "是"}
    url = _submit_and_grade(app, client, token, ch13, answer)
    exercise_page = f"/assignments/{ch13}/exercises/{SHIFT}"

    for page in (url, exercise_page):
        html = client.get(page).get_data(as_text=True)
        assert "可能的误区：给 BOS 计了损失</div>" in html
        assert "misconception-tag" not in html and "(<code>bos-scored</code>)" not in html  # no internal tag id
        assert "可能的误区：bos-scored" not in html  # nor the old bare-tag label
    client.post("/lang", data={"csrf_token": token, "lang": "en", "next": "/submissions"})
    for page in (url, exercise_page):
        html = client.get(page).get_data(as_text=True)
        assert "Likely misconception: Scored the BOS position</div>" in html
        assert "misconception-tag" not in html and "(<code>bos-scored</code>)" not in html
        assert "给 BOS 计了损失" not in html


def test_a_tag_the_engine_no_longer_knows_is_not_shown_to_the_student(
    app: Flask, client: FlaskClient, login: Login
) -> None:
    ch13 = _chapter13(app)
    login(client, "student1")
    # A result stored by an older engine, with a tag since retired: the stored result is the truth, shown as stored.
    part = {
        "score": 0.0,
        "correct": False,
        "feedback": "old feedback",
        "misconception": "retired-tag",
        "tags": ["retired-tag"],
        "follow_through": False,
        "read": "4",
    }
    with app.app_context(), get_db(app).session() as session:
        student = session.scalars(select(User).where(User.username == "student1")).one()
        stored = Submission(
            user_id=student.id,
            assignment_id=ch13,
            exercise_id=SHIFT,
            seed=seed_for(session, student.id, SHIFT),
            lang="zh",
            raw_answer={"scored_count": "4"},
            status=SubmissionStatus.GRADED,
            score=0.0,
            parts={"scored_count": part},
            errors=[],
            engine_version="0.9.0",
        )
        session.add(stored)
        session.commit()
        submission_id = stored.id
    html = client.get(f"/submissions/{submission_id}").get_data(as_text=True)
    assert "old feedback" in html  # the stored feedback says what went wrong
    assert "可能的误区：retired-tag" not in html and "<code>retired-tag</code>" not in html  # internal ids stay in
