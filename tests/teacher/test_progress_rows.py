"""Progress rows follow every change of a counted score, and `grader check-progress` finds them equal to a
recomputation from the submissions: after grading on a real worker (late work included), an extension, an
override, a policy edit and a regrade; a row changed behind the service's back is reported and repaired. The same
for the students' kept assignment sums and the submission counts the triggers keep."""

from __future__ import annotations

from dataclasses import fields, replace
from datetime import timedelta

import pytest
from flask import Flask
from sqlalchemy import select, update
from sqlalchemy.orm import Session

from grader.cli import main
from grader.extensions import get_db
from grader.grading.overrides import OverrideRequest, set_override
from grader.grading.regrade import request_regrade
from grader.grading.terms import ExtensionRequest, grant_extension
from grader.models import (
    Assignment,
    AssignmentProgress,
    ProgressRow,
    RegradeJob,
    RegradeStatus,
    Role,
    SubmissionCount,
    User,
    utcnow,
)
from grader.teacher.assignments import AssignmentSettings, save
from tests.factories import BOOK_ANSWER, BOOK_SEED, EXERCISE, make_assignment, make_graded, make_user
from tests.pipeline_helpers import submit, wait_final
from tests.support import Backend, WorkerProcess, wait_for

pytestmark = pytest.mark.integration
PARTIAL = {**BOOK_ANSWER, "scored_count": "3"}  # graded 0.75
OTHER = "ch13.loss-average"


@pytest.fixture
def cli_env(app: Flask, backend: Backend, monkeypatch: pytest.MonkeyPatch) -> Backend:
    """The CLI reads the same backend as ``app`` through the environment."""
    for name, value in backend.config().items():
        monkeypatch.setenv(name, str(value))
    return backend


def check(capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, str]:
    """Run `grader check-progress`; (status, what it printed on either stream)."""
    status = main(["check-progress", *extra])
    captured = capsys.readouterr()
    return status, captured.out + captured.err


def row(session: Session, assignment: Assignment, user: User, exercise_id: str = EXERCISE) -> ProgressRow:
    """The pair's progress row, freshly read."""
    session.expire_all()
    found = session.scalar(
        select(ProgressRow).where(
            ProgressRow.assignment_id == assignment.id,
            ProgressRow.user_id == user.id,
            ProgressRow.exercise_id == exercise_id,
        )
    )
    assert found is not None, (user.username, exercise_id)
    return found


def sums(session: Session, assignment: Assignment, user: User) -> tuple[float, int, int, int] | None:
    """The student's kept assignment sums (points, scored, pairs, firsts), freshly read; None without a row."""
    session.expire_all()
    found = session.get(AssignmentProgress, (assignment.id, user.id))
    return None if found is None else (found.points, found.scored, found.pairs, found.firsts)


def grade(session: Session, assignment: Assignment, user: User, answer: dict[str, str]) -> None:
    """Submit ``answer`` as ``user`` and wait for the worker to grade it."""
    submitted = submit(
        session,
        user_id=user.id,
        exercise_id=EXERCISE,
        seed=BOOK_SEED,
        raw_answer=answer,
        parsed_answer=None,
        lang="en",
        assignment_id=assignment.id,
    )
    assert wait_final(session, submitted.id).status == "graded"


def settings_of(assignment: Assignment, **changed: object) -> AssignmentSettings:
    """The assignment's stored settings with ``changed`` applied."""
    current = AssignmentSettings(**{item.name: getattr(assignment, item.name) for item in fields(AssignmentSettings)})
    return replace(current, **changed)


def test_rows_agree_with_submissions_through_every_change(
    app: Flask, session: Session, worker: WorkerProcess, cli_env: Backend, capsys: pytest.CaptureFixture[str]
) -> None:
    late, on_time, regraded = make_user(session), make_user(session), make_user(session)
    teacher = make_user(session, Role.TEACHER)
    now = utcnow()
    assignment = make_assignment(
        session,
        [late, on_time, regraded],
        exercise_ids=[EXERCISE, OTHER],
        due_at=now - timedelta(hours=1),
        late_until=now + timedelta(days=3),
        late_penalty_per_day=10.0,
    )
    # Graded by the worker: 0.75 then 1.0, both a started day late (10 % off each).
    grade(session, assignment, late, PARTIAL)
    grade(session, assignment, late, BOOK_ANSWER)
    mine = row(session, assignment, late)
    assert (mine.attempts, mine.best_score, mine.last_score) == (2, 1.0, 1.0)
    assert mine.score == pytest.approx(0.9) and mine.late and not mine.overridden
    # The sums moved with each grade: one exercise counted, its first try (0.75) not fully correct.
    assert sums(session, assignment, late) == (pytest.approx(0.9), 1, 1, 0)
    assert check(capsys) == (0, "progress rows agree with the submissions\n")

    # An extension past both submissions: nothing was late any more.
    with app.app_context():
        grant_extension(session, assignment, late.id, ExtensionRequest(now + timedelta(days=1), 0), teacher.id, now)
    mine = row(session, assignment, late)
    assert mine.score == 1.0 and not mine.late

    # The policy edited to the last attempt, then an older attempt graded after it: the last one still counts.
    grade(session, assignment, on_time, BOOK_ANSWER)
    with app.app_context():
        save(session, assignment.course_id, settings_of(assignment, score_policy="last"), assignment)
    grade(session, assignment, on_time, PARTIAL)
    theirs = row(session, assignment, on_time)
    assert theirs.score == pytest.approx(0.75 * 0.9) and theirs.best_score == 1.0 and theirs.attempts == 2

    # An override counts instead, kept through the next grade.
    with app.app_context():
        set_override(session, assignment, on_time.id, OverrideRequest(EXERCISE, 0.5, "oral exam"), "user:t", now)
    grade(session, assignment, on_time, BOOK_ANSWER)
    theirs = row(session, assignment, on_time)
    assert (theirs.score, theirs.overridden, theirs.attempts, theirs.last_score) == (0.5, True, 3, 1.0)
    assert sums(session, assignment, on_time) == (pytest.approx(0.5), 1, 1, 1)
    assert check(capsys)[0] == 0

    # A regrade on the worker rewrites a stand-in grade (an unreadable answer an older engine scored 1).
    stand_in = make_graded(session, assignment.id, regraded.id, EXERCISE, 1.0)
    assert row(session, assignment, regraded).score == pytest.approx(0.9)  # late as well
    with app.app_context():
        job = request_regrade(session, assignment=assignment, user=teacher, never_lower=False)

    def finished() -> bool:
        with get_db(app).session() as fresh:
            return fresh.get_one(RegradeJob, job.id).status == RegradeStatus.DONE

    wait_for(finished, f"regrade job {job.id}")
    session.expire_all()
    assert wait_final(session, stand_in.id).status == "invalid"
    # Its only graded attempt is gone: nothing counts, so the pair has no row.
    assert session.get(ProgressRow, (assignment.id, regraded.id, EXERCISE)) is None
    assert sums(session, assignment, regraded) is None
    assert check(capsys) == (0, "progress rows agree with the submissions\n")


def test_a_row_changed_behind_the_service_is_reported_then_repaired(
    app: Flask, session: Session, cli_env: Backend, capsys: pytest.CaptureFixture[str]
) -> None:
    student = make_user(session)
    assignment = make_assignment(session, [student])
    make_graded(session, assignment.id, student.id, EXERCISE, 0.5)
    session.execute(update(ProgressRow).values(score=0.25, attempts=7))
    session.execute(update(AssignmentProgress).values(points=2.0))
    session.execute(update(SubmissionCount).where(SubmissionCount.assignment_id == assignment.id).values(submissions=5))
    session.commit()
    status, printed = check(capsys)
    assert status == 1
    assert f"assignment {assignment.id} user {student.id} sums: points stored 2.0, recomputed 0.5" in printed
    assert f"shard {student.id % 16}: submissions kept 5, counted 1" in printed
    assert f"user {student.id} exercise {EXERCISE}: attempts stored 7, recomputed 1" in printed
    assert "score stored 0.25, recomputed 0.5" in printed
    assert "gradebook 0.5" in printed
    assert check(capsys, "--repair")[0] == 1  # reports what it repaired
    assert check(capsys)[0] == 0
    assert row(session, assignment, student).score == 0.5
    assert sums(session, assignment, student) == (0.5, 1, 1, 0)


def test_submission_counts_follow_every_write_of_a_submission(
    session: Session, cli_env: Backend, capsys: pytest.CaptureFixture[str]
) -> None:
    student, other = make_user(session), make_user(session)
    first, second = make_assignment(session, [student, other]), make_assignment(session, [student, other])
    kept = [make_graded(session, first.id, user.id, EXERCISE, 0.5) for user in (student, other, student)]
    make_graded(session, second.id, other.id, EXERCISE, 1.0, status="queued")

    def kept_total(assignment: Assignment) -> int:
        session.expire_all()
        counts = session.scalars(select(SubmissionCount).where(SubmissionCount.assignment_id == assignment.id))
        return sum(count.submissions for count in counts)

    assert (kept_total(first), kept_total(second)) == (3, 1)
    session.delete(kept[0])  # deleted
    kept[1].assignment_id = second.id  # moved to another assignment
    kept[2].user_id = other.id  # given to another student (another shard, maybe)
    session.commit()
    assert (kept_total(first), kept_total(second)) == (1, 2)
    # The progress rows were moved behind the service's back; the counts were not.
    assert "shard" not in check(capsys)[1]
    session.delete(session.get_one(Assignment, second.id))  # its submissions stay, outside any assignment
    session.commit()
    assert (
        kept_total(first) == 1
        and session.scalar(select(SubmissionCount).where(SubmissionCount.assignment_id == second.id)) is None
    )
    assert "shard" not in check(capsys)[1]
