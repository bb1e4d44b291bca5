"""Waits that hold no thread: what the app and our gunicorn worker (``grader.gunicorn_worker``) tell each other.

A request that waits for a grade (``GET …?wait=``, ``Prefer: wait``) under our worker is *parked*: the app reads
the submission once, and if it is not final yet it leaves a ``ParkedWait`` in the WSGI environ and returns. The
worker drops that response, keeps the connection in its event loop (no thread), and when the grade lands or the
wait runs out (``grader.api.parking_lot``) runs the same request through the app again with the ``ParkedWait`` in
the environ as RESUME_KEY. The re-run reads the submission and answers; the route and its checks (who is calling,
what they may read) are the same code both times.

Elsewhere (the Flask test client, ``grader serve``'s threaded server) nothing is offered and the request waits in
its thread, as before.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

from flask import g, request

from grader.api.wait_slots import Slot
from grader.models import Submission

# Set by the worker: True if this request may be parked; False if it must not wait at all (the worker is stopping
# or its lot is full: answered at once with the current state). Absent: not our worker, wait in the thread.
OFFER_KEY = "grader.park.offer"
PARKED_KEY = "grader.park.parked"  # set by the app: answer this request later
RESUME_KEY = "grader.park.resume"  # set by the worker on the re-run of a parked request
BUDGET_KEY = "grader.park.thread_budget"  # set by the worker with the offer: threads a wait may still hold
CREATED_KEY = "grader_created_submission"  # flask.g: (id, replayed) of the submission this POST stored


@dataclass
class ParkedWait:
    """One parked request: what it waits for, until when, and what the re-run needs."""

    submission_id: int
    deadline: float  # time.monotonic()
    slot: Slot  # the user's share of the cap, held until the request is answered
    notice_mark: int | None  # notify.subscription_mark taken before the submission was last read
    status: str = ""  # the submission's status when parked (its answer is sent as it was if this stays)
    body: bytes = b""  # the request body, read again by the re-run
    created: tuple[int, bool] | None = None  # POST: the stored submission and whether it was a replay
    # POST: the stored row as the first run held it (every column), for the re-run to set its grade on
    # (``waiting.graded_from_notice``) instead of reading the row again.
    row: Submission | None = None
    parked_at: float = field(default_factory=time.monotonic)

    def seconds_left(self) -> float:
        """How long the wait may still last."""
        return self.deadline - time.monotonic()


class ThreadBudget:
    """How many of a worker's threads may hold a wait's first moments (``waiting.THREAD_WAIT_SECONDS``) before it
    is parked: a grade landing meanwhile is answered at once with the row its notice carried (no second run
    through the app, about a request's CPU saved per grade); the other threads stay free for everyone else however
    many clients wait."""

    def __init__(self, threads: int) -> None:
        self.threads = threads
        self._held = 0
        self._lock = threading.Lock()

    def try_take(self) -> bool:
        """Take a thread for a wait if one is left."""
        with self._lock:
            if self._held >= self.threads:
                return False
            self._held += 1
            return True

    def give_back(self) -> None:
        """The wait that took a thread has ended."""
        with self._lock:
            self._held -= 1


def thread_budget() -> ThreadBudget | None:
    """The worker's budget of threads that may hold a wait, if it offers one."""
    budget = request.environ.get(BUDGET_KEY)
    return budget if isinstance(budget, ThreadBudget) else None


def offered() -> bool | None:
    """Whether the worker may park this request (True), wants it answered at once (False), or is not ours (None)."""
    offer = request.environ.get(OFFER_KEY)
    return None if offer is None else bool(offer)


def resumed() -> ParkedWait | None:
    """The parked wait this request is the re-run of, if it is one."""
    wait = request.environ.get(RESUME_KEY)
    return wait if isinstance(wait, ParkedWait) else None


def park(wait: ParkedWait) -> None:
    """Ask the worker to answer this request again once ``wait``'s submission is final or its time is up."""
    wait.body = request.get_data(cache=True)
    wait.created = wait.created or g.get(CREATED_KEY)
    request.environ[PARKED_KEY] = wait


def note_created(submission_id: int, replayed: bool) -> None:
    """Remember the submission this POST stored, for its re-run (which must not store it again)."""
    setattr(g, CREATED_KEY, (submission_id, replayed))
