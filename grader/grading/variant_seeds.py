"""Server-side variant seeds: derived from a secret with HMAC, stored on first use, stable afterwards."""

from __future__ import annotations

import hashlib
import hmac

from flask import current_app
from sqlalchemy import select
from sqlalchemy.orm import Session

from exercises.api import SEED_LIMIT
from grader import sql_dialects
from grader.models import VariantAssignment


def derive_seed(secret: str, user_id: int, exercise_id: str) -> int:
    """HMAC-SHA256 of (user id, exercise id) under ``secret``, reduced to a seed; unguessable without the secret."""
    digest = hmac.new(secret.encode("utf-8"), f"variant:{user_id}:{exercise_id}".encode(), hashlib.sha256)
    return int.from_bytes(digest.digest()[:8], "big") % SEED_LIMIT


def seed_for(session: Session, user_id: int, exercise_id: str, secret: str | None = None) -> int:
    """The seed of user ``user_id``'s variant of ``exercise_id``, created and committed on first use.

    Two concurrent first requests agree: the insert ignores a conflict and the stored row wins.
    ``secret`` defaults to the app's VARIANT_SECRET.
    """
    stored = _stored_seed(session, user_id, exercise_id)
    if stored is not None:
        return stored
    seed = derive_seed(secret or current_app.config["VARIANT_SECRET"], user_id, exercise_id)
    session.execute(sql_dialects.insert_ignoring_conflict(
        sql_dialects.dialect_of(session), VariantAssignment, ["user_id", "exercise_id"],
        user_id=user_id, exercise_id=exercise_id, seed=seed))
    session.commit()
    stored = _stored_seed(session, user_id, exercise_id)
    assert stored is not None, "variant row must exist after insert-or-ignore"
    return stored


def _stored_seed(session: Session, user_id: int, exercise_id: str) -> int | None:
    """The seed already assigned to this user and exercise, if any."""
    return session.scalar(
        select(VariantAssignment.seed).where(
            VariantAssignment.user_id == user_id, VariantAssignment.exercise_id == exercise_id
        )
    )
