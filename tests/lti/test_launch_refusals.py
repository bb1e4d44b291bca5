"""Every launch the issue lists as refused is refused with its reason, and leaves no session and no user; a launch
whose iat is 5 s ahead (clock skew) is accepted."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
from collections.abc import Callable
from typing import Any

import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from grader.models import User
from tests.factories import make_assignment
from tests.lti.conftest import ToolBrowser
from tests.lti.platform import CLIENT_ID, LEARNER, LmsPlatform, PlannedLaunch, new_private_pem, public_pem

Tamper = Callable[[LmsPlatform, dict[str, Any]], str]
LTI = "https://purl.imsglobal.org/spec/lti/claim/"
NRPS = "https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice"


def _with(**changes: Any) -> Tamper:
    """Re-sign the claims with the platform key after ``changes`` (a value of None removes the claim)."""

    def tamper(lms: LmsPlatform, claims: dict[str, Any]) -> str:
        for name, value in changes.items():
            name = name.replace("LTI_", LTI)
            if value is None:
                claims.pop(name, None)
            else:
                claims[name] = value(claims) if callable(value) else value
        return lms.sign(claims)

    return tamper


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _hs256_with_public_key(lms: LmsPlatform, claims: dict[str, Any]) -> str:
    """The classic key-confusion forgery: HMAC over the token with the platform's public key as the secret."""
    head = _b64(json.dumps({"alg": "HS256", "typ": "JWT", "kid": lms.kid(lms.keys[0])}).encode())
    body = _b64(json.dumps(claims).encode())
    mac = hmac.new(public_pem(lms.keys[0]).encode(), f"{head}.{body}".encode(), hashlib.sha256).digest()
    return f"{head}.{body}.{_b64(mac)}"


def _alg_none(lms: LmsPlatform, claims: dict[str, Any]) -> str:
    head = _b64(json.dumps({"alg": "none", "typ": "JWT", "kid": lms.kid(lms.keys[0])}).encode())
    return f"{head}.{_b64(json.dumps(claims).encode())}."


def _other_key(lms: LmsPlatform, claims: dict[str, Any]) -> str:
    return lms.sign(claims, key=new_private_pem(), headers={"kid": lms.kid(lms.keys[0])})


REFUSED: dict[str, tuple[Tamper, str]] = {
    "wrong aud": (_with(aud="someone-else", azp=None), "wrong_audience"),
    "several aud without azp": (_with(aud=[CLIENT_ID, "another-tool"], azp=None), "no_azp"),
    "azp not ours": (_with(azp="another-tool"), "wrong_azp"),
    "expired": (_with(iat=lambda c: int(time.time()) - 400, exp=lambda c: int(time.time()) - 100), "expired"),
    "no exp": (_with(exp=None), "no_exp"),
    "iat far in the past": (_with(iat=lambda c: int(time.time()) - 3600), "too_old"),
    "nonce not issued": (_with(nonce="a-nonce-we-never-issued"), "nonce_mismatch"),
    "unknown deployment": (_with(LTI_deployment_id="deployment-unknown"), "unknown_deployment"),
    "unknown kid": (lambda lms, c: lms.sign(c, headers={"kid": "no-such-kid"}), "unknown_kid"),
    "missing kid": (lambda lms, c: lms.sign(c, headers={}), "no_kid"),
    "signed with another key": (_other_key, "bad_signature"),
    "alg none": (_alg_none, "bad_algorithm"),
    "HS256 with the public key": (_hs256_with_public_key, "bad_algorithm"),
    "wrong iss": (_with(iss="http://127.0.0.9:1"), "wrong_issuer"),
    "wrong version": (_with(LTI_version="1.1"), "wrong_version"),
    "unknown message_type": (_with(LTI_message_type="LtiSubmissionReviewRequest"), "unknown_message_type"),
    "foreign target_link_uri": (_with(LTI_target_link_uri="http://127.0.0.9/lti/launch"), "foreign_target"),
    "no resource_link": (_with(LTI_resource_link=None), "no_resource_link"),
    "no roles": (_with(LTI_roles=None), "no_roles"),
    # LTI 1.3 allows at most 255 characters; a longer one used to fail the launch with a 500 on PostgreSQL.
    "sub over 255 characters": (_with(sub="u" * 256), "bad_user_id"),
    "sub not text": (_with(sub=["alice"]), "malformed"),  # PyJWT's own check, before ours
    # Longer than the columns that keep them: these too used to end in a 500 on PostgreSQL.
    "context id over 255 characters": (_with(LTI_context={"id": "c" * 256, "title": "A course"}), "claim_too_long"),
    "memberships URL over 1000 characters": (
        _with(**{NRPS: {"context_memberships_url": "http://127.0.0.2/" + "m" * 1000, "service_versions": ["2.0"]}}),
        "claim_too_long",
    ),
}


def _users(session: Session) -> int:
    session.expire_all()
    return session.scalar(select(func.count()).select_from(User)) or 0


def _assert_refused(response: Any, reason: str, browser: ToolBrowser, session: Session, users_before: int) -> None:
    page = response.get_data(as_text=True)
    assert response.status_code == 400, page[:500]
    assert f'data-reason="{reason}"' in page or reason == "no_state_cookie"
    assert not browser.has_session()
    assert _users(session) == users_before


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_each_listed_launch_is_refused_with_its_reason_and_no_session(
    case: str, registered: LmsPlatform, browser_of: Callable[[LmsPlatform], ToolBrowser], session: Session
) -> None:
    tamper, reason = REFUSED[case]
    browser = browser_of(registered)
    response = browser.launch(PlannedLaunch("alice", [LEARNER]), lambda claims: tamper(registered, claims))
    _assert_refused(response, reason, browser, session, 0)


def test_a_nonce_from_another_state_is_refused(
    registered: LmsPlatform, browser_of: Callable[[LmsPlatform], ToolBrowser], session: Session
) -> None:
    browser = browser_of(registered)
    first = browser.start_login(registered.plan(PlannedLaunch("alice", [LEARNER])))
    second = browser.start_login(registered.plan(PlannedLaunch("alice", [LEARNER])))
    fields = browser.platform_form(first)  # signed with the first login's nonce
    response = browser.post_launch({"id_token": fields["id_token"], "state": second.state})
    _assert_refused(response, "nonce_mismatch", browser, session, 0)


def test_a_replayed_launch_is_refused(
    registered: LmsPlatform, browser_of: Callable[[LmsPlatform], ToolBrowser], session: Session
) -> None:
    assignment = make_assignment(session, [])
    plan = PlannedLaunch("alice", [LEARNER], custom={"assignment_id": str(assignment.id)})
    browser = browser_of(registered)
    login = browser.start_login(registered.plan(plan))
    fields = browser.platform_form(login)
    state_cookie = browser.client.get_cookie(f"lti1p3-state-{login.state}", domain="127.0.0.1", path="/lti/")
    assert state_cookie is not None
    # The course is not bound yet (no instructor launched), so the first launch is a refusal too: it still uses
    # the state up. The replay, from another browser holding a copy of the cookie, finds the state gone.
    browser.post_launch(fields)
    thief = ToolBrowser(browser.client.application.test_client(), registered)
    thief.client.set_cookie(state_cookie.key, state_cookie.value, domain="127.0.0.1", path="/lti/")
    _assert_refused(thief.post_launch(fields), "state_unknown", thief, session, _users(session))


def test_a_launch_without_its_state_cookie_offers_a_new_window(
    registered: LmsPlatform, browser_of: Callable[[LmsPlatform], ToolBrowser], session: Session
) -> None:
    browser = browser_of(registered)
    login = browser.start_login(registered.plan(PlannedLaunch("alice", [LEARNER])))
    fields = browser.platform_form(login)
    browser.drop_state_cookies()
    response = browser.post_launch(fields)
    _assert_refused(response, "no_state_cookie", browser, session, 0)
    page = response.get_data(as_text=True)
    assert 'target="_blank"' in page and "/lti/login?" in page and "login_hint=alice" in page


def test_iat_five_seconds_in_the_future_is_accepted(
    registered: LmsPlatform, browser_of: Callable[[LmsPlatform], ToolBrowser], session: Session
) -> None:
    browser = browser_of(registered)
    response = browser.launch(
        PlannedLaunch("teacher-1", ["http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor"]),
        lambda claims: registered.sign({**claims, "iat": int(time.time()) + 5}),
    )
    assert response.status_code == 302, response.get_data(as_text=True)[:500]
    assert browser.has_session()
    assert _users(session) == 1


def test_the_state_cookie_is_samesite_none_secure_partitioned(
    registered: LmsPlatform, browser_of: Callable[[LmsPlatform], ToolBrowser]
) -> None:
    browser = browser_of(registered)
    hint = registered.plan(PlannedLaunch("alice", [LEARNER]))
    response = browser.client.get(
        "/lti/login", query_string=registered.login_params(hint), base_url="http://127.0.0.1:5000"
    )
    header = next(v for k, v in response.headers.items() if k == "Set-Cookie" and "lti1p3-state-" in v)
    assert "SameSite=None" in header and "Secure" in header and "Partitioned" in header and "HttpOnly" in header
