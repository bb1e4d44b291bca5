"""The kept score statistics (``exercise_score_stats``, ``assignment_score_stats``, migration 0025_score_stats,
kept by triggers) give the dashboards the figures the plain query over the progress rows and the students' sums
gives (kept here as the reference): after grades on a real worker (late work), an extension, an override, a policy
edit and a regrade; after enrolments, unenrolments, role changes, an edited exercise list, a course move and
deletes. ``grader check-progress`` finds them agreeing, and reports and repairs a row changed behind its back."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta
from typing import Any

import pytest
from alembic import command
from flask import Flask
from sqlalchemy import Engine, Float, and_, case, cast, delete, false, func, inspect, select, text, update
from sqlalchemy.orm import Session

from grader.extensions import get_db, make_engine
from grader.grading import progress
from grader.grading.overrides import OverrideRequest, set_override
from grader.grading.regrade import request_regrade
from grader.grading.score_stats import stat_differences
from grader.grading.terms import ExtensionRequest, grant_extension
from grader.migrate import alembic_config, upgrade
from grader.models import (
    Assignment,
    AssignmentProgress,
    AssignmentScoreStats,
    Course,
    Enrolment,
    EnrolmentRole,
    ExerciseScoreStats,
    ProgressRow,
    RegradeJob,
    RegradeStatus,
    Role,
    User,
    utcnow,
)
from grader.percent import FULL_MARKS
from grader.score_bins import BIN_COUNT, score_bin
from grader.teacher import progress_stats
from grader.teacher.assignments import save
from grader.teacher.progress_stats import ScoreSummary
from tests.factories import BOOK_ANSWER, EXERCISE, make_assignment, make_graded, make_user
from tests.support import Backend, WorkerProcess, wait_for
from tests.teacher.test_progress_rows import PARTIAL, check, cli_env, grade, settings_of

__all__ = ["cli_env"]  # a fixture, used by name

OTHER, THIRD = "ch13.loss-average", "ch09.attention-cost"


# The reference: the dashboards' statements before the kept statistics, over the progress rows and the sums.
def _students(course_id: int) -> Any:
    return select(Enrolment.user_id).where(Enrolment.course_id == course_id, Enrolment.role == EnrolmentRole.STUDENT)


def _summaries(session: Session, keys: Sequence[Any], key: Any, score: Any, first_share: Any, source: Any) -> Any:
    bins = source.c.bin if "bin" in source.c else score_bin(score)
    per_bin = [func.sum(case((bins == index, 1), else_=0)) for index in range(BIN_COUNT)]
    query = select(key, func.count(), func.avg(score), first_share, *per_bin).select_from(source).group_by(key)
    found = {row[0]: row for row in session.execute(query)}
    return [
        ScoreSummary(
            key=wanted,
            attempted=int(row[1]) if row else 0,
            mean_score=float(row[2]) if row and row[2] is not None else None,
            first_try_share=float(row[3]) if row and row[3] is not None else None,
            histogram=tuple(int(n or 0) for n in row[4:]) if row else (0,) * BIN_COUNT,
        )
        for wanted in keys
        for row in [found.get(wanted)]
    ]


def plain_exercise_stats(session: Session, assignment: Assignment) -> list[ScoreSummary]:
    """Per exercise, from the enrolled students' progress rows on the exercises set."""
    sets = and_(ProgressRow.assignment_id == assignment.id, ProgressRow.exercise_id.in_(assignment.exercise_ids))
    rows = (
        select(ProgressRow.exercise_id, ProgressRow.score, ProgressRow.first_score)
        .where(
            sets if assignment.exercise_ids else false(),
            ProgressRow.user_id.in_(_students(assignment.course_id)),
            ProgressRow.score.is_not(None),
        )
        .subquery("rows")
    )
    first = rows.c.first_score
    first_correct = case((first.is_(None), None), (first >= FULL_MARKS, 1.0), else_=0.0)
    share = func.avg(first_correct)
    return _summaries(session, assignment.exercise_ids, rows.c.exercise_id, rows.c.score, share, rows)  # type: ignore[no-any-return]


def plain_assignment_stats(session: Session, course_id: int, assignments: Sequence[Assignment]) -> list[ScoreSummary]:
    """Per assignment, from the enrolled students' sums."""
    exercises_set = case({a.id: len(a.exercise_ids) or 1 for a in assignments}, value=AssignmentProgress.assignment_id)
    score = AssignmentProgress.points / cast(exercises_set, Float)
    per_student = (
        select(
            AssignmentProgress.assignment_id,
            score.label("score"),
            score_bin(score).label("bin"),
            AssignmentProgress.pairs,
            AssignmentProgress.firsts,
        )
        .where(
            AssignmentProgress.assignment_id.in_([a.id for a in assignments if a.exercise_ids]),
            AssignmentProgress.user_id.in_(_students(course_id)),
        )
        .subquery("per_student")
    )
    share = func.sum(per_student.c.firsts) / cast(func.nullif(func.sum(per_student.c.pairs), 0), Float)
    keys = [a.id for a in assignments]
    return _summaries(session, keys, per_student.c.assignment_id, per_student.c.score, share, per_student)  # type: ignore[no-any-return]


def _same(kept: list[ScoreSummary], plain: list[ScoreSummary]) -> None:
    """Counts and histograms exactly, means and shares within 1e-9."""
    assert [(s.key, s.attempted, s.histogram) for s in kept] == [(s.key, s.attempted, s.histogram) for s in plain]
    for mine, theirs in zip(kept, plain, strict=True):
        for name in ("mean_score", "first_try_share"):
            have, want = getattr(mine, name), getattr(theirs, name)
            assert (have is None) == (want is None), (mine, theirs)
            if want is not None:
                assert have == pytest.approx(want, rel=1e-9, abs=1e-9), (name, mine, theirs)


def agree(session: Session, *assignments: Assignment) -> list[ScoreSummary]:
    """The kept figures equal the plain query's for ``assignments`` (of one course); the assignment summaries."""
    session.expire_all()
    for assignment in assignments:
        assert list(stat_differences(session, assignment)) == []
        _same(progress_stats.exercise_stats(session, assignment), plain_exercise_stats(session, assignment))
    course_id = assignments[0].course_id
    summaries = progress_stats.assignment_stats(session, course_id, assignments)
    _same(summaries, plain_assignment_stats(session, course_id, assignments))
    return summaries


def enrol(session: Session, assignment: Assignment, user: User, role: str = EnrolmentRole.STUDENT) -> Enrolment:
    """``user`` enrolled in the assignment's course, committed."""
    enrolment = Enrolment(course_id=assignment.course_id, user_id=user.id, role=role)
    session.add(enrolment)
    session.commit()
    return enrolment


@pytest.mark.integration
def test_kept_figures_follow_grades_and_every_change_of_a_counted_score(
    app: Flask, session: Session, worker: WorkerProcess, cli_env: Backend, capsys: pytest.CaptureFixture[str]
) -> None:
    late, on_time, regraded, outsider = (make_user(session) for _ in range(4))
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
    enrol(session, assignment, teacher, EnrolmentRole.TEACHER)
    agree(session, assignment)
    grade(session, assignment, late, PARTIAL)  # 0.75, late: 0.675
    grade(session, assignment, late, BOOK_ANSWER)  # 1.0, late: 0.9
    grade(session, assignment, teacher, BOOK_ANSWER)  # a teacher's try counts nowhere
    make_graded(session, assignment.id, outsider.id, EXERCISE, 1.0)  # nor a student's not enrolled
    (whole,) = agree(session, assignment)
    assert (whole.attempted, whole.mean_score, whole.histogram) == (1, pytest.approx(0.45), (0, 0, 1, 0, 0, 0))
    by_exercise = progress_stats.exercise_stats(session, assignment)
    assert [(s.attempted, s.first_try_share) for s in by_exercise] == [(1, 0.0), (0, None)]
    assert by_exercise[0].histogram == (0, 0, 0, 0, 1, 0)

    with app.app_context():  # an extension: no longer late, 1.0 counts
        grant_extension(session, assignment, late.id, ExtensionRequest(now + timedelta(days=1), 0), teacher.id, now)
    assert progress_stats.exercise_stats(session, assignment)[0].histogram == (0, 0, 0, 0, 0, 1)
    agree(session, assignment)

    grade(session, assignment, on_time, BOOK_ANSWER)
    with app.app_context():  # the last attempt counts from now on
        save(session, assignment.course_id, settings_of(assignment, score_policy="last"), assignment)
    grade(session, assignment, on_time, PARTIAL)
    agree(session, assignment)
    with app.app_context():
        set_override(session, assignment, on_time.id, OverrideRequest(EXERCISE, 0.5, "oral exam"), "user:t", now)
        set_override(session, assignment, regraded.id, OverrideRequest(OTHER, 0.2, "oral exam"), "user:t", now)
    grade(session, assignment, on_time, BOOK_ANSWER)
    (whole,) = agree(session, assignment)
    assert whole.attempted == 3

    stand_in = make_graded(session, assignment.id, regraded.id, EXERCISE, 1.0)
    agree(session, assignment)
    with app.app_context():
        job = request_regrade(session, assignment=assignment, user=teacher, never_lower=False)

    def finished() -> bool:
        with get_db(app).session() as fresh:
            return fresh.get_one(RegradeJob, job.id).status == RegradeStatus.DONE

    wait_for(finished, f"regrade job {job.id}")
    session.expire_all()
    assert session.get_one(type(stand_in), stand_in.id).status == "invalid"
    agree(session, assignment)
    assert check(capsys) == (0, "progress rows agree with the submissions\n")


def test_kept_figures_follow_enrolments_exercise_lists_and_deletes(session: Session) -> None:
    students = [make_user(session) for _ in range(5)]
    assignment = make_assignment(session, students[:4], exercise_ids=[EXERCISE, OTHER])
    second = Assignment(course_id=assignment.course_id, title_zh="二", title_en="Two", exercise_ids=[EXERCISE])
    session.add(second)
    session.commit()
    scores = [1.0, 0.2, 0.39999, 0.9994, 2 / 3]
    for student, score in zip(students, scores, strict=True):
        make_graded(session, assignment.id, student.id, EXERCISE, score)
        make_graded(session, assignment.id, student.id, OTHER, 1 - score)
        make_graded(session, second.id, student.id, EXERCISE, score / 2)
    make_graded(session, assignment.id, students[0].id, THIRD, 1.0)  # an exercise not set: no row counts it
    assert agree(session, assignment, second)[0].attempted == 4

    enrol(session, assignment, students[4])  # the fifth student's scores count now
    assert agree(session, assignment, second)[0].attempted == 5
    teacher = session.scalars(
        select(Enrolment).where(Enrolment.user_id == students[1].id, Enrolment.course_id == assignment.course_id)
    ).one()
    teacher.role = EnrolmentRole.TEACHER  # a role change takes them out, and back
    session.commit()
    assert agree(session, assignment, second)[0].attempted == 4
    teacher.role = EnrolmentRole.STUDENT
    session.commit()
    assert agree(session, assignment, second)[0].attempted == 5
    session.delete(teacher)  # unenrolled
    session.commit()
    agree(session, assignment, second)

    # The exercise list edited: a third exercise set, then the first one dropped, then none, then two again.
    assignment.exercise_ids = [EXERCISE, OTHER, THIRD]
    session.commit()
    assert [s.attempted for s in agree(session, assignment, second)[:1]] == [4]
    progress.rebuild(session, assignment.id, None)  # as the settings' save does, sums over the new list
    session.commit()
    agree(session, assignment, second)
    assignment.exercise_ids = [OTHER, THIRD]
    progress.rebuild(session, assignment.id, None)
    session.commit()
    agree(session, assignment, second)
    assignment.exercise_ids = []
    progress.rebuild(session, assignment.id, None)
    session.commit()
    assert agree(session, assignment, second)[0].attempted == 0
    assignment.exercise_ids = [EXERCISE, OTHER]
    progress.rebuild(session, assignment.id, None)
    session.commit()
    agree(session, assignment, second)

    # A row changed with plain SQL, behind the service's back, still moves the figures (a trigger).
    session.execute(update(ProgressRow).where(ProgressRow.user_id == students[2].id).values(score=0.8))
    session.execute(update(AssignmentProgress).where(AssignmentProgress.user_id == students[2].id).values(points=1.5))
    session.commit()
    agree(session, assignment, second)
    session.execute(delete(ProgressRow).where(ProgressRow.user_id == students[3].id))
    session.execute(delete(AssignmentProgress).where(AssignmentProgress.user_id == students[3].id))
    session.commit()
    agree(session, assignment, second)

    # The second assignment moved to another course (nobody enrolled there), then back.
    other_course = Course(code=f"moved-{assignment.id}", title="Other")
    session.add(other_course)
    session.commit()
    second.course_id = other_course.id
    session.commit()
    assert agree(session, second)[0].attempted == 0
    second.course_id = assignment.course_id
    session.commit()
    assert agree(session, assignment, second)[1].attempted == 3  # students 0, 2 and 4

    session.delete(session.get_one(User, students[0].id))  # a user deleted: their enrolment, rows and sums
    session.commit()
    assert agree(session, assignment, second)[0].attempted == 2
    session.delete(session.get_one(Assignment, second.id))  # an assignment deleted: its kept rows with it
    session.commit()
    assert session.scalar(select(func.count()).where(ExerciseScoreStats.assignment_id == second.id)) == 0
    agree(session, assignment)
    session.delete(session.get_one(Course, assignment.course_id))  # a course deleted: every row of its assignments
    session.commit()
    assert session.scalar(select(func.count()).select_from(AssignmentScoreStats)) == 0


def test_a_kept_figure_changed_behind_the_service_is_reported_then_repaired(
    session: Session, cli_env: Backend, capsys: pytest.CaptureFixture[str]
) -> None:
    student = make_user(session)
    assignment = make_assignment(session, [student])
    make_graded(session, assignment.id, student.id, EXERCISE, 0.5)
    session.execute(update(ExerciseScoreStats).values(bin_2=7))
    session.execute(delete(AssignmentScoreStats).where(AssignmentScoreStats.shard == student.id % 16))
    session.commit()
    status, printed = check(capsys)
    assert status == 1
    shard = student.id % 16
    assert (
        f"assignment {assignment.id} score stats exercise {EXERCISE} shard {shard}: bin_2 stored 7, recomputed 1"
        in printed
    )
    assert f"assignment {assignment.id} score stats whole shard {shard}: missing" in printed
    assert check(capsys, "--repair")[0] == 1
    assert check(capsys)[0] == 0
    agree(session, assignment)
    assert progress_stats.exercise_stats(session, assignment)[0].histogram == (0, 0, 1, 0, 0, 0)


PROGRESS = (
    "INSERT INTO progress_rows (assignment_id, user_id, exercise_id, attempts, first_score, score, best_late, "
    "last_late, late, overridden) VALUES (:assignment, :user, :exercise, 1, :first, :score, false, false, false, false)"
)
SUMS = (
    "INSERT INTO assignment_progress (assignment_id, user_id, points, scored, pairs, firsts) "
    "VALUES (:assignment, :user, :points, :scored, :pairs, :firsts)"
)


def _kept(engine: Engine) -> tuple[set[tuple[Any, ...]], set[tuple[Any, ...]]]:
    """The kept rows with a student counted: (exercise id, shard, figures...), (shard, exercises, figures...)."""
    figures = "attempted, score_sum, pairs, firsts, bin_0, bin_1, bin_2, bin_3, bin_4, bin_5"
    with engine.connect() as connection:
        exercises = connection.execute(
            text(f"SELECT exercise_id, shard, {figures} FROM exercise_score_stats WHERE attempted > 0")
        )
        whole = connection.execute(
            text(f"SELECT shard, exercises, {figures} FROM assignment_score_stats WHERE attempted > 0")
        )
        counts = connection.execute(
            text("SELECT (SELECT count(*) FROM exercise_score_stats), (SELECT count(*) FROM assignment_score_stats)")
        ).one()
        assert tuple(counts) == (2 * 16, 16)  # every exercise set and shard has its row, counted or not
        return {tuple(row) for row in exercises}, {tuple(row) for row in whole}


def test_migration_fills_the_kept_figures_and_gives_them_back(empty_database: str) -> None:
    upgrade(empty_database, "0024_misconception_counts")
    engine = make_engine(empty_database)
    try:
        with engine.begin() as connection:
            for name in ("u1", "u2", "t1"):
                connection.execute(
                    text(
                        "INSERT INTO users (username, display_name, role, password_hash, created_at, session_epoch) "
                        "VALUES (:name, 'U', 'student', 'x', CURRENT_TIMESTAMP, 0)"
                    ),
                    {"name": name},
                )
            users = list(connection.execute(text("SELECT id FROM users ORDER BY id")).scalars())
            connection.execute(
                text("INSERT INTO courses (code, title, created_at) VALUES ('c', 'C', CURRENT_TIMESTAMP)")
            )
            for user, role in zip(users, ("student", "student", "teacher"), strict=True):
                connection.execute(
                    text(
                        "INSERT INTO enrolments (course_id, user_id, role, created_at) "
                        "SELECT max(id), :user, :role, CURRENT_TIMESTAMP FROM courses"
                    ),
                    {"user": user, "role": role},
                )
            connection.execute(
                text(
                    "INSERT INTO assignments (course_id, title_zh, title_en, exercise_ids, score_policy, "
                    "answer_key_policy, created_at, updated_at) SELECT max(id), 'a', 'a', '[\"e1\", \"e2\"]', 'best', "
                    "'never', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP FROM courses"
                )
            )
            assignment = connection.execute(text("SELECT max(id) FROM assignments")).scalar_one()
            for user, exercise, first, score in [
                (users[0], "e1", 1.0, 1.0),
                (users[0], "e2", 0.5, 0.5),
                (users[1], "e1", None, 0.25),  # an override alone: no first try
                (users[2], "e1", 1.0, 1.0),  # a teacher's: not counted
                (users[1], "e9", 1.0, 1.0),  # an exercise not set: not counted
            ]:
                connection.execute(
                    text(PROGRESS),
                    {"assignment": assignment, "user": user, "exercise": exercise, "first": first, "score": score},
                )
            for user, points, scored, pairs, firsts in [(users[0], 1.5, 2, 2, 1), (users[1], 0.25, 1, 0, 0)]:
                connection.execute(
                    text(SUMS),
                    {"assignment": assignment, "user": user, "points": points, "scored": scored}
                    | {"pairs": pairs, "firsts": firsts},
                )
        upgrade(empty_database, "0025_score_stats")
        one, two = users[0] % 16, users[1] % 16
        assert _kept(engine) == (
            {
                ("e1", one, 1, 1.0, 1, 1, 0, 0, 0, 0, 0, 1),
                ("e2", one, 1, 0.5, 1, 0, 0, 0, 1, 0, 0, 0),
                ("e1", two, 1, 0.25, 0, 0, 0, 1, 0, 0, 0, 0),
            },
            {(one, 2, 1, 0.75, 2, 1, 0, 0, 0, 1, 0, 0), (two, 2, 1, 0.125, 0, 0, 1, 0, 0, 0, 0, 0)},
        )
        with engine.begin() as connection:  # the triggers: a better score, a student taken out
            connection.execute(text("UPDATE progress_rows SET score = 1.0 WHERE exercise_id = 'e2'"))
            connection.execute(text("DELETE FROM enrolments WHERE user_id = :user"), {"user": users[1]})
        exercises, whole = _kept(engine)
        assert exercises == {("e1", one, 1, 1.0, 1, 1, 0, 0, 0, 0, 0, 1), ("e2", one, 1, 1.0, 1, 0, 0, 0, 0, 0, 0, 1)}
        assert whole == {(one, 2, 1, 0.75, 2, 1, 0, 0, 0, 1, 0, 0)}  # its sums were not touched
        command.downgrade(alembic_config(empty_database), "0024_misconception_counts")
        with engine.begin() as connection:  # no trigger left behind: the rows change freely
            connection.execute(text("UPDATE progress_rows SET score = 0.5"))
            connection.execute(text("DELETE FROM users"))
            tables = inspect(connection).get_table_names()
        assert "exercise_score_stats" not in tables and "assignment_score_stats" not in tables
    finally:
        engine.dispose()
