"""The submissions export streams: the memory it takes while a file is written does not grow with the file."""

from __future__ import annotations

import tracemalloc
from collections.abc import Callable

import pytest
from flask.testing import FlaskClient
from sqlalchemy import insert
from sqlalchemy.orm import Session

from grader.models import Assignment, Submission, User
from tests.factories import make_assignment, make_course_teacher, make_user

Login = Callable[[str], tuple[FlaskClient, str]]
STUDENTS = 20
SMALL, LARGE = 2_000, 12_000  # rows in the file: two batches of rows read (exports.STREAM_BATCH), and twelve


def add_submissions(session: Session, assignment: Assignment, students: list[User], count: int) -> None:
    """``count`` more graded submissions to the assignment's first exercise, spread over ``students``."""
    exercise_id = assignment.exercise_ids[0]
    rows = [
        {
            "user_id": students[n % len(students)].id,
            "assignment_id": assignment.id,
            "exercise_id": exercise_id,
            "seed": n,
            "lang": "en",
            "raw_answer": {"x": f"{n}.5", "y": "an answer of a few words"},
            "parts": {"x": {"score": 0.5, "tags": ["off-by-one"]}},
            "status": "graded",
            "score": 0.5,
            "engine_version": "1",
        }
        for n in range(count)
    ]
    session.execute(insert(Submission), rows)
    session.commit()


def streamed_peak(client: FlaskClient, token: str, assignment: Assignment, machine: bool) -> tuple[int, int]:
    """Download the submissions export chunk by chunk, as a browser reads it; (lines, peak bytes of Python
    allocations while it was written)."""
    data = {"csrf_token": token, **({"ids": "1"} if machine else {})}
    tracemalloc.start()
    try:
        response = client.post(f"/teach/assignments/{assignment.id}/export/submissions.csv", data=data)
        assert response.status_code == 200
        lines = sum(chunk.count(b"\n") for chunk in response.response)  # type: ignore[union-attr]
        response.close()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return lines, peak


@pytest.mark.parametrize("machine", [False, True], ids=["readable", "machine-readable"])
def test_a_six_times_longer_file_takes_no_more_memory(session: Session, login: Login, machine: bool) -> None:
    """Both forms of the file are written from batches of rows read through a cursor: six times the rows take about
    the memory of one time (a file built in memory, or rows read all at once, would take about six times more).
    bench/bench_export_memory.py streams a million rows the same way."""
    students = [make_user(session) for _ in range(STUDENTS)]
    assignment = make_assignment(session, students)
    teacher = make_course_teacher(session, assignment.course_id)
    client, token = login(teacher.username)
    add_submissions(session, assignment, students, SMALL)
    streamed_peak(client, token, assignment, machine)  # what a first download sets up once (statement caches)
    small_lines, small_peak = streamed_peak(client, token, assignment, machine)
    add_submissions(session, assignment, students, LARGE - SMALL)
    large_lines, large_peak = streamed_peak(client, token, assignment, machine)
    assert (small_lines, large_lines) == (SMALL + 1, LARGE + 1)
    assert large_peak < 1.3 * small_peak, (small_peak, large_peak)
