"""Why the service refuses a request; each carries a stable code and a bilingual message."""

from __future__ import annotations

from exercises.i18n import Text


class SubmissionRejected(Exception):
    """A submission that the rules do not allow (closed assignment, attempts used up, reused key, ...)."""

    def __init__(self, code: str, message: Text) -> None:
        super().__init__(message.en)
        self.code = code
        self.message = message


class LabParametersRejected(ValueError):
    """Capacity-lab parameters outside the allowed ranges."""

    def __init__(self, message: Text) -> None:
        super().__init__(message.en)
        self.message = message


class LabRunsBusy(RuntimeError):
    """The user already has as many capacity-lab runs waiting or running as one person may."""


class FieldRefused(ValueError):
    """A teacher's request (an extension, an override, a form field) that the rules refuse: ``field`` names the
    input, ``key`` the catalogue string saying why. Nothing was changed."""

    def __init__(self, field: str, key: str) -> None:
        super().__init__(key)
        self.field = field
        self.key = key
