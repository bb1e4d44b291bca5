"""A per-user cap on requests held waiting for a grade (``GET …?wait=``, ``Prefer: wait``) in one web process.

Each held request keeps a gunicorn thread for up to 10 s; one user (a script, a page opened in many tabs) holding
them all would stall the site for everyone. Beyond MAX_WAITS_PER_USER, a request is answered at once with the
submission's current state, as if it had asked for no wait: never refused, the client polls again as it would
after any wait ran out. Counted per process (a user spread over N web processes may hold N times as many).
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager

MAX_WAITS_PER_USER = 4


class WaitSlots:
    """Counts the waits each user holds in this process."""

    def __init__(self, per_user: int = MAX_WAITS_PER_USER) -> None:
        self.per_user = per_user
        self._held: Counter[int] = Counter()
        self._lock = threading.Lock()

    @contextmanager
    def hold(self, user_id: int) -> Iterator[bool]:
        """Take one of ``user_id``'s slots for the block; yields False (nothing taken) if all are in use."""
        with self._lock:
            granted = self._held[user_id] < self.per_user
            if granted:
                self._held[user_id] += 1
        try:
            yield granted
        finally:
            if granted:
                with self._lock:
                    self._held[user_id] -= 1
                    if not self._held[user_id]:
                        del self._held[user_id]

    def held(self, user_id: int) -> int:
        """How many waits ``user_id`` holds now."""
        with self._lock:
            return self._held[user_id]


SLOTS = WaitSlots()
