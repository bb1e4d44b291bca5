"""Once the key's rule lets a student see the answer key, the exercise page also shows the variant's worked solution
from the engine's named steps, and marks the step where the student's latest graded answer first leaves it."""

from __future__ import annotations

from collections.abc import Callable

from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import select

from exercises import api as engine
from grader.extensions import get_db
from grader.grading import pipeline
from grader.grading.variant_seeds import seed_for
from grader.models import Assignment, User

ADDITIVE = "l03.additive-attention"  # in the demo's lesson 3 assignment, whose key is always shown
SHIFT = "ch13.shift-pairs"  # in the demo's chapter 13 assignment, whose key waits for the due date
Login = Callable[[FlaskClient, str], str]


def _assignment(app: Flask, title_start: str) -> int:
    with app.app_context(), get_db(app).session() as session:
        return session.scalars(select(Assignment.id).where(Assignment.title_en.startswith(title_start))).one()


def _seed(app: Flask, exercise_id: str) -> int:
    with app.app_context(), get_db(app).session() as session:
        student = session.scalars(select(User).where(User.username == "student1")).one()
        return seed_for(session, student.id, exercise_id)


def test_the_worked_solution_shows_with_the_key_and_marks_where_the_answer_leaves_it(
    app: Flask, client: FlaskClient, login: Login
) -> None:
    token = login(client, "student1")
    lesson3 = _assignment(app, "Lesson 3")
    page_url = f"/assignments/{lesson3}/exercises/{ADDITIVE}"
    html = client.get(page_url).get_data(as_text=True)
    seed = _seed(app, ADDITIVE)
    steps = engine.worked_solution(ADDITIVE, seed, "zh")
    assert 'id="worked-heading">逐步解答</h3>' in html
    assert html.count('<span class="step-label">') == len(steps) > 3
    assert all(f"<code>{step['value']}</code>" in html for step in steps)
    assert 'class="departed"' not in html  # nothing submitted yet

    # Right scores and weights, a context that is not the weighted sum: the answer leaves at the last step.
    answer = {**engine.answer_key_text(ADDITIVE, seed, "zh"), "context": "[0.5, 0.5]"}
    departure = engine.first_departure(ADDITIVE, seed, answer, "zh")
    assert departure is not None and departure["field"] == "context"
    response = client.post(page_url, data={"csrf_token": token, **{f"answer.{k}": v for k, v in answer.items()}})
    assert response.status_code == 302, response.status_code
    with app.app_context():
        submission_id = int(response.location.rsplit("/", 1)[1])
        outcome = pipeline.grade_submission(get_db(app), submission_id, worker="worked-test", lease_seconds=30)
    assert outcome == pipeline.Outcome.GRADED
    html = client.get(page_url).get_data(as_text=True)
    assert html.count('class="departed"') == 1
    departed = html.split('class="departed"', 1)[1]
    assert departed.split("</li>", 1)[0].count("你最近一次的答案从这一步开始偏离") == 1
    assert f'<span class="step-label">{steps[departure["number"] - 1]["label"]}</span>' in departed.split("</li>")[0]


def test_no_worked_solution_while_the_key_is_hidden(app: Flask, client: FlaskClient, login: Login) -> None:
    login(client, "student1")
    html = client.get(f"/assignments/{_assignment(app, 'Chapter 13')}/exercises/{SHIFT}").get_data(as_text=True)
    assert "参考答案将在截止后显示。" in html
    assert 'id="worked-heading"' not in html and 'class="step-label"' not in html
