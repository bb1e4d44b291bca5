"""OIDC third-party login initiation: the platform names itself and the user; we hand out a state and a nonce,
stored in the database for 10 minutes and used once, and send the browser to the platform's authorisation URL."""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from urllib.parse import urlencode, urlsplit

from sqlalchemy import delete
from sqlalchemy.orm import Session

from grader.lti.refusals import Refusal
from grader.lti.registration import find_platform
from grader.models import LtiLaunchState

STATE_TTL = timedelta(minutes=10)
STATE_COOKIE_PREFIX = "lti1p3-state-"
LAUNCH_PATH = "/lti/launch"
# The login parameters kept with a state, to offer the same login again in a new window.
LOGIN_PARAMS = ("iss", "login_hint", "target_link_uri", "lti_message_hint", "client_id", "lti_deployment_id")


@dataclass(frozen=True)
class LoginRedirect:
    """Where to send the browser, and the state whose cookie goes with it."""

    url: str
    state: str


def is_ours(url: str, base_url: str) -> bool:
    """True if ``url`` is one of our LTI endpoints on this site (scheme, host and port as ``base_url``)."""
    target, ours = urlsplit(url), urlsplit(base_url)
    return (target.scheme, target.netloc) == (ours.scheme, ours.netloc) and target.path.startswith("/lti/")


def begin_login(session: Session, params: Mapping[str, str], base_url: str, now: datetime) -> LoginRedirect | Refusal:
    """Check a login initiation and store its state and nonce (committed); or say why it is refused."""
    issuer, login_hint, target = (params.get(k, "").strip() for k in ("iss", "login_hint", "target_link_uri"))
    if not issuer or not login_hint or not target:
        return Refusal.BAD_LOGIN
    platform = find_platform(session, issuer, params.get("client_id") or None)
    if platform is None:
        return Refusal.UNKNOWN_PLATFORM
    if not is_ours(target, base_url):
        return Refusal.FOREIGN_TARGET
    session.execute(delete(LtiLaunchState).where(LtiLaunchState.expires_at < now))
    state, nonce = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
    kept = {name: str(params[name]) for name in LOGIN_PARAMS if params.get(name)}
    session.add(
        LtiLaunchState(state=state, nonce=nonce, platform_id=platform.id, login_params=kept, expires_at=now + STATE_TTL)
    )
    session.commit()
    query = {
        "scope": "openid",
        "response_type": "id_token",
        "response_mode": "form_post",
        "prompt": "none",
        "client_id": platform.client_id,
        "redirect_uri": base_url.rstrip("/") + LAUNCH_PATH,
        "login_hint": login_hint,
        "state": state,
        "nonce": nonce,
    }
    if params.get("lti_message_hint"):
        query["lti_message_hint"] = params["lti_message_hint"]
    separator = "&" if urlsplit(platform.auth_login_url).query else "?"
    return LoginRedirect(platform.auth_login_url + separator + urlencode(query), state)
