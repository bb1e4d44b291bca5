"""Registering an LMS: platforms keyed by (issuer, client_id), their deployments, and the values an LMS
administrator pastes into the LMS."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from sqlalchemy import select
from sqlalchemy.orm import Session

from grader.models import LtiDeployment, LtiPlatform

SCOPES = (
    "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem",
    "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem.readonly",
    "https://purl.imsglobal.org/spec/lti-ags/scope/result.readonly",
    "https://purl.imsglobal.org/spec/lti-ags/scope/score",
    "https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly",
)


class RegistrationError(ValueError):
    """A registration that cannot be stored; ``field`` names the value at fault."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


@dataclass(frozen=True)
class PlatformInput:
    """What an administrator gives to register a platform."""

    issuer: str
    client_id: str
    auth_login_url: str
    auth_token_url: str
    jwks_url: str
    deployment_ids: tuple[str, ...] = ()
    accept_new_deployments: bool = False


def _check_url(field: str, value: str) -> None:
    """Refuse anything but an absolute http(s) URL."""
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise RegistrationError(field, f"{field} must be an absolute http(s) URL, not {value!r}")


def add_platform(session: Session, given: PlatformInput) -> LtiPlatform:
    """Register a platform (or add deployments to the one already registered under this issuer and client id);
    flushed, not committed."""
    for field in ("issuer", "client_id"):
        if not getattr(given, field).strip():
            raise RegistrationError(field, f"{field} is required")
    for field in ("auth_login_url", "auth_token_url", "jwks_url"):
        _check_url(field, getattr(given, field))
    platform = find_platform(session, given.issuer, given.client_id)
    if platform is None:
        platform = LtiPlatform(issuer=given.issuer, client_id=given.client_id)
        session.add(platform)
    platform.auth_login_url, platform.auth_token_url = given.auth_login_url, given.auth_token_url
    platform.jwks_url, platform.accept_new_deployments = given.jwks_url, given.accept_new_deployments
    known = {d.deployment_id for d in platform.deployments}
    platform.deployments.extend(LtiDeployment(deployment_id=d) for d in given.deployment_ids if d not in known)
    session.flush()
    return platform


def find_platform(session: Session, issuer: str, client_id: str | None) -> LtiPlatform | None:
    """The platform registered as (issuer, client_id); with no client id, the issuer's only registration."""
    query = select(LtiPlatform).where(LtiPlatform.issuer == issuer)
    if client_id:
        return session.scalar(query.where(LtiPlatform.client_id == client_id))
    found = session.scalars(query.limit(2)).all()
    return found[0] if len(found) == 1 else None


def platforms(session: Session) -> list[LtiPlatform]:
    """Every registered platform, oldest first."""
    return list(session.scalars(select(LtiPlatform).order_by(LtiPlatform.id)))


def deployment_known(session: Session, platform: LtiPlatform, deployment_id: str) -> bool:
    """True if ``deployment_id`` is one of the platform's, recording it first where the registration accepts new
    ones (flushed with the launch's own writes)."""
    if any(d.deployment_id == deployment_id for d in platform.deployments):
        return True
    if not platform.accept_new_deployments:
        return False
    platform.deployments.append(LtiDeployment(deployment_id=deployment_id))
    session.flush()
    return True


def tool_values(base_url: str) -> dict[str, Any]:
    """The values to paste into an LMS for this tool, served at ``base_url`` (e.g. https://grader.example.edu)."""
    root = base_url.rstrip("/")
    return {
        "tool_url": root + "/lti/launch",
        "login_url": root + "/lti/login",
        "redirect_uris": [root + "/lti/launch"],
        "jwks_url": root + "/lti/jwks.json",
        "deep_linking_url": root + "/lti/launch",
        "scopes": list(SCOPES),
    }


def canvas_developer_key(base_url: str) -> dict[str, Any]:
    """The JSON of a Canvas LTI developer key ("Paste JSON") for this tool."""
    values = tool_values(base_url)
    return {
        "title": "Seq2Seq grader",
        "description": "Exercises on seq2seq and attention, graded automatically; grades are sent back.",
        "oidc_initiation_url": values["login_url"],
        "target_link_uri": values["tool_url"],
        "public_jwk_url": values["jwks_url"],
        "scopes": values["scopes"],
        "extensions": [
            {
                "platform": "canvas.instructure.com",
                "privacy_level": "public",
                "settings": {
                    "placements": [
                        {
                            "placement": "link_selection",
                            "message_type": "LtiDeepLinkingRequest",
                            "target_link_uri": values["tool_url"],
                        },
                        {
                            "placement": "assignment_selection",
                            "message_type": "LtiDeepLinkingRequest",
                            "target_link_uri": values["tool_url"],
                        },
                    ]
                },
            }
        ],
        "custom_fields": {},
    }
