"""The exercise page's script inserts a result and the assignment's standing as the server renders them: the same
macros as the full pages, in the page's language, only for the user's own submissions; the script itself builds no
result and rounds no percentage."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import select

from exercises import api as engine
from grader.extensions import get_db
from grader.grading import pipeline
from grader.grading.variant_seeds import seed_for
from grader.i18n import t
from grader.models import Assignment, Submission, User

SHIFT = "ch13.shift-pairs"
STATIC_JS = Path(__file__).resolve().parents[2] / "grader" / "static" / "js"
Login = Callable[[FlaskClient, str], str]


def _chapter13(app: Flask) -> int:
    """The id of the demo's chapter 13 assignment."""
    with app.app_context(), get_db(app).session() as session:
        return session.scalars(select(Assignment.id).where(Assignment.title_en.startswith("Chapter 13"))).one()


def _graded(app: Flask, client: FlaskClient, token: str, assignment_id: int, answer: dict[str, str]) -> int:
    """Submit through the plain form and grade by the grading task's own body (no worker here); the submission id."""
    response = client.post(
        f"/assignments/{assignment_id}/exercises/{SHIFT}",
        data={"csrf_token": token, **{f"answer.{k}": v for k, v in answer.items()}},
    )
    assert response.status_code == 302, response.status_code
    submission_id = int(response.location.rsplit("/", 1)[1])
    with app.app_context():
        outcome = pipeline.grade_submission(get_db(app), submission_id, worker="fragment-test", lease_seconds=30)
    assert outcome == pipeline.Outcome.GRADED
    return submission_id


def _wrong_answer(app: Flask) -> dict[str, str]:
    """student1's own key with BOS counted as a scored target (one wrong part of four)."""
    with app.app_context(), get_db(app).session() as session:
        student = session.scalars(select(User).where(User.username == "student1")).one()
        seed = seed_for(session, student.id, SHIFT)
    return {**engine.answer_key_text(SHIFT, seed, "zh"), "bos_scored": "是"}


def _result_body(html: str) -> str:
    """The result-body element of a page (the macro's output)."""
    match = re.search(r'<div class="result-body">.*?</ul>\s*</div>', html, re.S)
    assert match, html
    return match.group(0)


def test_the_result_fragment_is_the_pages_own_result_in_the_pages_language(
    app: Flask, client: FlaskClient, login: Login
) -> None:
    token = login(client, "student1")
    submission_id = _graded(app, client, token, _chapter13(app), _wrong_answer(app))
    with app.app_context(), get_db(app).session() as session:
        stored = session.get(Submission, submission_id)
        assert stored is not None and stored.score == 0.75
        chinese = stored.parts["bos_scored"]["feedback"]
    reply = client.get(f"/submissions/{submission_id}/result")
    assert reply.status_code == 200 and reply.get_json()["status"] == "graded"
    fragment = reply.get_json()["html"]
    assert _result_body(fragment) == _result_body(client.get(f"/submissions/{submission_id}").get_data(as_text=True))
    assert chinese in fragment and t("exercise.score", "zh", percent=75) in fragment
    assert "可能的误区：给 BOS 计了损失" in fragment

    client.post("/lang", data={"csrf_token": token, "lang": "en", "next": "/submissions"})
    english = client.get(f"/submissions/{submission_id}/result").get_json()["html"]
    # Rendered from the stored messages in the reader's language, not the stored Chinese texts.
    assert "Likely misconception: Scored the BOS position" in english and chinese not in english
    assert t("exercise.score", "en", percent=75) in english


def test_another_students_result_is_not_found(app: Flask, client: FlaskClient, login: Login) -> None:
    token = login(client, "student1")
    submission_id = _graded(app, client, token, _chapter13(app), _wrong_answer(app))
    client.post("/logout", data={"csrf_token": token})
    login(client, "student2")
    assert client.get(f"/submissions/{submission_id}/result").status_code == 404
    assert client.get("/submissions/999999/result").status_code == 404


def test_the_standing_is_the_pages_progress_bar_and_attempts_line(
    app: Flask, client: FlaskClient, login: Login
) -> None:
    ch13 = _chapter13(app)
    token = login(client, "student1")
    _graded(app, client, token, ch13, _wrong_answer(app))
    page = client.get(f"/assignments/{ch13}/exercises/{SHIFT}").get_data(as_text=True)
    reply = client.get(f"/assignments/{ch13}/exercises/{SHIFT}/standing")
    assert reply.status_code == 200
    standing = reply.get_json()
    assert standing["progress"].strip() in page  # the very bar the page shows, percentage rounded by the server
    assert standing["attempts"] in page
    assert standing["attempts_left"] is None or isinstance(standing["attempts_left"], int)
    assert client.get(f"/assignments/{ch13}/exercises/no.such-exercise/standing").status_code == 404
    assert client.get(f"/assignments/999999/exercises/{SHIFT}/standing").status_code == 404


def test_signed_out_the_fragments_send_to_the_login_form(client: FlaskClient) -> None:
    for url in ("/submissions/1/result", "/assignments/1/exercises/ch13.shift-pairs/standing"):
        reply = client.get(url)
        assert reply.status_code == 302 and reply.location.startswith("/login")


def test_the_page_script_renders_no_result_and_rounds_no_percentage() -> None:
    script = (STATIC_JS / "exercise.js").read_text() + (STATIC_JS / "common.js").read_text()
    assert "Math.round" not in script and "percent(" not in script
    assert "exercise.part_correct" not in script and "exercise.score" not in script
