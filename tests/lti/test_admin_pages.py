"""The administrators' LTI page: a platform registered from the browser (the CLI's rules; a bad value named on the
form, nothing stored) launches; removing it stops its launches; an existing local account linked to an LMS user
is the one that LMS user's launches sign in to; nobody else sees the page or may post to it."""

from __future__ import annotations

import re

from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import select
from sqlalchemy.orm import Session

from grader.i18n import LANG_COOKIE
from grader.models import Enrolment, LtiIdentity, LtiPlatform, Role
from tests.factories import TEST_PASSWORD, make_taught_assignment, make_user
from tests.lti.conftest import ToolBrowser, bind_course
from tests.lti.platform import CLIENT_ID, DEPLOYMENT_ID, INSTRUCTOR, LEARNER, LmsPlatform, PlannedLaunch

TOKEN = re.compile(r'<meta name="csrf-token" content="([^"]+)">')


def _signed_in(app: Flask, username: str) -> tuple[FlaskClient, str]:
    """A browser signed in as ``username`` with English pages, and its CSRF token."""
    client = app.test_client()
    client.set_cookie(LANG_COOKIE, "en")
    page = client.get("/login").get_data(as_text=True)
    token = TOKEN.search(page)
    assert token is not None
    answer = client.post("/login", data={"username": username, "password": TEST_PASSWORD, "csrf_token": token.group(1)})
    assert answer.status_code == 302
    again = TOKEN.search(client.get("/courses").get_data(as_text=True))
    assert again is not None
    return client, again.group(1)


def _platform_form(lms: LmsPlatform, token: str, **changed: str) -> dict[str, str]:
    return {
        "csrf_token": token,
        "issuer": lms.url,
        "client_id": CLIENT_ID,
        "auth_login_url": lms.url + "/auth",
        "auth_token_url": lms.url + "/token",
        "jwks_url": lms.url + "/jwks",
        "deployment_ids": f"{DEPLOYMENT_ID}\n deployment-2 ",
        **changed,
    }


def test_a_platform_registered_in_the_browser_launches_and_stops_once_removed(
    app: Flask, lms: LmsPlatform, session: Session
) -> None:
    admin = make_user(session, Role.ADMIN)
    client, token = _signed_in(app, admin.username)
    for field, bad in (
        ("jwks_url", "ftp://lms/jwks"),
        ("auth_token_url", "/token"),
        ("issuer", " "),
        ("client_id", "x" * 300),
    ):
        refused = client.post("/lti/setup/platforms", data=_platform_form(lms, token, **{field: bad}))
        html = refused.get_data(as_text=True)
        assert refused.status_code == 422 and f'id="err-{field}"' in html, field
        assert f'value="{lms.url}/auth"' in html  # the form keeps what was typed
    assert session.scalars(select(LtiPlatform)).all() == []

    added = client.post("/lti/setup/platforms", data=_platform_form(lms, token))
    assert added.status_code == 302
    page = client.get("/lti/setup").get_data(as_text=True)
    assert lms.url in page and "deployment-2" in page
    platform = session.scalars(select(LtiPlatform)).one()
    assert sorted(d.deployment_id for d in platform.deployments) == [DEPLOYMENT_ID, "deployment-2"]
    staff = ToolBrowser(app.test_client(), lms)
    assert staff.launch(PlannedLaunch("prof", [INSTRUCTOR])).status_code == 302

    assert client.post(f"/lti/setup/platforms/{platform.id}/remove", data={"csrf_token": token}).status_code == 302
    session.expire_all()
    assert session.scalars(select(LtiPlatform)).all() == []
    login = app.test_client().get("/lti/login", query_string=lms.login_params(lms.plan(PlannedLaunch("p", []))))
    assert 'data-reason="unknown_platform"' in login.get_data(as_text=True)


def test_a_linked_local_account_is_the_one_the_lms_user_signs_in_to(
    app: Flask, registered: LmsPlatform, session: Session
) -> None:
    bound = bind_course(app, session, registered)
    local = make_user(session, Role.STUDENT)
    session.add(Enrolment(course_id=bound.assignment.course_id, user_id=local.id, role="student"))
    session.commit()
    admin = make_user(session, Role.ADMIN)
    client, token = _signed_in(app, admin.username)
    platform = session.scalars(select(LtiPlatform)).one()
    form = {"csrf_token": token, "platform_id": str(platform.id), "sub": "alice", "username": local.username}
    for field, changed in (
        ("username", {"username": "nobody-here"}),
        ("platform_id", {"platform_id": "999"}),
        ("platform_id", {"platform_id": "²"}),  # a digit to str.isdigit, not to int(): it used to be a 500
        ("sub", {"sub": ""}),
        ("sub_taken", {"sub": "prof"}),
    ):
        refused = client.post("/lti/setup/identities", data={**form, **changed})
        assert refused.status_code == 422 and f'id="err-{field}"' in refused.get_data(as_text=True), field
    assert session.scalar(select(LtiIdentity).where(LtiIdentity.sub == "alice")) is None

    assert client.post("/lti/setup/identities", data=form).status_code == 302
    other = client.post("/lti/setup/identities", data={**form, "sub": "alice-2"})
    assert other.status_code == 422 and 'id="err-user_linked"' in other.get_data(as_text=True)
    learner = ToolBrowser(app.test_client(), registered)
    landed = learner.launch(PlannedLaunch("alice", [LEARNER], custom=bound.custom))
    assert landed.status_code == 302 and landed.location.endswith(f"/assignments/{bound.assignment.id}")
    session.expire_all()
    identity = session.scalars(select(LtiIdentity).where(LtiIdentity.sub == "alice")).one()
    assert identity.user_id == local.id  # no new account was made for alice
    page = learner.client.get(f"/assignments/{bound.assignment.id}", base_url=registered.tool_url)
    assert page.status_code == 200 and local.display_name in page.get_data(as_text=True)


def test_only_administrators_see_or_change_the_lti_set_up(app: Flask, lms: LmsPlatform, session: Session) -> None:
    _assignment, teacher, student = make_taught_assignment(session)
    for user in (teacher, student):
        client, token = _signed_in(app, user.username)
        assert client.get("/lti/setup").status_code == 404
        assert client.post("/lti/setup/platforms", data=_platform_form(lms, token)).status_code == 404
        form = {"csrf_token": token, "platform_id": "1", "sub": "x", "username": user.username}
        assert client.post("/lti/setup/identities", data=form).status_code == 404
    assert session.scalars(select(LtiPlatform)).all() == [] and session.scalars(select(LtiIdentity)).all() == []
    # Without the CSRF token an administrator's post changes nothing either.
    admin = make_user(session, Role.ADMIN)
    client, _token = _signed_in(app, admin.username)
    assert client.post("/lti/setup/platforms", data=_platform_form(lms, "wrong")).status_code in (400, 403)
    assert session.scalars(select(LtiPlatform)).all() == []
