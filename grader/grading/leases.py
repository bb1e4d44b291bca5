"""Leases on job rows: conditional UPDATEs make the database, not the broker, decide who works on a row."""

from __future__ import annotations

import functools
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import (
    BindParameter,
    ColumnElement,
    String,
    Update,
    and_,
    bindparam,
    case,
    cast,
    func,
    literal,
    or_,
    update,
)
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import Session

from grader import driver_statements
from grader.extensions import Database, rows_matched
from grader.models import utcnow

JobModel = type[Any]  # a mapped class that mixes in LeasedJob (Submission, LabRun)

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Lease:
    """Proof that one worker took one row for one attempt; writes must present it."""

    row_id: int
    owner: str
    attempt: int
    until: datetime


def claimable(model: JobModel, now: datetime | BindParameter[datetime]) -> ColumnElement[bool]:
    """SQL condition: queued, or working under a lease that has expired (on table columns, so that it also
    serves Core statements built once)."""
    row = model.__table__.c
    return or_(row.status == model.QUEUED, and_(row.status == model.WORKING, row.lease_until < now))


def claim(session: Session, model: JobModel, row_id: int, owner: str, lease_seconds: float) -> Lease | None:
    """Take ``row_id`` for ``owner`` if it is claimable and has attempts left; commits. None if not taken."""
    claimed = claim_reading(session, model, row_id, owner, lease_seconds)
    return None if claimed is None else claimed[0]


def claim_reading(
    session: Session, model: JobModel, row_id: int, owner: str, lease_seconds: float, *columns: str
) -> tuple[Lease, Sequence[Any]] | None:
    """``claim``, also returning the named ``columns`` of the claimed row from the same UPDATE; commits."""
    now = utcnow()
    until = now + timedelta(seconds=lease_seconds)
    row = driver_statements.first(
        session,
        _claim_statement(model, columns),  # type: ignore[arg-type]  # a model class is hashable
        {"claim_row_id": row_id, "claim_owner": owner, "claim_now": now, "claim_until": until},
        commit=True,
    )
    return None if row is None else (Lease(row_id, owner, row[0], until), row)


@functools.cache
def _claim_statement(model: JobModel, columns: tuple[str, ...]) -> Update:
    """The claiming UPDATE … RETURNING attempts, *columns, on table columns with bound parameters.

    Built once per model and column list: building it per job (ORM attribute coercions, cache keys) cost the
    worker more CPU than running it.
    """
    row = model.__table__.c
    now, until = (
        bindparam("claim_now", type_=row.lease_until.type),
        bindparam("claim_until", type_=row.lease_until.type),
    )
    return (
        update(model.__table__)
        .where(row.id == bindparam("claim_row_id"), row.attempts < row.max_attempts, claimable(model, now))
        .values(
            status=model.WORKING,
            lease_owner=bindparam("claim_owner", type_=row.lease_owner.type),
            lease_until=until,
            attempts=row.attempts + 1,
            started_at=now,
            resends=0,
        )
        .returning(row.attempts, *(row[name] for name in columns))
    )


def holds(model: JobModel, lease: Lease) -> ColumnElement[bool]:
    """SQL condition: the row is still working under exactly this lease."""
    return _held(model, lease.row_id, lease.owner, lease.attempt)


def holds_bound(model: JobModel) -> ColumnElement[bool]:
    """``holds`` with the lease as bound parameters (see ``bound_lease``), for Core statements built once and
    reused."""
    return _held(model, bindparam("held_row_id"), bindparam("held_owner"), bindparam("held_attempt"))


def _held(model: JobModel, row_id: Any, owner: Any, attempt: Any) -> ColumnElement[bool]:
    """The lease condition on the table's columns (ORM attributes would make a Core statement an ORM bulk
    operation); the lease given as values or as bound parameters."""
    row = model.__table__.c
    return and_(row.id == row_id, row.status == model.WORKING, row.lease_owner == owner, row.attempts == attempt)


def bound_lease(lease: Lease) -> dict[str, Any]:
    """The parameters of ``holds_bound`` for ``lease``."""
    return {"held_row_id": lease.row_id, "held_owner": lease.owner, "held_attempt": lease.attempt}


def finish(session: Session, model: JobModel, lease: Lease, status: str, **values: Any) -> bool:
    """Write a final ``status`` and ``values`` only if ``lease`` still holds; the caller commits. True if written.

    An earlier attempt's failure message is cleared unless ``values`` sets one: a job that ended well carries none.
    """
    values.setdefault("error_message", None)
    return (
        rows_matched(
            session.execute(
                update(model)
                .where(holds(model, lease))
                .values(status=status, lease_owner=None, lease_until=None, finished_at=utcnow(), **values)
                .execution_options(synchronize_session=False)
            )
        )
        == 1
    )


def fail(session: Session, model: JobModel, lease: Lease, error_status: str, message: str) -> bool:
    """End the row as ``error_status`` with ``message`` (a failure retrying cannot fix), if the lease holds; commits."""
    written = finish(session, model, lease, error_status, error_message=message)
    session.commit()
    return written


def failure_message(exc: BaseException) -> str:
    """How a failure is recorded on a row: the exception's type and text."""
    return f"{type(exc).__name__}: {exc}"


def extend(session: Session, model: JobModel, lease: Lease, lease_seconds: float, **values: Any) -> bool:
    """Push the lease deadline forward (a long job reporting progress); commits. True if the lease still holds."""
    result = session.execute(
        update(model)
        .where(holds(model, lease))
        .values(lease_until=utcnow() + timedelta(seconds=lease_seconds), **values)
        .execution_options(synchronize_session=False)
    )
    session.commit()
    return rows_matched(result) == 1


def release_after_failure(session: Session, model: JobModel, lease: Lease, message: str, error_status: str) -> bool:
    """After a failed attempt: back to queued for the sweeper, or ``error_status`` if no attempts are left; commits."""
    now = utcnow()
    out_of_attempts = model.max_attempts <= lease.attempt
    result = session.execute(
        update(model)
        .where(holds(model, lease))
        .values(
            status=case((out_of_attempts, error_status), else_=model.QUEUED),
            finished_at=case((out_of_attempts, now), else_=None),
            lease_owner=None,
            lease_until=None,
            error_message=message,
            queued_at=now,
        )
        .execution_options(synchronize_session=False)
    )
    session.commit()
    return rows_matched(result) == 1


def give_back(database: Database, model: JobModel, lease: Lease, exc: OperationalError, error_status: str) -> None:
    """After the connection died under a write: hand the row back (queued, or ``error_status`` if that was its last
    attempt) on a fresh connection, so the task's retry can claim it at once instead of waiting out this lease.

    If the write did commit after all, the row is no longer held and nothing changes; if the database is still
    unreachable, the lease runs out and the sweeper re-sends the row.
    """
    try:
        with database.pinned_session() as session:
            release_after_failure(session, model, lease, failure_message(exc), error_status)
    except OperationalError as still_down:
        log.warning("%s %s kept its lease until it expires: %s", model.__tablename__, lease.row_id, still_down)


def give_up_exhausted(session: Session, model: JobModel, error_status: str, row_id: int | None = None) -> list[int]:
    """Mark rows whose attempts are used up and whose last lease has expired as ``error_status``; commits.

    Returns the ids changed. Limited to ``row_id`` when given.
    """
    now = utcnow()
    conditions = [model.attempts >= model.max_attempts, claimable(model, now)]
    if row_id is not None:
        conditions.append(model.id == row_id)
    changed = (
        session.execute(
            update(model)
            .where(*conditions)
            .values(
                status=error_status,
                lease_owner=None,
                lease_until=None,
                finished_at=now,
                error_message=_exhausted_message(model),
            )
            .returning(model.id)
            .execution_options(synchronize_session=False)
        )
        .scalars()
        .all()
    )
    session.commit()
    return list(changed)


def claim_or_status(
    session: Session, model: JobModel, row_id: int, owner: str, lease_seconds: float, error_status: str
) -> Lease | str:
    """The lease on row ``row_id`` for ``owner``; if it cannot be claimed, the row is given up as ``error_status``
    when its attempts are used up (give_up_exhausted) and its status is returned instead ("missing": no row)."""
    lease = claim(session, model, row_id, owner, lease_seconds)
    if lease is not None:
        return lease
    give_up_exhausted(session, model, error_status, row_id=row_id)
    # No row: a deleted assignment took its jobs along, or the id was never one; nothing to do.
    row = session.get(model, row_id)
    return str(row.status) if row is not None else "missing"


def _exhausted_message(model: JobModel) -> ColumnElement[str]:
    """SQL for the stored reason for giving up: the attempt count, plus the last recorded failure if any."""
    base = (
        literal("gave up after ")
        + cast(model.attempts, String)
        + literal(" attempts (worker lost, timed out or failed)")
    )
    return func.coalesce(base + literal(": ") + model.error_message, base)
