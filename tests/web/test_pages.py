"""Server-side tests of the student pages: access rules, CSRF, plain-form submitting, language, answer keys."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from html import escape as html_escape

from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import func, select, update

from exercises import api as engine
from grader.extensions import get_db
from grader.grading.variant_seeds import seed_for
from grader.models import (
    AnswerKeyPolicy,
    Assignment,
    Course,
    Enrolment,
    EnrolmentRole,
    Submission,
    SubmissionStatus,
    User,
    utcnow,
)
from grader.security import issue_token

SHIFT = "ch13.shift-pairs"
Login = Callable[[FlaskClient, str], str]
PageCsrf = Callable[[str], str]


def _assignment_id(app: Flask, prefix: str) -> int:
    """The id of the demo assignment whose English title starts with ``prefix``."""
    with app.app_context(), get_db(app).session() as session:
        return session.scalars(select(Assignment.id).where(Assignment.title_en.startswith(prefix))).one()


def _other_course_assignment(app: Flask) -> int:
    """An assignment in a course no demo student is enrolled in."""
    with app.app_context(), get_db(app).session() as session:
        course = Course(code="other", title="Other course")
        course.assignments.append(Assignment(title_zh="别的", title_en="Other", exercise_ids=[SHIFT]))
        session.add(course)
        session.commit()
        return course.assignments[0].id


def _submission_count(app: Flask) -> int:
    with app.app_context(), get_db(app).session() as session:
        return session.scalar(select(func.count(Submission.id))) or 0


def test_anonymous_visitors_are_sent_to_login(client: FlaskClient) -> None:
    response = client.get("/courses")
    assert response.status_code == 302 and response.location.startswith("/login?next=/courses")


def test_wrong_password_is_refused_and_right_one_signs_in(
    client: FlaskClient, login: Login, page_csrf: PageCsrf
) -> None:
    token = page_csrf(client.get("/login").get_data(as_text=True))
    refused = client.post("/login", data={"username": "student1", "password": "nope", "csrf_token": token})
    assert refused.status_code == 401
    assert "用户名或密码不正确" in refused.get_data(as_text=True)
    login(client, "student1")
    assert "demo-seq2seq" in client.get("/courses").get_data(as_text=True)


def test_login_next_does_not_redirect_off_site(client: FlaskClient, page_csrf: PageCsrf) -> None:
    token = page_csrf(client.get("/login").get_data(as_text=True))
    response = client.post(
        "/login",
        data={"username": "student1", "password": "demo-student1", "csrf_token": token, "next": "//evil.example/x"},
    )
    assert response.location == "/courses"


def test_student_cannot_open_another_courses_assignment(app: Flask, client: FlaskClient, login: Login) -> None:
    other = _other_course_assignment(app)
    token = login(client, "student1")
    assert client.get(f"/assignments/{other}").status_code == 404
    assert client.get(f"/assignments/{other}/exercises/{SHIFT}").status_code == 404
    posted = client.post(f"/assignments/{other}/exercises/{SHIFT}", data={"csrf_token": token, "answer.pairs": "x"})
    assert posted.status_code == 404
    assert _submission_count(app) == 0


def test_exercise_outside_the_assignment_is_404(app: Flask, client: FlaskClient, login: Login) -> None:
    ch13 = _assignment_id(app, "Chapter 13")
    login(client, "student1")
    assert client.get(f"/assignments/{ch13}/exercises/ch09.rnn-step").status_code == 404
    assert client.get(f"/assignments/{ch13}/exercises/no.such").status_code == 404


def test_student_cannot_read_another_students_submission(app: Flask, login: Login) -> None:
    ch13 = _assignment_id(app, "Chapter 13")
    first, second = app.test_client(), app.test_client()
    token = login(first, "student1")
    made = first.post(
        f"/assignments/{ch13}/exercises/{SHIFT}",
        data={
            "csrf_token": token,
            "answer.pairs": "BOS→x",
            "answer.bos_scored": "否",
            "answer.eos_scored": "是",
            "answer.scored_count": "1",
        },
    )
    assert made.status_code == 302
    own = made.location
    assert first.get(own).status_code == 200
    login(second, "student2")
    assert second.get(own).status_code == 404


def test_posts_without_csrf_token_are_refused(app: Flask, client: FlaskClient, login: Login) -> None:
    ch13 = _assignment_id(app, "Chapter 13")
    client.get("/login")
    assert client.post("/login", data={"username": "student1", "password": "demo-student1"}).status_code == 400
    login(client, "student1")
    for path in ("/logout", "/lang", f"/assignments/{ch13}/exercises/{SHIFT}", "/lab/runs"):
        response = client.post(path, data={"csrf_token": "forged", "lang": "en", "answer.scored_count": "4"})
        assert response.status_code == 400, path
        assert "CSRF" in response.get_data(as_text=True)
    assert _submission_count(app) == 0
    assert client.get("/courses").status_code == 200  # still signed in: the logout was refused


def test_cookie_authenticated_api_posts_need_the_csrf_header(app: Flask, client: FlaskClient, login: Login) -> None:
    token = login(client, "student1")
    body = {"exercise_id": SHIFT, "answer": {"scored_count": "4"}, "lang": "zh"}
    refused = client.post("/api/v1/validate", json=body)
    assert refused.status_code == 403 and refused.get_json()["error"]["code"] == "csrf_failed"
    assert client.post("/api/v1/validate", json=body, headers={"X-CSRF-Token": token}).status_code == 200


def test_bearer_token_api_posts_need_no_csrf_header(app: Flask) -> None:
    with app.app_context(), get_db(app).session() as session:
        user = session.scalars(select(User).where(User.username == "student1")).one()
        raw = issue_token(session, user, name="test")
        session.commit()
    body = {"exercise_id": SHIFT, "answer": {"scored_count": "4"}, "lang": "zh"}
    response = app.test_client().post("/api/v1/validate", json=body, headers={"Authorization": f"Bearer {raw}"})
    assert response.status_code == 200


def test_unreadable_plain_form_answer_uses_no_attempt(app: Flask, client: FlaskClient, login: Login) -> None:
    ch13 = _assignment_id(app, "Chapter 13")
    token = login(client, "student1")
    response = client.post(
        f"/assignments/{ch13}/exercises/{SHIFT}",
        data={
            "csrf_token": token,
            "answer.pairs": "BOS→x",
            "answer.bos_scored": "否",
            "answer.eos_scored": "是",
            "answer.scored_count": "4x",
        },
    )
    html = response.get_data(as_text=True)
    assert response.status_code == 422
    assert "不会消耗提交次数" in html and 'aria-invalid="true"' in html
    assert "剩余 5/5 次" in html
    assert _submission_count(app) == 0


def test_plain_form_submit_queues_a_submission(app: Flask, client: FlaskClient, login: Login) -> None:
    ch13 = _assignment_id(app, "Chapter 13")
    token = login(client, "student1")
    response = client.post(
        f"/assignments/{ch13}/exercises/{SHIFT}",
        data={
            "csrf_token": token,
            "answer.pairs": "BOS→x",
            "answer.bos_scored": "否",
            "answer.eos_scored": "是",
            "answer.scored_count": "4",
            "idempotency_key": "k1",
        },
    )
    assert response.status_code == 302 and response.location.startswith("/submissions/")
    page = client.get(response.location).get_data(as_text=True)
    assert "排队中" in page and 'http-equiv="refresh"' in page
    assert _submission_count(app) == 1
    assert "剩余 4/5 次" in client.get(f"/assignments/{ch13}/exercises/{SHIFT}").get_data(as_text=True)


def test_language_defaults_to_chinese_and_the_english_switch_sticks(client: FlaskClient, login: Login) -> None:
    token = login(client, "student1")
    assert "我的课程" in client.get("/courses").get_data(as_text=True)
    switched = client.post("/lang", data={"csrf_token": token, "lang": "en", "next": "/submissions"})
    assert switched.status_code == 302 and switched.location == "/submissions"
    page = client.get("/courses").get_data(as_text=True)
    assert '<html lang="en">' in page and "My courses" in page and "我的课程" not in page


def test_answer_key_hidden_before_due_and_shown_when_policy_allows(
    app: Flask, client: FlaskClient, login: Login
) -> None:
    ch13, l03 = _assignment_id(app, "Chapter 13"), _assignment_id(app, "Lesson 3")
    login(client, "student1")
    hidden = client.get(f"/assignments/{ch13}/exercises/{SHIFT}").get_data(as_text=True)
    assert "参考答案将在截止后" in hidden and '<dl class="answer-key">' not in hidden
    shown = client.get(f"/assignments/{l03}/exercises/l03.concept-check").get_data(as_text=True)
    assert '<dl class="answer-key">' in shown
    with app.app_context(), get_db(app).session() as session:
        session.get_one(Assignment, ch13).due_at = utcnow() - timedelta(minutes=1)
        session.commit()
    closed = client.get(f"/assignments/{ch13}/exercises/{SHIFT}").get_data(as_text=True)
    assert '<dl class="answer-key">' in closed and "作业已截止" in closed


def test_after_attempts_policy_shows_key_once_attempts_run_out(app: Flask, client: FlaskClient, login: Login) -> None:
    ch13 = _assignment_id(app, "Chapter 13")
    with app.app_context(), get_db(app).session() as session:
        assignment = session.get_one(Assignment, ch13)
        assignment.attempts_allowed, assignment.answer_key_policy = 1, AnswerKeyPolicy.AFTER_ATTEMPTS
        session.commit()
    token = login(client, "student1")
    url = f"/assignments/{ch13}/exercises/{SHIFT}"
    assert '<dl class="answer-key">' not in client.get(url).get_data(as_text=True)
    client.post(
        url,
        data={
            "csrf_token": token,
            "answer.pairs": "BOS→x",
            "answer.bos_scored": "否",
            "answer.eos_scored": "是",
            "answer.scored_count": "1",
        },
    )
    queued = client.get(url).get_data(as_text=True)
    # Not while the last attempt is queued: it may still end as an error, which gives the attempt back.
    assert '<dl class="answer-key">' not in queued and "提交次数已用完" in queued
    with app.app_context(), get_db(app).session() as session:
        session.execute(
            update(Submission)
            .where(Submission.assignment_id == ch13)
            .values(status=SubmissionStatus.GRADED, score=0.0, finished_at=utcnow())
        )
        session.commit()
    page = client.get(url).get_data(as_text=True)
    assert '<dl class="answer-key">' in page and "提交次数已用完" in page


def test_exercise_page_renders_probability_table_with_candidates_as_columns(
    app: Flask, client: FlaskClient, login: Login
) -> None:
    ch13 = _assignment_id(app, "Chapter 13")
    login(client, "student1")
    html = client.get(f"/assignments/{ch13}/exercises/ch13.greedy-decode").get_data(as_text=True)
    assert '<th scope="col">上一个 token</th>' in html and '<th scope="col">EOS</th>' in html
    assert '<th scope="row">BOS</th>' in html
    assert 'for="f-tokens"' in html and 'id="f-tokens-hint"' in html


def test_lab_endpoints_check_parameters_and_queue_a_run(client: FlaskClient, login: Login) -> None:
    token = login(client, "student1")
    headers = {"X-CSRF-Token": token}
    for body, field in (
        ({"ds": [48], "t_min": 1, "t_max": 10}, "ds"),
        ({"ds": [], "t_max": 10}, "ds"),
        ({"ds": [32], "t_min": 5, "t_max": 65}, "t_max"),
        ({"ds": [32], "t_min": 9, "t_max": 9}, "t_max"),
        ({"ds": [32], "t_min": 0, "t_max": 9}, "t_min"),
        ({"ds": [32], "t_min": "x", "t_max": 9}, "t_min"),
    ):
        bad = client.post("/lab/runs", json=body, headers=headers)
        assert bad.status_code == 422, body
        error = bad.get_json()["error"]  # the API's error shape, naming the field to fix
        assert error["code"] == "invalid_parameters" and error["field"] == field and error["message"], body
    started = client.post("/lab/runs", json={"ds": [32, 64], "t_min": 1, "t_max": 10}, headers=headers)
    assert started.status_code == 202
    run_id = started.get_json()["id"]
    polled = client.get(f"/lab/runs/{run_id}").get_json()
    # A worker may already have picked the run up; what matters here is that it exists with these parameters.
    assert polled["status"] in ("queued", "running", "done") and polled["params"]["ds"] == [32, 64]
    missing = client.get("/lab/runs/999999")
    assert missing.status_code == 404 and missing.get_json()["error"]["code"] == "not_found"


def test_form_submissions_share_the_per_user_rate_limit(app: Flask, client: FlaskClient, login: Login) -> None:
    app.config["SUBMISSION_RATE_LIMIT"] = "1/minute"
    ch13 = _assignment_id(app, "Chapter 13")
    token = login(client, "student1")
    form = {
        "csrf_token": token,
        "answer.pairs": "BOS→x",
        "answer.bos_scored": "否",
        "answer.eos_scored": "是",
        "answer.scored_count": "1",
    }
    assert client.post(f"/assignments/{ch13}/exercises/{SHIFT}", data=form).status_code == 302
    limited = client.post(f"/assignments/{ch13}/exercises/{SHIFT}", data=form)
    assert limited.status_code == 429
    assert "提交太频繁" in limited.get_data(as_text=True)  # the page's language (Chinese by default)
    assert _submission_count(app) == 1


def test_old_feedback_follows_the_page_language(app: Flask, client: FlaskClient, login: Login) -> None:
    ch13 = _assignment_id(app, "Chapter 13")
    token = login(client, "student1")
    with app.app_context(), get_db(app).session() as session:
        student = session.scalars(select(User).where(User.username == "student1")).one()
        seed = seed_for(session, student.id, SHIFT)
        answer = {"pairs": "BOS→x", "bos_scored": "是", "eos_scored": "是", "scored_count": "1"}
        result = engine.grade(SHIFT, seed, answer, "zh")
        graded = Submission(
            user_id=student.id,
            assignment_id=ch13,
            exercise_id=SHIFT,
            seed=seed,
            lang="zh",
            raw_answer=answer,
            status=result["status"],
            score=result["score"],
            parts=result["parts"],
            errors=result["errors"],
            engine_version=result["engine_version"],
        )
        session.add(graded)
        session.commit()
        submission_id = graded.id
    english = engine.grade(SHIFT, seed, answer, "en")["parts"]["bos_scored"]["feedback"]
    chinese = result["parts"]["bos_scored"]["feedback"]
    assert chinese in client.get(f"/submissions/{submission_id}").get_data(as_text=True)
    client.post("/lang", data={"csrf_token": token, "lang": "en", "next": "/submissions"})
    for page in (f"/submissions/{submission_id}", f"/assignments/{ch13}/exercises/{SHIFT}"):
        html = client.get(page).get_data(as_text=True)
        assert html_escape(english) in html and html_escape(chinese) not in html, page

    first_wrong = next(name for name, part in result["parts"].items() if not part["correct"])
    history = client.get("/submissions").get_data(as_text=True)
    english_first = engine.grade(SHIFT, seed, answer, "en")["parts"][first_wrong]["feedback"]
    assert html_escape(english_first) in history
    assert html_escape(result["parts"][first_wrong]["feedback"]) not in history


def test_signing_in_lands_teachers_on_their_dashboard_and_students_on_their_courses(
    client: FlaskClient, page_csrf: PageCsrf
) -> None:
    def sign_in(username: str) -> str:
        token = page_csrf(client.get("/login").get_data(as_text=True))
        response = client.post(
            "/login", data={"username": username, "password": f"demo-{username}", "csrf_token": token}
        )
        assert response.status_code == 302
        return response.location

    assert sign_in("teacher") == "/teach/"
    assert client.get("/login").location == "/teach/"  # already signed in
    client.post("/logout", data={"csrf_token": page_csrf(client.get("/teach/").get_data(as_text=True))})
    assert sign_in("student1") == "/courses"


def test_pages_may_be_framed_only_by_us_and_the_lms_origins_configured(app: Flask, client: FlaskClient) -> None:
    scripts = "default-src 'self'; script-src 'self'; object-src 'none'; base-uri 'self'"
    assert client.get("/login").headers["Content-Security-Policy"] == f"frame-ancestors 'self'; {scripts}"
    assert "Content-Security-Policy" not in client.get("/api/v1/openapi.json").headers  # JSON is not framed
    app.config["GRADER_FRAME_ANCESTORS"] = "https://moodle.example.edu https://canvas.example.edu"
    policy = client.get("/login").headers["Content-Security-Policy"]
    assert policy == f"frame-ancestors 'self' https://moodle.example.edu https://canvas.example.edu; {scripts}"


def test_a_teacher_enrolled_as_a_student_elsewhere_sees_no_key_there(
    app: Flask, client: FlaskClient, login: Login
) -> None:
    ch13, other = _assignment_id(app, "Chapter 13"), _other_course_assignment(app)
    with app.app_context(), get_db(app).session() as session:
        teacher = session.scalars(select(User).where(User.username == "teacher")).one()
        assignment = session.get_one(Assignment, other)
        assignment.due_at, assignment.answer_key_policy = utcnow() + timedelta(days=7), AnswerKeyPolicy.AFTER_DUE
        session.add(Enrolment(course_id=assignment.course_id, user_id=teacher.id, role=EnrolmentRole.STUDENT))
        session.commit()
    login(client, "teacher")
    taught = client.get(f"/assignments/{ch13}/exercises/{SHIFT}").get_data(as_text=True)
    assert '<dl class="answer-key">' in taught  # previewing a course they teach: the key, as before
    studied = client.get(f"/assignments/{other}/exercises/{SHIFT}")
    assert studied.status_code == 200
    assert '<dl class="answer-key">' not in studied.get_data(as_text=True)
