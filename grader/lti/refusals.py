"""Why a login or launch was refused: one reason per check, each with a message (both languages, in the UI
catalogue under ``lti.refused.<reason>``) for the LMS administrator reading the error page."""

from __future__ import annotations

from enum import StrEnum


class Refusal(StrEnum):
    """A reason to refuse an LTI login or launch; the value is the catalogue key's last part."""

    UNKNOWN_PLATFORM = "unknown_platform"
    BAD_LOGIN = "bad_login"
    FOREIGN_TARGET = "foreign_target"
    NO_STATE = "no_state"
    NO_STATE_COOKIE = "no_state_cookie"
    STATE_UNKNOWN = "state_unknown"
    MALFORMED = "malformed"
    BAD_ALGORITHM = "bad_algorithm"
    NO_KID = "no_kid"
    UNKNOWN_KID = "unknown_kid"
    JWKS_UNAVAILABLE = "jwks_unavailable"
    BAD_SIGNATURE = "bad_signature"
    WRONG_ISSUER = "wrong_issuer"
    WRONG_AUDIENCE = "wrong_audience"
    NO_AZP = "no_azp"
    WRONG_AZP = "wrong_azp"
    EXPIRED = "expired"
    NO_EXP = "no_exp"
    NOT_YET_VALID = "not_yet_valid"
    TOO_OLD = "too_old"
    MISSING_CLAIM = "missing_claim"
    NONCE_MISMATCH = "nonce_mismatch"
    UNKNOWN_DEPLOYMENT = "unknown_deployment"
    WRONG_VERSION = "wrong_version"
    UNKNOWN_MESSAGE_TYPE = "unknown_message_type"
    NO_ROLES = "no_roles"
    BAD_USER_ID = "bad_user_id"
    CLAIM_TOO_LONG = "claim_too_long"
    NO_RESOURCE_LINK = "no_resource_link"
    NOT_SET_UP = "not_set_up"
    UNKNOWN_ASSIGNMENT = "unknown_assignment"
    STAFF_ONLY = "staff_only"

    @property
    def key(self) -> str:
        """The catalogue key of this reason's message."""
        return f"lti.refused.{self.value}"


class LaunchRefused(Exception):
    """Raised inside the checks; the domain functions turn it into their result."""

    def __init__(self, reason: Refusal) -> None:
        super().__init__(reason.value)
        self.reason = reason
