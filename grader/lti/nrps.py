"""Names and Role Provisioning: the LMS course's roster read on demand (every page), members enrolled with the
roles they have there before they first launch, Inactive and Deleted members' student enrolments ended."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from grader.lti import claims as c
from grader.lti.ags import LmsAnswer, LmsClient, next_page
from grader.lti.binding import enrol
from grader.lti.identity import identity_user
from grader.models import Enrolment, EnrolmentRole, LtiContext, LtiIdentity, LtiPlatform

NRPS_SCOPE = "https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly"
MEMBERSHIP_TYPE = "application/vnd.ims.lti-nrps.v2.membershipcontainer+json"
MAX_PAGES = 500  # a roster of 500 pages is not a roster but a loop


@dataclass
class RosterSync:
    """What one sync did."""

    enrolled: int = 0
    updated: int = 0
    ended: int = 0


def _apply_member(
    session: Session, platform: LtiPlatform, course_id: int, member: dict[str, Any], report: RosterSync
) -> None:
    """One member: enrolled (created first if new) while Active, their student enrolment ended otherwise."""
    sub, roles = member.get("user_id"), member.get("roles")
    if not sub or not isinstance(roles, list):
        return
    staff, status = c.is_staff(roles), str(member.get("status") or "Active")
    if status != "Active":
        user_id = session.scalar(
            select(LtiIdentity.user_id).where(LtiIdentity.issuer == platform.issuer, LtiIdentity.sub == str(sub))
        )
        if user_id is not None:
            gone = session.execute(
                delete(Enrolment)
                .where(
                    Enrolment.course_id == course_id,
                    Enrolment.user_id == user_id,
                    Enrolment.role == EnrolmentRole.STUDENT,
                )
                .execution_options(synchronize_session=False)
            )
            report.ended += gone.rowcount  # type: ignore[attr-defined]
        return
    user = identity_user(session, platform.issuer, str(sub), member, staff)
    session.flush()
    was = session.scalar(select(Enrolment.role).where(Enrolment.course_id == course_id, Enrolment.user_id == user.id))
    enrol(session, course_id, user, staff)
    if was is None:
        report.enrolled += 1
    elif was != (EnrolmentRole.TEACHER if staff else EnrolmentRole.STUDENT):
        report.updated += 1


def sync_roster(session: Session, context: LtiContext, now: datetime) -> RosterSync:
    """Read every page of the context's memberships and apply them (committed); raises LmsAnswer."""
    if context.course_id is None or not context.memberships_url:
        raise LmsAnswer(None, "this LMS course has no bound course or gave no memberships service")
    platform = session.get_one(LtiPlatform, context.platform_id)
    client = LmsClient(session, platform, now, (NRPS_SCOPE,))
    report, pages = RosterSync(), 0
    page: str | None = context.memberships_url
    while page and pages < MAX_PAGES:
        answer = client.call("GET", page, accept=MEMBERSHIP_TYPE)
        body = answer.json()
        for member in body.get("members", []) if isinstance(body, dict) else []:
            if isinstance(member, dict):
                _apply_member(session, platform, context.course_id, member, report)
        page, pages = next_page(answer), pages + 1
    session.commit()
    return report
