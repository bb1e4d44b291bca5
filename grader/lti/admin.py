"""What an administrator does from the browser: register a platform (the rules of `grader lti add-platform`),
remove one, and link an existing local account to an LMS identity (issuer, sub)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session

from grader.lti import claims as c
from grader.lti import platform_keys
from grader.lti.keys import ensure_keys
from grader.lti.registration import PlatformInput, RegistrationError, add_platform
from grader.models import LtiIdentity, LtiPlatform, User
from grader.whole_numbers import whole_number

MAX_FIELD = 255
PLATFORM_FIELDS = ("issuer", "client_id", "auth_login_url", "auth_token_url", "jwks_url")


def platform_input(form: dict[str, str], deployments: str, accept_new: bool) -> PlatformInput:
    """The registration form as a PlatformInput: fields trimmed, deployment ids one per line or comma-separated;
    raises RegistrationError naming a field that is too long."""
    values = {name: form.get(name, "").strip() for name in PLATFORM_FIELDS}
    for name, value in values.items():
        if len(value) > (MAX_FIELD if name in ("issuer", "client_id") else 1000):
            raise RegistrationError(name, f"{name} is too long")
    ids = tuple(dict.fromkeys(d for d in re.split(r"[\s,]+", deployments.strip()) if d))
    if any(len(d) > MAX_FIELD for d in ids):
        raise RegistrationError("deployment_ids", "a deployment id is too long")
    return PlatformInput(**values, deployment_ids=ids, accept_new_deployments=accept_new)


def register_platform(session: Session, given: PlatformInput) -> LtiPlatform:
    """Register (or update) a platform and make sure our keys exist; committed. Raises RegistrationError."""
    platform = add_platform(session, given)
    ensure_keys(session)
    session.commit()
    platform_keys.forget(platform.jwks_url)  # a changed JWKS URL is fetched afresh
    return platform


def remove_platform(session: Session, platform_id: int) -> LtiPlatform | None:
    """Remove a platform with its deployments, contexts and launch states; committed. None if there is none."""
    platform = session.get(LtiPlatform, platform_id)
    if platform is not None:
        session.delete(platform)
        session.commit()
    return platform


@dataclass(frozen=True)
class IdentityLinked:
    """The link made: the local account, now signed in by the LMS user (issuer, sub)."""

    user: User
    issuer: str
    sub: str


def link_identity(session: Session, platform_id: str, sub: str, username: str) -> IdentityLinked:
    """Link the local account ``username`` to the LMS user ``sub`` of a registered platform, so that their launches
    sign in to it (committed). Refused (RegistrationError naming the field): an unknown platform or account, an
    empty or too long LMS user id, an LMS user already linked to an account, an account already linked to another
    user of that LMS."""
    number = whole_number(platform_id, 999_999_999)
    platform = session.get(LtiPlatform, number) if number is not None else None
    if platform is None:
        raise RegistrationError("platform_id", "no such platform")
    lms_user = c.user_id(sub.strip())
    if lms_user is None:
        raise RegistrationError("sub", f"the LMS user id is required (at most {c.SUB_MOST} characters)")
    user = session.scalar(select(User).where(User.username == username.strip()))
    if user is None:
        raise RegistrationError("username", f"no account {username.strip()!r}")
    linked = session.scalar(
        select(LtiIdentity).where(LtiIdentity.issuer == platform.issuer, LtiIdentity.sub == lms_user)
    )
    if linked is not None:
        if linked.user_id == user.id:
            return IdentityLinked(user, platform.issuer, lms_user)
        raise RegistrationError("sub_taken", "this LMS user is already linked to another account")
    other = session.scalar(
        select(LtiIdentity.sub).where(LtiIdentity.issuer == platform.issuer, LtiIdentity.user_id == user.id)
    )
    if other is not None:
        raise RegistrationError("user_linked", f"this account is already linked to LMS user {other!r}")
    session.add(LtiIdentity(issuer=platform.issuer, sub=lms_user, user_id=user.id))
    session.commit()
    return IdentityLinked(user, platform.issuer, lms_user)
