"""LMS access tokens by the client-credentials grant (a JWT assertion signed with our key), cached in the database
per (token URL, client id, scopes) until shortly before ``expires_in`` runs out, so every worker shares one token
and a platform that rate-limits token requests (Canvas) sees few of them."""

from __future__ import annotations

import hashlib
import math
import secrets
from datetime import datetime, timedelta
from typing import Any

import requests
from flask import current_app, has_app_context
from sqlalchemy import delete, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from grader.lti.keys import sign
from grader.models import LtiAccessToken, LtiPlatform

HTTP_TIMEOUT = 10.0  # seconds, for every call to an LMS (GRADER_LTI_HTTP_TIMEOUT in an app)
EARLY_RENEWAL = timedelta(seconds=60)  # a token is renewed this long before the platform says it expires
TOKEN_LIFETIME_MOST = 24 * 3600  # seconds a cached token is trusted, whatever the platform says


class TokenRefused(Exception):
    """The token endpoint did not give a token; ``status`` is its HTTP status (None: no answer)."""

    def __init__(self, status: int | None, message: str, retry_after: str | None = None) -> None:
        super().__init__(message)
        self.status, self.retry_after = status, retry_after


def http_timeout() -> float:
    """Seconds every call to an LMS may take: the app's GRADER_LTI_HTTP_TIMEOUT (outside an app, the default)."""
    return float(current_app.config.get("GRADER_LTI_HTTP_TIMEOUT", HTTP_TIMEOUT)) if has_app_context() else HTTP_TIMEOUT


def _cache_key(platform: LtiPlatform, scopes: tuple[str, ...]) -> str:
    """The cache key of a token: token URL, client id and the sorted scopes."""
    raw = "\x1f".join([platform.auth_token_url, platform.client_id, *sorted(scopes)])
    return hashlib.sha256(raw.encode()).hexdigest()


def forget_token(session: Session, platform: LtiPlatform, scopes: tuple[str, ...]) -> None:
    """Drop the cached token (the LMS answered 401 with it); committed."""
    session.execute(delete(LtiAccessToken).where(LtiAccessToken.cache_key == _cache_key(platform, scopes)))
    session.commit()


def token_and_lifetime(body: Any) -> tuple[str, int]:
    """The access token and how many seconds it lives (0 to TOKEN_LIFETIME_MOST; 3600 if not said) from a token
    endpoint's JSON answer; ValueError, KeyError or TypeError if it holds no token.

    An LMS's ``expires_in`` of 1e999 (read as infinity) or of a century would otherwise overflow the expiry time
    and fail every grade passback to it."""
    token, said = str(body["access_token"]), body.get("expires_in", 3600)
    if isinstance(said, str):
        said = float(said)  # its text; ValueError if it is none
    if isinstance(said, bool) or not isinstance(said, int | float):
        raise TypeError("expires_in is not a number")
    if isinstance(said, float) and math.isnan(said):
        raise ValueError("expires_in is not a number")
    # Compared, never converted first: an int of 400 digits has no float, infinity no int.
    return token, int(min(max(said, 0), TOKEN_LIFETIME_MOST))


def access_token(session: Session, platform: LtiPlatform, scopes: tuple[str, ...], now: datetime) -> str:
    """A valid token for ``scopes``: the cached one, or a new one (stored, committed); raises TokenRefused."""
    key = _cache_key(platform, scopes)
    cached = session.get(LtiAccessToken, key)
    if cached is not None and cached.expires_at > now + EARLY_RENEWAL:
        return cached.access_token
    assertion = sign(
        session,
        {
            "iss": platform.client_id,
            "sub": platform.client_id,
            "aud": platform.auth_token_url,
            "jti": secrets.token_urlsafe(24),
        },
        now,
    )
    form = {
        "grant_type": "client_credentials",
        "client_assertion_type": "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
        "client_assertion": assertion,
        "scope": " ".join(scopes),
    }
    try:
        answer = requests.post(platform.auth_token_url, data=form, timeout=http_timeout())
    except requests.RequestException as exc:
        raise TokenRefused(None, f"token endpoint unreachable: {exc}") from exc
    if answer.status_code != 200:
        raise TokenRefused(
            answer.status_code,
            f"token endpoint answered {answer.status_code}: {answer.text[:200]}",
            answer.headers.get("Retry-After"),
        )
    try:
        token, lifetime = token_and_lifetime(answer.json())
    except (ValueError, KeyError, TypeError) as exc:
        raise TokenRefused(answer.status_code, "token endpoint answered without a token") from exc
    row = session.scalar(select(LtiAccessToken).where(LtiAccessToken.cache_key == key))
    if row is None:
        session.add(LtiAccessToken(cache_key=key, access_token=token, expires_at=now + timedelta(seconds=lifetime)))
    else:
        row.access_token, row.expires_at = token, now + timedelta(seconds=lifetime)
    try:
        session.commit()
    except IntegrityError:  # another worker stored its token first: both are valid
        session.rollback()
    return token
