"""Fixtures for the teacher dashboard: signed-in clients (the app, session and worker are the shared ones)."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from flask import Flask
from flask.testing import FlaskClient

from grader.i18n import LANG_COOKIE
from tests.factories import TEST_PASSWORD

CSRF_META = re.compile(r'<meta name="csrf-token" content="([^"]+)">')


def csrf_from(html: str) -> str:
    """The CSRF token in a page's <meta name="csrf-token">."""
    match = CSRF_META.search(html)
    assert match, "page has no csrf-token meta"
    return match.group(1)


def sign_in(client: FlaskClient, username: str, password: str = TEST_PASSWORD) -> str:
    """Log in through the form; returns the session's CSRF token."""
    token = csrf_from(client.get("/login").get_data(as_text=True))
    response = client.post("/login", data={"username": username, "password": password, "csrf_token": token})
    assert response.status_code == 302, response.get_data(as_text=True)[:500]
    return csrf_from(client.get("/courses").get_data(as_text=True))


@pytest.fixture
def login(app: Flask) -> Callable[[str], tuple[FlaskClient, str]]:
    """``login(username)``: a new client signed in as ``username`` (pages in English) and its CSRF token."""

    def signed_in_client(username: str) -> tuple[FlaskClient, str]:
        client = app.test_client()
        client.set_cookie(LANG_COOKIE, "en")
        return client, sign_in(client, username)

    return signed_in_client
