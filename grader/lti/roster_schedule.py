"""Which LMS courses' rosters are due to be read again (the nightly sync, as a sweeper step): bound, with a
memberships service, last read (or tried) over GRADER_LTI_ROSTER_SYNC_HOURS ago, and not asked for just now."""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from grader.models import LtiContext

ASK_AGAIN_AFTER = timedelta(minutes=15)  # a sync task sent but not yet run (a busy queue) is not sent again before
BATCH = 50


def due_roster_syncs(session: Session, now: datetime, hours: float) -> list[int]:
    """The ids of the LMS courses whose roster is due (none if ``hours`` is 0: the nightly sync is off), marked as
    asked for now; committed."""
    if hours <= 0:
        return []
    stale = now - timedelta(hours=hours)
    ids = list(
        session.scalars(
            select(LtiContext.id)
            .where(
                LtiContext.course_id.is_not(None),
                LtiContext.memberships_url.is_not(None),
                LtiContext.roster_synced_at.is_(None) | (LtiContext.roster_synced_at < stale),
                LtiContext.roster_requested_at.is_(None) | (LtiContext.roster_requested_at < now - ASK_AGAIN_AFTER),
            )
            .order_by(LtiContext.id)
            .limit(BATCH)
        )
    )
    if ids:
        session.execute(
            update(LtiContext)
            .where(LtiContext.id.in_(ids))
            .values(roster_requested_at=now)
            .execution_options(synchronize_session=False)
        )
    session.commit()
    return ids
