"""Server-side variant seeds: derived from a secret with HMAC, stored on first use, stable afterwards.

An assignment with fresh variants has its own: the seed derives from (assignment, student, exercise) and is stored
under the assignment's scope, so a key shown with one assignment answers no other. Assignments without (those made
before fresh variants) share the student's one variant per exercise, scope 0, as before.
"""

from __future__ import annotations

import hashlib
import hmac

from flask import current_app
from sqlalchemy import select
from sqlalchemy.orm import Session

from exercises.api import SEED_LIMIT
from grader import sql_dialects
from grader.models import Assignment, VariantAssignment

SHARED_SCOPE = 0


def variant_scope(assignment: Assignment | None) -> int:
    """The scope of the variants an assignment shows: its own id if it has fresh variants, else SHARED_SCOPE
    (also for work outside any assignment)."""
    return assignment.id if assignment is not None and assignment.fresh_variants else SHARED_SCOPE


def derive_seed(secret: str, user_id: int, exercise_id: str, scope: int = SHARED_SCOPE) -> int:
    """HMAC-SHA256 of (user id, exercise id), and the assignment for a fresh scope, under ``secret``, reduced to a
    seed; unguessable without the secret. The shared scope's message is the one used before scopes existed."""
    message = (
        f"variant:{user_id}:{exercise_id}"
        if scope == SHARED_SCOPE
        else f"fresh-variant:{scope}:{user_id}:{exercise_id}"
    )
    digest = hmac.new(secret.encode("utf-8"), message.encode(), hashlib.sha256)
    return int.from_bytes(digest.digest()[:8], "big") % SEED_LIMIT


def seed_for(
    session: Session, user_id: int, exercise_id: str, assignment: Assignment | None = None, secret: str | None = None
) -> int:
    """The seed of user ``user_id``'s variant of ``exercise_id`` in ``assignment`` (its own with fresh variants,
    else the shared one), created and committed on first use.

    Two concurrent first requests agree: the insert ignores a conflict and the stored row wins.
    ``secret`` defaults to the app's VARIANT_SECRET.
    """
    scope = variant_scope(assignment)
    stored = _stored_seed(session, user_id, exercise_id, scope)
    if stored is not None:
        return stored
    seed = derive_seed(secret or current_app.config["VARIANT_SECRET"], user_id, exercise_id, scope)
    session.execute(
        sql_dialects.insert_ignoring_conflict(
            sql_dialects.dialect_of(session),
            VariantAssignment,
            ["user_id", "exercise_id", "scope"],
            user_id=user_id,
            exercise_id=exercise_id,
            scope=scope,
            seed=seed,
        )
    )
    session.commit()
    stored = _stored_seed(session, user_id, exercise_id, scope)
    assert stored is not None, "variant row must exist after insert-or-ignore"
    return stored


def _stored_seed(session: Session, user_id: int, exercise_id: str, scope: int) -> int | None:
    """The seed already assigned to this user and exercise in ``scope``, if any."""
    return session.scalar(
        select(VariantAssignment.seed).where(
            VariantAssignment.user_id == user_id,
            VariantAssignment.exercise_id == exercise_id,
            VariantAssignment.scope == scope,
        )
    )
