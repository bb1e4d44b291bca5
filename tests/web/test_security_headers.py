"""Security headers: Referrer-Policy everywhere, HSTS in production, a CSP with default-src that the pages obey
(tests/web/test_csp_in_the_browser.py), and a configurable session lifetime."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from email.utils import parsedate_to_datetime
from pathlib import Path

import pytest
from flask.testing import FlaskClient

from grader import create_app
from grader.web import REFERRER_POLICY, STRICT_TRANSPORT
from tests.web.conftest import make_app


@pytest.mark.parametrize("path", ["/login", "/api/v1/openapi.json", "/no-such-page", "/healthz"])
def test_every_answer_has_a_referrer_policy_and_no_hsts_outside_production(client: FlaskClient, path: str) -> None:
    headers = client.get(path).headers
    assert headers["Referrer-Policy"] == REFERRER_POLICY == "same-origin"
    assert "Strict-Transport-Security" not in headers  # plain-HTTP development would be locked out of itself


def test_production_answers_carry_strict_transport_security(tmp_path: Path) -> None:
    app = create_app(
        {
            "GRADER_ENV": "production",
            "SECRET_KEY": "s" * 40,
            "GRADER_DATA_DIR": str(tmp_path),
            "DATABASE_URL": f"sqlite:///{tmp_path / 'p.sqlite'}",
            "CELERY_BROKER_URL": "filesystem://",
        }
    )
    answer = app.test_client().get("/login", base_url="https://grader.example.edu")
    assert answer.headers["Strict-Transport-Security"] == STRICT_TRANSPORT
    assert "max-age=31536000" in STRICT_TRANSPORT


def test_pages_have_a_policy_with_default_src(client: FlaskClient) -> None:
    policy = client.get("/login").headers["Content-Security-Policy"]
    assert "default-src 'self'" in policy and "script-src 'self'" in policy


@pytest.mark.parametrize(("hours", "expected"), [("", timedelta(hours=168)), ("8", timedelta(hours=8))])
def test_the_session_lifetime_is_configurable(tmp_path: Path, hours: str, expected: timedelta) -> None:
    app = make_app(tmp_path, **({"GRADER_SESSION_HOURS": hours} if hours else {}))
    assert app.permanent_session_lifetime == expected
    client = app.test_client()
    token = client.get("/login").get_data(as_text=True).split('name="csrf-token" content="')[1].split('"')[0]
    signed_in = client.post("/login", data={"username": "student1", "password": "demo-student1", "csrf_token": token})
    cookie = next(value for value in signed_in.headers.getlist("Set-Cookie") if value.startswith("session="))
    expires = parsedate_to_datetime(cookie.split("Expires=")[1].split(";")[0])
    assert abs(expires - (datetime.now(UTC) + expected)) < timedelta(minutes=5)
