"""Archiving a course (read-only for students: web and API submits refused) and deleting assignments nobody used."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest
from flask.testing import FlaskClient
from sqlalchemy import func, select
from sqlalchemy.orm import Session
from werkzeug.test import TestResponse

from grader.grading import policy
from grader.grading.refusals import SubmissionRejected
from grader.models import Assignment, Course, Role, Submission, utcnow
from grader.security import issue_token
from tests.factories import BOOK_ANSWER, EXERCISE, UNREADABLE_ANSWER, make_assignment, make_taught_assignment, make_user

Login = Callable[[str], tuple[FlaskClient, str]]


def _archive(session: Session, course_id: int, archived: bool = True) -> None:
    """Set the course's archived state directly."""
    course = session.get_one(Course, course_id)
    course.archived_at = utcnow() if archived else None
    session.commit()


def _archived(session: Session, course_id: int) -> bool:
    session.expire_all()
    return session.get_one(Course, course_id).archived


def _submissions(session: Session) -> int:
    session.expire_all()
    return session.scalar(select(func.count(Submission.id))) or 0


def _form_answer(token: str) -> dict[str, str]:
    """The plain exercise form with the book answer."""
    return {"csrf_token": token, **{f"answer.{name}": value for name, value in BOOK_ANSWER.items()}}


# --- Archiving and unarchiving -------------------------------------------------------------------------------------


def test_archive_asks_first_then_lists_the_course_apart(login: Login, session: Session) -> None:
    assignment, teacher, _ = make_taught_assignment(session)
    client, token = login(teacher.username)
    url = f"/teach/courses/{assignment.course_id}/archive"
    asked = client.post(url, data={"csrf_token": token})
    page = asked.get_data(as_text=True)
    assert asked.status_code == 200 and 'name="confirm" value="yes"' in page and "Yes, archive it" in page
    assert not _archived(session, assignment.course_id)
    assert client.post(url, data={"csrf_token": token, "confirm": "yes"}).status_code == 302
    assert _archived(session, assignment.course_id)
    home = client.get("/teach/").get_data(as_text=True)
    code = session.get_one(Course, assignment.course_id).code
    assert "Archived" in home
    assert f'data-course="{code}"' in home.split('id="archived-courses"', 1)[1]
    assert f'data-course="{code}"' not in home.split('id="archived-courses"', 1)[0]
    dashboard = client.get(f"/teach/courses/{assignment.course_id}").get_data(as_text=True)
    assert 'id="archived-banner"' in dashboard
    settings = client.get(f"/teach/courses/{assignment.course_id}/settings").get_data(as_text=True)
    assert 'id="unarchive-course"' in settings
    back = f"/teach/courses/{assignment.course_id}/unarchive"
    assert "Yes, unarchive it" in client.post(back, data={"csrf_token": token}).get_data(as_text=True)
    assert _archived(session, assignment.course_id)
    assert client.post(back, data={"csrf_token": token, "confirm": "yes"}).status_code == 302
    assert not _archived(session, assignment.course_id)
    assert 'id="archived-courses"' not in client.get("/teach/").get_data(as_text=True)


def test_archive_pages_in_chinese(login: Login, session: Session) -> None:
    assignment, teacher, _ = make_taught_assignment(session)
    client, token = login(teacher.username)
    client.set_cookie("lang", "zh")
    page = client.post(f"/teach/courses/{assignment.course_id}/archive", data={"csrf_token": token})
    assert "确认归档" in page.get_data(as_text=True)


def test_another_teacher_or_a_student_cannot_archive_or_delete(login: Login, session: Session) -> None:
    assignment, _, student = make_taught_assignment(session)
    stranger = make_user(session, Role.TEACHER)
    for who in (stranger, student):
        client, token = login(who.username)
        for action in ("archive", "unarchive"):
            for data in ({"csrf_token": token}, {"csrf_token": token, "confirm": "yes"}):
                response = client.post(f"/teach/courses/{assignment.course_id}/{action}", data=data)
                assert response.status_code == 404, (who.username, action)
                if action == "archive":
                    assert not _archived(session, assignment.course_id)
        response = client.post(
            f"/teach/assignments/{assignment.id}/delete", data={"csrf_token": token, "confirm": "yes"}
        )
        assert response.status_code == 404
    _archive(session, assignment.course_id)
    client, token = login(stranger.username)
    assert (
        client.post(
            f"/teach/courses/{assignment.course_id}/unarchive", data={"csrf_token": token, "confirm": "yes"}
        ).status_code
        == 404
    )
    assert _archived(session, assignment.course_id)
    session.expire_all()
    assert session.get(Assignment, assignment.id) is not None


# --- Students: results yes, submitting no ---------------------------------------------------------------------------


def test_policy_refuses_submitting_to_an_archived_course(session: Session) -> None:
    assignment, _, student = make_taught_assignment(session)
    policy.check_can_submit(session, student.id, assignment, EXERCISE, utcnow())
    _archive(session, assignment.course_id)
    with pytest.raises(SubmissionRejected) as refused:
        policy.check_can_submit(session, student.id, assignment, EXERCISE, utcnow())
    assert refused.value.code == "course_archived"
    assert "archived" in refused.value.message.en and "归档" in refused.value.message.zh


@pytest.mark.parametrize(("lang", "words"), [("en", "This course is archived"), ("zh", "这门课程已归档")])
def test_plain_form_submit_to_an_archived_course_is_refused(
    login: Login, session: Session, lang: str, words: str
) -> None:
    assignment, _, student = make_taught_assignment(session)
    _archive(session, assignment.course_id)
    client, token = login(student.username)
    client.set_cookie("lang", lang)
    url = f"/assignments/{assignment.id}/exercises/{EXERCISE}"
    shown = client.get(url).get_data(as_text=True)
    assert words in shown and 'id="archived-notice"' in shown
    assert 'id="submit-button" disabled' in shown
    response = client.post(url, data=_form_answer(token))
    assert response.status_code == 403
    assert words in response.get_data(as_text=True)
    assert _submissions(session) == 0


def _archived_for_the_api(login: Login, session: Session) -> tuple[Assignment, FlaskClient, dict[str, str]]:
    """An assignment in a course just archived, a student's client and the headers of their API token."""
    assignment, _, student = make_taught_assignment(session)
    bearer = issue_token(session, student, name="lms")
    session.commit()
    _archive(session, assignment.course_id)
    client, _ = login(student.username)
    return assignment, client, {"Authorization": f"Bearer {bearer}"}


def _api_submit(
    client: FlaskClient, headers: dict[str, str], assignment: Assignment, answer: dict[str, str]
) -> TestResponse:
    return client.post(
        "/api/v1/submissions",
        headers=headers,
        content_type="application/json",
        data=json.dumps({"exercise_id": EXERCISE, "assignment_id": assignment.id, "answer": answer, "lang": "en"}),
    )


def test_api_submit_to_an_archived_course_is_a_json_refusal(login: Login, session: Session) -> None:
    assignment, client, headers = _archived_for_the_api(login, session)
    for answer in (BOOK_ANSWER, UNREADABLE_ANSWER):  # refused whether or not the answer reads
        response = _api_submit(client, headers, assignment, answer)
        assert response.status_code == 403, response.get_data(as_text=True)
        assert response.mimetype == "application/json"
        error = response.get_json()["error"]
        assert error["code"] == "course_archived" and "archived" in error["message"]
        assert error["field"] == "assignment_id"
    assert _submissions(session) == 0
    _archive(session, assignment.course_id, archived=False)
    again = _api_submit(client, headers, assignment, BOOK_ANSWER)
    assert again.status_code == 202, again.get_data(as_text=True)


def test_students_see_archived_courses_apart_with_their_results(login: Login, session: Session) -> None:
    assignment, _, student = make_taught_assignment(session)
    open_one = make_assignment(session, [student])
    _archive(session, assignment.course_id)
    client, _ = login(student.username)
    courses = client.get("/courses").get_data(as_text=True)
    active, archived = courses.split('id="archived-courses"', 1)
    # The heading ids, quoted: a bare "course-1" would also be found inside a course code such as course-163009b202.
    assert f'id="course-{open_one.course_id}"' in active and f'id="course-{assignment.course_id}"' not in active
    assert f'id="course-{assignment.course_id}"' in archived and "Archived courses" in archived
    page = client.get(f"/assignments/{assignment.id}")
    assert page.status_code == 200 and 'id="archived-notice"' in page.get_data(as_text=True)


def test_dashboards_exports_and_regrades_keep_working(login: Login, session: Session) -> None:
    assignment, teacher, _ = make_taught_assignment(session)
    _archive(session, assignment.course_id)
    client, token = login(teacher.username)
    assert client.get(f"/teach/courses/{assignment.course_id}").status_code == 200
    assert client.get(f"/teach/assignments/{assignment.id}").status_code == 200
    assert client.get(f"/teach/courses/{assignment.course_id}/roster").status_code == 200
    export = client.post(f"/teach/assignments/{assignment.id}/export/grades.csv", data={"csrf_token": token})
    assert export.status_code == 200 and export.mimetype == "text/csv"
    regrade = client.post(f"/teach/assignments/{assignment.id}/regrade", data={"csrf_token": token})
    assert regrade.status_code == 302 and "/teach/regrades/" in regrade.headers["Location"]


# --- Deleting an assignment ----------------------------------------------------------------------------------------


def test_an_assignment_without_submissions_is_deleted_after_asking(login: Login, session: Session) -> None:
    assignment, teacher, _ = make_taught_assignment(session)
    client, token = login(teacher.username)
    assignment_id, course_id = assignment.id, assignment.course_id
    url = f"/teach/assignments/{assignment_id}/delete"
    asked = client.post(url, data={"csrf_token": token})
    assert asked.status_code == 200 and "Yes, delete it" in asked.get_data(as_text=True)
    session.expire_all()
    assert session.get(Assignment, assignment_id) is not None
    done = client.post(url, data={"csrf_token": token, "confirm": "yes"})
    assert done.status_code == 302 and done.headers["Location"].endswith(f"/teach/courses/{course_id}")
    session.expire_all()
    assert session.get(Assignment, assignment_id) is None
    assert "Deleted the assignment" in client.get(f"/teach/courses/{course_id}").get_data(as_text=True)
    assert client.post(url, data={"csrf_token": token, "confirm": "yes"}).status_code == 404


def test_an_assignment_with_submissions_is_kept_and_the_page_says_why(login: Login, session: Session) -> None:
    assignment, teacher, student = make_taught_assignment(session)
    session.add(
        Submission(
            user_id=student.id,
            assignment_id=assignment.id,
            exercise_id=EXERCISE,
            seed=0,
            lang="en",
            raw_answer=BOOK_ANSWER,
            status="invalid",
        )
    )
    session.commit()
    client, token = login(teacher.username)
    for data in ({"csrf_token": token}, {"csrf_token": token, "confirm": "yes"}):
        response = client.post(f"/teach/assignments/{assignment.id}/delete", data=data)
        page = response.get_data(as_text=True)
        assert response.status_code == 409
        assert "cannot be deleted" in page and "archive the course instead" in page
        assert 'name="confirm"' not in page
        assert f"/teach/courses/{assignment.course_id}/settings" in page
    session.expire_all()
    assert session.get(Assignment, assignment.id) is not None
    client.set_cookie("lang", "zh")
    assert "不能删除" in client.post(f"/teach/assignments/{assignment.id}/delete", data={"csrf_token": token}).get_data(
        as_text=True
    )


def test_the_api_says_which_courses_are_archived_and_their_time_zone(login: Login, session: Session) -> None:
    assignment, client, headers = _archived_for_the_api(login, session)
    courses = client.get("/api/v1/courses", headers=headers).get_json()["courses"]
    [course] = [c for c in courses if c["id"] == assignment.course_id]
    assert course["archived_at"] is not None and course["time_zone"] == "UTC"
