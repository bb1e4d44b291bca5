"""NRPS roster sync on demand: every page of the LMS course's members is read, new members are enrolled with their
roles before they first launch, and Inactive or Deleted members' student enrolments end."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from flask import Flask
from sqlalchemy import select
from sqlalchemy.orm import Session

from grader.models import Enrolment, LtiIdentity
from tests.lti.conftest import ToolBrowser, bind_course, register
from tests.lti.platform import INSTRUCTOR, LEARNER, LmsPlatform, PlannedLaunch
from tests.lti.platform_nrps import add_roster

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
    assert roles == {"prof": "teacher", "alice": "student", "bob": "student", "tina": "teacher"}
    assert session.scalar(select(LtiIdentity).where(LtiIdentity.sub == "dave")) is None
    done = staff.client.get(f"/lti/courses/{assignment.course_id}/grades", base_url=roster_lms.tool_url)
    assert "3 enrolled" in done.get_data(as_text=True) or "新加入 3 人" in done.get_data(as_text=True)
