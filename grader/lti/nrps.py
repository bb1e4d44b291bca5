"""Names and Role Provisioning: the LMS course's roster read (every page), on demand and nightly; members enrolled
with the roles they have there before they first launch; Inactive and Deleted members, and members no longer on a
roster read in full, marked as having left, their student enrolment ended (unless another LMS course bound to the
same course still has them)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from grader.lti import claims as c
from grader.lti.ags import LmsAnswer, LmsClient, json_body, next_page
from grader.lti.binding import enrol, mark_member
from grader.lti.identity import identity_user
from grader.lti.tokens import TokenRefused
from grader.models import Enrolment, EnrolmentRole, LtiContext, LtiIdentity, LtiMember, LtiPlatform, MemberStatus

NRPS_SCOPE = "https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly"
MEMBERSHIP_TYPE = "application/vnd.ims.lti-nrps.v2.membershipcontainer+json"
MAX_PAGES = 500  # a roster of 500 pages is not a roster but a loop
LMS_STATUS = {"Active": MemberStatus.ACTIVE, "Inactive": MemberStatus.INACTIVE, "Deleted": MemberStatus.DELETED}


@dataclass
class RosterSync:
    """What one sync did."""

    enrolled: int = 0
    updated: int = 0
    ended: int = 0
    seen: set[int] = field(default_factory=set)  # our user ids of the members listed


def _end_student(session: Session, context: LtiContext, user_id: int) -> int:
    """End the student enrolment of someone who left this LMS course, unless another LMS course bound to the same
    course lists them as active; how many enrolments ended (0 or 1)."""
    elsewhere = session.scalar(
        select(LtiMember.id)
        .join(LtiContext, LtiContext.id == LtiMember.context_id)
        .where(
            LtiContext.course_id == context.course_id,
            LtiContext.id != context.id,
            LtiMember.user_id == user_id,
            LtiMember.status == MemberStatus.ACTIVE,
        )
        .limit(1)
    )
    if elsewhere is not None:
        return 0
    gone = session.execute(
        delete(Enrolment)
        .where(
            Enrolment.course_id == context.course_id,
            Enrolment.user_id == user_id,
            Enrolment.role == EnrolmentRole.STUDENT,
        )
        .execution_options(synchronize_session=False)
    )
    return int(gone.rowcount)  # type: ignore[attr-defined]


def _apply_member(
    session: Session,
    platform: LtiPlatform,
    context: LtiContext,
    member: dict[str, Any],
    report: RosterSync,
    now: datetime,
) -> None:
    """One member: enrolled (created first if new) while Active; marked as left, their student enrolment ended,
    otherwise."""
    sub, roles = c.user_id(member.get("user_id")), member.get("roles")
    if sub is None or not isinstance(roles, list) or context.course_id is None:
        return
    staff, status = c.is_staff(roles), LMS_STATUS.get(str(member.get("status") or "Active"), MemberStatus.INACTIVE)
    if status != MemberStatus.ACTIVE:
        user_id = session.scalar(
            select(LtiIdentity.user_id).where(LtiIdentity.issuer == platform.issuer, LtiIdentity.sub == sub)
        )
        if user_id is not None:
            mark_member(session, context, user_id, staff, status, now)
            report.ended += _end_student(session, context, user_id)
            report.seen.add(user_id)
        return
    user = identity_user(session, platform.issuer, sub, member, staff)
    session.flush()
    report.seen.add(user.id)
    was = session.scalar(
        select(Enrolment.role).where(Enrolment.course_id == context.course_id, Enrolment.user_id == user.id)
    )
    enrol(session, context.course_id, user, staff, c.is_teaching_assistant_only(roles))
    mark_member(session, context, user.id, staff, MemberStatus.ACTIVE, now)
    if was is None:
        report.enrolled += 1
    elif was != (EnrolmentRole.TEACHER if staff else EnrolmentRole.STUDENT):
        report.updated += 1


def _mark_gone(session: Session, context: LtiContext, report: RosterSync, now: datetime) -> None:
    """Members recorded as active whom a roster read in full no longer lists: gone, their student enrolment ended."""
    active = session.scalars(
        select(LtiMember).where(LtiMember.context_id == context.id, LtiMember.status == MemberStatus.ACTIVE)
    ).all()
    for member in active:
        if member.user_id not in report.seen:
            mark_member(session, context, member.user_id, member.staff, MemberStatus.GONE, now)
            if not member.staff:
                report.ended += _end_student(session, context, member.user_id)


def sync_roster(session: Session, context: LtiContext, now: datetime) -> RosterSync:
    """Read every page of the context's memberships and apply them (committed); raises LmsAnswer or TokenRefused
    (nothing applied)."""
    if context.course_id is None or not context.memberships_url:
        raise LmsAnswer(None, "this LMS course has no bound course or gave no memberships service")
    platform = session.get_one(LtiPlatform, context.platform_id)
    client = LmsClient(session, platform, now, (NRPS_SCOPE,))
    report, pages = RosterSync(), 0
    page: str | None = context.memberships_url
    while page and pages < MAX_PAGES:
        answer = client.call("GET", page, accept=MEMBERSHIP_TYPE)
        body = json_body(answer)
        for member in body.get("members", []) if isinstance(body, dict) else []:
            if isinstance(member, dict):
                _apply_member(session, platform, context, member, report, now)
        page, pages = next_page(answer), pages + 1
    if page is None:  # read in full: who is not on it has left
        _mark_gone(session, context, report, now)
    context.roster_synced_at, context.roster_error = now, None
    session.commit()
    return report


def sync_context(session: Session, context_id: int, now: datetime) -> RosterSync | str:
    """Sync one LMS course's roster, on demand or nightly: what it did, or why it failed (recorded on the context
    for the teacher to see; committed either way)."""
    context = session.get(LtiContext, context_id)
    if context is None:
        return "no such LMS course"
    try:
        return sync_roster(session, context, now)
    except (LmsAnswer, TokenRefused) as exc:
        session.rollback()
        context = session.get_one(LtiContext, context_id)
        context.roster_synced_at, context.roster_error = now, str(exc)[:1000]
        session.commit()
        return context.roster_error
