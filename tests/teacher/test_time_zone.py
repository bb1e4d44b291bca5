"""A course's time zone: chosen when the course is made, used to read and show opening and due times; DST refused."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import select
from sqlalchemy.orm import Session

from grader.cli import main
from grader.models import Assignment, Course, Enrolment, EnrolmentRole, Role, User
from grader.models.courses import shown_time, utc_offset_label
from grader.teacher.zones import LocalTimeError, known_zone, to_utc
from tests.factories import make_user, unique
from tests.support import Backend

Login = Callable[[str], tuple[FlaskClient, str]]
UTC = UTC


def _form(token: str, **overrides: object) -> dict[str, object]:
    """A valid assignment form."""
    return {
        "csrf_token": token,
        "title_zh": "注意力",
        "title_en": "Attention",
        "exercise_ids": ["ch13.shift-pairs"],
        "opens_at": "",
        "due_at": "2026-12-01T23:59",
        "attempts": "",
        "score_policy": "best",
        "answer_key_policy": "after_due",
        **overrides,
    }


def _course(session: Session, zone: str) -> tuple[Course, User]:
    """A committed course in ``zone`` with a teacher."""
    teacher = make_user(session, Role.TEACHER)
    course = Course(code=unique("tz"), title="Zoned", time_zone=zone)
    course.enrolments = [Enrolment(user=teacher, role=EnrolmentRole.TEACHER)]
    session.add(course)
    session.commit()
    return course, teacher


def _only_assignment(session: Session, course: Course) -> Assignment:
    """The course's one assignment, read fresh."""
    session.expire_all()
    return session.scalars(select(Assignment).where(Assignment.course_id == course.id)).one()


# --- The conversions themselves -----------------------------------------------------------------------------------


def test_local_times_convert_both_ways() -> None:
    assert to_utc(datetime(2026, 12, 1, 23, 59), "Asia/Shanghai") == datetime(2026, 12, 1, 15, 59, tzinfo=UTC)
    assert to_utc(datetime(2026, 7, 1, 12, 0), "Europe/Berlin") == datetime(2026, 7, 1, 10, 0, tzinfo=UTC)
    assert to_utc(datetime(2026, 1, 1, 12, 0), "Europe/Berlin") == datetime(2026, 1, 1, 11, 0, tzinfo=UTC)
    moment = datetime(2026, 12, 1, 15, 59, tzinfo=UTC)
    assert shown_time(moment, "Asia/Shanghai") == "2026-12-01 23:59 (Asia/Shanghai, UTC+8)"
    assert shown_time(moment, "America/New_York") == "2026-12-01 10:59 (America/New_York, UTC-5)"
    assert shown_time(moment, "Asia/Kolkata") == "2026-12-01 21:29 (Asia/Kolkata, UTC+5:30)"
    assert shown_time(moment, "UTC") == "2026-12-01 15:59 UTC"
    assert utc_offset_label(timedelta(0)) == "UTC+0"


@pytest.mark.parametrize(
    ("local", "kind"),
    [
        (datetime(2026, 3, 29, 2, 30), "gap"),  # Berlin's clocks jump from 02:00 to 03:00
        (datetime(2026, 10, 25, 2, 30), "repeated"),  # and go back from 03:00 to 02:00
    ],
)
def test_times_a_dst_change_skips_or_repeats_are_refused(local: datetime, kind: str) -> None:
    with pytest.raises(LocalTimeError) as refused:
        to_utc(local, "Europe/Berlin")
    assert refused.value.kind == kind
    # Either side of the change is fine.
    assert to_utc(local - timedelta(hours=1), "Europe/Berlin") < to_utc(local + timedelta(hours=1), "Europe/Berlin")


def test_only_iana_names_zoneinfo_knows_are_accepted() -> None:
    assert known_zone("Asia/Shanghai") == "Asia/Shanghai"
    assert known_zone("  asia/shanghai ") == "Asia/Shanghai"
    assert known_zone("Europe/Berlin") == "Europe/Berlin"
    for bad in ("", "Beijing", "Mars/Olympus", "localtime", "../../etc/passwd", "/usr/share/zoneinfo/UTC", "x" * 65):
        assert known_zone(bad) is None, bad


# --- Creating a course with a zone -------------------------------------------------------------------------------


def test_course_form_suggests_shanghai_and_stores_the_chosen_zone(login: Login, session: Session) -> None:
    teacher = make_user(session, Role.TEACHER)
    client, token = login(teacher.username)
    home = client.get("/teach/").get_data(as_text=True)
    field = re.search(r'<input id="course-time-zone"[^>]*>', home)
    assert field and 'value="Asia/Shanghai"' in field.group(0) and 'list="common-zones"' in field.group(0)
    assert '<option value="Europe/Berlin">' in home and '<option value="UTC">' in home
    created = client.post(
        "/teach/courses",
        data={"csrf_token": token, "code": unique("c"), "title": "Berlin", "time_zone": "europe/berlin"},
    )
    assert created.status_code == 302
    course = session.scalars(select(Course).where(Course.title == "Berlin")).one()
    assert course.time_zone == "Europe/Berlin"


def test_course_form_refuses_an_unknown_zone(login: Login, session: Session) -> None:
    teacher = make_user(session, Role.TEACHER)
    client, token = login(teacher.username)
    code = unique("c")
    response = client.post(
        "/teach/courses", data={"csrf_token": token, "code": code, "title": "T", "time_zone": "Beijing"}
    )
    page = response.get_data(as_text=True)
    assert response.status_code == 422
    assert "Unknown time zone" in page
    field = re.search(r'<input id="course-time-zone"[^>]*>', page)
    assert field and 'value="Beijing"' in field.group(0) and 'aria-invalid="true"' in field.group(0)
    assert "err-course-bad_time_zone" in field.group(0)
    session.expire_all()
    assert session.scalars(select(Course).where(Course.code == code)).first() is None


def test_course_made_without_a_zone_field_keeps_utc(login: Login, session: Session) -> None:
    """A client posting the old form (no time_zone field) gets what courses had before: UTC."""
    teacher = make_user(session, Role.TEACHER)
    client, token = login(teacher.username)
    code = unique("c")
    assert client.post("/teach/courses", data={"csrf_token": token, "code": code, "title": "T"}).status_code == 302
    assert session.scalars(select(Course).where(Course.code == code)).one().time_zone == "UTC"


# --- Assignment forms read and show times in the course's zone ----------------------------------------------------


def test_due_time_is_typed_and_shown_in_the_course_zone(login: Login, session: Session) -> None:
    course, teacher = _course(session, "Asia/Shanghai")
    client, token = login(teacher.username)
    form = client.get(f"/teach/courses/{course.id}/assignments/new").get_data(as_text=True)
    assert "Due (Asia/Shanghai, optional)" in form and "Asia/Shanghai (now UTC+8)" in form
    created = client.post(f"/teach/courses/{course.id}/assignments/new", data=_form(token))
    assert created.status_code == 302, created.get_data(as_text=True)
    assignment = _only_assignment(session, course)
    assert assignment.due_at == datetime(2026, 12, 1, 15, 59, tzinfo=UTC)  # 23:59 in Beijing
    edit = client.get(f"/teach/assignments/{assignment.id}/edit").get_data(as_text=True)
    assert 'value="2026-12-01T23:59"' in edit
    shown = "2026-12-01 23:59 (Asia/Shanghai, UTC+8)"
    assert shown in client.get(f"/teach/courses/{course.id}").get_data(as_text=True)
    assert shown in client.get(f"/teach/assignments/{assignment.id}").get_data(as_text=True)


@pytest.mark.parametrize(
    ("field", "typed", "words"),
    [
        ("due_at", "2026-03-29T02:30", "The due time 2026-03-29 02:30 does not exist in Europe/Berlin"),
        ("opens_at", "2026-03-29T02:00", "The opening time 2026-03-29 02:00 does not exist in Europe/Berlin"),
        ("due_at", "2026-10-25T02:30", "The due time 2026-10-25 02:30 happens twice in Europe/Berlin"),
        ("opens_at", "2026-10-25T02:59", "The opening time 2026-10-25 02:59 happens twice in Europe/Berlin"),
    ],
)
def test_dst_times_are_refused_naming_the_field(
    login: Login, session: Session, field: str, typed: str, words: str
) -> None:
    course, teacher = _course(session, "Europe/Berlin")
    client, token = login(teacher.username)
    other = {"due_at": "2026-11-30T12:00"} if field == "opens_at" else {}
    response = client.post(f"/teach/courses/{course.id}/assignments/new", data=_form(token, **{field: typed}, **other))
    page = response.get_data(as_text=True)
    assert response.status_code == 422
    assert words in page
    tag = re.search(rf'<input[^>]* id="{field}"[^>]*>', page)
    assert tag and f'aria-describedby="err-{field}"' in tag.group(0) and 'aria-invalid="true"' in tag.group(0)
    session.expire_all()
    assert session.scalars(select(Assignment).where(Assignment.course_id == course.id)).first() is None


def test_dst_message_in_chinese(login: Login, session: Session) -> None:
    course, teacher = _course(session, "Europe/Berlin")
    client, token = login(teacher.username)
    client.set_cookie("lang", "zh")
    page = client.post(
        f"/teach/courses/{course.id}/assignments/new", data=_form(token, due_at="2026-03-29T02:30")
    ).get_data(as_text=True)
    assert "截止时间 2026-03-29 02:30 在 Europe/Berlin 不存在" in page


def test_either_side_of_a_dst_change_is_saved_exactly(login: Login, session: Session) -> None:
    course, teacher = _course(session, "Europe/Berlin")
    client, token = login(teacher.username)
    response = client.post(
        f"/teach/courses/{course.id}/assignments/new",
        data=_form(token, opens_at="2026-03-29T01:59", due_at="2026-03-29T03:00"),
    )
    assert response.status_code == 302
    assignment = _only_assignment(session, course)
    assert assignment.opens_at == datetime(2026, 3, 29, 0, 59, tzinfo=UTC)  # CET, UTC+1
    assert assignment.due_at == datetime(2026, 3, 29, 1, 0, tzinfo=UTC)  # CEST, UTC+2: one minute later


def test_changing_the_zone_moves_no_deadline(login: Login, session: Session) -> None:
    course, teacher = _course(session, "UTC")
    client, token = login(teacher.username)
    assert (
        client.post(
            f"/teach/courses/{course.id}/assignments/new", data=_form(token, due_at="2026-12-01T15:59")
        ).status_code
        == 302
    )
    assignment = _only_assignment(session, course)
    due = assignment.due_at
    assert due == datetime(2026, 12, 1, 15, 59, tzinfo=UTC)
    settings = client.get(f"/teach/courses/{course.id}/settings").get_data(as_text=True)
    assert 'value="UTC"' in settings and "does not move existing opening and due times" in settings
    saved = client.post(
        f"/teach/courses/{course.id}/settings", data={"csrf_token": token, "time_zone": "Asia/Shanghai"}
    )
    assert saved.status_code == 302
    session.expire_all()
    assert session.get_one(Course, course.id).time_zone == "Asia/Shanghai"
    assert _only_assignment(session, course).due_at == due
    edit = client.get(f"/teach/assignments/{assignment.id}/edit").get_data(as_text=True)
    assert 'value="2026-12-01T23:59"' in edit  # the same instant, shown in the new zone
    # Saving the edit form unchanged keeps the instant.
    assert client.post(f"/teach/assignments/{assignment.id}/edit", data=_form(token)).status_code == 302
    assert _only_assignment(session, course).due_at == due


def test_settings_refuse_an_unknown_zone(login: Login, session: Session) -> None:
    course, teacher = _course(session, "Asia/Shanghai")
    client, token = login(teacher.username)
    response = client.post(f"/teach/courses/{course.id}/settings", data={"csrf_token": token, "time_zone": "CST+8"})
    assert response.status_code == 422 and "Unknown time zone" in response.get_data(as_text=True)
    session.expire_all()
    assert session.get_one(Course, course.id).time_zone == "Asia/Shanghai"


def test_an_unchanged_field_keeps_its_stored_instant(login: Login, session: Session) -> None:
    """Seconds the form cannot show, and a time in an hour the zone repeats, survive saving the form as shown."""
    course, teacher = _course(session, "Europe/Berlin")
    due = datetime(2026, 10, 25, 1, 30, 59, tzinfo=UTC)  # 02:30:59 CET, the second 02:30 of the night
    assignment = Assignment(
        course_id=course.id, title_zh="z", title_en="e", exercise_ids=["ch13.shift-pairs"], due_at=due
    )
    session.add(assignment)
    session.commit()
    client, token = login(teacher.username)
    edit = client.get(f"/teach/assignments/{assignment.id}/edit").get_data(as_text=True)
    assert 'value="2026-10-25T02:30"' in edit
    assert (
        client.post(
            f"/teach/assignments/{assignment.id}/edit", data=_form(token, due_at="2026-10-25T02:30", attempts="2")
        ).status_code
        == 302
    )
    saved = _only_assignment(session, course)
    assert (saved.due_at, saved.attempts_allowed) == (due, 2)
    # Typed anew, the same ambiguous time is refused.
    retyped = client.post(f"/teach/assignments/{assignment.id}/edit", data=_form(token, due_at="2026-10-25T02:31"))
    assert retyped.status_code == 422


def test_another_teacher_cannot_see_or_change_the_settings(login: Login, session: Session) -> None:
    course, _ = _course(session, "Asia/Shanghai")
    stranger = make_user(session, Role.TEACHER)
    client, token = login(stranger.username)
    assert client.get(f"/teach/courses/{course.id}/settings").status_code == 404
    assert (
        client.post(f"/teach/courses/{course.id}/settings", data={"csrf_token": token, "time_zone": "UTC"}).status_code
        == 404
    )
    session.expire_all()
    assert session.get_one(Course, course.id).time_zone == "Asia/Shanghai"


def test_cli_course_create_takes_a_time_zone(
    app: Flask, backend: Backend, session: Session, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in backend.config().items():  # the CLI reads the same backend as ``app``
        monkeypatch.setenv(name, str(value))
    code = unique("cli")
    assert main(["course", "create", "--code", code, "--title", "T", "--time-zone", "asia/shanghai"]) == 0
    assert main(["course", "create", "--code", unique("cli"), "--title", "T", "--time-zone", "Beijing"]) == 1
    assert "unknown time zone" in capsys.readouterr().err
    session.expire_all()
    assert session.scalars(select(Course).where(Course.code == code)).one().time_zone == "Asia/Shanghai"
