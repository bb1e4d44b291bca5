"""counted_scores_changed: an outbox row per LMS context of the course for each changed student the LMS knows, in
the caller's transaction; an assignment's score policy or exercise list changing writes one for every student,
other settings none."""

from __future__ import annotations

from dataclasses import replace

from sqlalchemy import select
from sqlalchemy.orm import Session

from grader.grading.score_changes import counted_scores_changed
from grader.lti.registration import PlatformInput, add_platform
from grader.models import (
    Assignment,
    Enrolment,
    EnrolmentRole,
    LtiContext,
    LtiIdentity,
    LtiScoreOutbox,
    OutboxStatus,
    utcnow,
)
from grader.teacher import assignments
from tests.factories import make_taught_assignment, make_user


def _lms_course(session: Session) -> tuple[int, int, int]:
    """An assignment whose course is bound to an LMS context, with a student the LMS knows and one it does not:
    (assignment id, known student id, unknown student id)."""
    assignment, _teacher, known = make_taught_assignment(session)
    unknown = make_user(session)
    session.add(Enrolment(course_id=assignment.course_id, user_id=unknown.id, role=EnrolmentRole.STUDENT))
    platform = add_platform(
        session,
        PlatformInput(
            "https://lms.test", "c1", "https://lms.test/a", "https://lms.test/t", "https://lms.test/k", ("d1",)
        ),
    )
    session.add(LtiContext(platform_id=platform.id, context_id="ctx", course_id=assignment.course_id))
    session.add(LtiIdentity(issuer="https://lms.test", sub="known", user_id=known.id))
    session.commit()
    return assignment.id, known.id, unknown.id


def _rows(session: Session) -> list[LtiScoreOutbox]:
    session.expire_all()
    return list(session.scalars(select(LtiScoreOutbox).order_by(LtiScoreOutbox.id)))


def test_only_students_the_lms_knows_get_a_pending_row_stamped_with_the_change(session: Session) -> None:
    assignment_id, known, unknown = _lms_course(session)
    at = utcnow()
    counted_scores_changed(session, assignment_id, [known, unknown], at)
    session.rollback()  # the caller's transaction decides: nothing without its commit
    assert _rows(session) == []
    counted_scores_changed(session, assignment_id, None, at)
    session.commit()
    rows = _rows(session)
    assert [(r.user_id, r.status, r.changed_at) for r in rows] == [(known, OutboxStatus.PENDING, at)]


def test_a_new_score_policy_writes_a_row_for_every_student_and_a_new_title_none(session: Session) -> None:
    assignment_id, known, _unknown = _lms_course(session)
    assignment = session.get_one(Assignment, assignment_id)
    settings = assignments.AssignmentSettings(
        assignment.title_zh,
        "Renamed",
        list(assignment.exercise_ids),
        assignment.opens_at,
        assignment.due_at,
        assignment.attempts_allowed,
        assignment.score_policy,
        assignment.answer_key_policy,
    )
    assignments.save(session, assignment.course_id, settings, assignment)
    assert _rows(session) == []
    assignments.save(session, assignment.course_id, replace(settings, score_policy="last"), assignment)
    assert [r.user_id for r in _rows(session)] == [known]
