"""The LTI 1.3 claim names we read and write."""

from __future__ import annotations

LTI = "https://purl.imsglobal.org/spec/lti/claim/"
MESSAGE_TYPE = LTI + "message_type"
VERSION = LTI + "version"
DEPLOYMENT_ID = LTI + "deployment_id"
TARGET_LINK_URI = LTI + "target_link_uri"
ROLES = LTI + "roles"
RESOURCE_LINK = LTI + "resource_link"
CONTEXT = LTI + "context"
CUSTOM = LTI + "custom"
DEEP_LINKING_SETTINGS = "https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings"
DL_CONTENT_ITEMS = "https://purl.imsglobal.org/spec/lti-dl/claim/content_items"
DL_DATA = "https://purl.imsglobal.org/spec/lti-dl/claim/data"
AGS_ENDPOINT = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"
NRPS = "https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice"

RESOURCE_LINK_REQUEST = "LtiResourceLinkRequest"
DEEP_LINKING_REQUEST = "LtiDeepLinkingRequest"
DEEP_LINKING_RESPONSE = "LtiDeepLinkingResponse"
MESSAGE_TYPES = (RESOURCE_LINK_REQUEST, DEEP_LINKING_REQUEST)
LTI_VERSION = "1.3.0"
SUB_MOST = 255  # LTI 1.3 core: a user's sub "MUST NOT exceed 255 ASCII characters in length"
ID_MOST = 255  # the context and resource-link ids we keep (LTI 1.3 allows 255 characters for both)
URL_MOST = 1000  # the service URLs we keep (memberships, line items)
# The launch's strings this tool keeps, as (claim, field, most characters).
KEPT_LENGTHS = (
    (CONTEXT, "id", ID_MOST),
    (RESOURCE_LINK, "id", ID_MOST),
    (NRPS, "context_memberships_url", URL_MOST),
    (AGS_ENDPOINT, "lineitems", URL_MOST),
)

ROLE_PREFIXES = (
    "http://purl.imsglobal.org/vocab/lis/v2/membership#",
    "http://purl.imsglobal.org/vocab/lis/v2/membership/",
)
TA_ROLE = "TeachingAssistant"
STAFF_ROLES = ("Instructor", TA_ROLE, "ContentDeveloper", "Administrator")
LEARNER_ROLES = ("Learner",)


def role_names(roles: list[str]) -> set[str]:
    """The short context-role names (Instructor, Learner, ...) of a roles claim; sub-roles count as their role."""
    names = set()
    for role in roles:
        for prefix in ROLE_PREFIXES:
            if role.startswith(prefix):
                names.add(role[len(prefix) :].split("#")[0].split("/")[0])
        if "/" not in role and "#" not in role:  # a simple name, allowed for context roles
            names.add(role)
    return names


def is_staff(roles: list[str]) -> bool:
    """True if the roles make this person staff of the context (Instructor, TeachingAssistant, ...)."""
    return bool(role_names(roles) & set(STAFF_ROLES))


def _is_ta_role(role: str) -> bool:
    """True for the TeachingAssistant role, as a role of its own or as the Instructor sub-role the LIS vocabulary
    defines (``membership/Instructor#TeachingAssistant``, which Canvas sends for a TA)."""
    for prefix in ROLE_PREFIXES:
        if role.startswith(prefix):
            name, _hash, sub_role = role[len(prefix) :].partition("#")
            return TA_ROLE in (name, sub_role)
    return role == TA_ROLE


def is_teaching_assistant_only(roles: list[str]) -> bool:
    """True if every staff role among ``roles`` is a teaching assistant's: the person is the course's TA (grading
    and exceptions, not editing or deleting), not one of its teachers."""
    other_staff = {name for role in roles if not _is_ta_role(role) for name in role_names([role])} & set(STAFF_ROLES)
    return any(_is_ta_role(role) for role in roles) and not other_staff


def user_id(value: object) -> str | None:
    """An LMS user id (a launch's ``sub``, a roster member's ``user_id``) as we keep it: text of 1 to SUB_MOST
    characters (a number is read as its digits); None for anything else."""
    if isinstance(value, bool) or not isinstance(value, str | int):
        return None
    text = str(value)
    return text if 1 <= len(text) <= SUB_MOST else None


def too_long_to_keep(decoded: dict[str, object]) -> bool:
    """True if a string of the launch that this tool keeps is longer than it keeps (``KEPT_LENGTHS``)."""
    for claim, name, most in KEPT_LENGTHS:
        value = decoded.get(claim)
        if isinstance(value, dict) and len(str(value.get(name) or "")) > most:
            return True
    return False
