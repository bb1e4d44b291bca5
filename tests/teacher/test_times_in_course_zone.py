"""Every time the teacher pages show for a course is in the course's zone, as its deadlines are: the dashboards'
last activity, a student's submissions, earlier regrades and the regrade report; <time datetime> stays UTC."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

from flask.testing import FlaskClient
from sqlalchemy.orm import Session

from grader.models import Course, Enrolment, EnrolmentRole, RegradeJob, RegradeStatus, Role, Submission
from tests.factories import BOOK_ANSWER, EXERCISE, make_assignment, make_user, rebuild_progress

Login = Callable[[str], tuple[FlaskClient, str]]
SUBMITTED = datetime(2026, 11, 30, 11, 45, tzinfo=UTC)  # 19:45 in Beijing
REGRADED = datetime(2026, 12, 1, 2, 5, tzinfo=UTC)  # 10:05 in Beijing
SHOWN_SUBMITTED = "2026-11-30 19:45 (Asia/Shanghai, UTC+8)"
SHOWN_REGRADED = "2026-12-01 10:05 (Asia/Shanghai, UTC+8)"


def test_teacher_pages_show_course_times_in_the_course_zone(login: Login, session: Session) -> None:
    student, teacher = make_user(session), make_user(session, Role.TEACHER)
    assignment = make_assignment(session, [student])
    course = session.get_one(Course, assignment.course_id)
    course.time_zone = "Asia/Shanghai"
    session.add(Enrolment(course_id=course.id, user_id=teacher.id, role=EnrolmentRole.TEACHER))
    session.add(
        Submission(
            user_id=student.id,
            assignment_id=assignment.id,
            exercise_id=EXERCISE,
            seed=0,
            lang="zh",
            raw_answer=BOOK_ANSWER,
            status="graded",  # the student tables show the latest graded attempt
            score=1.0,
            created_at=SUBMITTED,
        )
    )
    job = RegradeJob(
        assignment_id=assignment.id,
        requested_by=f"user:{teacher.username}",
        status=RegradeStatus.DONE,
        created_at=REGRADED,
    )
    session.add(job)
    rebuild_progress(session)  # commits
    client, _ = login(teacher.username)
    machine = f'<time datetime="{SUBMITTED.isoformat()}">{SHOWN_SUBMITTED}</time>'
    pages = {
        "course dashboard": (f"/teach/courses/{course.id}", machine),
        "assignment dashboard": (f"/teach/assignments/{assignment.id}", machine),
        "student page": (f"/teach/courses/{course.id}/students/{student.id}", machine),
        "earlier regrades": (f"/teach/assignments/{assignment.id}", SHOWN_REGRADED),
        "regrade report": (f"/teach/regrades/{job.id}", f'<time datetime="{REGRADED.isoformat()}">{SHOWN_REGRADED}'),
    }
    for name, (url, expected) in pages.items():
        page = client.get(url).get_data(as_text=True)
        assert expected in page, name
        assert "11:45 UTC" not in page and "02:05 UTC" not in page, name


def test_a_course_kept_in_utc_still_says_utc(login: Login, session: Session) -> None:
    student, teacher = make_user(session), make_user(session, Role.TEACHER)
    assignment = make_assignment(session, [student])
    session.add(Enrolment(course_id=assignment.course_id, user_id=teacher.id, role=EnrolmentRole.TEACHER))
    session.add(
        Submission(
            user_id=student.id,
            assignment_id=assignment.id,
            exercise_id=EXERCISE,
            seed=0,
            lang="zh",
            raw_answer=BOOK_ANSWER,
            status="graded",  # the student tables show the latest graded attempt
            score=1.0,
            created_at=SUBMITTED,
        )
    )
    rebuild_progress(session)  # commits
    client, _ = login(teacher.username)
    page = client.get(f"/teach/courses/{assignment.course_id}").get_data(as_text=True)
    assert f'<time datetime="{SUBMITTED.isoformat()}">2026-11-30 11:45 UTC</time>' in page
