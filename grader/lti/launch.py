"""The launch check: every claim of the platform's id_token checked against the registration of the state it
answers, the state used once (atomically) and its nonce matched. Returns a validated launch or the reason for
refusing it; nothing here signs anyone in."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

import jwt
from sqlalchemy import delete
from sqlalchemy.orm import Session

from grader.lti import claims as c
from grader.lti.oidc import is_ours
from grader.lti.platform_keys import KeySetUnavailable, signing_key
from grader.lti.refusals import LaunchRefused, Refusal
from grader.lti.registration import deployment_known
from grader.models import LtiLaunchState, LtiPlatform

LEEWAY = timedelta(seconds=60)  # clock skew between the LMS and us ("The token is not yet valid (iat)")
MAX_TOKEN_AGE = timedelta(minutes=10)  # an id_token issued longer ago than this (plus the leeway) is stale
REQUIRED = ["exp", "iat", "iss", "aud", "nonce"]
_MISSING = {"exp": Refusal.NO_EXP}
# What PyJWT's narrower refusals mean for a launch (any other: MALFORMED), checked in this order.
_JWT_REFUSALS: tuple[tuple[type[jwt.InvalidTokenError], Refusal], ...] = (
    (jwt.ExpiredSignatureError, Refusal.EXPIRED),
    (jwt.ImmatureSignatureError, Refusal.NOT_YET_VALID),
    (jwt.InvalidAudienceError, Refusal.WRONG_AUDIENCE),
    (jwt.InvalidIssuerError, Refusal.WRONG_ISSUER),
    (jwt.InvalidSignatureError, Refusal.BAD_SIGNATURE),
)


@dataclass(frozen=True)
class LaunchRequest:
    """What the launch form post and the browser brought."""

    id_token: str
    state: str
    state_cookie: str | None
    base_url: str  # our own site, as this request reached it
    jwks_cool_down: float = 5.0


@dataclass(frozen=True)
class ValidatedLaunch:
    """A launch that passed every check."""

    platform: LtiPlatform
    claims: dict[str, Any]

    @property
    def message_type(self) -> str:
        """LtiResourceLinkRequest or LtiDeepLinkingRequest."""
        return str(self.claims[c.MESSAGE_TYPE])


@dataclass(frozen=True)
class RefusedLaunch:
    """A refused launch, with the login's parameters when we know them (to offer it again in a new window)."""

    reason: Refusal
    login_params: dict[str, str] = field(default_factory=dict)


def _consume_state(session: Session, state: str, now: datetime) -> LtiLaunchState:
    """Take the state row out of the store in one statement (two racing posts: one gets it), committed at once so
    that a refused launch cannot be tried again with it."""
    row = session.execute(
        delete(LtiLaunchState)
        .where(LtiLaunchState.state == state)
        .returning(
            LtiLaunchState.nonce, LtiLaunchState.platform_id, LtiLaunchState.login_params, LtiLaunchState.expires_at
        )
    ).first()
    session.commit()
    if row is None or row.expires_at <= now:
        raise LaunchRefused(Refusal.STATE_UNKNOWN)
    return LtiLaunchState(
        state=state,
        nonce=row.nonce,
        platform_id=row.platform_id,
        login_params=row.login_params,
        expires_at=row.expires_at,
    )


def _header_key(platform: LtiPlatform, token: str, cool_down: float) -> jwt.PyJWK:
    """The platform key named by the token's header; only RS256 with a kid is accepted."""
    try:
        header = jwt.get_unverified_header(token)
    except jwt.DecodeError as exc:
        raise LaunchRefused(Refusal.MALFORMED) from exc
    if header.get("alg") != "RS256":
        raise LaunchRefused(Refusal.BAD_ALGORITHM)
    kid = header.get("kid")
    if not isinstance(kid, str) or not kid:
        raise LaunchRefused(Refusal.NO_KID)
    try:
        key = signing_key(platform.jwks_url, kid, cool_down)
    except KeySetUnavailable as exc:
        raise LaunchRefused(Refusal.JWKS_UNAVAILABLE) from exc
    if key is None:
        raise LaunchRefused(Refusal.UNKNOWN_KID)
    return key


def _decode(platform: LtiPlatform, token: str, key: jwt.PyJWK, now: datetime) -> dict[str, Any]:
    """The token's claims, signature, iss, aud, exp and iat checked by PyJWT."""
    try:
        decoded: dict[str, Any] = jwt.decode(
            token,
            key,
            algorithms=["RS256"],
            audience=platform.client_id,
            issuer=platform.issuer,
            leeway=LEEWAY,
            options={"require": REQUIRED},
        )
    except jwt.InvalidTokenError as exc:
        raise LaunchRefused(_refusal(exc)) from exc
    issued = decoded["iat"]
    if not isinstance(issued, int | float) or now.timestamp() - issued > (MAX_TOKEN_AGE + LEEWAY).total_seconds():
        raise LaunchRefused(Refusal.TOO_OLD)
    return decoded


def _check_audience(platform: LtiPlatform, decoded: dict[str, Any]) -> None:
    """Several audiences need an azp, which must be us; an azp given is always us."""
    audience, azp = decoded["aud"], decoded.get("azp")
    if isinstance(audience, list) and len(audience) > 1 and azp is None:
        raise LaunchRefused(Refusal.NO_AZP)
    if azp is not None and azp != platform.client_id:
        raise LaunchRefused(Refusal.WRONG_AZP)


def _check_lti_claims(session: Session, platform: LtiPlatform, decoded: dict[str, Any], base_url: str) -> None:
    """Deployment, version, message type, target link, roles, the user id if any, the lengths of what we keep and
    (for resource launches) the resource link."""
    deployment = decoded.get(c.DEPLOYMENT_ID)
    if not isinstance(deployment, str) or not deployment or not deployment_known(session, platform, deployment):
        raise LaunchRefused(Refusal.UNKNOWN_DEPLOYMENT)
    if decoded.get(c.VERSION) != c.LTI_VERSION:
        raise LaunchRefused(Refusal.WRONG_VERSION)
    message_type = decoded.get(c.MESSAGE_TYPE)
    if message_type not in c.MESSAGE_TYPES:
        raise LaunchRefused(Refusal.UNKNOWN_MESSAGE_TYPE)
    target = decoded.get(c.TARGET_LINK_URI)
    if not isinstance(target, str) or not is_ours(target, base_url):
        raise LaunchRefused(Refusal.FOREIGN_TARGET)
    roles = decoded.get(c.ROLES)
    if not isinstance(roles, list) or not all(isinstance(role, str) for role in roles):
        raise LaunchRefused(Refusal.NO_ROLES)
    sub = decoded.get("sub")
    if sub not in (None, "") and c.user_id(sub) is None:  # none at all: an anonymous launch
        raise LaunchRefused(Refusal.BAD_USER_ID)
    if c.too_long_to_keep(decoded):
        raise LaunchRefused(Refusal.CLAIM_TOO_LONG)
    link = decoded.get(c.RESOURCE_LINK)
    if message_type == c.RESOURCE_LINK_REQUEST and not (isinstance(link, dict) and link.get("id")):
        raise LaunchRefused(Refusal.NO_RESOURCE_LINK)


def validate_launch(session: Session, launch: LaunchRequest, now: datetime) -> ValidatedLaunch | RefusedLaunch:
    """Check a launch: the state (once, with its cookie), then the id_token's signature and every claim. The state
    is consumed and committed whatever the outcome; a deployment recorded on the way is flushed, not committed."""
    if not launch.state:
        return RefusedLaunch(Refusal.NO_STATE)
    try:
        stored = _consume_state(session, launch.state, now)
    except LaunchRefused as refused:
        return RefusedLaunch(refused.reason)
    if launch.state_cookie != launch.state:
        return RefusedLaunch(Refusal.NO_STATE_COOKIE, dict(stored.login_params))
    platform = session.get(LtiPlatform, stored.platform_id)
    if platform is None:
        return RefusedLaunch(Refusal.UNKNOWN_PLATFORM)
    try:
        key = _header_key(platform, launch.id_token, launch.jwks_cool_down)
        decoded = _decode(platform, launch.id_token, key, now)
        _check_audience(platform, decoded)
        if decoded.get("nonce") != stored.nonce:
            raise LaunchRefused(Refusal.NONCE_MISMATCH)
        _check_lti_claims(session, platform, decoded, launch.base_url)
    except LaunchRefused as refused:
        session.rollback()
        return RefusedLaunch(refused.reason)
    return ValidatedLaunch(platform, decoded)


def _refusal(exc: jwt.InvalidTokenError) -> Refusal:
    """The launch's refusal for PyJWT's ``exc``: a missing claim by its name, else by the kind of error."""
    if isinstance(exc, jwt.MissingRequiredClaimError):
        return _MISSING.get(exc.claim, Refusal.MISSING_CLAIM)
    return next((refusal for kind, refusal in _JWT_REFUSALS if isinstance(exc, kind)), Refusal.MALFORMED)
