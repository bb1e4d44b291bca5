"""A per-user cap on held waits: beyond it, ``GET …?wait=`` and ``Prefer: wait`` answer at once with the current
state (never an error), while other users' waits are untouched."""

from __future__ import annotations

import threading
from typing import Any

from flask import Flask

from grader.api.wait_slots import SLOTS, WaitSlots
from grader.extensions import get_db
from grader.models import Submission, SubmissionStatus
from tests.factories import BOOK_ANSWER, BOOK_SEED, EXERCISE
from tests.support import wait_for

from .support import Api, School

HELD_SECONDS = 6  # long enough to be certain the capped request did not wait for them


def _stranded(app: Flask, user_id: int) -> int:
    """A queued submission whose message nobody will deliver: every wait on it runs its full length."""
    with app.app_context(), get_db(app).session() as session:
        row = Submission(
            user_id=user_id,
            exercise_id=EXERCISE,
            seed=BOOK_SEED,
            lang="en",
            raw_answer=BOOK_ANSWER,
            status=SubmissionStatus.QUEUED,
        )
        session.add(row)
        session.commit()
        return row.id


def _hold(app: Flask, token: str, path: str, answers: list[Any]) -> threading.Thread:
    """GET ``path`` in a thread of its own (as gunicorn's threads would); its answer lands in ``answers``."""

    def call() -> None:
        answers.append(app.test_client().get(path, headers={"Authorization": f"Bearer {token}"}))

    thread = threading.Thread(target=call, daemon=True)
    thread.start()
    return thread


def test_a_wait_beyond_the_cap_is_answered_at_once_with_the_current_state(
    api_app: Flask, school: School, api: Api
) -> None:
    alice = school.user_ids["alice"]
    row_id = _stranded(api_app, alice)
    path = f"/api/v1/submissions/{row_id}?wait={HELD_SECONDS}"
    held: list[Any] = []
    waiting = [_hold(api_app, school.tokens["alice"], path, held) for _ in range(SLOTS.per_user)]
    wait_for(lambda: SLOTS.held(alice) == SLOTS.per_user, "every slot of the user to be held")

    beyond = api.get(f"/submissions/{row_id}?wait={HELD_SECONDS}", "alice")
    assert beyond.status_code == 200 and beyond.get_json()["status"] == "queued"
    assert all(thread.is_alive() for thread in waiting)  # answered while the others still wait
    assert held == []

    bob_row = _stranded(api_app, school.user_ids["bob"])
    bobs: list[Any] = []
    bob_wait = _hold(api_app, school.tokens["bob"], f"/api/v1/submissions/{bob_row}?wait=1", bobs)
    wait_for(lambda: SLOTS.held(school.user_ids["bob"]) == 1, "another user's wait to be held")  # not capped
    for thread in [*waiting, bob_wait]:
        thread.join()
    assert [answer.status_code for answer in held + bobs] == [200] * (SLOTS.per_user + 1)
    assert SLOTS.held(alice) == 0


def test_slots_are_given_back_even_when_the_wait_fails() -> None:
    slots = WaitSlots(per_user=1)
    try:
        with slots.hold(7) as granted:
            assert granted and slots.held(7) == 1
            with slots.hold(7) as second:
                assert not second
            raise RuntimeError("the database went away")
    except RuntimeError:
        pass
    assert slots.held(7) == 0
    with slots.hold(7) as again:
        assert again
