"""The first instructor launch of an LMS course binds it: to one of the courses the instructor teaches here (they
choose, or make a new one); a course they do not teach is refused on the form and binds nothing; a deep-linking
first launch goes on to the picker once bound. An instructor's launch of a link that opens no assignment offers the
picker for it (an existing assignment or a new one), and learners following the link land on the one picked."""

from __future__ import annotations

import re

from flask import Flask
from sqlalchemy import select
from sqlalchemy.orm import Session

from exercises import api as engine
from grader.models import Assignment, Course, Enrolment, EnrolmentRole, LtiContext, LtiIdentity, LtiResourceLink, User
from tests.factories import make_taught_assignment
from tests.lti.conftest import ToolBrowser, bind_course
from tests.lti.platform import INSTRUCTOR, LEARNER, LmsPlatform, PlannedLaunch


def _prof_teaching_two_courses(session: Session, lms: LmsPlatform) -> tuple[User, Course, Course, Course]:
    """The LMS instructor "prof" (linked to a local teacher) teaching two courses, and a third course they do not
    teach."""
    first, teacher, _ = make_taught_assignment(session)
    second, other_teacher, _ = make_taught_assignment(session)
    session.add(Enrolment(course_id=second.course_id, user_id=teacher.id, role=EnrolmentRole.TEACHER))
    foreign, _, _ = make_taught_assignment(session)
    session.add(LtiIdentity(issuer=lms.url, sub="prof", user_id=teacher.id))
    session.commit()
    del other_teacher
    return teacher, first.course, second.course, foreign.course


def _token(html: str) -> str:
    found = re.search(r'name="csrf_token" value="([^"]+)"', html)
    assert found is not None, html[:500]
    return found.group(1)


def _context(session: Session) -> LtiContext:
    session.expire_all()
    return session.scalars(select(LtiContext)).one()


def test_the_instructor_picks_one_of_their_courses_and_learners_land_in_it(
    app: Flask, registered: LmsPlatform, session: Session
) -> None:
    _teacher, first, second, foreign = _prof_teaching_two_courses(session, registered)
    staff = ToolBrowser(app.test_client(), registered)
    response = staff.launch(PlannedLaunch("prof", [INSTRUCTOR], custom={}))
    assert response.status_code == 302 and response.location.endswith("/lti/bind")
    assert _context(session).course_id is None  # nothing bound before the choice
    # Before the choice, a learner's launch finds the course not set up.
    early = ToolBrowser(app.test_client(), registered).launch(PlannedLaunch("alice", [LEARNER]))
    assert 'data-reason="not_set_up"' in early.get_data(as_text=True)

    page = staff.client.get("/lti/bind", base_url=registered.tool_url).get_data(as_text=True)
    assert f'value="{first.id}"' in page and f'value="{second.id}"' in page and 'value="new"' in page
    assert f'value="{foreign.id}"' not in page and "LMS course ctx-1" in page
    token = _token(page)
    for refused in (str(foreign.id), "", "abc", "99999999999"):
        answer = staff.client.post(
            "/lti/bind", data={"csrf_token": token, "course_id": refused}, base_url=registered.tool_url
        )
        assert answer.status_code == 422 and 'id="err-course_id"' in answer.get_data(as_text=True)
        assert _context(session).course_id is None

    answer = staff.client.post(
        "/lti/bind", data={"csrf_token": token, "course_id": str(second.id)}, base_url=registered.tool_url
    )
    assert answer.status_code == 302 and answer.location.endswith("/lti/link")  # next: what link-1 opens
    assert _context(session).course_id == second.id
    learner = ToolBrowser(app.test_client(), registered)
    assert learner.launch(PlannedLaunch("alice", [LEARNER])).status_code == 302
    alice = session.scalars(
        select(User).join(LtiIdentity, LtiIdentity.user_id == User.id).where(LtiIdentity.sub == "alice")
    ).one()
    enrolled = session.scalars(select(Enrolment.course_id).where(Enrolment.user_id == alice.id)).all()
    assert enrolled == [second.id]
    # The choice is made once: the bind page has nothing left to bind.
    assert 'data-reason="no_state"' in staff.client.get("/lti/bind", base_url=registered.tool_url).get_data(
        as_text=True
    )


def test_a_new_course_for_a_deep_linking_first_launch_then_the_picker(
    app: Flask, registered: LmsPlatform, session: Session
) -> None:
    teacher, first, second, _foreign = _prof_teaching_two_courses(session, registered)
    staff = ToolBrowser(app.test_client(), registered)
    response = staff.launch(PlannedLaunch("prof", [INSTRUCTOR], resource_link_id=None, deep_linking=True))
    assert response.location.endswith("/lti/bind")
    token = _token(staff.client.get("/lti/bind", base_url=registered.tool_url).get_data(as_text=True))
    answer = staff.client.post(
        "/lti/bind", data={"csrf_token": token, "course_id": "new"}, base_url=registered.tool_url
    )
    assert answer.status_code == 302 and answer.location.endswith("/lti/deep-link")
    context = _context(session)
    assert context.course_id not in (None, first.id, second.id)
    course = session.get_one(Course, context.course_id)
    assert course.title == "LMS course ctx-1"
    role = session.scalar(
        select(Enrolment.role).where(Enrolment.course_id == course.id, Enrolment.user_id == teacher.id)
    )
    assert role == EnrolmentRole.TEACHER
    picker = staff.client.get("/lti/deep-link", base_url=registered.tool_url)
    assert picker.status_code == 200 and 'id="new-assignment"' in picker.get_data(as_text=True)


def test_a_learner_cannot_bind(app: Flask, registered: LmsPlatform, session: Session) -> None:
    _prof_teaching_two_courses(session, registered)
    ToolBrowser(app.test_client(), registered).launch(PlannedLaunch("prof", [INSTRUCTOR]))
    context_id = _context(session).id
    learner = ToolBrowser(app.test_client(), registered)
    learner.launch(PlannedLaunch("alice", [LEARNER]))
    assert not learner.has_session()  # refused (not set up): no session, so no bind page either
    assert learner.client.get("/lti/bind", base_url=registered.tool_url).status_code == 302  # to the login page
    assert session.get_one(LtiContext, context_id).course_id is None


def test_an_unbound_link_launched_by_an_instructor_offers_the_picker(
    app: Flask, registered: LmsPlatform, session: Session
) -> None:
    bound = bind_course(app, session, registered)  # ctx-1 bound, link-1 opens the assignment
    staff, assignment = bound.staff, bound.assignment
    other, _t, _s = make_taught_assignment(session)  # an assignment of another course
    response = staff.launch(PlannedLaunch("prof", [INSTRUCTOR], resource_link_id="made-in-lms"))
    assert response.status_code == 302 and response.location.endswith("/lti/link")
    page = staff.client.get("/lti/link", base_url=registered.tool_url).get_data(as_text=True)
    assert f'value="{assignment.id}"' in page and f'value="{other.id}"' not in page
    token = _token(page)
    refused = staff.client.post(
        "/lti/link", data={"csrf_token": token, "assignment_id": str(other.id)}, base_url=registered.tool_url
    )
    assert refused.status_code == 400
    session.expire_all()
    link = session.scalars(select(LtiResourceLink).where(LtiResourceLink.resource_link_id == "made-in-lms")).one()
    assert link.assignment_id is None
    answer = staff.client.post(
        "/lti/link", data={"csrf_token": token, "assignment_id": str(assignment.id)}, base_url=registered.tool_url
    )
    assert answer.status_code == 302 and answer.location.endswith(f"/teach/assignments/{assignment.id}")
    learner = ToolBrowser(app.test_client(), registered)
    landed = learner.launch(PlannedLaunch("alice", [LEARNER], resource_link_id="made-in-lms"))
    assert landed.status_code == 302 and landed.location.endswith(f"/assignments/{assignment.id}")
    # A new assignment from the link's picker: made in the course and opened by the link.
    staff.launch(PlannedLaunch("prof", [INSTRUCTOR], resource_link_id="another"))
    token = _token(staff.client.get("/lti/link", base_url=registered.tool_url).get_data(as_text=True))
    exercise = engine.exercise_ids(graded_only=True)[0]
    made = staff.client.post(
        "/lti/link/new",
        data={"csrf_token": token, "title_zh": "链接作业", "title_en": "Link one", "exercise_ids": exercise},
        base_url=registered.tool_url,
    )
    assert made.status_code == 302
    session.expire_all()
    new = session.scalars(select(Assignment).where(Assignment.title_en == "Link one")).one()
    assert new.course_id == assignment.course_id and made.location.endswith(f"/teach/assignments/{new.id}")
    link = session.scalars(select(LtiResourceLink).where(LtiResourceLink.resource_link_id == "another")).one()
    assert link.assignment_id == new.id
