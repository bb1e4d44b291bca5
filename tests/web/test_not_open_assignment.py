"""Before an assignment opens, students see its exercises' titles and opening time, never their variant's data."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta

from flask import Flask
from flask.testing import FlaskClient
from markupsafe import escape
from sqlalchemy import func, select

from exercises import api as engine
from grader.extensions import get_db
from grader.grading.variant_seeds import seed_for
from grader.models import Assignment, Submission, User, VariantAssignment, utcnow

ATTENTION = "ch09.scaled-dot-attention"
Login = Callable[[FlaskClient, str], str]


def _ch09(app: Flask) -> int:
    """The demo's chapter 9 assignment (it sets the scaled-dot attention exercise)."""
    with app.app_context(), get_db(app).session() as session:
        return session.scalars(select(Assignment.id).where(Assignment.title_en.startswith("Chapter 9"))).one()


def _open_at(app: Flask, assignment_id: int, moment: datetime) -> None:
    """Move the assignment's opening time (its due date stays later)."""
    with app.app_context(), get_db(app).session() as session:
        assignment = session.get_one(Assignment, assignment_id)
        assignment.opens_at, assignment.due_at = moment, moment + timedelta(days=30)
        session.commit()


def _not_open(app: Flask) -> tuple[int, datetime]:
    """The chapter 9 assignment, set to open in two days (minutes dropped, so the page's time is exact)."""
    ch09 = _ch09(app)
    opens = (utcnow() + timedelta(days=2)).replace(second=0, microsecond=0)
    _open_at(app, ch09, opens)
    return ch09, opens


def _count(app: Flask, model: type[Submission] | type[VariantAssignment]) -> int:
    with app.app_context(), get_db(app).session() as session:
        return session.scalar(select(func.count(model.id))) or 0


def _data_lines(app: Flask, username: str, lang: str = "zh") -> list[str]:
    """The lines of ``username``'s own prompt that carry the variant's numbers (Q, K, V), as the page escapes them."""
    with app.app_context(), get_db(app).session() as session:
        user = session.scalars(select(User).where(User.username == username)).one()
        prompt = engine.variant(ATTENTION, seed_for(session, user.id, ATTENTION), lang)["prompt"]
    lines = [str(escape(line.strip())) for line in prompt.splitlines() if "[[" in line]
    assert len(lines) == 3, prompt
    return lines


def test_student_sees_the_opening_notice_instead_of_the_question(app: Flask, client: FlaskClient, login: Login) -> None:
    ch09, opens = _not_open(app)
    login(client, "student1")
    variants_before = _count(app, VariantAssignment)
    response = client.get(f"/assignments/{ch09}/exercises/{ATTENTION}")
    html = response.get_data(as_text=True)
    assert response.status_code == 200
    assert f"本题所在的作业将于 {opens:%Y-%m-%d %H:%M} UTC 开放" in html
    assert 'id="answer-form"' not in html and "exercise.js" not in html and 'class="prompt"' not in html
    assert _count(app, VariantAssignment) == variants_before  # the page did not even draw the variant
    assert not any(line in html for line in _data_lines(app, "student1"))


def test_opening_notice_in_english(app: Flask, client: FlaskClient, login: Login) -> None:
    ch09, opens = _not_open(app)
    token = login(client, "student1")
    client.post("/lang", data={"csrf_token": token, "lang": "en", "next": "/courses"})
    html = client.get(f"/assignments/{ch09}/exercises/{ATTENTION}").get_data(as_text=True)
    assert str(escape(f"This exercise's assignment opens at {opens:%Y-%m-%d %H:%M} UTC")) in html
    assert not any(line in html for line in _data_lines(app, "student1", "en"))


def test_plain_form_post_is_refused_before_reading_the_answer(app: Flask, client: FlaskClient, login: Login) -> None:
    ch09, _ = _not_open(app)
    token = login(client, "student1")
    response = client.post(
        f"/assignments/{ch09}/exercises/{ATTENTION}", data={"csrf_token": token, "answer.scores": "[[1, 2]]"}
    )
    assert response.status_code == 403
    assert "本题所在的作业将于" in response.get_data(as_text=True)
    assert _count(app, Submission) == 0


def test_assignment_page_lists_exercises_without_links_and_says_when_it_opens(
    app: Flask, client: FlaskClient, login: Login
) -> None:
    ch09, opens = _not_open(app)
    login(client, "student1")
    html = client.get(f"/assignments/{ch09}").get_data(as_text=True)
    assert f"本作业将于 {opens:%Y-%m-%d %H:%M} UTC 开放" in html
    assert ATTENTION in html and f"/assignments/{ch09}/exercises/" not in html
    courses = client.get("/courses").get_data(as_text=True)
    assert "尚未开放" in courses and f'<time datetime="{opens.isoformat()}">' in courses


def test_the_exercise_shows_once_the_opening_time_has_passed(app: Flask, client: FlaskClient, login: Login) -> None:
    ch09, _ = _not_open(app)
    login(client, "student1")
    assert "本题所在的作业将于" in client.get(f"/assignments/{ch09}/exercises/{ATTENTION}").get_data(as_text=True)
    _open_at(app, ch09, utcnow() - timedelta(minutes=1))
    html = client.get(f"/assignments/{ch09}/exercises/{ATTENTION}").get_data(as_text=True)
    assert all(line in html for line in _data_lines(app, "student1"))
    assert 'id="answer-form"' in html and "本题所在的作业将于" not in html
    assert f"/assignments/{ch09}/exercises/{ATTENTION}" in client.get(f"/assignments/{ch09}").get_data(as_text=True)


def test_the_courses_teacher_still_previews_everything(app: Flask, client: FlaskClient, login: Login) -> None:
    ch09, _ = _not_open(app)
    login(client, "teacher")
    html = client.get(f"/assignments/{ch09}/exercises/{ATTENTION}").get_data(as_text=True)
    assert all(line in html for line in _data_lines(app, "teacher"))
    assert "本题所在的作业将于" not in html and "作业尚未开放。" in html  # the preview says submitting waits
    listing = client.get(f"/assignments/{ch09}").get_data(as_text=True)
    assert f"/assignments/{ch09}/exercises/{ATTENTION}" in listing and "本作业将于" not in listing


def test_the_same_exercise_shows_through_another_assignment_that_is_open(
    app: Flask, client: FlaskClient, login: Login
) -> None:
    ch09, _ = _not_open(app)
    with app.app_context(), get_db(app).session() as session:
        course_id = session.get_one(Assignment, ch09).course_id
        practice = Assignment(
            course_id=course_id,
            title_zh="练习",
            title_en="Practice",
            exercise_ids=[ATTENTION],
            opens_at=utcnow() - timedelta(days=1),
        )
        session.add(practice)
        session.commit()
        practice_id = practice.id
    login(client, "student1")
    lines = _data_lines(app, "student1")
    shown = client.get(f"/assignments/{practice_id}/exercises/{ATTENTION}").get_data(as_text=True)
    assert all(line in shown for line in lines)
    hidden = client.get(f"/assignments/{ch09}/exercises/{ATTENTION}").get_data(as_text=True)
    assert "本题所在的作业将于" in hidden and not any(line in hidden for line in lines)
