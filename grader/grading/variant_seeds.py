"""Server-side variant seeds: derived from a secret with HMAC, stored on first use, stable afterwards."""

from __future__ import annotations

import hashlib
import hmac

from flask import current_app
from sqlalchemy import select
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.orm import Session

from grader.models import VariantAssignment

SEED_LIMIT = 2**63  # the engine accepts seeds in [0, 2**63)


def derive_seed(secret: str, user_id: int, exercise_id: str) -> int:
    """HMAC-SHA256 of (user id, exercise id) under ``secret``, reduced to a seed; unguessable without the secret."""
    digest = hmac.new(secret.encode("utf-8"), f"variant:{user_id}:{exercise_id}".encode("utf-8"), hashlib.sha256)
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
    insert = pg_insert if session.get_bind().dialect.name == "postgresql" else sqlite_insert
    session.execute(
        insert(VariantAssignment)
        .values(user_id=user_id, exercise_id=exercise_id, seed=seed)
        .on_conflict_do_nothing(index_elements=["user_id", "exercise_id"])
    )
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
