"""Course staff on the pages: who (owner, co-teacher, TA, a teacher of another course, a student) may open which
teacher page and make which post, the staff page itself (add, change role, remove, refusals), the teacher nav, and
the student pages a staff member may open."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from flask.testing import FlaskClient
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from grader.models import Assignment, Course, CourseStaff, RegradeJob, Role, StaffRole, User
from tests.factories import make_user
from tests.teacher.course_data import FixtureCourse, build

Login = Callable[[str], tuple[FlaskClient, str]]
WHO = ("owner", "co_teacher", "ta", "other_teacher", "student")
STAFF = {"owner", "co_teacher", "ta"}
MANAGERS = {"owner", "co_teacher"}  # what a TA may not do, the owner and co-teachers may


@pytest.fixture
def staffed(session: Session) -> tuple[FixtureCourse, dict[str, User], int]:
    """The fixture course with a co-teacher and a TA (teacher accounts), the people by part, and a regrade job."""
    course = build(session)
    co_teacher, ta = make_user(session, Role.TEACHER), make_user(session, Role.TEACHER)
    session.add_all(
        [
            CourseStaff(course_id=course.course.id, user_id=co_teacher.id, role=StaffRole.CO_TEACHER),
            CourseStaff(course_id=course.course.id, user_id=ta.id, role=StaffRole.TA),
            RegradeJob(assignment_id=course.best.id, requested_by=f"user:{course.teacher.username}", status="done"),
        ]
    )
    session.commit()
    job = session.scalar(select(RegradeJob.id).where(RegradeJob.assignment_id == course.best.id))
    assert job is not None
    people = {
        "owner": course.teacher,
        "co_teacher": co_teacher,
        "ta": ta,
        "other_teacher": course.other_teacher,
        "student": course.alice,
    }
    return course, people, job


def requests_by_part(f: FixtureCourse, job: int) -> list[tuple[str, str, dict[str, str], set[str]]]:
    """(method, path, form, the parts allowed) for every teacher page and post of the course. A post that would
    change something is sent without its confirmation (or with an empty field), so each one only shows it is let in."""
    c, a = f.course.id, f.best.id
    return [
        ("GET", f"/teach/courses/{c}", {}, STAFF),
        ("GET", f"/teach/courses/{c}/roster", {}, STAFF),
        ("GET", f"/teach/courses/{c}/students/{f.alice.id}", {}, STAFF),
        ("GET", f"/teach/assignments/{a}", {}, STAFF),
        ("GET", f"/teach/courses/{c}/staff", {}, STAFF),
        ("POST", f"/teach/assignments/{a}/export/grades.csv", {}, STAFF),
        ("POST", f"/teach/courses/{c}/gradebook.xlsx", {}, STAFF),
        ("GET", f"/teach/assignments/{a}/extensions", {}, STAFF),
        ("GET", f"/teach/assignments/{a}/overrides", {}, STAFF),
        ("GET", f"/teach/courses/{c}/assignments/new", {}, MANAGERS),
        ("GET", f"/teach/assignments/{a}/edit", {}, MANAGERS),
        ("POST", f"/teach/assignments/{a}/delete", {}, MANAGERS),
        ("GET", f"/teach/assignments/{a}/regrade/preview", {}, MANAGERS),
        ("GET", f"/teach/regrades/{job}", {}, MANAGERS),
        ("POST", f"/teach/courses/{c}/roster/add", {"username": ""}, MANAGERS),
        ("POST", f"/teach/courses/{c}/roster/{f.bob.id}/remove", {}, MANAGERS),
        ("POST", f"/teach/courses/{c}/roster/links", {}, MANAGERS),
        ("GET", f"/teach/courses/{c}/settings", {}, MANAGERS),
        ("POST", f"/teach/courses/{c}/archive", {}, MANAGERS),
        ("POST", f"/teach/courses/{c}/staff", {"username": "", "role": "ta"}, MANAGERS),
        ("POST", f"/teach/courses/{c}/staff/nobody/remove", {}, MANAGERS),
    ]


@pytest.mark.parametrize("who", WHO)
def test_each_part_opens_exactly_the_pages_its_part_allows(
    login: Login, session: Session, staffed: tuple[FixtureCourse, dict[str, User], int], who: str
) -> None:
    """Allowed: anything but 403 and 404. Refused: 404 to outsiders and students (the course is not shown to
    exist), 403 to a TA (who sees the course, but may not do this)."""
    course, people, job = staffed
    client, token = login(people[who].username)
    wrong = []
    for method, path, form, allowed in requests_by_part(course, job):
        response = client.get(path) if method == "GET" else client.post(path, data={"csrf_token": token, **form})
        expected = "allowed" if who in allowed else ("403" if who in STAFF else "404")
        got = "allowed" if response.status_code not in (403, 404) else str(response.status_code)
        if got != expected:
            wrong.append(f"{method} {path}: {got}, expected {expected}")
    assert wrong == []
    # Nothing the refused posts asked for happened (and no allowed one went past its confirmation).
    assert session.scalar(select(func.count()).select_from(RegradeJob)) == 1
    session.expire_all()
    assert session.get(Assignment, course.best.id) is not None
    assert not session.get(Course, course.course.id).archived


@pytest.mark.parametrize("who", ["co_teacher", "ta"])
def test_staff_see_their_course_in_the_teacher_nav_and_open_its_student_pages(
    login: Login, staffed: tuple[FixtureCourse, dict[str, User], int], who: str
) -> None:
    course, people, _ = staffed
    client, _ = login(people[who].username)
    home = client.get("/teach/").get_data(as_text=True)
    assert f"/teach/courses/{course.course.id}" in home
    assert f"/teach/courses/{course.other.course_id}" not in home
    assert client.get(f"/assignments/{course.best.id}").status_code == 200
    assert client.get(f"/assignments/{course.other.id}").status_code == 404


def test_an_outsider_opens_no_student_page_of_the_course(
    login: Login, staffed: tuple[FixtureCourse, dict[str, User], int]
) -> None:
    course, people, _ = staffed
    client, _ = login(people["other_teacher"].username)
    assert client.get(f"/assignments/{course.best.id}").status_code == 404


def test_a_ta_sees_the_staff_page_without_its_forms(
    login: Login, staffed: tuple[FixtureCourse, dict[str, User], int]
) -> None:
    course, people, _ = staffed
    client, _ = login(people["ta"].username)
    page = client.get(f"/teach/courses/{course.course.id}/staff").get_data(as_text=True)
    assert people["co_teacher"].username in page and people["ta"].username in page
    assert 'id="staff-username"' not in page and "/remove" not in page


def _staff_rows(session: Session, course_id: int) -> dict[str, str]:
    session.expire_all()
    rows = session.execute(
        select(User.username, CourseStaff.role)
        .join(User, User.id == CourseStaff.user_id)
        .where(CourseStaff.course_id == course_id)
    ).all()
    return {username: role for username, role in rows}


def test_the_owner_adds_changes_and_removes_staff(
    login: Login, session: Session, staffed: tuple[FixtureCourse, dict[str, User], int]
) -> None:
    course, people, _ = staffed
    newcomer = make_user(session, Role.TEACHER)
    client, token = login(people["owner"].username)
    base = f"/teach/courses/{course.course.id}/staff"
    added = client.post(base, data={"csrf_token": token, "username": newcomer.username, "role": "ta"})
    assert added.status_code == 302
    assert _staff_rows(session, course.course.id)[newcomer.username] == "ta"
    page = client.get(base).get_data(as_text=True)
    assert f"{newcomer.username} was added to the course staff." in page
    changed = client.post(f"{base}/{newcomer.username}/role", data={"csrf_token": token, "role": "co_teacher"})
    assert changed.status_code == 302
    assert _staff_rows(session, course.course.id)[newcomer.username] == "co_teacher"
    # The new co-teacher may now manage the staff too: they remove the TA.
    co_client, co_token = login(newcomer.username)
    removed = co_client.post(f"{base}/{people['ta'].username}/remove", data={"csrf_token": co_token})
    assert removed.status_code == 302
    assert people["ta"].username not in _staff_rows(session, course.course.id)
    # The removed TA no longer sees the course.
    ta_client, _ = login(people["ta"].username)
    assert ta_client.get(f"/teach/courses/{course.course.id}").status_code == 404


@pytest.mark.parametrize(
    ("form", "message", "field"),
    [
        (
            {"username": "no-such-person", "role": "ta"},
            "There is no active account with the username no-such-person.",
            "username",
        ),
        (
            {"username": "@student", "role": "ta"},
            "has a student account: an administrator must make it a teacher",
            "username",
        ),
        ({"username": "@enrolled", "role": "co_teacher"}, "is already enrolled in this course", "username"),
        ({"username": "@teacher", "role": "owner"}, "Choose a role: co-teacher or teaching assistant.", "role"),
        ({"username": "@teacher"}, "Choose a role: co-teacher or teaching assistant.", "role"),
    ],
)
def test_a_refused_addition_says_why_by_the_form_and_changes_nothing(
    login: Login,
    session: Session,
    staffed: tuple[FixtureCourse, dict[str, User], int],
    form: dict[str, str],
    message: str,
    field: str,
) -> None:
    course, people, _ = staffed
    stand_ins = {
        "@student": make_user(session, Role.STUDENT).username,
        "@enrolled": course.teacher.username,
        "@teacher": make_user(session, Role.TEACHER).username,
    }
    sent = {name: stand_ins.get(value, value) for name, value in form.items()}
    before = _staff_rows(session, course.course.id)
    client, token = login(people["owner"].username)
    response = client.post(f"/teach/courses/{course.course.id}/staff", data={"csrf_token": token, **sent})
    assert response.status_code == 422
    page = response.get_data(as_text=True)
    assert message in page
    assert 'role="alert" id="add-error"' in page
    widget = 'id="staff-username"' if field == "username" else 'id="staff-role"'
    assert page[page.index(widget) :].split(">", 1)[0].count('aria-invalid="true"') == 1
    assert _staff_rows(session, course.course.id) == before


def test_a_role_change_for_someone_not_on_the_staff_is_a_404(
    login: Login, staffed: tuple[FixtureCourse, dict[str, User], int]
) -> None:
    course, people, _ = staffed
    client, token = login(people["owner"].username)
    response = client.post(
        f"/teach/courses/{course.course.id}/staff/{people['other_teacher'].username}/role",
        data={"csrf_token": token, "role": "ta"},
    )
    assert response.status_code == 404


def test_the_staff_page_speaks_both_languages(
    login: Login, staffed: tuple[FixtureCourse, dict[str, User], int]
) -> None:
    course, people, _ = staffed
    client, _ = login(people["owner"].username)
    path = f"/teach/courses/{course.course.id}/staff"
    english = client.get(path).get_data(as_text=True)
    assert "Co-teachers and teaching assistants" in english and "Teaching assistant" in english
    client.set_cookie("lang", "zh")
    chinese = client.get(path).get_data(as_text=True)
    assert "合作教师与助教" in chinese and "助教" in chinese and "教学团队" in chinese


def test_a_staff_member_cannot_also_be_enrolled_as_a_student(
    login: Login, session: Session, staffed: tuple[FixtureCourse, dict[str, User], int]
) -> None:
    course, people, _ = staffed
    client, token = login(people["owner"].username)
    ta = people["ta"].username
    response = client.post(f"/teach/courses/{course.course.id}/roster/add", data={"csrf_token": token, "username": ta})
    assert response.status_code == 422
    assert f"{ta} teaches this course and cannot be enrolled as a student." in response.get_data(as_text=True)
    assert ta in _staff_rows(session, course.course.id)


@pytest.mark.parametrize("who", ["owner", "co_teacher", "ta"])
def test_pages_offer_only_the_links_and_forms_the_reader_may_use(
    login: Login, staffed: tuple[FixtureCourse, dict[str, User], int], who: str
) -> None:
    course, people, _ = staffed
    client, _ = login(people[who].username)
    c, a = course.course.id, course.best.id
    pages = "".join(
        client.get(path).get_data(as_text=True)
        for path in (f"/teach/courses/{c}", f"/teach/assignments/{a}", f"/teach/courses/{c}/roster")
    )
    managed = [
        f"/teach/courses/{c}/assignments/new",
        f"/teach/assignments/{a}/edit",
        f"/teach/assignments/{a}/delete",
        f"/teach/assignments/{a}/regrade",
        f"/teach/courses/{c}/roster/add",
        f"/teach/courses/{c}/roster/{course.bob.id}/remove",
        f"/teach/courses/{c}/settings",
    ]
    offered = [path for path in managed if f'"{path}"' in pages]
    assert offered == (managed if who in MANAGERS else [])
    # Everyone on the staff is offered what a TA may do.
    for path in (
        f"/teach/assignments/{a}/extensions",
        f"/teach/assignments/{a}/overrides",
        f"/teach/courses/{c}/staff",
    ):
        assert f'"{path}"' in pages
