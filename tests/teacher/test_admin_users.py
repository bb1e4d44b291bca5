"""The administrator's users page: only admins see it; finding users, changing a role, and deactivating an
account, which ends its sessions, API tokens and sign-in links at once (and activating it again)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import select
from sqlalchemy.orm import Session

from grader.models import Role, User
from grader.security import issue_token
from grader.sign_in_links import issue_links
from tests.factories import make_user

Login = Callable[[str], tuple[FlaskClient, str]]


def role_of(session: Session, user: User) -> str:
    """The user's role as the database holds it now."""
    session.expire_all()
    return session.scalars(select(User.role).where(User.id == user.id)).one()


@pytest.mark.parametrize("role", [Role.STUDENT, Role.TEACHER])
def test_only_an_admin_sees_the_page(session: Session, login: Login, role: str) -> None:
    someone, victim = make_user(session, role), make_user(session)
    client, token = login(someone.username)
    assert client.get("/teach/admin/users").status_code == 404
    posted = client.post(f"/teach/admin/users/{victim.id}/role", data={"csrf_token": token, "role": "admin"})
    assert posted.status_code == 404 and role_of(session, victim) == Role.STUDENT


def test_find_users_by_username_or_name(session: Session, login: Login) -> None:
    admin = make_user(session, Role.ADMIN)
    zhang = make_user(session, username="s2026001")
    zhang.display_name = "张三"
    session.commit()
    make_user(session, username="other_1")
    client, _token = login(admin.username)
    assert 'data-username="s2026001"' in client.get("/teach/admin/users?q=张").get_data(as_text=True)
    page = client.get("/teach/admin/users?q=2026").get_data(as_text=True)
    assert 'data-username="s2026001"' in page and 'data-username="other_1"' not in page
    underscore = client.get("/teach/admin/users?q=r_").get_data(as_text=True)  # '_' is no wildcard
    assert 'data-username="other_1"' in underscore and 'data-username="s2026001"' not in underscore


def test_change_a_role_and_refusals_change_nothing(session: Session, login: Login) -> None:
    admin, student = make_user(session, Role.ADMIN), make_user(session)
    client, token = login(admin.username)
    done = client.post(f"/teach/admin/users/{student.id}/role", data={"csrf_token": token, "role": "teacher"})
    assert done.status_code == 302 and role_of(session, student) == Role.TEACHER
    for user_id, role, message in [
        (student.id, "root", "Choose student, teacher or administrator."),
        (admin.id, "student", "You cannot change your own role"),
        (10**9, "student", "There is no such user."),
    ]:
        refused = client.post(f"/teach/admin/users/{user_id}/role", data={"csrf_token": token, "role": role})
        assert refused.status_code == 422 and message in refused.get_data(as_text=True)
    assert (role_of(session, student), role_of(session, admin)) == (Role.TEACHER, Role.ADMIN)


def test_deactivating_ends_sessions_tokens_and_links_at_once(app: Flask, session: Session, login: Login) -> None:
    admin, student = make_user(session, Role.ADMIN), make_user(session)
    raw = issue_token(session, student, name="script")
    session.commit()
    link = issue_links(session, [student], admin)[0].token
    browser, _ = login(student.username)
    assert browser.get("/courses").status_code == 200
    api = app.test_client()
    bearer = {"Authorization": f"Bearer {raw}"}
    assert api.get("/api/v1/me", headers=bearer).status_code == 200
    client, token = login(admin.username)
    done = client.post(f"/teach/admin/users/{student.id}/active", data={"csrf_token": token, "active": "no"})
    assert done.status_code == 302
    assert "their sessions, API tokens and sign-in links have ended" in client.get(done.headers["Location"]).get_data(
        as_text=True
    )
    assert browser.get("/courses").status_code == 302  # to the login page
    assert api.get("/api/v1/me", headers=bearer).status_code == 401
    assert app.test_client().get(f"/welcome/{link}").status_code == 410
    with pytest.raises(AssertionError):
        login(student.username)  # the login form refuses the right password
    refused = client.post(f"/teach/admin/users/{admin.id}/active", data={"csrf_token": token, "active": "no"})
    assert refused.status_code == 422  # an admin cannot lock themselves out
    again = client.post(f"/teach/admin/users/{student.id}/active", data={"csrf_token": token, "active": "yes"})
    assert again.status_code == 302
    back, _ = login(student.username)
    assert back.get("/courses").status_code == 200
    assert api.get("/api/v1/me", headers=bearer).status_code == 401  # an ended token stays ended
