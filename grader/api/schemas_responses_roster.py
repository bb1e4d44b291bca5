"""What the roster and accounts routes answer, as models (the document's schemas are generated from them)."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

import pydantic

from grader.api.schemas_responses import Reply, Role


class RosterRow(Reply):
    """One row of a roster: what confirming it does, or why it is refused."""

    line: int | None = pydantic.Field(default=None, description="The row's place in 'students', from 1.")
    username: str | None = None
    name: str | None = None
    outcome: Literal["create", "enrol", "refused"] | None = None
    reason: str | None = pydantic.Field(
        default=None,
        description="Why a row is refused: empty, duplicate, enrolled, teacher, bad_username, bad_name, busy.",
    )
    message: str | None = None


class RosterResult(Reply):
    """What enrolling a roster did (or, with dry_run, would do)."""

    dry_run: bool | None = None
    created: int | None = pydantic.Field(
        default=None, description="Accounts created (no password yet: send a sign-in link)."
    )
    enrolled: int | None = None
    rows: list[RosterRow] | None = pydantic.Field(
        default=None, description="A dry run: every row with what it would do; otherwise the refused rows."
    )


class SignInLink(Reply):
    """A sign-in link just issued."""

    username: str | None = None
    name: str | None = None
    url: str | None = pydantic.Field(default=None, description="Usable once; shown only in this answer.")
    expires_at: datetime | None = None


class SignInLinkList(Reply):
    """POST /courses/{course_id}/sign-in-links."""

    links: list[SignInLink] | None = None


class Account(Reply):
    """A user as an administrator sees them."""

    id: int | None = None
    username: str | None = None
    display_name: str | None = None
    role: Role | None = None
    active: bool | None = None
    has_password: bool | None = None


class AccountList(Reply):
    """GET /admin/users."""

    users: list[Account] | None = None


ROSTER_RESPONSES = (RosterResult, SignInLinkList, Account, AccountList)
