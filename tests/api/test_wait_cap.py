"""A per-user cap on held waits (threads held: the Flask test client; ``tests/test_parked_waits.py`` has gunicorn's
parked ones): beyond it, ``GET …?wait=`` answers at once with the current state (never an error), while other
users' waits are untouched; slots are counted in Redis where it is configured, so that every process shares them."""

from __future__ import annotations

import threading
import uuid
from typing import Any

import pytest
from flask import Flask

from grader.api import wait_slots
from grader.api.wait_slots import SharedWaitSlots, WaitSlots
from grader.extensions import get_db
from grader.models import Submission, SubmissionStatus
from grader.redis_direct import DirectRedis
from tests.factories import BOOK_ANSWER, BOOK_SEED, EXERCISE
from tests.support import Backend, wait_for

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
    slots = wait_slots.slots(api_app.config)
    row_id = _stranded(api_app, alice)
    path = f"/api/v1/submissions/{row_id}?wait={HELD_SECONDS}"
    held: list[Any] = []
    waiting = [_hold(api_app, school.tokens["alice"], path, held) for _ in range(slots.per_user)]
    wait_for(lambda: slots.held(alice) == slots.per_user, "every slot of the user to be held")

    beyond = api.get(f"/submissions/{row_id}?wait={HELD_SECONDS}", "alice")
    assert beyond.status_code == 200 and beyond.get_json()["status"] == "queued"
    assert all(thread.is_alive() for thread in waiting)  # answered while the others still wait
    assert held == []

    bob_row = _stranded(api_app, school.user_ids["bob"])
    bobs: list[Any] = []
    bob_wait = _hold(api_app, school.tokens["bob"], f"/api/v1/submissions/{bob_row}?wait=1", bobs)
    wait_for(lambda: slots.held(school.user_ids["bob"]) == 1, "another user's wait to be held")  # not capped
    for thread in [*waiting, bob_wait]:
        thread.join()
    assert [answer.status_code for answer in held + bobs] == [200] * (slots.per_user + 1)
    assert slots.held(alice) == 0


def test_slots_are_given_back_even_when_the_wait_fails(api_app: Flask) -> None:
    slots = wait_slots.slots(api_app.config)
    user = 7_000_000 + uuid.uuid4().int % 1_000_000  # a user no other test counts
    try:
        with wait_slots.hold(api_app.config, user, 5) as granted:
            assert granted and slots.held(user) == 1
            raise RuntimeError("the database went away")
    except RuntimeError:
        pass
    assert slots.held(user) == 0


def test_a_slot_given_back_twice_frees_only_one() -> None:
    slots = WaitSlots(per_user=2)
    first, second = slots.take(7, 5), slots.take(7, 5)
    assert first is not None and second is not None and slots.take(7, 5) is None
    first.give_back()
    first.give_back()
    assert slots.held(7) == 1


def test_processes_sharing_redis_share_one_cap(backend: Backend) -> None:
    if not backend.broker_url.startswith("redis://"):
        pytest.skip("without Redis each process counts its own")
    client = DirectRedis(backend.broker_url, 2.0)
    namespace = f"cap-test-{uuid.uuid4().hex[:8]}"
    # Two counters on one Redis, as two web processes have: slots taken in one count in the other.
    one, other = SharedWaitSlots(client, namespace, per_user=2), SharedWaitSlots(client, namespace, per_user=2)
    taken = [one.take(5, 10), other.take(5, 10)]
    assert all(taken) and other.take(5, 10) is None and one.take(5, 10) is None
    assert one.take(6, 10) is not None  # another user is not capped by this one
    taken[0].give_back()  # type: ignore[union-attr]
    assert other.take(5, 10) is not None


def test_a_slot_of_a_process_that_died_lapses_at_its_end(backend: Backend) -> None:
    if not backend.broker_url.startswith("redis://"):
        pytest.skip("without Redis a process's counts die with it")
    client = DirectRedis(backend.broker_url, 2.0)
    dead = SharedWaitSlots(client, f"cap-test-{uuid.uuid4().hex[:8]}", per_user=1)
    assert dead.take(5, 0.2) is not None  # never given back: its process was killed
    live = SharedWaitSlots(client, dead.namespace, per_user=1)
    wait_for(lambda: live.held(5) == 0 or None, "the slot to lapse", timeout=wait_slots.SLOT_MARGIN_SECONDS + 10)
    assert live.take(5, 10) is not None
