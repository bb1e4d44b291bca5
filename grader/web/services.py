"""Page services for courses, assignments and submissions: who may see what, shaped for the templates."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session, joinedload

from exercises.i18n import Text
from grader.grading import access, policy
from grader.grading.access import Action, Actor
from grader.grading.feedback import feedback_in
from grader.grading.points import Total, points_of, total_of
from grader.grading.student_record import StudentRecord, student_record
from grader.grading.terms import Lateness, StudentTerms
from grader.i18n import t
from grader.models import (
    Assignment,
    Course,
    Enrolment,
    ScoreOverride,
    Submission,
    SubmissionStatus,
    User,
)
from grader.models.overrides import TOTAL
from grader.percent import full_marks, shown_percent
from grader.ui.exercise_catalogue import exercise_entry, exercise_title
from grader.ui.page_helpers import NotVisible
from grader.web.attempts import attempt_numbers

ARCHIVED_BADGE = Text("已归档", "Archived")
ARCHIVED_SECTION = Text("已归档的课程", "Archived courses")


@dataclass(frozen=True)
class ArchivedNote:
    """What the student pages say about an archived course, in the page's language."""

    badge: str
    notice: str  # the same words as the refusal of a submission to it
    section: str  # the heading of the archived courses on the course list


def archived_note(course: Course, lang: str) -> ArchivedNote | None:
    """The archived course's note in ``lang``; None while the course is not archived."""
    if not course.archived:
        return None
    return ArchivedNote(ARCHIVED_BADGE.get(lang), policy.COURSE_ARCHIVED.get(lang), ARCHIVED_SECTION.get(lang))


@dataclass(frozen=True)
class ExerciseRow:
    """One exercise of an assignment as a student sees it in the list."""

    exercise_id: str
    title: str
    graded: bool
    score: float | None
    attempts_used: int
    attempts_left: int | None
    last_status: str | None
    late: Lateness | None = None  # the counted attempt was late: its penalty is in ``score``
    override: ScoreOverride | None = None  # a teacher set the score (with a reason the student sees)

    @property
    def state(self) -> str:
        """Done (full marks), "attempted" (an attempt used or a score given, short of full marks) or
        "not_started": the one rule of the assignment page, the course list and the progress bar."""
        if full_marks(self.score):
            return "done"
        return "attempted" if self.score is not None or self.attempts_used > 0 else "not_started"


@dataclass(frozen=True)
class AssignmentView:
    """An assignment with the student's progress: counted scores, attempts and window."""

    assignment: Assignment
    title: str
    rows: tuple[ExerciseRow, ...]
    percent: int
    done: int  # graded exercises at full marks
    total: int
    attempts_left: int | None
    attempts_allowed_total: int | None
    state: str  # "open", "late" (past due, late work taken), "closed", "not_open" or "archived"
    terms: StudentTerms  # the user's own due date and attempt limit (an extension applied)
    locked: bool = False  # not open yet and the user does not teach the course: exercises stay hidden
    archived: ArchivedNote | None = None  # the course is archived: results only, no submitting
    total_override: ScoreOverride | None = None  # a teacher set the assignment's total (``percent`` is it)
    points_total: Total | None = None  # the total in points
    points: dict[str, float] = field(default_factory=dict)  # each graded exercise's points
    attempted: int = 0  # graded exercises attempted, short of full marks


@dataclass(frozen=True)
class CourseView:
    """A course the user is enrolled in, with its assignments."""

    course: Course
    role: str
    assignments: tuple[AssignmentView, ...]
    archived: ArchivedNote | None = None


def not_open(assignment: Assignment, now: datetime) -> bool:
    """True before the assignment opens (the same for every student)."""
    return assignment.opens_at is not None and now < assignment.opens_at


def window_state(assignment: Assignment, terms: StudentTerms, now: datetime) -> str:
    """Whether the assignment is open, not yet open, in an archived course (nothing can be submitted), past the
    student's own due date but taking late work, or closed for them (``terms``)."""
    if not_open(assignment, now):
        return "not_open"
    if assignment.course.archived:
        return "archived"
    if terms.closed(now):
        return "closed"
    return "late" if terms.past_due(now) else "open"


def teaches_course(session: Session, user: User, course_id: int) -> bool:
    """True if ``user`` is staff of the course (an admin, owner, co-teacher or TA: who may preview its assignments
    and see their keys; grader.grading.access)."""
    return access.may(session, Actor.of_user(user), Action.SEE_STUDENTS, course_id)


def locked_for(session: Session, user: User, assignment: Assignment, now: datetime, staff: bool | None = None) -> bool:
    """True while the assignment is not open and the user does not teach its course (``staff``, if known)."""
    # As an LMS hides an assignment before its "available from" date: its exercises stay hidden from students.
    if not not_open(assignment, now):
        return False
    return not (teaches_course(session, user, assignment.course_id) if staff is None else staff)


def assignment_view(
    session: Session,
    user: User,
    assignment: Assignment,
    lang: str,
    now: datetime,
    staff: bool | None = None,
    record: StudentRecord | None = None,
) -> AssignmentView:
    """The assignment with the user's counted scores and percentage (``staff``: teaches the course, if known;
    ``record``: the user's record on the assignment, if read already)."""
    record = record if record is not None else student_record(session, user.id, assignment)
    progress = policy.assignment_progress(session, user, assignment, record)
    rows = tuple(
        ExerciseRow(
            p.exercise_id,
            exercise_title(p.exercise_id, lang),
            bool((exercise_entry(p.exercise_id) or {}).get("graded")),
            p.score,
            p.attempts_used,
            p.attempts_left,
            p.last_status,
            p.late,
            p.override,
        )
        for p in progress
    )
    graded = [row for row in rows if row.graded]
    total_override = record.overrides.get((user.id, TOTAL))
    worth = {
        row.exercise_id: points for row in graded if (points := points_of(assignment).get(row.exercise_id)) is not None
    }
    total = total_of(
        worth,
        [(row.exercise_id, row.score) for row in graded],
        None if total_override is None else total_override.score,
    )
    percent = shown_percent(total.fraction or 0.0)
    terms = record.terms
    allowed = terms.attempts_allowed
    return AssignmentView(
        assignment=assignment,
        title=assignment.title(lang),
        rows=rows,
        percent=percent,
        done=sum(1 for row in graded if row.state == "done"),
        total=len(graded),
        attempts_left=None if allowed is None else sum(row.attempts_left or 0 for row in graded),
        attempts_allowed_total=None if allowed is None else allowed * len(graded),
        state=window_state(assignment, terms, now),
        terms=terms,
        locked=locked_for(session, user, assignment, now, staff),
        archived=archived_note(assignment.course, lang),
        total_override=total_override,
        points_total=total,
        points=worth,
        attempted=sum(1 for row in graded if row.state == "attempted"),
    )


def my_courses(session: Session, user: User, lang: str, now: datetime) -> list[CourseView]:
    """Every course the user is enrolled in, with each assignment's progress (archived courses say so)."""
    enrolments = session.scalars(
        select(Enrolment).where(Enrolment.user_id == user.id).order_by(Enrolment.course_id)
    ).all()
    actor = Actor.of_user(user)
    return [
        CourseView(
            e.course,
            e.role,
            tuple(
                assignment_view(
                    session, user, a, lang, now, staff=access.is_staff_role(access.part_of(e.role, None, actor))
                )
                for a in e.course.assignments
            ),
            archived_note(e.course, lang),
        )
        for e in enrolments
    ]


def visible_assignment(session: Session, user: User, assignment_id: int) -> Assignment:
    """The assignment if the user is enrolled in its course; NotVisible otherwise (no hint that it exists)."""
    return visible_assignment_as(session, user, assignment_id)[0]


def visible_assignment_as(session: Session, user: User, assignment_id: int) -> tuple[Assignment, bool]:
    """``visible_assignment``, and whether the user teaches its course (``teaches_course``), from one look-up of
    their part in it."""
    actor = Actor.of_user(user)
    # With its course (every exercise page shows the course's time zone and whether it is archived) and the user's
    # part in it: one round trip, where each is a statement of its own through session.get and access.may.
    found = session.execute(
        select(Assignment, *access.part_columns(actor, Assignment.course_id))
        .options(joinedload(Assignment.course))
        .where(Assignment.id == assignment_id)
    ).one_or_none()
    part = None if found is None else access.part_of(found[1], found[2], actor)
    if found is None or not access.allows(part, Action.VIEW_COURSE):
        raise NotVisible(assignment_id)
    assignment: Assignment = found[0]
    return assignment, access.is_staff_role(part)


QUICK_REFRESH_SECONDS = 2  # a submission page re-reads itself this often while its grade is due any moment
SLOW_REFRESH_SECONDS = 15  # and this often once grading is late: each reload restarts a screen reader's reading
LATE_AFTER_SECONDS = 60


def refresh_seconds(submission: Submission, now: datetime) -> int | None:
    """How soon the page of ``submission`` reloads itself: never once it is final, quickly at first, slowly when
    its grade is late (workers busy or down)."""
    if submission.is_final:
        return None
    late = (now - submission.created_at).total_seconds() > LATE_AFTER_SECONDS
    return SLOW_REFRESH_SECONDS if late else QUICK_REFRESH_SECONDS


def visible_submission(session: Session, user: User, submission_id: int) -> Submission:
    """One of the user's own submissions; NotVisible for anyone else's."""
    submission = session.get(Submission, submission_id)
    if submission is None or submission.user_id != user.id:
        raise NotVisible(submission_id)
    return submission


@dataclass(frozen=True)
class HistoryGroup:
    """A user's submissions to one exercise of one assignment, newest first, with their attempt numbers."""

    exercise_id: str
    title: str
    assignment: Assignment | None
    submissions: tuple[Submission, ...]
    attempts: dict[int, int] = field(default_factory=dict)  # submission id -> attempt number (counted ones only)


def submission_history(
    session: Session, user: User, lang: str, exercise_id: str | None = None, assignment_id: int | None = None
) -> list[HistoryGroup]:
    """The user's submissions grouped per (assignment, exercise), newest group and newest attempt first."""
    query = select(Submission).where(Submission.user_id == user.id).order_by(Submission.id.desc())
    if exercise_id is not None:
        query = query.where(Submission.exercise_id == exercise_id)
    if assignment_id is not None:
        query = query.where(Submission.assignment_id == assignment_id)
    groups: dict[tuple[int | None, str], list[Submission]] = {}
    for submission in session.scalars(query):
        groups.setdefault((submission.assignment_id, submission.exercise_id), []).append(submission)
    return [
        HistoryGroup(ex_id, exercise_title(ex_id, lang), subs[0].assignment, tuple(subs), attempt_numbers(subs))
        for (_, ex_id), subs in groups.items()
    ]


def first_feedback(submission: Submission, lang: str) -> str:
    """A one-line summary of a submission's feedback in ``lang``: the first wrong part's, else the first error."""
    shown = feedback_in(submission, lang)
    for part in shown.parts.values():
        if not part.get("correct"):
            return str(part.get("feedback") or "")
    for error in shown.errors:
        return str(error.get("message") or "")
    # The stored message is for teachers (an exception's text); students learn that it failed and that it is on us.
    return t("exercise.grading_error", lang) if submission.status == SubmissionStatus.ERROR else ""
