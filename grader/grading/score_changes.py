"""The one place told that a student's counted assignment score may have changed.

Every writer of something that can change a counted score (a grade, a regrade, an override, an extension, a change
of an assignment's policy, points or exercise list) calls ``counted_scores_changed`` inside its own transaction, so
that whatever follows a score (the LMS grade passback's outbox) is written atomically with the change itself.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from sqlalchemy.orm import Session


def counted_scores_changed(
    session: Session, assignment_id: int, user_ids: Iterable[int] | None, at: datetime
) -> None:
    """Record that the counted scores of ``user_ids`` (None: every student) in ``assignment_id`` may have changed
    at ``at``, in ``session``'s transaction (the caller commits). Does nothing until a follower is wired in."""
    del session, assignment_id, user_ids, at
