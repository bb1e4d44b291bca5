"""After a valid launch: users by (issuer, sub) created on first launch and signed in, roles as enrolments, the
context bound to a course on the first instructor launch, the link bound to an assignment by ``assignment_id``,
students landing on their own assignment page, anonymous launches view-only."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from flask import Flask
from sqlalchemy import select
from sqlalchemy.orm import Session

from grader.lti import claims
from grader.models import (
    CourseStaff,
    Enrolment,
    EnrolmentRole,
    LtiContext,
    LtiIdentity,
    LtiResourceLink,
    Role,
    StaffRole,
    User,
)
from tests.factories import make_taught_assignment
from tests.lti.conftest import TOOL_URL, ToolBrowser, bind_course
from tests.lti.platform import INSTRUCTOR, LEARNER, LmsPlatform, PlannedLaunch

Browsers = Callable[[LmsPlatform], ToolBrowser]


def _user(session: Session, sub: str) -> User | None:
    session.expire_all()
    return session.scalar(select(User).join(LtiIdentity, LtiIdentity.user_id == User.id).where(LtiIdentity.sub == sub))


def test_a_learner_before_any_instructor_launch_is_told_the_course_is_not_set_up(
    registered: LmsPlatform, browser_of: Browsers, session: Session
) -> None:
    browser = browser_of(registered)
    response = browser.launch(PlannedLaunch("alice", [LEARNER]))
    assert response.status_code == 400 and 'data-reason="not_set_up"' in response.get_data(as_text=True)
    assert not browser.has_session()


def test_instructor_binds_the_context_then_a_learner_lands_signed_in_on_their_assignment(
    app: Flask, registered: LmsPlatform, browser_of: Browsers, session: Session
) -> None:
    bound = bind_course(app, session, registered)
    assignment, custom, response = bound.assignment, bound.custom, bound.first_launch
    assert response.location.endswith(f"/teach/assignments/{assignment.id}")
    session.expire_all()
    context = session.scalars(select(LtiContext)).one()
    assert context.course_id == assignment.course_id
    assert session.scalars(select(LtiResourceLink)).one().assignment_id == assignment.id

    learner = browser_of(registered)
    response = learner.launch(PlannedLaunch("alice", [LEARNER], custom=custom))
    assert response.status_code == 302
    assert response.location.endswith(f"/assignments/{assignment.id}")
    alice = _user(session, "alice")
    assert alice is not None and alice.role == Role.STUDENT and alice.display_name == "User alice"
    enrolment = session.scalar(select(Enrolment).where(Enrolment.user_id == alice.id))
    assert enrolment is not None and enrolment.course_id == assignment.course_id
    assert enrolment.role == EnrolmentRole.STUDENT
    page = learner.client.get(f"/assignments/{assignment.id}", base_url=TOOL_URL)
    assert page.status_code == 200 and "User alice" in page.get_data(as_text=True)
    # A second launch finds the same user (issuer, sub), not a new one.
    learner.launch(PlannedLaunch("alice", [LEARNER], custom=custom))
    assert len(session.scalars(select(LtiIdentity).where(LtiIdentity.sub == "alice")).all()) == 1


def test_an_unknown_instructor_first_launch_creates_their_course_and_the_link_follows_the_custom_parameter(
    registered: LmsPlatform, browser_of: Browsers, session: Session
) -> None:
    staff = browser_of(registered)
    response = staff.launch(PlannedLaunch("prof2", [INSTRUCTOR]))
    assert response.status_code == 302 and response.location.endswith("/lti/link")  # the link opens nothing yet
    prof = _user(session, "prof2")
    assert prof is not None and prof.role == Role.TEACHER
    context = session.scalars(select(LtiContext)).one()
    assert context.course_id is not None and context.title == "LMS course ctx-1"
    teaching = session.scalar(select(Enrolment).where(Enrolment.user_id == prof.id))
    assert teaching is not None and teaching.role == EnrolmentRole.TEACHER and teaching.course_id == context.course_id


def test_an_assignment_of_another_course_is_refused(
    registered: LmsPlatform, browser_of: Browsers, session: Session
) -> None:
    other, _teacher, _student = make_taught_assignment(session)
    staff = browser_of(registered)
    staff.launch(PlannedLaunch("prof3", [INSTRUCTOR]))  # binds ctx-1 to a new course of prof3
    response = browser_of(registered).launch(PlannedLaunch("bob", [LEARNER], custom={"assignment_id": str(other.id)}))
    assert response.status_code == 400 and 'data-reason="unknown_assignment"' in response.get_data(as_text=True)


@pytest.mark.parametrize("named", ["²", "12345678901234567890", "-1", "1.0"])
def test_an_assignment_id_that_is_no_number_is_an_unknown_assignment(
    registered: LmsPlatform, browser_of: Browsers, named: str
) -> None:
    response = browser_of(registered).launch(PlannedLaunch("bob", [LEARNER], custom={"assignment_id": named}))
    assert response.status_code == 400 and 'data-reason="unknown_assignment"' in response.get_data(as_text=True)


def test_an_anonymous_launch_may_view_but_gets_no_session_nor_user(
    app: Flask, registered: LmsPlatform, browser_of: Browsers, session: Session
) -> None:
    bound = bind_course(app, session, registered)
    assignment, custom = bound.assignment, bound.custom
    users_before = len(session.scalars(select(User)).all())
    viewer = browser_of(registered)
    response = viewer.launch(PlannedLaunch("nobody", [LEARNER], custom=custom, anonymous=True))
    assert response.status_code == 200
    assert assignment.title_en in response.get_data(as_text=True) or assignment.title_zh in response.get_data(
        as_text=True
    )
    assert not viewer.has_session()
    session.expire_all()
    assert len(session.scalars(select(User)).all()) == users_before


@pytest.mark.parametrize(("cool_down", "accepted"), [(0.0, True), (3600.0, False)])
def test_a_platform_key_rotation_is_followed_by_refetching_its_key_set_outside_the_cool_down(
    cool_down: float, accepted: bool, app: Flask, registered: LmsPlatform, browser_of: Browsers
) -> None:
    app.config["GRADER_LTI_JWKS_COOL_DOWN"] = cool_down
    assert browser_of(registered).launch(PlannedLaunch("prof9", [INSTRUCTOR])).status_code == 302
    registered.rotate_key()  # the new key signs from now on; the grader has only seen the old one
    response = browser_of(registered).launch(PlannedLaunch("prof9", [INSTRUCTOR]))
    if accepted:
        assert response.status_code == 302
    else:  # within the cool-down an unknown kid does not make us fetch the key set again
        assert 'data-reason="unknown_kid"' in response.get_data(as_text=True)


TA_SUB_ROLE = "http://purl.imsglobal.org/vocab/lis/v2/membership/Instructor#TeachingAssistant"
TA_ROLE = "http://purl.imsglobal.org/vocab/lis/v2/membership#TeachingAssistant"


@pytest.mark.parametrize(
    ("roles", "assistant"),
    [
        ([TA_SUB_ROLE], True),
        ([TA_ROLE], True),
        (["TeachingAssistant"], True),
        ([TA_SUB_ROLE, INSTRUCTOR], False),  # also a plain instructor: a teacher
        ([INSTRUCTOR], False),
        ([LEARNER], False),
        ([TA_SUB_ROLE, LEARNER], True),  # staff wins over learner, as for instructors
    ],
)
def test_a_teaching_assistant_is_told_apart_from_an_instructor(roles: list[str], assistant: bool) -> None:
    assert claims.is_teaching_assistant_only(roles) is assistant
    assert claims.is_staff(roles) is (assistant or INSTRUCTOR in roles)


def test_an_lms_teaching_assistant_is_the_courses_ta_and_follows_a_later_instructor_launch(
    app: Flask, registered: LmsPlatform, browser_of: Browsers, session: Session
) -> None:
    """A TA launch makes the person the course's TA (dashboards yes, editing the assignment no), not a teacher;
    launched later as an instructor, they are a teacher and no longer a TA row."""
    bound = bind_course(app, session, registered)
    assignment = bound.assignment
    assistant = browser_of(registered)
    response = assistant.launch(PlannedLaunch("tina", [TA_SUB_ROLE], custom=bound.custom))
    assert response.status_code == 302, response.get_data(as_text=True)[:400]
    tina = _user(session, "tina")
    assert tina is not None
    staff = session.scalars(select(CourseStaff).where(CourseStaff.user_id == tina.id)).one()
    assert (staff.course_id, staff.role) == (assignment.course_id, StaffRole.TA)
    assert session.scalar(select(Enrolment).where(Enrolment.user_id == tina.id)) is None
    assert assistant.client.get(f"/teach/assignments/{assignment.id}", base_url=TOOL_URL).status_code == 200
    assert assistant.client.get(f"/teach/assignments/{assignment.id}/edit", base_url=TOOL_URL).status_code in (403, 404)

    browser_of(registered).launch(PlannedLaunch("tina", [INSTRUCTOR], custom=bound.custom))
    session.expire_all()
    assert session.scalars(select(CourseStaff).where(CourseStaff.user_id == tina.id)).all() == []
    enrolment = session.scalar(select(Enrolment).where(Enrolment.user_id == tina.id))
    assert enrolment is not None and enrolment.role == EnrolmentRole.TEACHER
