"""Access audit of the student pages and API v1: answer keys across assignments, acting roles, caching.

Runs on both backends with the API tests' school (alice and bob in course A; course A's open, closed and future
assignments all set ch13.shift-pairs, so they share each student's one variant of it).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import timedelta

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import update

from exercises import api as engine
from grader.extensions import get_db
from grader.grading.variant_seeds import seed_for
from grader.i18n import t
from grader.models import Submission, SubmissionStatus, User, utcnow
from grader.ratelimit import EXTENSION_KEY as LIMITER_KEY
from grader.security import hash_password
from tests.api.support import Api, School, build_school, set_exercises

SHIFT = "ch13.shift-pairs"
ANSWER = {"pairs": "BOS→x", "bos_scored": "no", "eos_scored": "no", "scored_count": "1"}
PASSWORD = "audit-password"
CSRF_META = re.compile(r'<meta name="csrf-token" content="([^"]+)">')
KEY_LIST = '<dl class="answer-key">'
FEEDBACK_CELL = re.compile(r'<td class="feedback-cell">([^<]*)</td>')


@pytest.fixture
def school(app: Flask) -> Iterator[School]:
    """The API tests' school, with passwords so that its people can also sign in to the pages."""
    app.config["SUBMISSION_RATE_LIMIT"] = "10000/minute"
    app.extensions[LIMITER_KEY].reset()
    built = build_school(app)
    with get_db(app).session() as session:
        for user in session.query(User):
            user.password_hash = hash_password(PASSWORD)
        session.commit()
    yield built
    app.extensions[LIMITER_KEY].reset()


@pytest.fixture
def api(app: Flask, school: School) -> Api:
    """A bearer-token JSON client."""
    return Api(app.test_client(), school)


def sign_in(client: FlaskClient, username: str) -> str:
    """Sign ``username`` in through the login form; the new session's CSRF token."""
    token = CSRF_META.search(client.get("/login").get_data(as_text=True))
    assert token
    response = client.post("/login", data={"username": username, "password": PASSWORD, "csrf_token": token.group(1)})
    assert response.status_code == 302
    page = CSRF_META.search(client.get("/courses").get_data(as_text=True))
    assert page
    return page.group(1)


def use_up_open_attempts(app: Flask, api: Api, who: str = "alice") -> None:
    """Both attempts of the open assignment, graded (marked so here: no worker needed). A queued attempt does not
    open the key: it may still end as an error, which gives the attempt back."""
    ids = []
    for _ in range(2):
        body = {"exercise_id": SHIFT, "answer": ANSWER, "assignment_id": api.school.open_assignment}
        created = api.post("/submissions", who, body)
        assert created.status_code == 202
        ids.append(created.get_json()["id"])
    with app.app_context(), get_db(app).session() as session:
        session.execute(
            update(Submission)
            .where(Submission.id.in_(ids))
            .values(status=SubmissionStatus.GRADED, score=0.0, finished_at=utcnow())
        )
        session.commit()


def future_assignment_sets(app: Flask, school: School, exercise_ids: list[str]) -> None:
    """Change what the school's not-yet-open and practice assignments set (by default the same exercise as the
    others, so they share the variant)."""
    for sharing in (school.future_assignment, school.practice_assignment):
        set_exercises(app, sharing, exercise_ids)


def closed_assignment_submission(app: Flask, school: School, who: str = "alice") -> int:
    """A graded submission ``who`` made to the (now past due) closed assignment while it was open."""
    with app.app_context(), get_db(app).session() as session:
        user_id = school.user_ids[who]
        made = utcnow() - timedelta(days=3)
        submission = Submission(
            user_id=user_id,
            exercise_id=SHIFT,
            seed=seed_for(session, user_id, SHIFT),
            lang="zh",
            raw_answer=ANSWER,
            parsed_answer=None,
            assignment_id=school.closed_assignment,
            status=SubmissionStatus.GRADED,
            score=0.0,
            attempts=1,
            max_attempts=3,
            created_at=made,
            queued_at=made,
            finished_at=made,
        )
        session.add(submission)
        session.commit()
        return submission.id


def test_closed_assignment_page_hides_the_key_of_a_variant_still_being_graded_elsewhere(
    app: Flask, api: Api, school: School
) -> None:
    """Variants are per student and exercise: the closed assignment's key is the open assignment's key too."""
    client = app.test_client()
    sign_in(client, "alice")
    closed_page = f"/assignments/{school.closed_assignment}/exercises/{SHIFT}"
    page = client.get(closed_page).get_data(as_text=True)
    assert KEY_LIST not in page
    with app.app_context(), get_db(app).session() as session:
        key = engine.answer_key(SHIFT, seed_for(session, school.user_ids["alice"], SHIFT))
    assert key["pairs"][0][1] not in page.split('id="key-heading"')[1]
    use_up_open_attempts(app, api)  # now the open assignment's own rule shows the key, and no attempt is left to use it
    assert KEY_LIST not in client.get(closed_page).get_data(as_text=True)  # the future assignment will take answers
    future_assignment_sets(app, school, ["ch13.loss-average"])
    assert KEY_LIST in client.get(closed_page).get_data(as_text=True)


def test_api_hides_the_key_of_a_past_due_submission_while_the_same_variant_is_open_elsewhere(
    app: Flask, api: Api, school: School
) -> None:
    submission_id = closed_assignment_submission(app, school)
    seen = api.get(f"/submissions/{submission_id}", "alice").get_json()
    assert seen["id"] == submission_id and "answer_key" not in seen and "seed" not in seen
    use_up_open_attempts(app, api)
    future_assignment_sets(app, school, ["ch13.loss-average"])
    assert "answer_key" in api.get(f"/submissions/{submission_id}", "alice").get_json()


def test_key_shows_where_no_other_open_assignment_shares_the_variant(app: Flask, api: Api, school: School) -> None:
    """Bob's closed-assignment key shows once he has used up the open assignment (the rule is per student)."""
    future_assignment_sets(app, school, ["ch13.loss-average"])
    use_up_open_attempts(app, api, "bob")
    client = app.test_client()
    sign_in(client, "alice")
    assert KEY_LIST not in client.get(f"/assignments/{school.closed_assignment}/exercises/{SHIFT}").get_data(
        as_text=True
    )
    client_b = app.test_client()
    sign_in(client_b, "bob")
    assert KEY_LIST in client_b.get(f"/assignments/{school.closed_assignment}/exercises/{SHIFT}").get_data(as_text=True)


def test_teachers_student_role_token_gets_no_answer_key(api: Api, school: School) -> None:
    """A token acts with its own (lower) role: a teacher's student token sees what a student would."""
    body = {"exercise_id": SHIFT, "answer": ANSWER, "assignment_id": school.open_assignment}
    created = api.post("/submissions", "teacher_as_student", body)
    assert created.status_code == 202
    assert "answer_key" not in created.get_json() and "seed" not in created.get_json()
    seen = api.get(f"/submissions/{created.get_json()['id']}", "teacher_as_student").get_json()
    assert "answer_key" not in seen and "seed" not in seen
    # The teacher's own full token still sees the key of the same submission.
    assert "answer_key" in api.get(f"/submissions/{created.get_json()['id']}", "teacher").get_json()


def test_pages_and_api_answers_with_private_data_are_not_stored_by_caches(app: Flask, api: Api, school: School) -> None:
    body = {"exercise_id": SHIFT, "answer": ANSWER, "assignment_id": school.open_assignment}
    submission_id = api.post("/submissions", "alice", body).get_json()["id"]
    for path in (
        "/me",
        f"/submissions/{submission_id}",
        "/submissions",
        f"/assignments/{school.open_assignment}/progress",
        f"/exercises/{SHIFT}/variant",
    ):
        response = api.get(path, "alice")
        assert response.status_code == 200 and "no-store" in response.headers.get("Cache-Control", ""), path
    client = app.test_client()
    sign_in(client, "alice")
    for path in (
        "/courses",
        f"/assignments/{school.open_assignment}",
        f"/assignments/{school.open_assignment}/exercises/{SHIFT}",
        "/submissions",
        f"/submissions/{submission_id}",
    ):
        response = client.get(path)
        assert response.status_code == 200 and "no-store" in response.headers.get("Cache-Control", ""), path
    # Public documents stay cacheable.
    assert "no-store" not in app.test_client().get("/api/v1/openapi.json").headers.get("Cache-Control", "")


def test_a_session_cookie_replayed_after_sign_out_is_refused(app: Flask, school: School) -> None:
    """Flask keeps the session in the signed cookie itself; signing out must still end a copy of it."""
    browser = app.test_client()
    csrf = sign_in(browser, "alice")
    cookie = browser.get_cookie("session")
    assert cookie is not None
    other_device = app.test_client()
    sign_in(other_device, "alice")
    assert browser.post("/logout", data={"csrf_token": csrf}).status_code == 302
    replay = app.test_client()
    replay.set_cookie("session", cookie.value)
    assert replay.get("/api/v1/me").status_code == 401
    assert replay.get("/courses").status_code == 302  # back to the sign-in page
    assert other_device.get("/api/v1/me").status_code == 401  # signing out ends every earlier session
    fresh = app.test_client()
    sign_in(fresh, "alice")  # and signing in again works
    assert fresh.get("/api/v1/me").get_json()["username"] == "alice"


def test_passwords_cannot_be_guessed_at_speed(app: Flask, school: School) -> None:
    client = app.test_client()
    token = CSRF_META.search(client.get("/login").get_data(as_text=True))
    assert token

    def attempt(username: str, password: str) -> int:
        return client.post(
            "/login", data={"username": username, "password": password, "csrf_token": token.group(1)}
        ).status_code

    assert [attempt("alice", f"guess-{n}") for n in range(10)] == [401] * 10
    blocked = client.post("/login", data={"username": "Alice ", "password": PASSWORD, "csrf_token": token.group(1)})
    assert blocked.status_code == 429  # even the right password is not checked until the window passes
    assert "密码错误次数过多" in blocked.get_data(as_text=True)
    assert attempt("bob", PASSWORD) == 302  # other people sign in as usual


def test_students_see_that_grading_failed_not_the_exception(app: Flask, api: Api, school: School) -> None:
    # Rows written here, not through the API: no task message, so no worker grades them behind the test's back.
    internal = "gave up after 3 attempts (worker lost, timed out or failed): KeyError: 'table' in /srv/grader"
    with app.app_context(), get_db(app).session() as session:
        user_id = school.user_ids["alice"]
        failed = Submission(
            user_id=user_id,
            exercise_id=SHIFT,
            seed=seed_for(session, user_id, SHIFT),
            lang="en",
            raw_answer=ANSWER,
            parsed_answer=None,
            assignment_id=school.practice_assignment,
            status=SubmissionStatus.ERROR,
            error_message=internal,
            attempts=3,
            max_attempts=3,
            created_at=utcnow(),
            queued_at=utcnow(),
            finished_at=utcnow(),
        )
        session.add(failed)
        session.commit()
        submission_id = failed.id
    seen = api.get(f"/submissions/{submission_id}", "alice").get_json()
    assert seen["status"] == "error" and "KeyError" not in seen["error_message"]
    assert "does not count" in seen["error_message"]
    assert api.get(f"/submissions/{submission_id}", "teacher").get_json()["error_message"] == internal
    client = app.test_client()
    sign_in(client, "alice")
    history = client.get("/submissions").get_data(as_text=True)
    assert "KeyError" not in history and FEEDBACK_CELL.findall(history) == [t("exercise.grading_error", "zh")]
    assert "不计入次数" in t("exercise.grading_error", "zh")  # the pages say what the API says
    # A failed try that will be retried (back to queued, message kept) is not "failed, does not count": it counts.
    with app.app_context(), get_db(app).session() as session:
        session.execute(
            update(Submission)
            .where(Submission.id == submission_id)
            .values(status=SubmissionStatus.QUEUED, finished_at=None)
        )
        session.commit()
    again = api.get(f"/submissions/{submission_id}", "alice").get_json()
    assert again["status"] == "queued" and again["error_message"] is None
    assert FEEDBACK_CELL.findall(client.get("/submissions").get_data(as_text=True)) == ["—"]
