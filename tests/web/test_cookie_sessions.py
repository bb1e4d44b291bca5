"""A request without a session cookie is given an empty session without building the cookie's signing serializer
(every API call with a token pays for nothing it does not use); a request with one reads it as before."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from flask import Flask
from flask.testing import FlaskClient
from itsdangerous import URLSafeTimedSerializer


@pytest.fixture()
def serializers_built(app: Flask, monkeypatch: pytest.MonkeyPatch) -> list[URLSafeTimedSerializer | None]:
    """Each signing serializer the app's session interface builds from now on."""
    built: list[URLSafeTimedSerializer | None] = []
    interface = app.session_interface
    original = interface.get_signing_serializer  # type: ignore[attr-defined]

    def counting(current: Flask) -> URLSafeTimedSerializer | None:
        built.append(original(current))
        return built[-1]

    monkeypatch.setattr(interface, "get_signing_serializer", counting)
    return built


def test_a_request_without_a_cookie_builds_no_serializer_and_sets_none(
    client: FlaskClient, serializers_built: list[URLSafeTimedSerializer | None]
) -> None:
    response = client.get("/healthz")
    assert response.status_code == 200
    assert serializers_built == []
    assert not any(value.startswith("session=") for value in response.headers.getlist("Set-Cookie"))


def test_a_signed_in_cookie_is_still_read(
    client: FlaskClient,
    login: Callable[[FlaskClient, str], str],
    serializers_built: list[URLSafeTimedSerializer | None],
) -> None:
    login(client, "teacher")
    serializers_built.clear()
    assert client.get("/courses").status_code == 200  # a signed-out browser is sent to the sign-in page
    assert serializers_built and serializers_built[0] is not None
    client.delete_cookie("session")
    assert client.get("/courses").status_code == 302
