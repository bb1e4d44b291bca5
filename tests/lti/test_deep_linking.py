"""Deep Linking 2.0 round trip: the instructor's LtiDeepLinkingRequest shows the course's assignments, the picked one
goes back to the LMS as a signed LtiDeepLinkingResponse (checked by the LMS against our key set) with its line item,
the custom ``assignment_id`` and the request's data echoed; a launch of the placed link opens that assignment."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
import requests
from flask import Flask
from sqlalchemy import select
from sqlalchemy.orm import Session

from exercises import api as engine
from grader.models import Assignment
from tests.lti.conftest import ToolBrowser, bind_course, register
from tests.lti.platform import INSTRUCTOR, LEARNER, LmsPlatform, PlannedLaunch


@pytest.fixture
def live_lms(live_grader: str, session: Session) -> Iterator[LmsPlatform]:
    """The LMS launching the grader served over HTTP (it fetches our key set to check what we sign)."""
    platform = LmsPlatform().start(live_grader)
    register(session, platform)
    yield platform
    platform.stop()


def test_an_instructor_picks_an_assignment_and_the_lms_gets_a_signed_link_to_it(
    app: Flask, live_lms: LmsPlatform, session: Session
) -> None:
    # The course is bound by an ordinary instructor launch of a link naming the assignment.
    bound = bind_course(app, session, live_lms)
    assignment, staff = bound.assignment, bound.staff
    response = staff.launch(PlannedLaunch("prof", [INSTRUCTOR], resource_link_id=None, deep_linking=True))
    assert response.status_code == 302 and response.location.endswith("/lti/deep-link")
    picker = staff.client.get("/lti/deep-link", base_url=live_lms.tool_url).get_data(as_text=True)
    assert f'value="{assignment.id}"' in picker and assignment.title_zh in picker
    token = re.search(r'name="csrf_token" value="([^"]+)"', picker)
    assert token is not None
    back = staff.client.post(
        "/lti/deep-link",
        base_url=live_lms.tool_url,
        data={"csrf_token": token.group(1), "assignment_id": str(assignment.id)},
    )
    page = back.get_data(as_text=True)
    assert back.status_code == 200
    action = re.search(r'action="([^"]+)"', page)
    jwt_field = re.search(r'name="JWT" value="([^"]+)"', page)
    assert action is not None and jwt_field is not None and action.group(1) == live_lms.url + "/deep_link_return"
    assert requests.post(action.group(1), data={"JWT": jwt_field.group(1)}, timeout=10).status_code == 200
    returned = live_lms.deep_links[0]
    item = returned["items"][0]
    assert item["type"] == "ltiResourceLink" and item["custom"] == {"assignment_id": str(assignment.id)}
    assert item["lineItem"]["resourceId"] == str(assignment.id) and item["lineItem"]["scoreMaximum"] == 1.0
    claims = returned["claims"]
    assert claims["https://purl.imsglobal.org/spec/lti-dl/claim/data"] == {"data": "opaque-123"}  # as the LMS sent it
    assert claims["aud"] == live_lms.url and claims["https://purl.imsglobal.org/spec/lti/claim/message_type"] == (
        "LtiDeepLinkingResponse"
    )
    # The LMS places the link with the custom parameter: a learner's launch opens the picked assignment.
    learner = ToolBrowser(app.test_client(), live_lms)
    opened = learner.launch(PlannedLaunch("alice", [LEARNER], resource_link_id="placed-1", custom=item["custom"]))
    assert opened.status_code == 302 and opened.location.endswith(f"/assignments/{assignment.id}")


def test_a_learner_cannot_answer_a_deep_linking_request(app: Flask, live_lms: LmsPlatform, session: Session) -> None:
    bind_course(app, session, live_lms)
    learner = ToolBrowser(app.test_client(), live_lms)
    response = learner.launch(PlannedLaunch("alice", [LEARNER], resource_link_id=None, deep_linking=True))
    assert response.status_code == 400 and 'data-reason="staff_only"' in response.get_data(as_text=True)
    assert not learner.has_session()


def test_a_new_assignment_made_in_the_picker_goes_back_to_the_lms(
    app: Flask, live_lms: LmsPlatform, session: Session
) -> None:
    bound = bind_course(app, session, live_lms)
    staff, course_id = bound.staff, bound.assignment.course_id
    staff.launch(PlannedLaunch("prof", [INSTRUCTOR], resource_link_id=None, deep_linking=True))
    picker = staff.client.get("/lti/deep-link", base_url=live_lms.tool_url).get_data(as_text=True)
    exercise = engine.exercise_ids(graded_only=True)[0]
    assert f'value="{exercise}"' in picker
    token = re.search(r'name="csrf_token" value="([^"]+)"', picker)
    assert token is not None
    form = {"csrf_token": token.group(1), "title_zh": "新作业", "title_en": "New one"}
    # No exercise chosen: said on the form, nothing made, nothing sent to the LMS.
    refused = staff.client.post("/lti/deep-link/new", base_url=live_lms.tool_url, data=form)
    assert refused.status_code == 422 and 'id="err-exercise_ids"' in refused.get_data(as_text=True)
    assert 'value="New one"' in refused.get_data(as_text=True)
    session.expire_all()
    assert len(session.scalars(select(Assignment).where(Assignment.course_id == course_id)).all()) == 1
    made = staff.client.post(
        "/lti/deep-link/new", base_url=live_lms.tool_url, data={**form, "exercise_ids": [exercise, "no-such"]}
    )
    assert made.status_code == 200
    session.expire_all()
    new = session.scalars(select(Assignment).where(Assignment.title_en == "New one")).one()
    assert new.course_id == course_id and new.exercise_ids == [exercise] and new.fresh_variants
    page = made.get_data(as_text=True)
    action = re.search(r'action="([^"]+)"', page)
    jwt_field = re.search(r'name="JWT" value="([^"]+)"', page)
    assert action is not None and jwt_field is not None
    assert requests.post(action.group(1), data={"JWT": jwt_field.group(1)}, timeout=10).status_code == 200
    item = live_lms.deep_links[0]["items"][0]
    assert item["custom"] == {"assignment_id": str(new.id)} and item["lineItem"]["resourceId"] == str(new.id)
