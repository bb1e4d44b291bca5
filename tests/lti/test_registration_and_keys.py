"""`grader lti add-platform|list|show|remove|rotate-key` and /lti/jwks.json: platforms keyed by (issuer, client id)
with their deployments, and our keys rotated with overlap (the next key published before it signs, the old one
kept while what it signed may still be checked)."""

from __future__ import annotations

import json

import jwt
import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import select
from sqlalchemy.orm import Session

from grader.cli import main
from grader.lti.keys import sign
from grader.models import LtiPlatform, Role
from tests.factories import TEST_PASSWORD, make_user
from tests.support import Backend
from tests.web.conftest import csrf_from

PLATFORM = [
    "--issuer",
    "https://lms.example.edu",
    "--client-id",
    "abc123",
    "--auth-login-url",
    "https://lms.example.edu/auth",
    "--auth-token-url",
    "https://lms.example.edu/token",
    "--jwks-url",
    "https://lms.example.edu/jwks",
]


@pytest.fixture
def cli_env(app: Flask, backend: Backend, monkeypatch: pytest.MonkeyPatch) -> Backend:
    """The CLI reads the same backend as ``app`` through the environment."""
    for name, value in backend.config().items():
        monkeypatch.setenv(name, str(value))
    return backend


def test_a_platform_is_added_listed_with_its_deployments_and_removed(
    cli_env: Backend, session: Session, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["lti", "add-platform", *PLATFORM, "--deployment-id", "d1"]) == 0
    assert main(["lti", "add-platform", *PLATFORM, "--deployment-id", "d2"]) == 0  # same key: one platform
    capsys.readouterr()
    assert main(["lti", "list"]) == 0
    listing = capsys.readouterr().out
    assert "https://lms.example.edu" in listing and "d1,d2" in listing
    assert len(session.scalars(select(LtiPlatform)).all()) == 1
    assert main(["lti", "remove", "--issuer", "https://lms.example.edu", "--client-id", "abc123"]) == 0
    session.expire_all()
    assert session.scalars(select(LtiPlatform)).all() == []


@pytest.mark.parametrize("flag", ["--auth-login-url", "--jwks-url"])
def test_a_platform_with_a_bad_url_is_refused_naming_the_field(
    flag: str, cli_env: Backend, session: Session, capsys: pytest.CaptureFixture[str]
) -> None:
    args = list(PLATFORM)
    args[args.index(flag) + 1] = "not a url"
    assert main(["lti", "add-platform", *args]) == 1
    assert flag[2:].replace("-", "_") in capsys.readouterr().err
    assert session.scalars(select(LtiPlatform)).all() == []


def test_show_prints_the_values_to_paste_and_the_canvas_developer_key(
    cli_env: Backend, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["lti", "show", "--base-url", "https://grader.example.edu/"]) == 0
    out = capsys.readouterr().out
    assert "login_url: https://grader.example.edu/lti/login" in out
    assert "jwks_url: https://grader.example.edu/lti/jwks.json" in out
    canvas = json.loads(out.split("Canvas developer key (Paste JSON):", 1)[1])
    assert canvas["oidc_initiation_url"] == "https://grader.example.edu/lti/login"
    assert canvas["target_link_uri"] == "https://grader.example.edu/lti/launch"
    assert "https://purl.imsglobal.org/spec/lti-ags/scope/score" in canvas["scopes"]


def _kids(client: FlaskClient) -> list[str]:
    response = client.get("/lti/jwks.json")
    assert response.status_code == 200
    return [key["kid"] for key in response.get_json()["keys"]]


def test_rotation_publishes_the_next_key_before_it_signs_and_keeps_the_old_one(
    cli_env: Backend, app: Flask, client: FlaskClient, session: Session
) -> None:
    first = _kids(client)
    assert len(first) == 2  # the signing key and the next one
    signing = jwt.get_unverified_header(sign(session, {"iss": "x"}))["kid"]
    upcoming = next(kid for kid in first if kid != signing)
    assert main(["lti", "rotate-key"]) == 0
    session.expire_all()
    after = _kids(client)
    assert signing in after and upcoming in after and len(after) == 3
    assert jwt.get_unverified_header(sign(session, {"iss": "x"}))["kid"] == upcoming
    keys = {key["kid"]: key for key in client.get("/lti/jwks.json").get_json()["keys"]}
    token = sign(session, {"iss": "x"})
    public = jwt.PyJWK(keys[upcoming]).key
    assert jwt.decode(token, public, algorithms=["RS256"])["iss"] == "x"


@pytest.mark.parametrize("role", [Role.ADMIN, Role.TEACHER])
def test_the_setup_page_shows_the_values_to_paste_to_administrators_only(
    role: str, app: Flask, client: FlaskClient, session: Session
) -> None:
    user = make_user(session, role)
    site = "https://grader.example.edu"
    token = csrf_from(client.get("/login", base_url=site).get_data(as_text=True))
    signed = client.post(
        "/login", base_url=site, data={"username": user.username, "password": TEST_PASSWORD, "csrf_token": token}
    )
    assert signed.status_code == 302
    page = client.get("/lti/setup", base_url=site)
    if role != Role.ADMIN:
        assert page.status_code == 404
        return
    html = page.get_data(as_text=True)
    assert page.status_code == 200
    assert "https://grader.example.edu/lti/jwks.json" in html and "https://grader.example.edu/lti/login" in html
    assert "oidc_initiation_url" in html  # the Canvas developer key JSON
