"""The roster pages as a teacher uses them: large files, line numbers kept through confirm, one-student messages,
removing only after a confirmation, and ids too large for a row."""

from __future__ import annotations

import io
import json
import re
from collections.abc import Callable

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from grader.api import MAX_BODY_BYTES
from grader.courses.roster import MAX_ROSTER_BYTES, MAX_ROSTER_ROWS
from grader.i18n import LANG_COOKIE, t
from grader.models import ApiToken, Course, Enrolment, EnrolmentRole, Role, User
from grader.security import issue_token
from tests.factories import make_user, unique

Login = Callable[[str], tuple[FlaskClient, str]]
CONFIRM_ROW = re.compile(r'<input type="hidden" name="row" value="([^"]+)">')


def course_of(session: Session, teacher: User, *students: User) -> Course:
    """A committed course taught by ``teacher`` with ``students`` enrolled."""
    course = Course(code=unique("roster"), title="Roster course")
    course.enrolments = [
        Enrolment(user=teacher, role=EnrolmentRole.TEACHER),
        *(Enrolment(user=s, role=EnrolmentRole.STUDENT) for s in students),
    ]
    session.add(course)
    session.commit()
    return course


def upload(client: FlaskClient, token: str, course: Course, data: bytes) -> tuple[int, str]:
    """Post ``data`` as the roster file; the status and the page."""
    response = client.post(
        f"/teach/courses/{course.id}/roster/upload",
        content_type="multipart/form-data",
        data={"csrf_token": token, "file": (io.BytesIO(data), "roster.csv")},
    )
    return response.status_code, response.get_data(as_text=True)


def row_of(page: str, line: int) -> str:
    """The preview table's row for file line ``line``."""
    return page.split(f'data-line="{line}"', 1)[1].split("</tr>", 1)[0]


def big_roster(rows: int) -> bytes:
    """A roster export with a header and ``rows`` students (70 KB for 1,200 rows)."""
    lines = ["username,display_name,email"] + [
        f"stu{n:05d},Student Number {n},stu{n:05d}@students.example.edu" for n in range(1, rows + 1)
    ]
    return ("\n".join(lines) + "\n").encode()


def test_a_file_over_the_api_cap_is_previewed(session: Session, login: Login) -> None:
    """1,200 rows are about 70 KB, over the API's 64 KiB cap that is the app-wide default; the page promises 2,000."""
    teacher = make_user(session, Role.TEACHER)
    known = make_user(session, username="stu00007")
    course = course_of(session, teacher)
    client, token = login(teacher.username)
    data = big_roster(1200)
    assert MAX_BODY_BYTES < len(data) < MAX_ROSTER_BYTES
    status, page = upload(client, token, course, data)
    assert status == 200, page[:300]
    assert page.count("<tr class=") == 1200
    # Unknown usernames now get an account on confirming (issue 19): every row goes into the confirm form.
    assert "ready to enrol" in row_of(page, 8) and "new account, to enrol" in row_of(page, 1201)
    ready = CONFIRM_ROW.findall(page)
    assert len(ready) == 1200 and f"8:{known.username}" in ready


def test_a_confirm_form_of_every_row_is_accepted(session: Session, login: Login) -> None:
    """A preview of MAX_ROSTER_ROWS long usernames makes a confirm form larger than the API's cap: still read."""
    teacher = make_user(session, Role.TEACHER)
    course = course_of(session, teacher)
    client, token = login(teacher.username)
    prefix = unique("big")
    rows = [f"{n + 2}:{prefix}{'x' * (56 - len(prefix))}{n:08d}" for n in range(MAX_ROSTER_ROWS)]
    assert len("&row=".join(rows)) > MAX_BODY_BYTES
    response = client.post(f"/teach/courses/{course.id}/roster/confirm", data={"csrf_token": token, "row": rows})
    assert response.status_code == 302, response.get_data(as_text=True)[:300]
    # Every row was a new username: each got an account (issue 19; before, each was refused as unknown).
    assert (
        session.scalar(select(func.count()).select_from(User).where(User.username.startswith(prefix)))
        == MAX_ROSTER_ROWS
    )
    assert "Created 2000 account(s)." in client.get(f"/teach/courses/{course.id}/roster").get_data(as_text=True)


@pytest.mark.parametrize(
    ("lang", "text"), [("en", "The file is too large (at most 1 MiB)"), ("zh", "文件过大（最多 1 MiB）")]
)
def test_a_file_too_large_gets_a_page_in_the_teachers_language(
    session: Session, login: Login, lang: str, text: str
) -> None:
    teacher = make_user(session, Role.TEACHER)
    course = course_of(session, teacher)
    client, token = login(teacher.username)
    client.set_cookie(LANG_COOKIE, lang)
    data = big_roster(20_000)
    assert len(data) > MAX_ROSTER_BYTES
    status, page = upload(client, token, course, data)
    assert status == 413
    assert text in page and t("too_large.back", lang) in page
    assert f'href="/teach/courses/{course.id}/roster"' in page  # back to the form
    assert "Request Entity Too Large" not in page and 'rel="stylesheet"' in page


def test_other_pages_and_the_api_keep_the_64_kib_cap(app: Flask, session: Session, login: Login) -> None:
    """Only the roster's upload and confirm take more; the API's 413 is its JSON error, as before."""
    teacher = make_user(session, Role.TEACHER)
    client, token = login(teacher.username)
    response = client.post("/teach/courses", data={"csrf_token": token, "code": "big", "title": "x" * MAX_BODY_BYTES})
    assert response.status_code == 413
    assert "What was sent is too large (at most 64 KiB)." in response.get_data(as_text=True)
    raw = issue_token(session, teacher, name="api")
    session.commit()
    body = json.dumps({"exercise_id": "ch13.shift-pairs", "seed": 0, "answer": {"pairs": "x" * MAX_BODY_BYTES}})
    api = app.test_client().post(
        "/api/v1/submissions", data=body, content_type="application/json", headers={"Authorization": f"Bearer {raw}"}
    )
    assert api.status_code == 413 and api.mimetype == "application/json"
    assert api.get_json()["error"]["code"] == "payload_too_large"


def test_confirm_reports_refused_rows_at_their_line_in_the_file(session: Session, login: Login) -> None:
    """s43 is on line 5 of the file; enrolled meanwhile through the one-student form, the confirm says line 5."""
    teacher = make_user(session, Role.TEACHER)
    s41, s43 = make_user(session), make_user(session)
    course = course_of(session, teacher)
    client, token = login(teacher.username)
    messy = f"Username,Name\n\nnobody-here,X\n{s41.username},A\n{s43.username},C\n".encode()
    status, page = upload(client, token, course, messy)
    assert status == 200 and f"{s43.username}</td>" in row_of(page, 5)
    ready = CONFIRM_ROW.findall(page)
    assert ready == ["3:nobody-here", f"4:{s41.username}", f"5:{s43.username}"]  # nobody-here: a new account
    assert (
        client.post(
            f"/teach/courses/{course.id}/roster/add", data={"csrf_token": token, "username": s43.username}
        ).status_code
        == 302
    )
    response = client.post(f"/teach/courses/{course.id}/roster/confirm", data={"csrf_token": token, "row": ready})
    page = response.get_data(as_text=True)
    assert response.status_code == 422
    assert "Enrolled 2 student(s)." in page
    assert page.count("<tr class=") == 1 and "already enrolled" in row_of(page, 5)
    assert f"<td>5</td><td>{s43.username}</td>" in page


@pytest.mark.parametrize("junk", [["s41"], ["x:s41"], ["-1:s41"], ["１:s41"], ["99999999:s41"]])
def test_a_hand_made_confirm_form_is_a_bad_request(session: Session, login: Login, junk: list[str]) -> None:
    teacher = make_user(session, Role.TEACHER)
    course = course_of(session, teacher)
    client, token = login(teacher.username)
    response = client.post(f"/teach/courses/{course.id}/roster/confirm", data={"csrf_token": token, "row": junk})
    assert response.status_code == 400


@pytest.mark.parametrize(
    ("lang", "who", "message"),
    [
        ("en", "enrolled", "{name} is already enrolled."),
        ("zh", "enrolled", "{name} 已在课程中。"),
        ("en", "teacher", "{name} teaches this course and cannot be enrolled as a student."),
        ("en", "nobody", "There is no user named {name}."),
        ("en", "empty", "Enter a username."),
    ],
)
def test_one_student_refused_says_why_in_one_sentence(
    session: Session, login: Login, lang: str, who: str, message: str
) -> None:
    """No "Enrolled 0 students" and no import-preview table: just why this one username was not added."""
    teacher, s41 = make_user(session, Role.TEACHER), make_user(session)
    course = course_of(session, teacher, s41)
    client, token = login(teacher.username)
    client.set_cookie(LANG_COOKIE, lang)
    name = {"enrolled": s41.username, "teacher": teacher.username, "nobody": "nobody-here", "empty": ""}[who]
    response = client.post(f"/teach/courses/{course.id}/roster/add", data={"csrf_token": token, "username": name})
    page = response.get_data(as_text=True)
    assert response.status_code == 422
    assert f'<p class="message error" role="alert" id="add-error">{message.format(name=name)}</p>' in page
    assert t("roster.enrolled", lang, n=0) not in page and "roster-preview" not in page
    assert 'aria-describedby="add-error"' in page


def test_one_student_enrolled_is_named(session: Session, login: Login) -> None:
    teacher, s41 = make_user(session, Role.TEACHER), make_user(session)
    course = course_of(session, teacher)
    client, token = login(teacher.username)
    response = client.post(
        f"/teach/courses/{course.id}/roster/add",
        data={"csrf_token": token, "username": s41.username},
        follow_redirects=True,
    )
    assert f"Enrolled {s41.username}." in response.get_data(as_text=True)


def test_removing_a_student_asks_first_and_works_without_scripts(session: Session, login: Login) -> None:
    teacher, s41 = make_user(session, Role.TEACHER), make_user(session)
    course = course_of(session, teacher, s41)
    client, token = login(teacher.username)
    url = f"/teach/courses/{course.id}/roster/{s41.id}/remove"
    assert f'action="{url}"' in client.get(f"/teach/courses/{course.id}/roster").get_data(as_text=True)
    asked = client.post(url, data={"csrf_token": token})
    page = asked.get_data(as_text=True)
    assert asked.status_code == 200
    assert f"Remove {s41.display_name} from the course?" in page
    assert f'<form method="post" action="{url}"' in page and 'name="confirm" value="yes"' in page
    assert f'href="/teach/courses/{course.id}/roster" id="confirm-cancel"' in page
    assert client.post(url, data={"confirm": "yes"}).status_code == 400  # still needs the CSRF token
    assert client.post(url, data={"csrf_token": token, "confirm": "no"}).status_code == 200  # only "yes" acts
    session.expire_all()
    assert s41.id in {e.user_id for e in session.get(Course, course.id).enrolments}
    done = client.post(url, data={"csrf_token": token, "confirm": "yes"}, follow_redirects=True)
    assert f"Removed {s41.display_name} from the course." in done.get_data(as_text=True)
    session.expire_all()
    assert s41.id not in {e.user_id for e in session.get(Course, course.id).enrolments}
    again = client.post(url, data={"csrf_token": token})  # no longer a student: back to the roster
    assert again.status_code == 302


def test_revoking_a_token_asks_first(session: Session, login: Login) -> None:
    teacher = make_user(session, Role.TEACHER)
    issue_token(session, teacher, name="lms")
    session.commit()
    token_id = session.scalar(select(ApiToken.id).where(ApiToken.user_id == teacher.id))
    client, csrf = login(teacher.username)
    client.set_cookie(LANG_COOKIE, "zh")
    asked = client.post(f"/teach/tokens/{token_id}/revoke", data={"csrf_token": csrf})
    assert asked.status_code == 200 and "吊销令牌“lms”？" in asked.get_data(as_text=True)
    assert client.post(f"/teach/tokens/{token_id}/revoke", data={"confirm": "yes"}).status_code == 400
    session.expire_all()
    assert session.get(ApiToken, token_id).revoked_at is None
    assert (
        client.post(f"/teach/tokens/{token_id}/revoke", data={"csrf_token": csrf, "confirm": "yes"}).status_code == 302
    )
    session.expire_all()
    assert session.get(ApiToken, token_id).revoked_at is not None


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "/teach/courses/99999999999999999999"),
        ("GET", "/teach/courses/2147483648/roster"),
        ("POST", "/teach/tokens/999999999999999999999/revoke"),
        ("GET", "/teach/assignments/99999999999999999999"),
        ("GET", "/teach/courses/1/students/99999999999999999999"),
        ("GET", "/teach/regrades/99999999999999999999"),
        ("POST", "/teach/courses/1/roster/99999999999999999999/remove"),
    ],
)
def test_ids_too_large_for_a_row_get_the_apps_404_page(session: Session, login: Login, method: str, path: str) -> None:
    teacher = make_user(session, Role.TEACHER)
    client, token = login(teacher.username)
    response = client.open(path, method=method, data={"csrf_token": token} if method == "POST" else None)
    page = response.get_data(as_text=True)
    assert response.status_code == 404
    assert t("error.404", "en") in page and "The requested URL was not found on the server" not in page
