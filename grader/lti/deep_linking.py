"""Deep Linking 2.0: an instructor's LtiDeepLinkingRequest lets them pick one of the course's assignments; the
signed LtiDeepLinkingResponse returns it as an ltiResourceLink with its gradebook column (lineItem), the custom
parameter ``assignment_id`` and the request's ``data`` echoed."""

from __future__ import annotations

import secrets
from dataclasses import asdict, dataclass
from typing import Any

from sqlalchemy.orm import Session

from grader.grading.points import points_of
from grader.lti import claims as c
from grader.lti.ags import LINE_ITEM_TAG
from grader.lti.keys import sign
from grader.lti.launch import ValidatedLaunch
from grader.models import Assignment, Course, LtiPlatform
from grader.teacher import assignments


@dataclass(frozen=True)
class DeepLinkRequest:
    """What a deep-linking launch asked for, kept (in the signed session cookie) until the instructor picks."""

    platform_id: int
    deployment_id: str
    course_id: int
    return_url: str
    data: Any  # opaque: echoed as the platform sent it

    def as_dict(self) -> dict[str, Any]:
        """For the session."""
        return asdict(self)


def deep_link_request(launch: ValidatedLaunch, course_id: int) -> DeepLinkRequest | None:
    """The deep-linking settings of a launch (None if it carries no return URL)."""
    settings = launch.claims.get(c.DEEP_LINKING_SETTINGS)
    if not isinstance(settings, dict) or not isinstance(settings.get("deep_link_return_url"), str):
        return None
    return DeepLinkRequest(
        launch.platform.id,
        str(launch.claims[c.DEPLOYMENT_ID]),
        course_id,
        settings["deep_link_return_url"],
        settings.get("data"),
    )


def content_item(assignment: Assignment, base_url: str) -> dict[str, Any]:
    """The ltiResourceLink of one assignment, with its gradebook column."""
    title = assignment.title_en or assignment.title_zh
    return {
        "type": "ltiResourceLink",
        "title": title,
        "url": base_url.rstrip("/") + "/lti/launch",
        "custom": {"assignment_id": str(assignment.id)},
        "lineItem": {
            "scoreMaximum": sum(points_of(assignment).values()),
            "label": title,
            "resourceId": str(assignment.id),
            "tag": LINE_ITEM_TAG,
        },
    }


def response_jwt(session: Session, request: DeepLinkRequest, assignment: Assignment, base_url: str) -> str:
    """The signed LtiDeepLinkingResponse returning ``assignment`` (committed: our key may be created)."""
    platform = session.get_one(LtiPlatform, request.platform_id)
    claims: dict[str, Any] = {
        "iss": platform.client_id,
        "aud": platform.issuer,
        "azp": platform.client_id,
        "nonce": secrets.token_urlsafe(16),
        c.DEPLOYMENT_ID: request.deployment_id,
        c.MESSAGE_TYPE: c.DEEP_LINKING_RESPONSE,
        c.VERSION: c.LTI_VERSION,
        c.DL_CONTENT_ITEMS: [content_item(assignment, base_url)],
    }
    if request.data is not None:
        claims[c.DL_DATA] = request.data
    token = sign(session, claims)
    session.commit()
    return token


def new_assignment(
    session: Session, course: Course, title_zh: str, title_en: str, exercise_ids: list[str]
) -> Assignment | dict[str, str]:
    """The "new assignment" of the picker: titles and exercises chosen there, every other setting as the teacher
    form's defaults (no window, unlimited attempts, best score counts, key after the due date), checked by the same
    rules (committed); or the errors, form field -> catalogue key."""
    form = assignments.AssignmentForm(
        title_zh=title_zh.strip(), title_en=title_en.strip(), exercise_ids=tuple(exercise_ids)
    )
    settings, checked = assignments.check(form, course.time_zone)
    if settings is None:
        return checked.errors
    return assignments.save(session, course.id, settings)
