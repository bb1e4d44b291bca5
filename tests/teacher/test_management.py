"""Managing courses, rosters (one at a time, CSV with preview and per-row errors, removal) and assignments."""

from __future__ import annotations

import io
import re
from collections.abc import Callable
from datetime import UTC, datetime

import pytest
from flask.testing import FlaskClient
from markupsafe import escape
from sqlalchemy import select
from sqlalchemy.orm import Session

from exercises import api as engine
from exercises.registry import get_exercise
from exercises.variant_generation import generate_variant
from grader.models import Assignment, Course, Enrolment, EnrolmentRole, Role, User
from grader.ui.data_view import format_number
from tests.factories import make_user

Login = Callable[[str], tuple[FlaskClient, str]]


def roles_in(session: Session, course_id: int) -> dict[str, str]:
    """username -> enrolment role in the course, read fresh."""
    session.expire_all()
    rows = session.execute(
        select(User.username, Enrolment.role).join(Enrolment).where(Enrolment.course_id == course_id)
    )
    return dict(rows.all())


def make_course(login: Login, session: Session) -> tuple[FlaskClient, str, Course, User]:
    """A teacher creates a course through the form."""
    teacher = make_user(session, Role.TEACHER)
    client, token = login(teacher.username)
    response = client.post(
        "/teach/courses", data={"csrf_token": token, "code": f"c-{teacher.id}", "title": "Attention"}
    )
    assert response.status_code == 302
    course = session.scalars(select(Course).where(Course.code == f"c-{teacher.id}")).one()
    return client, token, course, teacher


def test_create_course_makes_creator_its_teacher(login: Login, session: Session) -> None:
    client, token, course, teacher = make_course(login, session)
    assert roles_in(session, course.id) == {teacher.username: EnrolmentRole.TEACHER}
    assert course.title in client.get("/teach/").get_data(as_text=True)
    again = client.post("/teach/courses", data={"csrf_token": token, "code": course.code, "title": "x"})
    assert again.status_code == 422
    assert "already taken" in again.get_data(as_text=True)
    bad = client.post("/teach/courses", data={"csrf_token": token, "code": "no spaces!", "title": ""})
    assert bad.status_code == 422


def test_enrol_one_and_remove(login: Login, session: Session) -> None:
    client, token, course, _ = make_course(login, session)
    student = make_user(session)
    url = f"/teach/courses/{course.id}/roster"
    assert client.post(f"{url}/add", data={"csrf_token": token, "username": student.username}).status_code == 302
    assert roles_in(session, course.id)[student.username] == EnrolmentRole.STUDENT
    assert client.post(f"{url}/add", data={"csrf_token": token, "username": "nobody-here"}).status_code == 422
    asked = client.post(f"{url}/{student.id}/remove", data={"csrf_token": token})  # the roster's button: asks first
    assert asked.status_code == 200 and 'name="confirm" value="yes"' in asked.get_data(as_text=True)
    assert roles_in(session, course.id)[student.username] == EnrolmentRole.STUDENT
    assert client.post(f"{url}/{student.id}/remove", data={"csrf_token": token, "confirm": "yes"}).status_code == 302
    assert student.username not in roles_in(session, course.id)


def test_csv_upload_previews_with_per_row_errors_then_enrols(login: Login, session: Session) -> None:
    """Nothing is enrolled by the preview; the confirm enrols only the rows that passed."""
    client, token, course, teacher = make_course(login, session)
    new, already = make_user(session), make_user(session)
    session.add(Enrolment(course_id=course.id, user_id=already.id, role=EnrolmentRole.STUDENT))
    session.commit()
    csv_text = (
        f"username\n{new.username}\nnobody-here\n{already.username}\n\n{new.username}\n{teacher.username}\n"
        ",No Username\n"
    )
    response = client.post(
        f"/teach/courses/{course.id}/roster/upload",
        content_type="multipart/form-data",
        data={"csrf_token": token, "file": (io.BytesIO(csv_text.encode()), "roster.csv")},
    )
    page = response.get_data(as_text=True)
    assert response.status_code == 200
    assert set(roles_in(session, course.id)) == {teacher.username, already.username}  # preview only
    assert 'data-line="5"' not in page  # a blank line is skipped, not an error
    for line, fragment in [
        (2, "ready to enrol"),
        (3, "new account, to enrol"),
        (4, "already enrolled"),
        (6, "appears earlier"),
        (7, "teaches this course"),
        (8, "empty username"),
    ]:
        assert f'data-line="{line}"' in page
        row = page.split(f'data-line="{line}"', 1)[1].split("</tr>", 1)[0]
        assert fragment in row, (line, row)
    assert f'name="row" value="2:{new.username}"' in page  # the confirm form keeps each row's line
    confirm = client.post(
        f"/teach/courses/{course.id}/roster/confirm", data={"csrf_token": token, "row": [f"2:{new.username}"]}
    )
    assert confirm.status_code == 302
    assert roles_in(session, course.id)[new.username] == EnrolmentRole.STUDENT


def test_csv_upload_refuses_unreadable_file(login: Login, session: Session) -> None:
    """Bytes no supported encoding reads (0xFF is neither UTF-8 nor GB18030; UTF-16 needs whole code units)."""
    client, token, course, _ = make_course(login, session)
    for junk in (b"username\n\xff\xffbad\n", b"\xff\xfeu\x00s"):
        response = client.post(
            f"/teach/courses/{course.id}/roster/upload",
            content_type="multipart/form-data",
            data={"csrf_token": token, "file": (io.BytesIO(junk), "roster.csv")},
        )
        assert response.status_code == 422, junk
        assert "Cannot read the file" in response.get_data(as_text=True)


def assignment_form(token: str, **overrides: object) -> dict[str, object]:
    """A valid assignment form."""
    return {
        "csrf_token": token,
        "title_zh": "注意力",
        "title_en": "Attention",
        "exercise_ids": ["ch09.attention-cost", "ch13.greedy-decode"],
        "opens_at": "2030-01-01T08:00",
        "due_at": "2030-01-08T08:00",
        "attempts": "3",
        "score_policy": "last",
        "answer_key_policy": "after_attempts",
        **overrides,
    }


def test_create_and_edit_assignment(login: Login, session: Session) -> None:
    client, token, course, _ = make_course(login, session)
    response = client.post(f"/teach/courses/{course.id}/assignments/new", data=assignment_form(token))
    assert response.status_code == 302
    assignment = session.scalars(select(Assignment).where(Assignment.course_id == course.id)).one()
    assert assignment.exercise_ids == ["ch13.greedy-decode", "ch09.attention-cost"]  # catalogue order
    assert assignment.opens_at == datetime(2030, 1, 1, 8, 0, tzinfo=UTC)
    assert (assignment.attempts_allowed, assignment.score_policy, assignment.answer_key_policy) == (
        3,
        "last",
        "after_attempts",
    )
    edit = client.post(f"/teach/assignments/{assignment.id}/edit", data=assignment_form(token, attempts="", due_at=""))
    assert edit.status_code == 302
    session.refresh(assignment)
    assert (assignment.attempts_allowed, assignment.due_at) == (None, None)
    form = client.get(f"/teach/assignments/{assignment.id}/edit").get_data(as_text=True)
    assert 'value="2030-01-01T08:00"' in form


def test_assignment_form_errors(login: Login, session: Session) -> None:
    client, token, course, _ = make_course(login, session)
    bad = assignment_form(
        token, exercise_ids=[], due_at="2029-12-31T00:00", attempts="0", score_policy="worst", title_en=""
    )
    response = client.post(f"/teach/courses/{course.id}/assignments/new", data=bad)
    page = response.get_data(as_text=True)
    assert response.status_code == 422
    for field in ("titles", "exercise_ids", "due_at", "attempts", "score_policy"):
        assert f'id="err-{field}"' in page, field
    assert session.scalars(select(Assignment).where(Assignment.course_id == course.id)).all() == []


def test_preview_shows_variant_and_key(login: Login, session: Session) -> None:
    teacher = make_user(session, Role.TEACHER)
    client, _ = login(teacher.username)
    page = client.get("/teach/exercises/ch13.greedy-decode/preview?seed=0").get_data(as_text=True)
    assert "BOS" in page and "<dt>What stopped the decode</dt><dd><code>EOS</code>" in page  # the key by label
    assert client.get("/teach/exercises/ch13.greedy-decode/preview?seed=-1").status_code == 422
    assert client.get("/teach/exercises/no.such-exercise/preview").status_code == 404


@pytest.mark.parametrize("exercise_id", ["ch13.greedy-decode", "ch13.loss-average"])
def test_preview_shows_the_table_once_as_the_student_page_does(
    login: Login, session: Session, exercise_id: str
) -> None:
    """The prompt's plain-text table (scrambled by the page's line wrapping) gives way to the HTML data tables."""
    teacher = make_user(session, Role.TEACHER)
    client, _ = login(teacher.username)
    page = client.get(f"/teach/exercises/{exercise_id}/preview?seed=7&lang=en").get_data(as_text=True)
    variant = engine.variant(exercise_id, 7, "en")
    for previous, row in variant["data"]["table"].items():
        cells = "".join(f"<td>{escape(format_number(p))}</td>" for p in row)
        assert page.count(f'<tr><th scope="row">{escape(previous)}</th>{cells}</tr>') == 1, previous
    exercise = get_exercise(exercise_id)
    table_text = exercise.data_text(generate_variant(exercise, 7), "en")
    assert [line for line in table_text.splitlines() if escape(line) in page] == []
    assert escape("(The table is below.)") not in page
    # The table stands where the prompt's text copy stood: between the prompt's two paragraphs of text.
    first_row = page.index('<tr><th scope="row">')
    prompts = [match.start() for match in re.finditer('<div class="prompt">', page)]
    assert len(prompts) == 2 and prompts[0] < first_row < prompts[1]
    assert "<h2>Your data</h2>" not in page  # the student page's heading, which the prompt no longer names
