"""A roster upload that creates accounts (CSV in GBK or an .xlsx, names read too), bad files refused with nothing
changed, and the one-time sign-in links the teacher downloads: usable once, before they expire, only a hash kept."""

from __future__ import annotations

import csv
import io
import re
import zipfile
from collections.abc import Callable
from datetime import timedelta

import pytest
from flask import Flask
from flask.testing import FlaskClient
from openpyxl import Workbook
from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from grader.i18n import LANG_COOKIE
from grader.models import Course, Enrolment, EnrolmentRole, Role, SignInLink, User, utcnow
from grader.security import hash_token, verify_password
from tests.factories import make_user, unique
from tests.teacher.conftest import csrf_from, sign_in

Login = Callable[[str], tuple[FlaskClient, str]]
LINK = re.compile(r"/welcome/([A-Za-z0-9_-]+)")
NEW_PASSWORD = "a new password 2026"


def course_of(session: Session, teacher: User, *students: User) -> Course:
    """A committed course taught by ``teacher`` with ``students`` enrolled."""
    course = Course(code=unique("accounts"), title="Accounts course")
    course.enrolments = [
        Enrolment(user=teacher, role=EnrolmentRole.TEACHER),
        *(Enrolment(user=s, role=EnrolmentRole.STUDENT) for s in students),
    ]
    session.add(course)
    session.commit()
    return course


def upload(client: FlaskClient, token: str, course: Course, data: bytes, name: str = "roster.csv") -> tuple[int, str]:
    """Post ``data`` as the roster file; the status and the page."""
    response = client.post(
        f"/teach/courses/{course.id}/roster/upload",
        content_type="multipart/form-data",
        data={"csrf_token": token, "file": (io.BytesIO(data), name)},
    )
    return response.status_code, response.get_data(as_text=True)


def confirm_preview(client: FlaskClient, token: str, course: Course, page: str) -> int:
    """Post the preview's confirm form as the browser would (rows and names in page order); the status."""
    rows = re.findall(r'name="row" value="([^"]*)"', page)
    names = re.findall(r'name="name" value="([^"]*)"', page)
    response = client.post(
        f"/teach/courses/{course.id}/roster/confirm", data={"csrf_token": token, "row": rows, "name": names}
    )
    return response.status_code


def row_of(page: str, line: int) -> str:
    """The preview table's row for file line ``line``."""
    return page.split(f'data-line="{line}"', 1)[1].split("</tr>", 1)[0]


def workbook(rows: list[list[object]]) -> bytes:
    """An .xlsx file with ``rows`` on its first sheet."""
    book = Workbook()
    sheet = book.active
    assert sheet is not None
    for row in rows:
        sheet.append(row)
    buffer = io.BytesIO()
    book.save(buffer)
    return buffer.getvalue()


def download_links(client: FlaskClient, token: str, course: Course) -> list[dict[str, str]]:
    """The links CSV's rows (checked to open in Excel: UTF-8 with a BOM)."""
    response = client.post(f"/teach/courses/{course.id}/roster/links", data={"csrf_token": token})
    assert response.status_code == 200 and response.mimetype == "text/csv"
    body = response.get_data()
    assert body.startswith("\ufeff".encode())
    return list(csv.DictReader(io.StringIO(body.decode("utf-8-sig"))))


def token_of(link: str) -> str:
    """The token in a sign-in link."""
    match = LINK.search(link)
    assert match, link
    return match.group(1)


def accounts(session: Session) -> dict[str, tuple[str, str, bool]]:
    """Every account: username → (display name, role, has a password)."""
    session.expire_all()
    return {u.username: (u.display_name, u.role, u.password_hash is not None) for u in session.scalars(select(User))}


def test_a_gbk_roster_previews_creates_and_enrols_with_the_names_in_the_file(session: Session, login: Login) -> None:
    teacher, known, enrolled = make_user(session, Role.TEACHER), make_user(session), make_user(session)
    course = course_of(session, teacher, enrolled)
    client, token = login(teacher.username)
    text = (
        f"学号,姓名,班级\r\n2026001,张三,一班\r\n{known.username},李四,一班\r\n{enrolled.username},王五,二班\r\n"
        f"{teacher.username},老师,\r\nbad name,赵六,二班\r\n2026001,张三,一班\r\n"
    )
    before = accounts(session)
    status, page = upload(client, token, course, text.encode("gbk"))
    assert status == 200, page[:300]
    assert accounts(session) == before  # the preview writes nothing
    for line, fragment in [
        (2, "new account, to enrol"),
        (3, "ready to enrol"),
        (4, "already enrolled"),
        (5, "teaches this course"),
        (6, "cannot hold spaces"),
        (7, "appears earlier"),
    ]:
        assert fragment in row_of(page, line), (line, row_of(page, line))
    assert "<td>张三</td>" in row_of(page, 2)
    assert "1 of them have no account yet" in page
    assert confirm_preview(client, token, course, page) == 302
    after = accounts(session)
    assert after["2026001"] == ("张三", Role.STUDENT, False)  # no password until the student chooses one
    assert after[known.username] == before[known.username]  # an existing account keeps its own name
    assert "bad name" not in after
    roles = dict(
        session.execute(
            select(User.username, Enrolment.role).join(Enrolment).where(Enrolment.course_id == course.id)
        ).all()
    )
    assert roles == {
        teacher.username: "teacher",
        enrolled.username: "student",
        known.username: "student",
        "2026001": "student",
    }


@pytest.mark.parametrize(
    "rows, expected",
    [
        pytest.param(
            [
                ["First name", "Last name", "Username", "Email address"],
                ["San", "Zhang", "s41", "s41@x.edu"],
                ["Si", "Li", "s42", "s42@x.edu"],
            ],
            {"s41": "San Zhang", "s42": "Si Li"},
            id="moodle",
        ),
        pytest.param(
            [
                ["Student", "ID", "SIS Login ID", "Section"],
                ["Zhang, San", 17, "s41", "A"],
                [None, None, None, None],
                ["Li, Si", 18, "s42", "A"],
            ],
            {"s41": "Zhang, San", "s42": "Li, Si"},
            id="canvas",
        ),
        pytest.param(
            [["序号", "学号", "姓名"], [1, 2026001, "张三"], [2, 2026002, "李四"]],
            {"2026001": "张三", "2026002": "李四"},
            id="jiaowu-numbers",
        ),
    ],
)
def test_an_xlsx_export_creates_the_accounts_it_names(
    session: Session, login: Login, rows: list[list[object]], expected: dict[str, str]
) -> None:
    teacher = make_user(session, Role.TEACHER)
    course = course_of(session, teacher)
    client, token = login(teacher.username)
    status, page = upload(client, token, course, workbook(rows), "名单.xlsx")
    assert status == 200, page[:300]
    assert page.count("new account, to enrol") == len(expected)
    assert confirm_preview(client, token, course, page) == 302
    created = {name: shown for name, (shown, _role, _pw) in accounts(session).items() if name in expected}
    assert created == expected


def ten_thousand_rows() -> bytes:
    return ("username,name\n" + "".join(f"s{n:05d},Student {n}\n" for n in range(10_000))).encode()


def damaged_workbook() -> bytes:
    """A zip archive that is no workbook (as a .docx or a half-downloaded file is)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("word/document.xml", "<w:document/>")
    return buffer.getvalue()


@pytest.mark.parametrize(
    "data, message",
    [
        pytest.param(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00", "Cannot read the file", id="an-image"),
        pytest.param(damaged_workbook(), "it is not a table", id="a-zip-that-is-no-workbook"),
        pytest.param(ten_thousand_rows(), "Too many rows (at most 2000)", id="ten-thousand-rows"),
        pytest.param(
            "学号,姓名\n2026001,张三\n".encode()[:-4] + b"\xff\xfe\n",
            "Cannot read the file",
            id="wrong-encoding",
        ),
    ],
)
def test_a_bad_file_gets_a_message_on_the_form_and_changes_nothing(
    session: Session, login: Login, data: bytes, message: str
) -> None:
    teacher = make_user(session, Role.TEACHER)
    course = course_of(session, teacher)
    client, token = login(teacher.username)
    before = accounts(session)
    status, page = upload(client, token, course, data)
    assert status == 422
    assert message in page.split('id="upload-error"', 1)[1].split("</p>", 1)[0]
    assert 'name="row"' not in page
    assert accounts(session) == before


def enrol_new(session: Session, client: FlaskClient, token: str, course: Course, *usernames: str) -> None:
    """Upload and confirm a roster of new accounts called ``usernames`` (named 'Name of <username>')."""
    text = "username,name\n" + "".join(f"{name},Name of {name}\n" for name in usernames)
    status, page = upload(client, token, course, text.encode())
    assert status == 200
    assert confirm_preview(client, token, course, page) == 302


def test_links_download_for_new_accounts_keeps_only_hashes(session: Session, login: Login) -> None:
    teacher, old = make_user(session, Role.TEACHER), make_user(session)
    course = course_of(session, teacher, old)
    client, token = login(teacher.username)
    enrol_new(session, client, token, course, "s41", "s42")
    assert "2 student(s) have not chosen a password yet" in client.get(f"/teach/courses/{course.id}/roster").get_data(
        as_text=True
    )
    rows = download_links(client, token, course)
    assert [(r["username"], r["name"]) for r in rows] == [("s41", "Name of s41"), ("s42", "Name of s42")]
    assert all(r["sign_in_link"].startswith("http://localhost/welcome/") and r["expires"] for r in rows)
    stored = session.scalars(select(SignInLink)).all()
    raw = {token_of(r["sign_in_link"]) for r in rows}
    assert {link.token_hash for link in stored} == {hash_token(value) for value in raw}
    assert not raw & {link.token_hash for link in stored}  # the tokens themselves are nowhere in the database


def new_student_s41(session: Session, login: Login) -> tuple[FlaskClient, str, Course, str]:
    """A course whose roster upload created s41: the teacher's client, its CSRF token, the course and s41's link."""
    teacher = make_user(session, Role.TEACHER)
    course = course_of(session, teacher)
    client, token = login(teacher.username)
    enrol_new(session, client, token, course, "s41")
    return client, token, course, token_of(download_links(client, token, course)[0]["sign_in_link"])


def test_a_link_sets_the_password_once_and_signs_the_student_in(app: Flask, session: Session, login: Login) -> None:
    client, token, course, link = new_student_s41(session, login)
    student = app.test_client()
    student.set_cookie(LANG_COOKIE, "en")
    form = student.get(f"/welcome/{link}")
    assert form.status_code == 200 and "Welcome, Name of s41! Your username is s41." in form.get_data(as_text=True)
    assert form.headers["Referrer-Policy"] == "no-referrer"
    csrf = csrf_from(form.get_data(as_text=True))
    for password, again, message in [
        ("short", "short", "too short"),
        (NEW_PASSWORD, "other one!", "differ"),
        ("", "", "Enter a password"),
    ]:
        refused = student.post(f"/welcome/{link}", data={"csrf_token": csrf, "password": password, "again": again})
        assert refused.status_code == 422 and message in refused.get_data(as_text=True)
    assert accounts(session)["s41"][2] is False  # a refused form spends nothing
    done = student.post(f"/welcome/{link}", data={"csrf_token": csrf, "password": NEW_PASSWORD, "again": NEW_PASSWORD})
    assert done.status_code == 302 and done.headers["Location"].endswith("/courses")
    assert "Accounts course" in student.get("/courses").get_data(as_text=True)  # signed in, enrolled
    user = session.scalars(select(User).where(User.username == "s41")).one()
    assert verify_password(user.password_hash, NEW_PASSWORD)
    again = app.test_client()
    again.set_cookie(LANG_COOKIE, "en")
    spent = again.get(f"/welcome/{link}")
    assert spent.status_code == 410 and "expired or was already used" in spent.get_data(as_text=True)
    csrf = csrf_from(spent.get_data(as_text=True))
    reuse = again.post(f"/welcome/{link}", data={"csrf_token": csrf, "password": "x" * 12, "again": "x" * 12})
    assert reuse.status_code == 410
    session.expire_all()
    assert verify_password(
        session.scalars(select(User).where(User.username == "s41")).one().password_hash, NEW_PASSWORD
    )  # the second use changed nothing
    sign_in(app.test_client(), "s41", NEW_PASSWORD)  # the login form takes the new password
    assert download_links(client, token, course) == []  # nobody is waiting for a link any more


def test_an_expired_or_replaced_link_does_not_work(app: Flask, session: Session, login: Login) -> None:
    teacher = make_user(session, Role.TEACHER)
    course = course_of(session, teacher)
    client, token = login(teacher.username)
    enrol_new(session, client, token, course, "s41", "s42")
    first = {r["username"]: token_of(r["sign_in_link"]) for r in download_links(client, token, course)}
    second = {r["username"]: token_of(r["sign_in_link"]) for r in download_links(client, token, course)}
    anonymous = app.test_client()
    assert anonymous.get(f"/welcome/{first['s41']}").status_code == 410  # downloading again replaced it
    assert anonymous.get(f"/welcome/{second['s41']}").status_code == 200
    session.execute(
        update(SignInLink)
        .where(SignInLink.token_hash == hash_token(second["s42"]))
        .values(expires_at=utcnow() - timedelta(seconds=1))
    )
    session.commit()
    assert anonymous.get(f"/welcome/{second['s42']}").status_code == 410
    assert anonymous.get("/welcome/not-a-token").status_code == 410


@pytest.mark.parametrize("lang, text", [("zh", "设置密码"), ("en", "Choose your password")])
def test_the_welcome_page_speaks_the_students_language(
    app: Flask, session: Session, login: Login, lang: str, text: str
) -> None:
    *_teacher, link = new_student_s41(session, login)
    student = app.test_client()
    student.set_cookie(LANG_COOKIE, lang)
    assert text in student.get(f"/welcome/{link}").get_data(as_text=True)


def test_a_new_link_for_a_student_who_forgot_ends_their_sessions(app: Flask, session: Session, login: Login) -> None:
    teacher, forgetful = make_user(session, Role.TEACHER), make_user(session)
    course = course_of(session, teacher, forgetful)
    client, token = login(teacher.username)
    old_browser, _ = login(forgetful.username)
    assert old_browser.get("/courses").status_code == 200
    page = client.post(f"/teach/courses/{course.id}/roster/{forgetful.id}/link", data={"csrf_token": token})
    assert page.status_code == 200
    text = page.get_data(as_text=True)
    assert "shown only this once" in text
    link = token_of(text)
    student = app.test_client()
    csrf = csrf_from(student.get(f"/welcome/{link}").get_data(as_text=True))
    done = student.post(f"/welcome/{link}", data={"csrf_token": csrf, "password": NEW_PASSWORD, "again": NEW_PASSWORD})
    assert done.status_code == 302
    assert old_browser.get("/courses").status_code == 302  # the session from before the reset has ended
    assert session.scalar(select(func.count()).select_from(SignInLink).where(SignInLink.used_at.is_(None))) == 0


def test_links_only_for_students_of_ones_own_course(session: Session, login: Login) -> None:
    teacher, other_teacher, student = (
        make_user(session, Role.TEACHER),
        make_user(session, Role.TEACHER),
        make_user(session),
    )
    course = course_of(session, teacher, student)
    course_of(session, other_teacher)
    client, token = login(teacher.username)
    assert (
        client.post(f"/teach/courses/{course.id}/roster/{teacher.id}/link", data={"csrf_token": token}).status_code
        == 404
    )  # a teacher's account is never taken over
    outsider, outsider_token = login(other_teacher.username)
    assert (
        outsider.post(
            f"/teach/courses/{course.id}/roster/{student.id}/link", data={"csrf_token": outsider_token}
        ).status_code
        == 404
    )
    assert (
        outsider.post(f"/teach/courses/{course.id}/roster/links", data={"csrf_token": outsider_token}).status_code
        == 404
    )
    assert session.scalar(select(func.count()).select_from(SignInLink)) == 0
