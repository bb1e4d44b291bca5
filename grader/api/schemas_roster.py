"""The requests of accounts and rosters: enrolling students, sign-in links, an administrator's users.

Only the shapes and types are read here: an empty, duplicate or unusable username is a refused row of the answer
(``grader.courses``), as it is a refused row of an uploaded file.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from grader.accounts import MAX_QUERY
from grader.api.schemas_base import ApiModel, Checked, QueryModel, optional_text, query_text, refusal
from grader.courses.roster_files import MAX_ROSTER_ROWS, RosterEntry

ENTRY_FIELDS = ("username", "name")


def _students(value: Any, name: str) -> Any:
    """``students``: 1 to MAX_ROSTER_ROWS objects ``{"username", "name"?}`` of strings (a null name is none)."""
    if not isinstance(value, list):
        raise refusal("invalid_type", f"Field '{name}' must be a list of objects.")
    if not 1 <= len(value) <= MAX_ROSTER_ROWS:
        raise refusal("invalid_value", f"Field '{name}' must hold 1 to {MAX_ROSTER_ROWS} rows.")
    rows = []
    for index, row in enumerate(value):
        where = f"{name}[{index}]"
        if not isinstance(row, dict) or not set(row) <= set(ENTRY_FIELDS):
            message = f"Field '{where}' must be an object with 'username' and optionally 'name'."
            raise refusal("invalid_value", message, field=where)
        username, display_name = row.get("username"), row.get("name")
        display_name = "" if display_name is None else display_name
        for key, text in (("username", username), ("name", display_name)):
            if not isinstance(text, str):
                raise refusal("invalid_type", f"Field '{where}.{key}' must be a string.", field=f"{where}.{key}")
        rows.append({"username": username, "name": display_name})
    return rows


_STUDENTS_SCHEMA = {
    "type": "array",
    "minItems": 1,
    "maxItems": MAX_ROSTER_ROWS,
    "items": {
        "type": "object",
        "additionalProperties": False,
        "required": ["username"],
        "properties": {"username": {"type": "string"}, "name": {"type": ["string", "null"]}},
    },
}


def _flag(value: Any, name: str) -> Any:
    """true or false (null too is refused: it is neither)."""
    if not isinstance(value, bool):
        raise refusal("invalid_type", f"Field '{name}' must be true or false.")
    return value


def _optional_flag(value: Any, name: str) -> Any:
    """true, false, or null for "leave it as it is"."""
    return None if value is None else _flag(value, name)


class RosterRequest(ApiModel):
    """The body of POST /courses/{course_id}/roster."""

    students: Annotated[
        list[dict[str, str]],
        Checked(
            _students,
            _STUDENTS_SCHEMA,
            if_missing=("invalid_type", "Field 'students' must be a list of objects."),
        ),
    ]
    dry_run: Annotated[
        bool,
        Checked(_flag, {"type": "boolean"}),
        Field(description="true: check the rows, change nothing."),
    ] = False

    def entries(self) -> list[RosterEntry]:
        """The rows as the roster reads them (line = position + 1), usernames and names stripped."""
        return [
            RosterEntry(line, row["username"].strip(), row["name"].strip())
            for line, row in enumerate(self.students, start=1)
        ]


def _usernames(value: Any, name: str) -> Any:
    """Sent, ``usernames`` is a list of at most MAX_ROSTER_ROWS strings (null is not "absent" here)."""
    if not isinstance(value, list) or not all(isinstance(one, str) for one in value):
        raise refusal("invalid_type", f"Field '{name}' must be a list of strings.")
    if len(value) > MAX_ROSTER_ROWS:
        raise refusal("invalid_value", f"Field '{name}' must hold at most {MAX_ROSTER_ROWS} names.")
    return value


class SignInLinksRequest(ApiModel):
    """The body of POST /courses/{course_id}/sign-in-links."""

    usernames: Annotated[
        list[str] | None,
        Checked(_usernames, {"type": "array", "maxItems": MAX_ROSTER_ROWS, "items": {"type": "string"}}),
        Field(description="Students of the course; absent: every student who has never chosen a password."),
    ] = None


_ROLE = optional_text(16)  # its value is the accounts' rule (422 naming role)


class AccountChange(ApiModel):
    """The body of PATCH /admin/users/{user_id}."""

    role: Annotated[str | None, Checked(_ROLE.check, {"type": "string", "enum": ["student", "teacher", "admin"]})] = (
        None
    )
    active: Annotated[
        bool | None,
        Checked(_optional_flag, {"type": ["boolean", "null"]}),
        Field(description="false ends the account's sessions, tokens and links now."),
    ] = None


class UsersQuery(QueryModel):
    """GET /admin/users."""

    q: Annotated[str, query_text(MAX_QUERY), Field(description="Part of a username or name.")] = ""
