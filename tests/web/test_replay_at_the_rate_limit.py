"""The exercise page's form and the API submit through one use case: at the rate limit, both answer a replay of an
idempotency key with the stored submission, refuse a new submission, and refuse a key reused for another answer."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import func, select

from grader.extensions import get_db
from grader.models import Assignment, Submission, User
from grader.security import issue_token

SHIFT = "ch13.shift-pairs"
ANSWER = {"pairs": "BOS→x", "bos_scored": "否", "eos_scored": "是", "scored_count": "1"}
OTHER_ANSWER = {**ANSWER, "scored_count": "3"}
Login = Callable[[FlaskClient, str], str]


@dataclass(frozen=True)
class Reply:
    """What a transport answered: the submission it points to (None if refused), the HTTP status, and what it said
    (the page's HTML, the API's error)."""

    submission_id: int | None
    status: int
    text: str


class Transport:
    """Submits an answer with an idempotency key to Chapter 13's exercise, as one signed-in student."""

    def __init__(self, app: Flask, client: FlaskClient, login: Login) -> None:
        self.app, self.client, self.login = app, client, login
        with app.app_context(), get_db(app).session() as session:
            self.assignment_id = session.scalars(
                select(Assignment.id).where(Assignment.title_en.startswith("Chapter 13"))
            ).one()

    def submit(self, answer: dict[str, str], key: str) -> Reply:
        """Send ``answer`` under ``key``."""
        raise NotImplementedError


class Page(Transport):
    """The exercise page's plain form (no JavaScript)."""

    def __init__(self, app: Flask, client: FlaskClient, login: Login) -> None:
        super().__init__(app, client, login)
        self.token = login(client, "student1")

    def submit(self, answer: dict[str, str], key: str) -> Reply:
        form = {"csrf_token": self.token, "idempotency_key": key, **{f"answer.{k}": v for k, v in answer.items()}}
        response = self.client.post(f"/assignments/{self.assignment_id}/exercises/{SHIFT}", data=form)
        found = int(response.location.rsplit("/", 1)[1]) if response.status_code == 302 else None
        return Reply(found, response.status_code, response.get_data(as_text=True))


class Api(Transport):
    """POST /api/v1/submissions with a bearer token."""

    def __init__(self, app: Flask, client: FlaskClient, login: Login) -> None:
        super().__init__(app, client, login)
        with app.app_context(), get_db(app).session() as session:
            user = session.scalars(select(User).where(User.username == "student1")).one()
            self.bearer = issue_token(session, user, name="test")
            session.commit()

    def submit(self, answer: dict[str, str], key: str) -> Reply:
        body = {"exercise_id": SHIFT, "answer": answer, "lang": "zh", "assignment_id": self.assignment_id}
        response = self.client.post(
            "/api/v1/submissions", json=body, headers={"Authorization": f"Bearer {self.bearer}", "Idempotency-Key": key}
        )
        data = response.get_json()
        if response.status_code in (200, 202):
            return Reply(data["id"], response.status_code, "")
        return Reply(None, response.status_code, json.dumps(data["error"], ensure_ascii=False))


def _submission_count(app: Flask) -> int:
    with app.app_context(), get_db(app).session() as session:
        return session.scalar(select(func.count(Submission.id))) or 0


# Per transport: the status of a replay, of a new submission over the limit, of a key reused for another answer.
EXPECTED = {Page: (302, 429, 422), Api: (200, 429, 409)}


@pytest.mark.parametrize("transport", [Page, Api], ids=["page", "api"])
def test_a_replay_at_the_rate_limit_gets_the_stored_submission(
    app: Flask, client: FlaskClient, login: Login, transport: type[Transport]
) -> None:
    app.config["SUBMISSION_RATE_LIMIT"] = "1/minute"
    sender = transport(app, client, login)
    replay_status, limited_status, conflict_status = EXPECTED[transport]
    first = sender.submit(ANSWER, "lost-reply-1")
    assert first.submission_id is not None
    # The limit is used up: a new submission is refused ...
    limited = sender.submit(ANSWER, "another-key")
    assert (limited.submission_id, limited.status) == (None, limited_status)
    assert "提交太频繁" in limited.text or "rate_limited" in limited.text
    # ... but the client whose reply was lost, retrying with its key, gets its stored submission back.
    again = sender.submit(ANSWER, "lost-reply-1")
    assert (again.submission_id, again.status) == (first.submission_id, replay_status)
    # The key reused for another answer is refused as a conflict, before the rate limit, in either transport.
    conflict = sender.submit(OTHER_ANSWER, "lost-reply-1")
    assert (conflict.submission_id, conflict.status) == (None, conflict_status)
    assert "幂等键" in conflict.text
    assert _submission_count(app) == 1
