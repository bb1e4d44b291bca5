"""Refusals name what they are about: an assignment's rules name ``assignment_id``; a dead token's 401 says it may be
unknown, revoked or expired, the same words for each."""

from __future__ import annotations

from datetime import timedelta

from werkzeug.test import TestResponse

from grader.extensions import get_db
from grader.models import User
from grader.security import issue_token, revoke_token, tokens_of

from .support import Api, assert_error

SHIFT = "ch13.shift-pairs"
ANSWER = {"pairs": "BOS→red", "bos_scored": "no", "eos_scored": "yes", "scored_count": "1"}
UNREADABLE = {"pairs": "", "bos_scored": "", "eos_scored": "", "scored_count": ""}


def _post(api: Api, assignment_id: int, answer: dict[str, str] = ANSWER) -> TestResponse:
    """POST alice's answer to the assignment."""
    return api.post(
        "/submissions", "alice", {"exercise_id": SHIFT, "answer": answer, "lang": "en", "assignment_id": assignment_id}
    )


def test_the_rules_of_an_assignment_name_it(api: Api) -> None:
    for answer in (ANSWER, UNREADABLE):  # the unreadable answer gets the same refusal, before any reading
        assert_error(_post(api, api.school.closed_assignment, answer), 403, "past_due", "assignment_id")
        assert_error(_post(api, api.school.future_assignment, answer), 403, "not_open", "assignment_id")
    for _ in range(2):
        assert _post(api, api.school.open_assignment).status_code == 202
    assert_error(_post(api, api.school.open_assignment), 409, "attempts_exhausted", "assignment_id")
    assert_error(_post(api, api.school.open_assignment, UNREADABLE), 409, "attempts_exhausted", "assignment_id")


def _token_message(api: Api, raw: str) -> str:
    """The 401 message for a bearer token."""
    response = api.client.get("/api/v1/me", headers={"Authorization": f"Bearer {raw}"})
    error = assert_error(response, 401, "invalid_token")
    assert response.headers["WWW-Authenticate"].startswith("Bearer")
    return str(error["message"])


def test_a_dead_tokens_message_covers_expiry_without_saying_which(api: Api) -> None:
    app = api.client.application
    with get_db(app).session() as session:
        alice = session.get_one(User, api.school.user_ids["alice"])
        expired = issue_token(session, alice, name="old", expires_in=timedelta(seconds=-1))
        revoked = issue_token(session, alice, name="gone")
        session.commit()
        revoke_token(session, tokens_of(session, "alice")[-1].id)
        session.commit()
    messages = {_token_message(api, raw) for raw in (expired, revoked, "grd_never-issued")}
    assert len(messages) == 1
    assert "expired" in messages.pop()
