"""Which LMS courses' rosters are due to be read again (the nightly sync, as a sweeper step): bound, with a
memberships service, last read (or tried) over GRADER_LTI_ROSTER_SYNC_HOURS ago, and not asked for just now."""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy.orm import Session

from grader.lti.due_rows import take_due
from grader.models import LtiContext

ASK_AGAIN_AFTER = timedelta(minutes=15)  # a sync task sent but not yet run (a busy queue) is not sent again before
BATCH = 50


def due_roster_syncs(session: Session, now: datetime, hours: float) -> list[int]:
    """The ids of the LMS courses whose roster is due (none if ``hours`` is 0: the nightly sync is off), marked as
    asked for now; committed."""
    if hours <= 0:
        return []
    stale = now - timedelta(hours=hours)
    return take_due(
        session,
        LtiContext,
        LtiContext.roster_requested_at,
        (
            LtiContext.course_id.is_not(None),
            LtiContext.memberships_url.is_not(None),
            LtiContext.roster_synced_at.is_(None) | (LtiContext.roster_synced_at < stale),
            LtiContext.roster_requested_at.is_(None) | (LtiContext.roster_requested_at < now - ASK_AGAIN_AFTER),
        ),
        now,
        BATCH,
    )
