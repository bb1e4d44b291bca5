"""Taking the rows a sweeper step is due to send a task for: the first ones that match, stamped as sent for so that
the next sweep does not send them again before their task had time to run."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ColumnElement, select, update
from sqlalchemy.orm import InstrumentedAttribute, Session

from grader.models import LtiContext, LtiScoreOutbox


def take_due(
    session: Session,
    model: type[LtiScoreOutbox] | type[LtiContext],
    stamp: InstrumentedAttribute[datetime | None],
    due: tuple[ColumnElement[bool], ...],
    now: datetime,
    limit: int,
) -> list[int]:
    """The ids (lowest first, at most ``limit``) of ``model``'s rows that match every condition of ``due``, with
    their ``stamp`` column set to ``now``; committed."""
    ids = list(session.scalars(select(model.id).where(*due).order_by(model.id).limit(limit)))
    if ids:
        session.execute(
            update(model).where(model.id.in_(ids)).values({stamp.key: now}).execution_options(synchronize_session=False)
        )
    session.commit()
    return ids
