"""Waiting on a grade through the worker's Redis notice: a notice that came before the reader started watching
still wakes it, and ``Prefer: wait`` never reads its new row back: the row it stored, brought up to date by the
columns the worker's notice carried, is the answer, in its thread or in the re-run of a parked request."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
import redis
from flask import Flask

from grader.api import parking
from grader.grading import notify
from tests.support import Backend, notices_subscribed, sql_sent

from .support import Api

SHIFT = "ch13.shift-pairs"
BOOK = {"pairs": "BOS→blue, blue→door, door→., .→EOS", "bos_scored": "no", "eos_scored": "yes", "scored_count": "4"}


@pytest.fixture
def redis_backend(backend: Backend) -> Backend:
    """Only PostgreSQL + Redis: the embedded file broker has no notices (readers poll)."""
    if not backend.broker_url.startswith("redis://"):
        pytest.skip("notices travel over Redis only")
    return backend


@pytest.fixture
def own_listener(redis_backend: Backend) -> Iterator[tuple[dict[str, Any], notify.FinalListener]]:
    """A config whose channel prefix no other test uses, and its process listener, subscribed."""
    config = {"CELERY_BROKER_URL": redis_backend.broker_url, "GRADER_QUEUE": f"notice-test-{uuid.uuid4().hex[:8]}"}
    notices_subscribed(config)
    yield config, notify.listener(notify.redis_url(config), notify.channel_prefix(config))


def _wait_for(condition: Any, seconds: float = 5.0) -> bool:
    """Poll ``condition`` until it holds or ``seconds`` pass."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.01)
    return bool(condition())


def test_a_notice_that_came_before_watching_still_wakes_the_reader(
    own_listener: tuple[dict[str, Any], notify.FinalListener],
) -> None:
    config, process_listener = own_listener
    submission_id = 900_000 + int(uuid.uuid4().int % 1000)
    notify.announce_final(config, submission_id)

    def watched_event_is_set() -> bool:
        with process_listener.watching(submission_id) as woken:
            return woken.is_set()

    assert _wait_for(watched_event_is_set)
    with process_listener.watching(submission_id + 1) as other:
        assert not other.is_set()  # only the announced id


def test_a_broken_subscription_voids_an_earlier_mark(
    own_listener: tuple[dict[str, Any], notify.FinalListener], redis_backend: Backend
) -> None:
    config, process_listener = own_listener
    mark = notify.subscription_mark(config)
    assert mark is not None
    assert process_listener.heard_everything_since(mark)
    # Notices published while the subscription is down are lost: a mark taken before must no longer vouch for them.
    redis.Redis.from_url(redis_backend.broker_url).client_kill_filter(_type="pubsub")
    assert _wait_for(lambda: notify.subscription_mark(config) not in (None, mark))
    assert not process_listener.heard_everything_since(mark)
    assert not process_listener.heard_everything_since(None)


@pytest.mark.integration
def test_prefer_wait_never_reads_its_new_row_back(
    api: Api, api_app: Flask, worker: Any, redis_backend: Backend, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A safety re-check could add a read on a slow machine; pushed out of the way, every read left is one the
    # request chose to make.
    monkeypatch.setattr(notify, "SAFETY_RECHECK_SECONDS", 30.0)
    body = {"exercise_id": SHIFT, "answer": BOOK, "seed": 0}
    warm = api.post("/submissions", "teacher", body, headers={"Prefer": "wait=10"})  # the listener subscribes
    assert warm.get_json()["status"] == "graded"
    notices_subscribed(api_app.config)
    with sql_sent(api_app) as sent:
        response = api.post("/submissions", "teacher", body, headers={"Prefer": "wait=10"})
    submission_reads = [
        statement
        for statement, _ in sent
        if statement.lstrip().upper().startswith("SELECT") and "FROM submissions" in statement
    ]
    assert response.status_code == 200, response.get_json()
    assert response.get_json()["status"] == "graded" and response.get_json()["score"] == 1.0
    # Stored by the INSERT, brought up to date by the columns the worker's notice carried: never read back.
    assert submission_reads == []
    assert response.get_json() == api.get(f"/submissions/{response.get_json()['id']}", "teacher").get_json()


def _submission_reads(sent: list[tuple[str, Any]]) -> list[str]:
    """The SELECTs of the submissions table among the statements sent."""
    return [
        statement
        for statement, _ in sent
        if statement.lstrip().upper().startswith("SELECT") and "FROM submissions" in statement
    ]


@pytest.mark.integration
@pytest.mark.parametrize("row_kept", [True, False])
def test_a_parked_posts_rerun_sets_the_notices_grade_on_the_row_it_kept(
    api: Api,
    api_app: Flask,
    worker: Any,
    redis_backend: Backend,
    monkeypatch: pytest.MonkeyPatch,
    request: pytest.FixtureRequest,
    row_kept: bool,
) -> None:
    config = api_app.config
    notices_subscribed(config)
    # As our gunicorn worker offers it, with no thread to spare: the request is parked at once.
    offer = {parking.OFFER_KEY: True, parking.BUDGET_KEY: parking.ThreadBudget(0)}
    body = json.dumps({"exercise_id": SHIFT, "answer": BOOK, "seed": 0})
    headers = api.headers("teacher", {"Prefer": "wait=10"})
    environs: list[dict[str, Any]] = []  # what the app left in each request's WSGI environ, as our worker reads it
    wsgi_app = api_app.wsgi_app

    def keeping_environ(environ: dict[str, Any], start_response: Any) -> Any:
        environs.append(environ)
        return wsgi_app(environ, start_response)

    monkeypatch.setattr(api_app, "wsgi_app", keeping_environ)
    api.client.post(
        "/api/v1/submissions", data=body, content_type="application/json", headers=headers, environ_overrides=offer
    )
    wait = environs[-1][parking.PARKED_KEY]
    assert isinstance(wait, parking.ParkedWait) and wait.created is not None and wait.row is not None
    # Our worker gives the user's wait slot back once the re-run answers; here the test does.
    request.addfinalizer(wait.slot.give_back)
    assert _wait_for(lambda: notify.kept_payload(config, wait.submission_id) is not None, 30), "no notice heard"
    if not row_kept:
        wait.row = None
    with sql_sent(api_app) as sent:
        rerun = api.client.post(
            "/api/v1/submissions",
            data=body,
            content_type="application/json",
            headers=headers,
            environ_overrides={**offer, parking.RESUME_KEY: wait},
        )
    assert rerun.status_code == 200, rerun.get_json()
    assert rerun.get_json()["id"] == wait.submission_id and rerun.get_json()["status"] == "graded"
    assert rerun.get_json() == api.get(f"/submissions/{wait.submission_id}", "teacher").get_json()
    # The row the first run kept, with the grade the notice carried: nothing read back; without it, one read.
    assert len(_submission_reads(sent)) == (0 if row_kept else 1)
