"""GET /assignments/{id}/grades and GET /courses/{id}/students: what an LMS reads to fill and map its gradebook.

The gradebook counts as the student's progress and the teacher dashboards do (best or last graded attempt, the
attempts that count), pages by student id, is for the course's staff only, and sends as many statements for 30
students as for 3.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from flask import Flask
from sqlalchemy import insert, select, update

from grader.extensions import get_db
from grader.models import (
    Assignment,
    Course,
    Enrolment,
    GradeLogEntry,
    ProgressRow,
    Role,
    Submission,
    User,
    utcnow,
)
from grader.security import issue_token
from grader.teacher.assignments import AssignmentSettings, save
from tests.factories import rebuild_progress
from tests.support import sql_sent

from .support import CH13_IDS, Api, Attempt, add_attempts, add_grade_log, assert_error

SHIFT, EXPOSURE, GREEDY = CH13_IDS[0], CH13_IDS[1], CH13_IDS[2]


def _grades(api: Api, assignment_id: int, who: str = "teacher", query: str = "") -> dict[str, Any]:
    """The gradebook page as ``who``, which must be a 200."""
    response = api.get(f"/assignments/{assignment_id}/grades{query}", who)
    assert response.status_code == 200, response.get_data(as_text=True)
    return response.get_json()


def _set_policy(app: Flask, assignment_id: int, score_policy: str) -> None:
    """Make the assignment count the best or the last graded attempt."""
    with get_db(app).session() as session:
        session.execute(update(Assignment).where(Assignment.id == assignment_id).values(score_policy=score_policy))
        rebuild_progress(session)  # commits; set directly, not through the form that would rebuild them


def _history(api: Api) -> None:
    """Alice and bob's attempts at the practice assignment, with noise the gradebook must not count."""
    users, school = api.school.user_ids, api.school
    practice = school.practice_assignment
    add_attempts(
        api.client.application,
        [
            Attempt(users["alice"], practice, SHIFT, "graded", 0.5),
            Attempt(users["alice"], practice, SHIFT, "graded", 0.25),
            Attempt(users["alice"], practice, SHIFT, "invalid"),  # no attempt used, no score
            Attempt(users["alice"], practice, SHIFT, "error"),
            Attempt(users["alice"], practice, EXPOSURE, "graded", 1.0),
            Attempt(users["alice"], practice, EXPOSURE, "queued"),  # an attempt, not yet a score
            Attempt(users["alice"], practice, GREEDY, "invalid"),
            Attempt(users["alice"], practice, "ch09.rnn-step", "graded", 1.0),  # not set by the assignment
            Attempt(users["alice"], school.open_assignment, SHIFT, "graded", 1.0),  # another assignment
            Attempt(users["bob"], practice, SHIFT, "graded", 0.0),  # a zero is a score, not "none"
        ],
    )


@pytest.mark.parametrize("score_policy, alice_shift", [("best", 0.5), ("last", 0.25)])
def test_counted_scores_attempts_and_total(api: Api, score_policy: str, alice_shift: float) -> None:
    _history(api)
    practice = api.school.practice_assignment
    _set_policy(api.client.application, practice, score_policy)
    page = _grades(api, practice)
    assert page["assignment"]["id"] == practice and page["assignment"]["score_policy"] == score_policy
    assert page["next_after_id"] is None and page["limit"] == 100
    rows = {row["username"]: row for row in page["students"]}
    assert list(rows) == ["alice", "bob"]  # by id; the teacher is not a student
    alice, bob = rows["alice"], rows["bob"]
    assert alice["id"] == api.school.user_ids["alice"] and alice["display_name"] == "Alice"
    assert [e["exercise_id"] for e in alice["exercises"]] == list(CH13_IDS)
    cells = {e["exercise_id"]: (e["score"], e["attempts_used"]) for e in alice["exercises"]}
    assert cells == {
        SHIFT: (alice_shift, 2),
        EXPOSURE: (1.0, 2),
        GREEDY: (None, 0),
        **{exercise: (None, 0) for exercise in CH13_IDS[3:]},
    }
    assert alice["total"] == {
        "score": pytest.approx((alice_shift + 1.0) / 6),
        "points": pytest.approx(alice_shift + 1.0),
        "max_points": 6.0,
        "graded": 2,
        "exercises": 6,
        "override": None,
    }
    assert bob["exercises"][0] == {
        "exercise_id": SHIFT,
        "attempts_used": 1,
        "score": 0.0,
        "points": 0.0,
        "max_points": 1.0,
        "late": False,
        "overridden": False,
    }
    assert bob["total"] == {
        "score": 0.0,
        "points": 0.0,
        "max_points": 6.0,
        "graded": 1,
        "exercises": 6,
        "override": None,
    }


@pytest.mark.parametrize("score_policy", ["best", "last"])
def test_the_gradebook_agrees_with_progress_and_the_dashboards(api: Api, score_policy: str) -> None:
    _history(api)
    app, practice = api.client.application, api.school.practice_assignment
    _set_policy(app, practice, score_policy)
    rows = _grades(api, practice)["students"]
    for row in rows:
        progress = api.get(f"/assignments/{practice}/progress?student={row['id']}", "teacher").get_json()
        assert [(e["exercise_id"], e["score"], e["attempts_used"]) for e in progress["exercises"]] == [
            (e["exercise_id"], e["score"], e["attempts_used"]) for e in row["exercises"]
        ]
    with get_db(app).session() as session:
        assignment = session.get_one(Assignment, practice)
        rows_of = select(ProgressRow.user_id, ProgressRow.exercise_id, ProgressRow.score).where(
            ProgressRow.assignment_id == assignment.id, ProgressRow.score.is_not(None)
        )
        dashboard = {(u, e): c for u, e, c in session.execute(rows_of)}
    shown = {
        (row["id"], e["exercise_id"]): e["score"] for row in rows for e in row["exercises"] if e["score"] is not None
    }
    assert shown == pytest.approx(dashboard) and len(shown) == 3


def test_scores_changed_at_is_the_students_latest_grade_log_entry(api: Api) -> None:
    users, practice = api.school.user_ids, api.school.practice_assignment
    app = api.client.application
    start = utcnow() - timedelta(hours=3)
    ids = add_attempts(
        app,
        [
            Attempt(users["alice"], practice, SHIFT, "graded", 0.5, logged_at=start),
            Attempt(users["alice"], practice, EXPOSURE, "graded", 1.0, logged_at=start + timedelta(minutes=5)),
            Attempt(
                users["alice"], api.school.open_assignment, SHIFT, "graded", 1.0, logged_at=start + timedelta(hours=2)
            ),
        ],
    )
    regraded = start + timedelta(hours=1)
    add_grade_log(app, ids[0], 0.5, 0.75, regraded)
    rows = {row["username"]: row for row in _grades(api, practice)["students"]}
    assert datetime.fromisoformat(rows["alice"]["scores_changed_at"]) == regraded
    assert rows["bob"]["scores_changed_at"] is None


def test_pages_by_student_id(api: Api) -> None:
    app = api.client.application
    with get_db(app).session() as session:
        course = session.get_one(Course, api.school.course_a)
        for name in ("dora", "erik", "fay"):
            user = User(username=name, display_name=name.title(), role=Role.STUDENT)
            session.add(Enrolment(course=course, user=user, role="student"))
        session.commit()
    expected = sorted(
        [
            api.school.user_ids["alice"],
            api.school.user_ids["bob"],
            *(uid for uid in _user_ids(app, ("dora", "erik", "fay"))),
        ]
    )
    for path in (f"/assignments/{api.school.open_assignment}/grades", f"/courses/{api.school.course_a}/students"):
        seen, cursor, pages = [], 0, 0
        while cursor is not None:
            response = api.get(f"{path}?limit=2&after_id={cursor}", "teacher")
            assert response.status_code == 200, response.get_json()
            page = response.get_json()
            seen += [row["id"] for row in page["students"]]
            assert page["limit"] == 2 and len(page["students"]) <= 2
            cursor, pages = page["next_after_id"], pages + 1
            assert cursor is None or cursor == page["students"][-1]["id"]
        assert seen == expected and pages == 3, path
        assert api.get(f"{path}?after_id={expected[-1]}", "teacher").get_json()["students"] == []


def _user_ids(app: Flask, names: tuple[str, ...]) -> list[int]:
    """The ids of users by name."""
    with get_db(app).session() as session:
        return list(session.scalars(select(User.id).where(User.username.in_(names))))


def test_the_roster_names_the_students_with_their_enrolment(api: Api) -> None:
    before = utcnow()
    page = api.get(f"/courses/{api.school.course_a}/students", "admin").get_json()
    assert page["course"] == {"id": api.school.course_a, "code": "A", "title": "Course A"}
    assert [(s["id"], s["username"], s["display_name"]) for s in page["students"]] == [
        (api.school.user_ids["alice"], "alice", "Alice"),
        (api.school.user_ids["bob"], "bob", "Bob"),
    ]
    for student in page["students"]:
        assert before - timedelta(minutes=5) < datetime.fromisoformat(student["enrolled_at"]) <= utcnow()
    assert page["next_after_id"] is None
    other = api.get(f"/courses/{api.school.course_b}/students", "teacher_b").get_json()
    assert [s["username"] for s in other["students"]] == ["carol"]


@pytest.mark.parametrize("path", ["/assignments/{open}/grades", "/courses/{course}/students"])
def test_only_the_courses_staff_may_read_them(api: Api, path: str) -> None:
    url = path.format(open=api.school.open_assignment, course=api.school.course_a)
    for who in ("teacher", "admin"):
        assert api.get(url, who).status_code == 200, who
    for who in ("alice", "bob", "teacher_as_student"):  # its students, and a teacher acting as one
        assert_error(api.get(url, who), 403, "forbidden")
    for who in ("teacher_b", "carol"):  # another course's people do not learn that it exists
        assert_error(api.get(url, who), 404, "not_found")
    assert_error(api.get(url, None), 401)
    missing = path.format(open=10**6, course=10**6)
    assert_error(api.get(missing, "admin"), 404)
    assert_error(api.get(path.format(open=2**31, course=2**31), "admin"), 404)  # beyond an id column
    for query, field in [
        ("limit=0", "limit"),
        ("limit=201", "limit"),
        ("after_id=-1", "after_id"),
        ("after_id=2147483648", "after_id"),
        ("limit=x", "limit"),
        ("student=1", "student"),
        ("limit=1&limit=2", "limit"),
    ]:
        assert_error(api.get(f"{url}?{query}", "teacher"), 400, field=field)


def test_a_student_row_never_shows_in_another_courses_gradebook(api: Api) -> None:
    carol = api.school.user_ids["carol"]
    add_attempts(api.client.application, [Attempt(carol, api.school.other_assignment, SHIFT, "graded", 1.0)])
    course_a = _grades(api, api.school.open_assignment)["students"]
    assert carol not in {row["id"] for row in course_a}
    course_b = _grades(api, api.school.other_assignment, "teacher_b")["students"]
    assert [(row["id"], row["exercises"][0]["score"]) for row in course_b] == [(carol, 1.0)]


def _course_of(app: Flask, teacher_id: int, students: int) -> tuple[int, int]:
    """A course of ``students`` students, each with two graded (logged) and one invalid attempt per exercise of
    its two-exercise assignment, and a regrade entry; (course id, assignment id)."""
    moment = utcnow() - timedelta(hours=1)
    with get_db(app).session() as session:
        course = Course(code=f"scale-{students}", title="Scale")
        session.add(course)
        session.flush()
        user_ids = list(
            session.scalars(
                insert(User).returning(User.id),
                [
                    {"username": f"s{students}-{i}", "display_name": f"S {i}", "role": "student"}
                    for i in range(students)
                ],
            )
        )
        session.execute(
            insert(Enrolment),
            [{"course_id": course.id, "user_id": u, "role": "student"} for u in user_ids]
            + [{"course_id": course.id, "user_id": teacher_id, "role": "teacher"}],
        )
        assignment = Assignment(
            course_id=course.id, title_zh="规模", title_en="Scale", exercise_ids=[SHIFT, EXPOSURE], score_policy="last"
        )
        session.add(assignment)
        session.flush()
        rows = [
            {
                "user_id": u,
                "assignment_id": assignment.id,
                "exercise_id": e,
                "seed": 1,
                "lang": "en",
                "raw_answer": {},
                "status": status,
                "score": score,
                "engine_version": "1.0.0",
            }
            for u in user_ids
            for e in (SHIFT, EXPOSURE)
            for status, score in (("graded", 0.5), ("invalid", None), ("graded", 1.0))
        ]
        ids = list(session.scalars(insert(Submission).returning(Submission.id, sort_by_parameter_order=True), rows))
        session.execute(
            insert(GradeLogEntry),
            [
                {
                    "submission_id": sid,
                    "new_score": row["score"],
                    "reason": "graded",
                    "actor": "worker:x:1",
                    "created_at": moment,
                }
                for sid, row in zip(ids, rows)
                if row["status"] == "graded"
            ],
        )
        session.commit()
        return course.id, assignment.id


def test_statements_do_not_grow_with_students(api: Api) -> None:
    app = api.client.application
    teacher_id = api.school.user_ids["teacher"]
    with get_db(app).session() as session:
        token = issue_token(session, session.get_one(User, teacher_id), name="scale")
        session.commit()
    headers = {"Authorization": f"Bearer {token}"}
    small, large = _course_of(app, teacher_id, 3), _course_of(app, teacher_id, 30)
    app.config["GRADER_CHANGE_FEED_SETTLE_SECONDS"] = 0.0
    counts: dict[str, list[int]] = {}
    for course_id, assignment_id in (small, large):
        for name, url in [
            ("gradebook", f"/api/v1/assignments/{assignment_id}/grades?limit=200"),
            ("roster", f"/api/v1/courses/{course_id}/students?limit=200"),
            ("changes", f"/api/v1/grade-changes?course={course_id}&limit=200"),
        ]:
            api.client.get(url, headers=headers)  # warm: the token's bookkeeping
            with sql_sent(app) as sent:
                response = api.client.get(url, headers=headers)
            assert response.status_code == 200, response.get_json()
            listed = response.get_json().get("students", response.get_json().get("changes"))
            assert len(listed) == {"changes": 4}.get(name, 1) * (3 if course_id == small[0] else 30)
            counts.setdefault(name, []).append(len(sent))
    for name, (few, many) in counts.items():
        assert few == many, f"{name}: {few} statements for 3 students, {many} for 30"
    gradebook = api.client.get(f"/api/v1/assignments/{large[1]}/grades", headers=headers).get_json()
    assert {(e["score"], e["attempts_used"]) for row in gradebook["students"] for e in row["exercises"]} == {(1.0, 2)}


def test_the_gradebook_reports_grades_as_the_worker_writes_them(api: Api, worker: Any) -> None:
    answer = {"pairs": "BOS→red", "bos_scored": "no", "eos_scored": "yes", "scored_count": "1"}
    body = {"exercise_id": SHIFT, "answer": answer, "assignment_id": api.school.open_assignment}
    submitted = api.post("/submissions", "alice", body, headers={"Prefer": "wait=10"}).get_json()
    assert submitted["status"] == "graded", submitted
    row = next(r for r in _grades(api, api.school.open_assignment)["students"] if r["username"] == "alice")
    assert row["exercises"] == [
        {
            "exercise_id": SHIFT,
            "attempts_used": 1,
            "score": submitted["score"],
            "points": submitted["score"],
            "max_points": 1.0,
            "late": False,
            "overridden": False,
        }
    ]
    assert row["total"] == {
        "score": submitted["score"],
        "points": submitted["score"],
        "max_points": 1.0,
        "graded": 1,
        "exercises": 1,
        "override": None,
    }
    changed = datetime.fromisoformat(row["scores_changed_at"])
    assert abs(changed - datetime.fromisoformat(submitted["finished_at"])) < timedelta(seconds=1)
    assert changed.tzinfo is not None and changed.utcoffset() == UTC.utcoffset(None)


def test_a_settings_change_moves_the_assignments_updated_at(api: Api) -> None:
    """A new score policy changes every total without a grade-log entry: ``updated_at`` is what tells an LMS."""
    practice = api.school.practice_assignment

    def stamp() -> str:
        return api.get(f"/assignments/{practice}/grades", "teacher").get_json()["assignment"]["updated_at"]

    first = stamp()
    with get_db(api.client.application).session() as session:
        assignment = session.get_one(Assignment, practice)
        fields = AssignmentSettings.__dataclass_fields__
        unchanged = AssignmentSettings(**{name: getattr(assignment, name) for name in fields})
        save(session, assignment.course_id, unchanged, assignment)  # saving the form as it was changes nothing
        assert stamp() == first
        save(session, assignment.course_id, replace(unchanged, score_policy="last"), assignment)
    moved = stamp()
    assert moved > first
    assert [
        a["updated_at"]
        for c in api.get("/courses", "teacher").get_json()["courses"]
        for a in c["assignments"]
        if a["id"] == practice
    ] == [moved]
