"""Rosters, sign-in links and accounts through the API: the same rules as the teacher's pages (new accounts from a
roster, refused rows said per row, links usable once, deactivation ending tokens), only for those allowed, and
bad bodies a 422 naming the field that change nothing."""

from __future__ import annotations

import json
from typing import Any

import pytest
from flask import Flask
from sqlalchemy import func, select
from werkzeug.test import TestResponse

from grader.extensions import get_db
from grader.models import Enrolment, User

from .support import Api, assert_error


def _patch(api: Api, who: str, user_id: int, body: Any) -> TestResponse:
    return api.client.patch(
        f"/api/v1/admin/users/{user_id}",
        data=json.dumps(body),
        content_type="application/json",
        headers=api.headers(who),
    )


def _counts(app: Flask) -> tuple[int, int]:
    """(users, enrolments) in the database."""
    with get_db(app).session() as session:
        return session.scalar(select(func.count(User.id))) or 0, session.scalar(select(func.count(Enrolment.id))) or 0


def test_a_roster_creates_missing_accounts_enrols_and_reports_refused_rows(api: Api, api_app: Flask) -> None:
    course = api.school.course_a
    rows = [
        {"username": "2026101", "name": "李雷"},
        {"username": "carol"},  # an existing account (a student of course B)
        {"username": "alice"},  # already enrolled here
        {"username": "2026101", "name": "again"},  # twice in the list
        {"username": "has space"},  # cannot be a username
    ]
    preview = api.post(f"/courses/{course}/roster", "teacher", {"students": rows, "dry_run": True})
    assert preview.status_code == 200, preview.get_data(as_text=True)
    said = [(row["username"], row["outcome"], row["reason"]) for row in preview.get_json()["rows"]]
    assert said == [
        ("2026101", "create", None),
        ("carol", "enrol", None),
        ("alice", "refused", "enrolled"),
        ("2026101", "refused", "duplicate"),
        ("has space", "refused", "bad_username"),
    ]
    before = _counts(api_app)
    assert preview.get_json()["created"] == 0 and _counts(api_app) == before  # a dry run writes nothing

    done = api.post(f"/courses/{course}/roster", "teacher", {"students": rows})
    body = done.get_json()
    assert (body["created"], body["enrolled"]) == (1, 2)
    assert [row["line"] for row in body["rows"]] == [3, 4, 5]
    assert all(row["message"] for row in body["rows"])
    listed = api.get(f"/courses/{course}/students?limit=50", "teacher").get_json()["students"]
    assert {"2026101", "carol"} <= {student["username"] for student in listed}
    with get_db(api_app).session() as session:
        created = session.scalars(select(User).where(User.username == "2026101")).one()
        assert created.display_name == "李雷" and created.password_hash is None


def test_sign_in_links_are_issued_once_and_only_for_the_courses_students(api: Api) -> None:
    course = api.school.course_a
    api.post(f"/courses/{course}/roster", "teacher", {"students": [{"username": "2026102", "name": "韩梅梅"}]})
    reply = api.post(f"/courses/{course}/sign-in-links", "teacher", {})
    links = reply.get_json()["links"]
    # Only students who never chose a password (the fixture's students have API tokens and no password either);
    # never the teacher.
    assert sorted(link["username"] for link in links) == ["2026102", "alice", "bob"]
    token = next(link for link in links if link["username"] == "2026102")["url"].rsplit("/", 1)[1]
    page = api.client.get(f"/welcome/{token}")
    assert page.status_code == 200
    # A new link for one named student replaces the earlier one.
    again = api.post(f"/courses/{course}/sign-in-links", "teacher", {"usernames": ["2026102"]}).get_json()["links"]
    assert [link["username"] for link in again] == ["2026102"]
    assert api.client.get(f"/welcome/{token}").status_code != 200
    assert_error(
        api.post(f"/courses/{course}/sign-in-links", "teacher", {"usernames": ["carol"]}), 422, field="usernames"
    )


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({}, "students"),
        ({"students": "alice"}, "students"),
        ({"students": []}, "students"),
        ({"students": [{"username": 7}]}, "students[0].username"),
        ({"students": [{"username": "x", "name": ["a"]}]}, "students[0].name"),
        ({"students": [{"username": "x", "email": "x@example.org"}]}, "students[0]"),
        ({"students": [{"username": "x"}], "dry_run": "yes"}, "dry_run"),
    ],
)
def test_a_body_that_is_not_a_roster_is_refused_naming_the_field(
    api: Api, api_app: Flask, body: dict[str, Any], field: str
) -> None:
    before = _counts(api_app)
    assert_error(api.post(f"/courses/{api.school.course_a}/roster", "teacher", body), 422, field=field)
    assert _counts(api_app) == before


@pytest.mark.parametrize(("who", "status"), [("alice", 403), ("teacher_b", 404), (None, 401)])
def test_only_the_courses_staff_may_enrol_or_issue_links(
    api: Api, api_app: Flask, who: str | None, status: int
) -> None:
    course = api.school.course_a
    before = _counts(api_app)
    assert_error(api.post(f"/courses/{course}/roster", who, {"students": [{"username": "new"}]}), status)
    assert_error(api.post(f"/courses/{course}/sign-in-links", who, {}), status)
    assert _counts(api_app) == before


def test_an_admin_finds_users_changes_a_role_and_deactivation_ends_tokens(api: Api) -> None:
    found = api.get("/admin/users?q=ali", "admin").get_json()["users"]
    assert [user["username"] for user in found] == ["alice"]
    alice = api.school.user_ids["alice"]
    assert _patch(api, "admin", alice, {"role": "teacher"}).get_json()["role"] == "teacher"
    assert api.get("/me", "alice").status_code == 200
    off = _patch(api, "admin", alice, {"active": False}).get_json()
    assert off["active"] is False
    assert_error(api.get("/me", "alice"), 401)  # her token ended at once


@pytest.mark.parametrize(
    ("who", "target", "body", "status", "field"),
    [
        ("admin", "admin", {"active": False}, 422, "user_id"),  # not oneself
        ("admin", "alice", {"role": "owner"}, 422, "role"),
        ("admin", "alice", {"active": "no"}, 422, "active"),
        ("admin", "alice", {"colour": "red"}, 422, None),
        ("teacher", "alice", {"role": "admin"}, 403, None),
        ("alice", "alice", {"role": "admin"}, 403, None),
    ],
)
def test_account_changes_that_are_not_allowed_change_nothing(
    api: Api, who: str, target: str, body: dict[str, Any], status: int, field: str | None
) -> None:
    assert_error(_patch(api, who, api.school.user_ids[target], body), status, field=field)
    users = {user["username"]: user for user in api.get("/admin/users", "admin").get_json()["users"]}
    assert users[target]["role"] == ("admin" if target == "admin" else "student") and users[target]["active"]
    assert_error(api.get("/admin/users", "teacher"), 403)
    assert_error(_patch(api, "admin", 10**9, {"active": False}), 404)
