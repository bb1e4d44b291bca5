"""NRPS roster sync, on demand and nightly (a sweeper step run by a real worker): every page of the LMS course's
members is read, new members are enrolled with their roles before they first launch, and Inactive or Deleted members,
and members a later roster no longer lists, are marked as having left on the teacher's page, their student
enrolments ended."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from flask import Flask, request
from sqlalchemy import select
from sqlalchemy.orm import Session

from grader.extensions import get_db
from grader.grading.sweeper import sweep
from grader.models import CourseStaff, Enrolment, LtiContext, LtiIdentity, LtiMember, MemberStatus, StaffRole, utcnow
from tests.lti.conftest import ToolBrowser, bind_course, register, serve
from tests.lti.platform import INSTRUCTOR, LEARNER, LmsPlatform, PlannedLaunch
from tests.lti.platform_nrps import add_roster
from tests.support import WorkerProcess, wait_for

TA = "http://purl.imsglobal.org/vocab/lis/v2/membership/Instructor#TeachingAssistant"


def _member(sub: str, role: str, status: str = "Active") -> dict[str, Any]:
    return {"user_id": sub, "roles": [role], "status": status, "name": f"Member {sub}", "email": f"{sub}@lms.test"}


ROSTER: dict[str, list[dict[str, Any]]] = {"ctx-1": []}


@pytest.fixture
def roster_lms(live_grader: str, session: Session) -> Iterator[LmsPlatform]:
    """The LMS with a roster for ctx-1, launching the live grader."""
    platform = LmsPlatform()
    add_roster(platform, ROSTER)
    platform.start(live_grader)
    register(session, platform)
    yield platform
    platform.stop()


def _roles(session: Session, course_id: int) -> dict[str, str]:
    session.expire_all()
    rows = session.execute(
        select(LtiIdentity.sub, Enrolment.role)
        .join(Enrolment, Enrolment.user_id == LtiIdentity.user_id)
        .where(Enrolment.course_id == course_id)
    )
    return {sub: role for sub, role in rows}


def test_a_sync_reads_every_page_enrols_new_members_and_ends_inactive_ones(
    app: Flask, roster_lms: LmsPlatform, session: Session
) -> None:
    bound = bind_course(app, session, roster_lms)
    assignment, custom, staff = bound.assignment, bound.custom, bound.staff
    assert (
        ToolBrowser(app.test_client(), roster_lms).launch(PlannedLaunch("carol", [LEARNER], custom=custom)).status_code
        == 302
    )
    ROSTER["ctx-1"] = [
        _member("prof", INSTRUCTOR),
        _member("alice", LEARNER),
        _member("bob", LEARNER),
        _member("tina", TA),
        _member("carol", LEARNER, "Inactive"),
        _member("dave", LEARNER, "Deleted"),
        # Past LTI's 255 characters: left out (it used to end the sync in a 500 on PostgreSQL).
        _member("x" * 256, LEARNER),
    ]
    page = staff.client.get(f"/lti/courses/{assignment.course_id}/grades", base_url=roster_lms.tool_url)
    token = re.search(r'name="csrf_token" value="([^"]+)"', page.get_data(as_text=True))
    assert token is not None
    answer = staff.client.post(
        f"/lti/courses/{assignment.course_id}/roster-sync",
        base_url=roster_lms.tool_url,
        data={"csrf_token": token.group(1)},
    )
    assert answer.status_code == 302
    roles = _roles(session, assignment.course_id)
    # The LMS's teaching assistant is the course's TA (a staff row, no enrolment), not one of its teachers.
    assert roles == {"prof": "teacher", "alice": "student", "bob": "student"}
    assert (
        session.execute(
            select(CourseStaff.role)
            .join(LtiIdentity, LtiIdentity.user_id == CourseStaff.user_id)
            .where(LtiIdentity.sub == "tina", CourseStaff.course_id == assignment.course_id)
        ).scalar_one()
        == StaffRole.TA
    )
    assert session.scalar(select(LtiIdentity).where(LtiIdentity.sub == "dave")) is None
    done = staff.client.get(f"/lti/courses/{assignment.course_id}/grades", base_url=roster_lms.tool_url)
    html = done.get_data(as_text=True)
    assert "3 enrolled" in html or "新加入 3 人" in html
    # carol launched once, so she is known: marked as having left; dave never was, so there is no one to mark.
    assert html.count('data-member-status="inactive"') == 1 and 'data-member-status="deleted"' not in html
    assert "User carol" in html
    # bob leaves the LMS course altogether: the next roster read in full no longer lists him.
    ROSTER["ctx-1"] = [m for m in ROSTER["ctx-1"] if m["user_id"] != "bob"]
    staff.client.post(
        f"/lti/courses/{assignment.course_id}/roster-sync",
        base_url=roster_lms.tool_url,
        data={"csrf_token": token.group(1)},
    )
    assert _roles(session, assignment.course_id) == {"prof": "teacher", "alice": "student"}
    html = staff.client.get(f"/lti/courses/{assignment.course_id}/grades", base_url=roster_lms.tool_url).get_data(
        as_text=True
    )
    assert 'data-member-status="gone"' in html and "Member bob" in html
    # Back in the LMS course: enrolled again, no longer marked.
    ROSTER["ctx-1"].append(_member("bob", LEARNER))
    staff.client.post(
        f"/lti/courses/{assignment.course_id}/roster-sync",
        base_url=roster_lms.tool_url,
        data={"csrf_token": token.group(1)},
    )
    assert _roles(session, assignment.course_id)["bob"] == "student"
    html = staff.client.get(f"/lti/courses/{assignment.course_id}/grades", base_url=roster_lms.tool_url).get_data(
        as_text=True
    )
    assert 'data-member-status="gone"' not in html


def test_the_nightly_sync_reads_each_roster_once_a_day_through_the_worker(
    lms_app: Flask, fast_worker: WorkerProcess
) -> None:
    roster: dict[str, list[dict[str, Any]]] = {"ctx-1": [_member("prof", INSTRUCTOR), _member("erin", LEARNER)]}
    base, stop = serve(lms_app)
    lms = LmsPlatform()
    asked = add_roster(lms, roster)
    lms.start(base)
    try:
        with lms_app.app_context(), get_db(lms_app).session() as session:
            register(session, lms)
            course_id = bind_course(lms_app, session, lms).assignment.course_id
            lms_app.config["GRADER_LTI_ROSTER_SYNC_HOURS"] = 0  # off: nothing is asked for
            sweep(lms_app)
            assert asked == []
            lms_app.config["GRADER_LTI_ROSTER_SYNC_HOURS"] = 24
            wait_for(lambda: sweep(lms_app) and "erin" in _roles(session, course_id), "erin enrolled by the sync")
            pages = len(asked)
            for _ in range(3):  # synced just now: not due again today
                sweep(lms_app)
            assert len(asked) == pages
            # A day later erin has left the LMS course; the next nightly sync marks her.
            roster["ctx-1"] = [_member("prof", INSTRUCTOR)]
            context = session.scalars(select(LtiContext)).one()
            a_day_ago = utcnow() - timedelta(hours=25)
            context.roster_synced_at, context.roster_requested_at = a_day_ago, a_day_ago
            session.commit()
            wait_for(lambda: sweep(lms_app) and "erin" not in _roles(session, course_id), "erin's enrolment ended")
            member = session.scalars(
                select(LtiMember)
                .join(LtiIdentity, LtiIdentity.user_id == LtiMember.user_id)
                .where(LtiIdentity.sub == "erin")
            ).one()
            assert member.status == MemberStatus.GONE and member.left_at is not None
    finally:
        lms.stop()
        stop()


@pytest.mark.parametrize("answered", ["404", "without JSON"])
def test_a_failed_sync_is_shown_to_the_teacher(app: Flask, live_grader: str, session: Session, answered: str) -> None:
    lms = LmsPlatform().start(live_grader)  # serves no roster: the memberships URL answers 404
    if answered == "without JSON":  # a proxy's sign-in page, answered 200 (it used to fail the sync task itself)
        lms.fault = lambda: ("<html>Sign in</html>", 200, {}) if "/nrps/" in request.path else None
    try:
        register(session, lms)
        bound = bind_course(app, session, lms)
        course_id = bound.assignment.course_id
        page = bound.staff.client.get(f"/lti/courses/{course_id}/grades", base_url=lms.tool_url)
        token = re.search(r'name="csrf_token" value="([^"]+)"', page.get_data(as_text=True))
        assert token is not None
        answer = bound.staff.client.post(
            f"/lti/courses/{course_id}/roster-sync", base_url=lms.tool_url, data={"csrf_token": token.group(1)}
        )
        assert answer.status_code == 302
        html = bound.staff.client.get(f"/lti/courses/{course_id}/grades", base_url=lms.tool_url).get_data(as_text=True)
        assert answered in html and ("The last sync failed" in html or "上次同步失败" in html)
    finally:
        lms.stop()
