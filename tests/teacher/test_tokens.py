"""A teacher's own API tokens on the dashboard: shown once, usable at once, listed without values, revocable."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import timedelta

from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import select
from sqlalchemy.orm import Session

from grader.models import ApiToken, Role, utcnow
from grader.security import issue_token
from tests.factories import make_user

Login = Callable[[str], tuple[FlaskClient, str]]
NEW_TOKEN = re.compile(r'<code id="new-token">(grd_[^<]+)</code>')


def test_a_teacher_creates_uses_and_revokes_a_token(app: Flask, session: Session, login: Login) -> None:
    teacher = make_user(session, role=Role.TEACHER)
    client, csrf = login(teacher.username)
    created = client.post("/teach/tokens", data={"csrf_token": csrf, "name": "moodle", "role": "teacher"})
    assert created.status_code == 201
    raw = NEW_TOKEN.search(created.get_data(as_text=True)).group(1)
    api = app.test_client()
    me = api.get("/api/v1/me", headers={"Authorization": f"Bearer {raw}"}).get_json()
    assert (me["username"], me["role"], me["auth"]) == (teacher.username, "teacher", "token")
    listing = client.get("/teach/tokens").get_data(as_text=True)
    assert "moodle" in listing and raw not in listing  # shown once, never again
    token_id = int(re.search(r"/teach/tokens/(\d+)/revoke", listing).group(1))
    asked = client.post(f"/teach/tokens/{token_id}/revoke", data={"csrf_token": csrf})  # the list's button asks first
    assert asked.status_code == 200 and "Revoke the token “moodle”?" in asked.get_data(as_text=True)
    assert api.get("/api/v1/me", headers={"Authorization": f"Bearer {raw}"}).status_code == 200
    revoked = client.post(f"/teach/tokens/{token_id}/revoke", data={"csrf_token": csrf, "confirm": "yes"})
    assert revoked.status_code == 302
    assert api.get("/api/v1/me", headers={"Authorization": f"Bearer {raw}"}).status_code == 401
    assert "revoked" in client.get("/teach/tokens").get_data(as_text=True)


def test_a_student_role_token_acts_as_a_student(app: Flask, session: Session, login: Login) -> None:
    teacher = make_user(session, role=Role.TEACHER)
    client, csrf = login(teacher.username)
    created = client.post("/teach/tokens", data={"csrf_token": csrf, "name": "as-student", "role": "student"})
    raw = NEW_TOKEN.search(created.get_data(as_text=True)).group(1)
    assert (
        app.test_client().get("/api/v1/me", headers={"Authorization": f"Bearer {raw}"}).get_json()["role"] == "student"
    )


def test_bad_forms_and_other_peoples_tokens_are_refused(app: Flask, session: Session, login: Login) -> None:
    teacher, other = make_user(session, role=Role.TEACHER), make_user(session, role=Role.TEACHER)
    student = make_user(session)
    theirs = issue_token(session, other, name="theirs")
    session.commit()
    client, csrf = login(teacher.username)
    for form in (
        {"name": "", "role": "teacher"},
        {"name": "x" * 129, "role": "teacher"},
        {"name": "ok", "role": "admin"},
        {"name": "ok", "role": "teacher", "expires_in_days": "-1"},
        {"name": "ok", "role": "teacher", "expires_in_days": "99999"},
    ):
        assert client.post("/teach/tokens", data={"csrf_token": csrf, **form}).status_code == 422, form
    other_id = next(t.id for t in other.tokens)
    for form in ({"csrf_token": csrf}, {"csrf_token": csrf, "confirm": "yes"}):
        assert client.post(f"/teach/tokens/{other_id}/revoke", data=form).status_code == 404
    assert client.post(f"/teach/tokens/{other_id}/revoke", data={"confirm": "yes"}).status_code == 400  # no CSRF
    assert app.test_client().get("/api/v1/me", headers={"Authorization": f"Bearer {theirs}"}).status_code == 200
    assert client.post("/teach/tokens", data={"name": "no-csrf", "role": "teacher"}).status_code == 400
    student_client, student_csrf = login(student.username)
    assert student_client.get("/teach/tokens").status_code == 404
    assert student_client.post("/teach/tokens", data={"csrf_token": student_csrf, "name": "x"}).status_code == 404


def test_a_token_with_a_lifetime_stops_working_when_it_expires(app: Flask, session: Session) -> None:
    teacher = make_user(session, Role.TEACHER)
    raw = issue_token(session, teacher, name="lms", expires_in=timedelta(days=30))
    session.commit()
    client = app.test_client()
    assert client.get("/api/v1/me", headers={"Authorization": f"Bearer {raw}"}).status_code == 200
    token = session.scalars(select(ApiToken).where(ApiToken.user_id == teacher.id)).one()
    assert timedelta(days=29, hours=23) < token.expires_at - utcnow() <= timedelta(days=30)
    token.expires_at = utcnow() - timedelta(seconds=1)
    session.commit()
    refused = client.get("/api/v1/me", headers={"Authorization": f"Bearer {raw}"})
    assert refused.status_code == 401 and refused.get_json()["error"]["code"] == "invalid_token"


def test_the_page_offers_a_lifetime_and_shows_expiry(app: Flask, session: Session, login: Login) -> None:
    teacher = make_user(session, role=Role.TEACHER)
    client, csrf = login(teacher.username)
    created = client.post(
        "/teach/tokens", data={"csrf_token": csrf, "name": "canvas", "role": "teacher", "expires_in_days": "90"}
    )
    assert created.status_code == 201
    token = session.scalars(select(ApiToken).where(ApiToken.user_id == teacher.id)).one()
    assert timedelta(days=89, hours=23) < token.expires_at - utcnow() <= timedelta(days=90)
    assert token.expires_at.strftime("%Y-%m-%d") in client.get("/teach/tokens").get_data(as_text=True)
    token.expires_at = utcnow() - timedelta(minutes=1)
    session.commit()
    listing = client.get("/teach/tokens?lang=en").get_data(as_text=True)
    assert "expired" in listing or "已过期" in listing
    assert "/revoke" not in listing  # nothing left to revoke


def test_a_refused_form_keeps_the_role_and_lifetime_chosen(app: Flask, session: Session, login: Login) -> None:
    # Found by an audit: after an error the menus were back at teacher / 365 days, so the next press quietly made a
    # one-year teacher token where a 30-day student token had been asked for.
    teacher = make_user(session, role=Role.TEACHER)
    client, csrf = login(teacher.username)
    refused = client.post(
        "/teach/tokens", data={"csrf_token": csrf, "name": " ", "role": "student", "expires_in_days": "30"}
    )
    assert refused.status_code == 422
    page = refused.get_data(as_text=True)
    assert '<option value="student" selected>' in page and '<option value="30" selected>' in page
    assert '<option value="teacher" selected>' not in page and '<option value="365" selected>' not in page
    assert re.search(
        r'id="token-name"[^>]*aria-describedby="token-name-hint token-error"[^>]*aria-invalid="true"',
        page.replace("\n", " "),
    )
    long_name = client.post(
        "/teach/tokens", data={"csrf_token": csrf, "name": "lms" * 50, "role": "student", "expires_in_days": ""}
    ).get_data(as_text=True)
    assert f'value="{"lms" * 50}"' in long_name and '<option value="" selected>' in long_name
    fresh = client.get("/teach/tokens").get_data(as_text=True)
    assert " selected>" not in fresh  # nothing chosen yet: the browser shows the first option
