"""Failed sign-ins are limited per name (from any address, for a bounded time) and per address (over any names),
and made-up names cost the server no hashing."""

from __future__ import annotations

import re
import time
from pathlib import Path

from flask import Flask
from flask.testing import FlaskClient

from grader import ratelimit, security
from grader.ratelimit import parsed_limit
from tests.web.conftest import make_app

RIGHT_PASSWORD = "demo-student3"


def _attempt(client: FlaskClient, username: str, password: str, address: str) -> tuple[int, str]:
    """One sign-in through the form from ``address`` (a trusted proxy's X-Forwarded-For); status and page text."""
    token = client.get("/login").get_data(as_text=True).split('name="csrf-token" content="')[1].split('"')[0]
    answer = client.post(
        "/login",
        data={"username": username, "password": password, "csrf_token": token},
        headers={"X-Forwarded-For": address},
    )
    return answer.status_code, answer.get_data(as_text=True)


def _proxied(tmp_path: Path) -> Flask:
    return make_app(tmp_path, GRADER_TRUSTED_PROXIES="1")


def test_guesses_for_one_name_from_many_addresses_lock_that_name_for_a_bounded_time(tmp_path: Path) -> None:
    app = _proxied(tmp_path)
    client = app.test_client()
    allowed = parsed_limit(ratelimit.FAILED_LOGIN_NAME_LIMIT).amount
    for n in range(allowed):
        status, _ = _attempt(client, "student3", "wrong", f"203.0.113.{n % 250}")
        assert status == 401, n  # fewer than 10 per address: only the per-name count can refuse
    status, page = _attempt(client, "student3", RIGHT_PASSWORD, "198.51.100.20")
    assert status == 429
    wait = re.search(r"(\d+) ?(?:秒| s\.)", page)  # "请 N 秒后再试" / "try again in N s."
    assert wait is not None, page
    seconds = int(wait.group(1))
    assert 0 < seconds <= parsed_limit(ratelimit.FAILED_LOGIN_NAME_LIMIT).get_expiry()
    assert _attempt(client, "student2", "demo-student2", "198.51.100.20")[0] == 302  # other names are not locked


def test_many_names_from_one_address_are_stopped_and_other_addresses_are_not(tmp_path: Path) -> None:
    app = _proxied(tmp_path)
    client = app.test_client()
    allowed = parsed_limit(ratelimit.FAILED_LOGIN_ADDRESS_LIMIT).amount
    limiter = app.extensions[ratelimit.EXTENSION_KEY]
    with app.test_request_context(environ_base={"REMOTE_ADDR": "203.0.113.9"}):
        for n in range(allowed):  # as many made-up names as the address may fail with
            ratelimit.count_failed_login(f"nobody-{n}")
    assert limiter is app.extensions[ratelimit.EXTENSION_KEY]
    assert _attempt(client, "student3", RIGHT_PASSWORD, "203.0.113.9")[0] == 429
    assert _attempt(client, "student3", RIGHT_PASSWORD, "198.51.100.20")[0] == 302


def test_an_unknown_name_costs_no_password_hashing(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    client = app.test_client()
    _attempt(client, "student3", "wrong", "-")
    _attempt(client, "made-up", "wrong", "-")  # warm up: the first unknown name measures how long a check takes
    started = time.process_time()
    _attempt(client, "student3", "wrong", "-")
    known = time.process_time() - started
    started = time.process_time()
    for n in range(5):
        assert _attempt(client, f"made-up-{n}", "wrong", "-")[0] == 401
    unknown = time.process_time() - started
    assert unknown < known  # five made-up names cost less CPU than one real password check


def test_a_sign_in_beyond_the_concurrent_password_checks_is_answered_at_once(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    client = app.test_client()
    slots = security._password_checks
    taken = 0
    while slots.acquire(blocking=False):  # as if that many sign-ins were being checked in other threads
        taken += 1
    try:
        assert taken == security.CONCURRENT_PASSWORD_CHECKS
        token = client.get("/login").get_data(as_text=True).split('name="csrf-token" content="')[1].split('"')[0]
        busy = client.post("/login", data={"username": "student3", "password": RIGHT_PASSWORD, "csrf_token": token})
        assert busy.status_code == 429 and busy.headers["Retry-After"] == "1"
        assert "try again in a second" in busy.get_data(as_text=True) or "一秒后再试" in busy.get_data(as_text=True)
    finally:
        for _ in range(taken):
            slots.release()
    assert _attempt(client, "student3", RIGHT_PASSWORD, "-")[0] == 302  # the slots are back: signs in
    assert _attempt(app.test_client(), "made-up", "wrong", "-")[0] == 401  # a check runs again
