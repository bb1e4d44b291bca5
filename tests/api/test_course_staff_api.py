"""Course staff through the API: which part (owner, co-teacher, TA, a teacher of another course, a student) may call
which course route, what the staff routes answer, and that a staff member's student-role token is a student's."""

from __future__ import annotations

import json
from typing import Any

import pytest
from flask import Flask
from sqlalchemy import select
from werkzeug.test import TestResponse

from grader.extensions import get_db
from grader.models import CourseStaff, Role, StaffRole, User
from grader.security import issue_token
from tests.factories import make_graded

from .support import Api, School, assert_error

WHO = ("teacher", "co_teacher", "ta", "teacher_b", "alice")
STAFF = {"teacher", "co_teacher", "ta"}
MANAGERS = {"teacher", "co_teacher"}


@pytest.fixture
def staffed(api_app: Flask, school: School) -> dict[str, Any]:
    """Course A gains a co-teacher and a TA (teacher accounts, with tokens), a TA student-role token, a teacher not
    yet on any staff ("newcomer"), a student account ("pupil"), and one submission by alice."""
    with get_db(api_app).session() as session:
        people = {
            name: User(username=name, display_name=name.title(), role=role)
            for name, role in [
                ("co_teacher", Role.TEACHER),
                ("ta", Role.TEACHER),
                ("newcomer", Role.TEACHER),
                ("pupil", Role.STUDENT),
            ]
        }
        session.add_all(people.values())
        session.flush()
        session.add_all(
            [
                CourseStaff(course_id=school.course_a, user_id=people["co_teacher"].id, role=StaffRole.CO_TEACHER),
                CourseStaff(course_id=school.course_a, user_id=people["ta"].id, role=StaffRole.TA),
            ]
        )
        for name in ("co_teacher", "ta"):
            school.tokens[name] = issue_token(session, people[name], name="test")
        school.tokens["ta_as_student"] = issue_token(session, people["ta"], name="low", role=Role.STUDENT)
        session.commit()
        submission = make_graded(session, school.open_assignment, school.user_ids["alice"], "ch13.shift-pairs")
        return {"submission": submission.id}


def send(api: Api, method: str, path: str, who: str, body: Any = None) -> TestResponse:
    """``method`` /api/v1<path> as ``who`` with a JSON ``body`` (if any)."""
    data = None if body is None else json.dumps(body)
    return api.client.open(
        f"/api/v1{path}", method=method, data=data, content_type="application/json", headers=api.headers(who)
    )


def calls(school: School) -> list[tuple[str, str, Any, set[str]]]:
    """(method, path, body, the parts allowed) for the course routes of course A."""
    a, c, alice, bob = school.open_assignment, school.course_a, school.user_ids["alice"], school.user_ids["bob"]
    return [
        ("GET", f"/courses/{c}/students", None, STAFF),
        ("GET", f"/assignments/{a}/grades", None, STAFF),
        ("GET", f"/assignments/{a}/progress?student={bob}", None, STAFF),
        ("GET", f"/assignments/{a}/extensions", None, STAFF),
        ("PUT", f"/assignments/{a}/extensions/{alice}", {"extra_attempts": 1, "reason": "ill"}, STAFF),
        ("GET", f"/assignments/{a}/overrides", None, STAFF),
        ("PUT", f"/assignments/{a}/overrides/{alice}", {"score": 0.5, "reason": "checked by hand"}, STAFF),
        ("GET", f"/courses/{c}/staff", None, STAFF),
        ("GET", f"/courses/{c}/staff/ta", None, STAFF),
        ("PUT", f"/courses/{c}/staff/newcomer", {"role": "ta"}, MANAGERS),
        ("POST", f"/courses/{c}/roster", {"students": [{"username": "bob"}], "dry_run": True}, MANAGERS),
    ]


@pytest.mark.parametrize("who", WHO)
def test_each_part_may_call_exactly_what_its_part_allows(
    api: Api, school: School, staffed: dict[str, Any], who: str
) -> None:
    """Allowed: a 2xx. Refused: 404 to a teacher of another course (the course is not shown to exist), 403 with the
    error envelope to the course's students and to a TA asking for what a TA may not do."""
    wrong = []
    for method, path, body, allowed in calls(school):
        response = send(api, method, path, who, body)
        if who in allowed:
            if not 200 <= response.status_code < 300:
                wrong.append(f"{method} {path}: {response.status_code}, expected 2xx")
            continue
        expected = 404 if who == "teacher_b" else 403
        if response.status_code != expected:
            wrong.append(f"{method} {path}: {response.status_code}, expected {expected}")
        else:
            assert_error(response, expected, "not_found" if expected == 404 else "forbidden")
    assert wrong == []


@pytest.mark.parametrize("who", ["co_teacher", "ta"])
def test_staff_read_students_submissions_and_see_their_part_in_the_course_list(
    api: Api, school: School, staffed: dict[str, Any], who: str
) -> None:
    submission = api.get(f"/submissions/{staffed['submission']}", who)
    assert submission.status_code == 200
    assert "seed" in submission.get_json()  # staff see the seed of a student's variant
    listed = api.get(f"/submissions?course={school.course_a}", who).get_json()
    assert staffed["submission"] in [row["id"] for row in listed["submissions"]]
    roles = {row["id"]: row["role"] for row in api.get("/courses", who).get_json()["courses"]}
    assert roles == {school.course_a: who}


def test_another_course_s_teacher_reads_no_submission_of_the_course(
    api: Api, school: School, staffed: dict[str, Any]
) -> None:
    assert_error(api.get(f"/submissions/{staffed['submission']}", "teacher_b"), 404, "not_found")


def test_a_ta_acting_through_a_student_role_token_is_a_student_of_the_course(
    api: Api, school: School, staffed: dict[str, Any]
) -> None:
    assert_error(api.get(f"/courses/{school.course_a}/students", "ta_as_student"), 403, "forbidden")
    assert_error(api.get(f"/submissions/{staffed['submission']}", "ta_as_student"), 404, "not_found")
    roles = {row["id"]: row["role"] for row in api.get("/courses", "ta_as_student").get_json()["courses"]}
    assert roles == {school.course_a: "student"}


def _staff(api_app: Flask, course_id: int) -> dict[str, str]:
    with get_db(api_app).session() as session:
        rows = session.execute(
            select(User.username, CourseStaff.role)
            .join(User, User.id == CourseStaff.user_id)
            .where(CourseStaff.course_id == course_id)
        ).all()
        return {username: role for username, role in rows}


def test_put_adds_then_changes_a_role_and_delete_removes(
    api: Api, api_app: Flask, school: School, staffed: dict[str, Any]
) -> None:
    path = f"/courses/{school.course_a}/staff/newcomer"
    added = send(api, "PUT", path, "teacher", {"role": "ta"})
    assert added.status_code == 200
    body = added.get_json()
    assert (body["username"], body["role"], body["course_id"]) == ("newcomer", "ta", school.course_a)
    assert body["added_by"] == school.user_ids["teacher"]
    assert send(api, "PUT", path, "co_teacher", {"role": "co_teacher"}).get_json()["role"] == "co_teacher"
    assert api.get(path, "ta").get_json()["role"] == "co_teacher"
    assert send(api, "DELETE", path, "co_teacher").status_code == 204
    assert "newcomer" not in _staff(api_app, school.course_a)
    assert_error(api.get(path, "teacher"), 404, "not_found")
    assert_error(send(api, "DELETE", path, "teacher"), 404, "not_found")


@pytest.mark.parametrize(
    ("username", "body", "status", "code", "field"),
    [
        ("newcomer", {"role": "owner"}, 422, "invalid_value", "role"),
        ("newcomer", {"role": 1}, 422, "invalid_value", "role"),
        ("newcomer", {}, 422, "missing_field", "role"),
        ("newcomer", {"role": "ta", "extra": True}, 422, None, None),
        ("nobody-at-all", {"role": "ta"}, 404, "not_found", "username"),
        ("pupil", {"role": "ta"}, 422, "invalid_value", "username"),
        ("alice", {"role": "ta"}, 422, "invalid_value", "username"),
        ("teacher", {"role": "co_teacher"}, 422, "invalid_value", "username"),
    ],
)
def test_a_refused_put_names_the_field_and_changes_nothing(
    api: Api,
    api_app: Flask,
    school: School,
    staffed: dict[str, Any],
    username: str,
    body: dict[str, Any],
    status: int,
    code: str | None,
    field: str | None,
) -> None:
    before = _staff(api_app, school.course_a)
    response = send(api, "PUT", f"/courses/{school.course_a}/staff/{username}", "teacher", body)
    assert_error(response, status, code, field)
    assert _staff(api_app, school.course_a) == before


def test_a_put_without_a_json_body_is_a_415(api: Api, school: School, staffed: dict[str, Any]) -> None:
    response = api.client.put(
        f"/api/v1/courses/{school.course_a}/staff/newcomer", data="role=ta", headers=api.headers("teacher")
    )
    assert_error(response, 415, "unsupported_media_type")


def test_an_admin_manages_any_course_s_staff(api: Api, api_app: Flask, school: School, staffed: dict[str, Any]) -> None:
    assert send(api, "PUT", f"/courses/{school.course_b}/staff/newcomer", "admin", {"role": "ta"}).status_code == 200
    assert _staff(api_app, school.course_b) == {"newcomer": "ta"}
    assert_error(api.get(f"/courses/{school.course_b}/staff", "ta"), 404, "not_found")


@pytest.mark.parametrize("username", ["%00", "x" * 65, "%1B%5B31m"])
@pytest.mark.parametrize("method", ["GET", "PUT", "DELETE"])
def test_a_username_that_cannot_be_one_is_a_400_naming_it(
    api: Api, api_app: Flask, school: School, staffed: dict[str, Any], username: str, method: str
) -> None:
    before = _staff(api_app, school.course_a)
    response = send(api, method, f"/courses/{school.course_a}/staff/{username}", "teacher", {"role": "ta"})
    assert_error(response, 400, "invalid_parameter", "username")
    assert _staff(api_app, school.course_a) == before


@pytest.mark.parametrize("method", ["GET", "PUT", "DELETE"])
@pytest.mark.parametrize(
    "path", ["/courses/{big}/staff/ta", "/assignments/{big}/extensions/1", "/assignments/{big}/overrides/1"]
)
def test_an_id_beyond_the_id_columns_is_a_404_for_every_method(
    api: Api, staffed: dict[str, Any], method: str, path: str
) -> None:
    """Not a 405: the id is refused by the URL rule's pattern, before Werkzeug weighs the other methods' rules."""
    response = send(api, method, path.format(big=2**31), "teacher", {"role": "ta"})
    assert_error(response, 404, "not_found")
