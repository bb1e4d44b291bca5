"""What a security audit of the pages found, each pinned: redirects with control characters, oversized forms,
sign-in counts behind a proxy, unthrottled previews and lab runs, and loosely read lab parameters."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient

from exercises import unit_text
from grader.grading.labs import MAX_OPEN_RUNS_PER_USER
from tests.web.conftest import make_app

Login = Callable[[FlaskClient, str], str]
PageCsrf = Callable[[str], str]
NEXT_WITH_LINE_BREAK = "/courses\r\nX-Injected: 1"


# --- A `next` carrying a line break falls back to the default page instead of failing ----------------------------


def test_login_page_of_a_signed_in_user_ignores_a_next_with_a_line_break(client: FlaskClient, login: Login) -> None:
    login(client, "student1")
    response = client.get("/login", query_string={"next": NEXT_WITH_LINE_BREAK})
    assert response.status_code == 302 and response.location == "/courses"
    assert "X-Injected" not in response.headers


def test_signing_in_with_a_next_carrying_a_line_break_lands_on_the_courses(
    client: FlaskClient, page_csrf: PageCsrf
) -> None:
    token = page_csrf(client.get("/login").get_data(as_text=True))
    response = client.post(
        "/login",
        data={"username": "student1", "password": "demo-student1", "csrf_token": token, "next": NEXT_WITH_LINE_BREAK},
    )
    assert response.status_code == 302 and response.location == "/courses"


def test_the_language_switch_ignores_a_next_with_a_control_character(client: FlaskClient, login: Login) -> None:
    token = login(client, "student1")
    for target in ("/courses?x=\nX: y", "/courses\x07"):
        response = client.post("/lang", data={"lang": "en", "next": target, "csrf_token": token})
        assert response.status_code == 302 and "\n" not in response.location and "\x07" not in response.location


# --- An oversized form gets the app's own page in the user's language ----------------------------------------------


def test_an_oversized_login_form_gets_the_apps_error_page(client: FlaskClient) -> None:
    response = client.post("/login", data={"username": "x" * 70_000, "password": "y"})
    assert response.status_code == 413
    page = response.get_data(as_text=True)
    assert "提交的内容过大" in page and "Request Entity Too Large" not in page


# --- Browsers never sniff a type ---------------------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/login", "/api/v1/openapi.json", "/no-such-page"])
def test_every_answer_says_nosniff(client: FlaskClient, path: str) -> None:
    assert client.get(path).headers["X-Content-Type-Options"] == "nosniff"


# --- Failed sign-ins are counted per client address, also behind a trusted proxy ----------------------------------


def _fail_ten_times_then_sign_in(app: Flask, failing_address: str, signing_in_address: str) -> int:
    """Ten wrong passwords for student3 from one forwarded address, then the right one from another."""
    client = app.test_client()
    token = client.get("/login").get_data(as_text=True).split('name="csrf-token" content="')[1].split('"')[0]
    for _ in range(10):
        wrong = client.post(
            "/login",
            data={"username": "student3", "password": "wrong", "csrf_token": token},
            headers={"X-Forwarded-For": failing_address},
        )
        assert wrong.status_code in (401, 429)
    right = client.post(
        "/login",
        data={"username": "student3", "password": "demo-student3", "csrf_token": token},
        headers={"X-Forwarded-For": signing_in_address},
    )
    return right.status_code


def test_behind_a_trusted_proxy_a_stranger_cannot_lock_a_user_out(tmp_path: Path) -> None:
    app = make_app(tmp_path, GRADER_TRUSTED_PROXIES="1")
    assert _fail_ten_times_then_sign_in(app, "203.0.113.7", "198.51.100.20") == 302


def test_without_a_trusted_proxy_a_forwarded_address_is_not_believed(tmp_path: Path) -> None:
    app = make_app(tmp_path)  # forged X-Forwarded-For headers must not buy fresh guesses
    assert _fail_ten_times_then_sign_in(app, "203.0.113.7", "198.51.100.20") == 429


# --- Live previews are rate-limited per user, and long text is not scanned for words again and again --------------


def _preview(client: FlaskClient, token: str, answer: dict) -> object:
    return client.post(
        "/api/v1/validate",
        json={"exercise_id": "ch09.attention-cost", "answer": answer},
        headers={"X-CSRF-Token": token},
    )


def test_previews_beyond_the_limit_get_a_429_with_retry_after(tmp_path: Path, login: Login) -> None:
    app = make_app(tmp_path, PREVIEW_RATE_LIMIT="2/minute")
    client = app.test_client()
    token = login(client, "student1")
    answer = {"pairs": "1", "causal_pairs": "1", "growth": "1"}
    assert [_preview(client, token, answer).status_code for _ in range(2)] == [200, 200]
    refused = _preview(client, token, answer)
    assert refused.status_code == 429 and int(refused.headers["Retry-After"]) >= 1
    assert refused.get_json()["error"]["code"] == "rate_limited"
    other = app.test_client()
    assert _preview(other, login(other, "student2"), answer).status_code == 200  # counted per user


def test_a_long_answer_is_viewed_once_and_one_over_the_limit_not_at_all(monkeypatch: pytest.MonkeyPatch) -> None:
    from exercises import api

    viewed: list[int] = []
    real_view = unit_text._view
    monkeypatch.setattr(unit_text, "_view", lambda text: viewed.append(len(text)) or real_view(text))
    unit_text._cached_long_view.cache_clear()
    # Short words: one word longer than any vocabulary word is refused before any view (issue 20).
    answer = {"pairs": "1 " * 2_500, "causal_pairs": "1", "growth": "1"}
    api.validate("ch09.attention-cost", answer, "en")
    assert viewed.count(5_000) == 1, viewed.count(5_000)
    viewed.clear()
    result = api.validate("ch09.attention-cost", {**answer, "pairs": "1 " * 30_000}, "en")
    assert 60_000 not in viewed
    assert "input too long" in result["errors"][0]["message"]


# --- Lab runs: parameters read strictly, and a cap on one person's open runs --------------------------------------


def test_lab_runs_read_their_json_strictly(client: FlaskClient, login: Login) -> None:
    headers = {"X-CSRF-Token": login(client, "student1"), "Content-Type": "application/json"}
    malformed = client.post("/lab/runs", data='{"ds": [32], "t_max": ', headers=headers)
    assert malformed.status_code == 400 and malformed.get_json()["error"]["code"] == "invalid_json"
    huge = client.post("/lab/runs", data='{"ds": [32], "t_max": ' + "9" * 5000 + "}", headers=headers)
    assert huge.status_code == 400 and huge.get_json()["error"]["code"] == "invalid_json"
    fractional = client.post("/lab/runs", json={"ds": [32.7], "t_max": 10}, headers=headers)
    assert fractional.status_code == 422 and fractional.get_json()["error"]["field"] == "ds"
    unknown = client.post("/lab/runs", json={"ds": [32], "t_max": 10, "trials": 5}, headers=headers)
    assert unknown.status_code == 422 and unknown.get_json()["error"]["field"] == "trials"


def test_one_person_may_have_only_a_few_new_runs_open(client: FlaskClient, login: Login) -> None:
    headers = {"X-CSRF-Token": login(client, "student1")}
    # No worker runs here, so every run stays queued.
    for t_max in range(10, 10 + MAX_OPEN_RUNS_PER_USER):
        assert client.post("/lab/runs", json={"ds": [32], "t_max": t_max}, headers=headers).status_code == 202
    busy = client.post("/lab/runs", json={"ds": [64], "t_max": 30}, headers=headers)
    assert busy.status_code == 429 and busy.get_json()["error"]["code"] == "rate_limited"
    again = client.post("/lab/runs", json={"ds": [32], "t_max": 10}, headers=headers)
    assert again.status_code == 202  # a run that exists already is shown, not started again
    other = client.application.test_client()
    other_headers = {"X-CSRF-Token": login(other, "student2")}
    assert other.post("/lab/runs", json={"ds": [64], "t_max": 30}, headers=other_headers).status_code == 202


def test_an_unknown_exercise_id_is_not_echoed_at_any_length(client: FlaskClient, login: Login) -> None:
    login(client, "student1")
    response = client.get("/api/v1/exercises/" + "x" * 5_000 + "/variant")
    assert response.status_code == 404
    message = response.get_json()["error"]["message"]
    assert len(message) < 100 and message.startswith("Unknown exercise 'xxx")
