"""Audit of the teacher dashboard: every figure the pages and CSV exports show, against an independent computation.

Random courses (several seeds) are written directly with the models: enrolled students with graded, invalid, error
and queued submissions, a best-attempt and a last-attempt assignment, submissions to exercises the assignment does
not set or to no assignment at all, a student who is not enrolled, a student with no submissions, one whose only
attempts are invalid, a teacher's own submissions and another teacher's course. The expected figures are worked out
here in plain Python from the raw rows, then compared with what the teacher sees.
"""

from __future__ import annotations

import csv
import html
import io
import random
import re
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy.orm import Session

from grader.models import (
    ApiToken,
    Assignment,
    Course,
    Enrolment,
    EnrolmentRole,
    RegradeJob,
    Role,
    Submission,
    User,
    utcnow,
)
from grader.security import issue_token
from tests.factories import make_user, rebuild_progress, unique

Login = Callable[[str], tuple[FlaskClient, str]]

LOSS, COST, GREEDY, SHIFT = "ch13.loss-average", "ch09.attention-cost", "ch13.greedy-decode", "ch13.shift-pairs"
FULL = 0.9995
EDGES = (0.2, 0.4, 0.6, 0.8)
# Scores on and around every boundary; the assignment-level ones are exact in binary so sums do not wobble.
EXERCISE_SCORES = (0.0, 1.0, 0.2, 0.4, 0.6, 0.8, 0.19999, 0.9996, 0.9994, 2 / 3, 0.5, 0.25)
TAGS = ("log10", "log2", "eos-omitted", "tie-to-later")
NAMES = (
    "Ålice 名字",
    '=HYPERLINK("http://evil")',
    "+1 plus",
    "-2 minus",
    "@at sign",
    'Comma, "quote"\nnewline',
    "\tTab",
    "Zoë",
)
BASE = utcnow() - timedelta(days=2)


@dataclass
class Row:
    """One submission as written, kept for the independent computation."""

    id: int
    user_id: int
    assignment_id: int | None
    exercise_id: str
    status: str
    score: float | None
    parts: dict[str, Any]
    created_at: datetime


@dataclass
class World:
    """A random course with its rows."""

    teacher: User
    other_teacher: User
    course: Course
    assignments: list[Assignment]
    other: Assignment
    students: list[User]  # enrolled
    outsider: User
    rows: list[Row] = field(default_factory=list)


def _part(rng: random.Random, score: float) -> dict[str, Any]:
    tags = rng.sample(TAGS, rng.choice((0, 0, 1, 1, 2))) if score < 1 else []
    return {
        "score": score,
        "correct": score >= 1,
        "feedback": "…",
        "misconception": tags[0] if tags else None,
        "tags": tags,
        "follow_through": False,
        "read": f"r{rng.randint(0, 99)}",
    }


def build_world(session: Session, seed: int) -> World:
    """A random course; every row is committed."""
    rng = random.Random(seed)
    teacher, other_teacher = make_user(session, Role.TEACHER), make_user(session, Role.TEACHER)
    students = [make_user(session, Role.STUDENT, username=unique(f"s{i}")) for i in range(len(NAMES))]
    for user, name in zip(students, NAMES):
        user.display_name = name
    outsider = make_user(session, Role.STUDENT)
    course = Course(code=unique("audit"), title="Audit «course»")
    course.enrolments = [Enrolment(user=teacher, role=EnrolmentRole.TEACHER)] + [
        Enrolment(user=s, role=EnrolmentRole.STUDENT) for s in students
    ]
    best = Assignment(
        course=course,
        title_zh="最高",
        title_en="Best",
        exercise_ids=[LOSS, COST, GREEDY],
        score_policy="best",
        attempts_allowed=rng.choice((None, 3)),
    )
    last = Assignment(course=course, title_zh="最后", title_en="Last", exercise_ids=[SHIFT, LOSS], score_policy="last")
    other_course = Course(code=unique("other"), title="Other")
    other_course.enrolments = [
        Enrolment(user=other_teacher, role=EnrolmentRole.TEACHER),
        Enrolment(user=students[0], role=EnrolmentRole.STUDENT),
    ]
    other = Assignment(course=other_course, title_zh="别", title_en="Other", exercise_ids=[LOSS])
    session.add_all([course, best, last, other_course, other])
    session.commit()
    world = World(teacher, other_teacher, course, [best, last], other, students, outsider)
    silent, invalid_only = students[-1], students[-2]
    plan: list[tuple[User, Assignment | None, str, str]] = []
    for user in [*students, outsider, teacher]:
        if user is silent:
            continue
        for assignment in (best, last, other, None):
            exercises = list(assignment.exercise_ids) if assignment else [LOSS]
            for exercise_id in [*exercises, "ch09.rnn-step"]:
                for _ in range(rng.randint(0, 4)):
                    status = (
                        "invalid"
                        if user is invalid_only
                        else rng.choice(("graded", "graded", "graded", "graded", "invalid", "error", "queued"))
                    )
                    plan.append((user, assignment, exercise_id, status))
    rng.shuffle(plan)
    for minute, (user, assignment, exercise_id, status) in enumerate(plan):
        if status == "graded":
            pool = EXERCISE_SCORES if assignment is not best else (0.0, 0.25, 0.5, 0.75, 1.0)
            score: float | None = rng.choice(pool)
            parts = {f"p{i}": _part(rng, score) for i in range(rng.randint(1, 3))}
        else:
            score, parts = None, {}
        when = BASE + timedelta(minutes=minute)
        submission = Submission(
            user_id=user.id,
            assignment_id=assignment.id if assignment else None,
            exercise_id=exercise_id,
            seed=minute,
            lang="en",
            raw_answer={"a": f"typed {minute}"},
            parsed_answer={"a": minute} if status == "graded" else None,
            status=status,
            score=score,
            parts=parts,
            engine_version="1.0.0",
            created_at=when,
            queued_at=when,
            finished_at=None if status == "queued" else when,
        )
        session.add(submission)
        session.flush()
        world.rows.append(
            Row(submission.id, user.id, submission.assignment_id, exercise_id, status, score, parts, when)
        )
    rebuild_progress(session)  # commits: the rows the pipeline would have kept
    return world


# ---- the independent computation ---------------------------------------------------------------------------


def bin_of(score: float) -> int:
    """The bin of the whole percentage a page shows for ``score`` (0.19999 shows as 20 %)."""
    if score >= FULL:
        return 5
    return sum(1 for edge in EDGES if round(score * 100) >= round(edge * 100))


@dataclass
class Expected:
    """Everything the dashboard of one assignment should show."""

    counted: dict[tuple[int, str], float]  # (user, exercise) -> counted score
    first: dict[tuple[int, str], float]
    attempted: dict[str, int]
    mean: dict[str, float | None]
    first_share: dict[str, float | None]
    histogram: dict[str, tuple[int, ...]]
    wrong: dict[str, int]
    tags: dict[str, dict[str, tuple[int, int]]]  # exercise -> tag -> (submissions, students)
    assignment_attempted: int
    assignment_mean: float | None
    assignment_first: float | None
    assignment_histogram: tuple[int, ...]


def expected_for(world: World, assignment: Assignment) -> Expected:
    enrolled = {s.id for s in world.students}
    graded = sorted(
        (
            r
            for r in world.rows
            if r.assignment_id == assignment.id
            and r.exercise_id in assignment.exercise_ids
            and r.status == "graded"
            and r.user_id in enrolled
        ),
        key=lambda r: r.id,
    )
    tries: dict[tuple[int, str], list[Row]] = defaultdict(list)
    for row in graded:
        tries[(row.user_id, row.exercise_id)].append(row)
    counted = {
        key: (max(r.score for r in rows) if assignment.score_policy == "best" else rows[-1].score)
        for key, rows in tries.items()
    }
    first = {key: rows[0].score for key, rows in tries.items()}
    attempted, mean, first_share, histogram, wrong, tags = {}, {}, {}, {}, {}, {}
    for exercise_id in assignment.exercise_ids:
        keys = [k for k in counted if k[1] == exercise_id]
        attempted[exercise_id] = len(keys)
        mean[exercise_id] = sum(counted[k] for k in keys) / len(keys) if keys else None
        first_share[exercise_id] = sum(first[k] >= FULL for k in keys) / len(keys) if keys else None
        bins = [0] * 6
        for k in keys:
            bins[bin_of(counted[k])] += 1
        histogram[exercise_id] = tuple(bins)
        wrong_rows = [r for r in graded if r.exercise_id == exercise_id and r.score < FULL]
        wrong[exercise_id] = len(wrong_rows)
        by_tag: dict[str, tuple[set[int], set[int]]] = defaultdict(lambda: (set(), set()))
        for r in wrong_rows:
            for part in r.parts.values():
                for tag in part["tags"]:
                    by_tag[tag][0].add(r.id)
                    by_tag[tag][1].add(r.user_id)
        tags[exercise_id] = {t: (len(subs), len(users)) for t, (subs, users) in by_tag.items()}
    per_student: dict[int, float] = defaultdict(float)
    for (user_id, _e), score in counted.items():
        per_student[user_id] += score
    scores = {u: total / len(assignment.exercise_ids) for u, total in per_student.items()}
    bins = [0] * 6
    for score in scores.values():
        bins[bin_of(score)] += 1
    return Expected(
        counted,
        first,
        attempted,
        mean,
        first_share,
        histogram,
        wrong,
        tags,
        len(scores),
        sum(scores.values()) / len(scores) if scores else None,
        sum(f >= FULL for f in first.values()) / len(first) if first else None,
        tuple(bins),
    )


def expected_progress(
    world: World, assignments: list[Assignment]
) -> dict[str, tuple[int, int, int, int, datetime | None]]:
    """username -> (attempted, full marks, total, percent, last activity) over ``assignments``."""
    result = {}
    total = sum(len(a.exercise_ids) for a in assignments)
    exp = [expected_for(world, a) for a in assignments]
    for student in world.students:
        counted = [score for e in exp for (u, _x), score in e.counted.items() if u == student.id]
        active = [
            r.created_at
            for r in world.rows
            if r.user_id == student.id
            and r.status == "graded"  # the table shows the latest graded attempt
            and any(r.assignment_id == a.id and r.exercise_id in a.exercise_ids for a in assignments)
        ]
        result[student.username] = (
            len(counted),
            sum(s >= FULL for s in counted),
            total,
            round(sum(counted) / total * 100),
            max(active) if active else None,
        )
    return result


# ---- reading the pages -------------------------------------------------------------------------------------


def pct(value: float | None) -> str:
    return "—" if value is None else f"{round(value * 100)}%"


def get_page(client: FlaskClient, path: str) -> str:
    response = client.get(path)
    assert response.status_code == 200, response.get_data(as_text=True)[:500]
    return response.get_data(as_text=True)


def bars(fragment: str) -> tuple[int, ...]:
    return tuple(int(v) for v in re.findall(r'<g class="bar" data-label="[^"]*" data-value="(\d+)"', fragment))


def student_rows(page: str) -> dict[str, tuple[int, int, int, int, str | None]]:
    rows = {}
    for username, body in re.findall(r'<tr data-username="([^"]+)">(.*?)</tr>', page, re.DOTALL):
        text = re.search(r'class="progress-text">(\d+) of (\d+) attempted, (\d+) full marks, score (-?\d+)%', body)
        assert text, body
        attempted, total, full, percent = (int(g) for g in text.groups())
        when = re.search(r'<time datetime="([^"]+)"', body)
        rows[html.unescape(username)] = (attempted, full, total, percent, when.group(1) if when else None)
    return rows


def check_students(page: str, expected: dict[str, tuple[int, int, int, int, datetime | None]]) -> None:
    shown = student_rows(page)
    assert set(shown) == set(expected)
    for username, (attempted, full, total, percent, last) in expected.items():
        assert shown[username] == (attempted, full, total, percent, last.isoformat() if last else None), username


def download(client: FlaskClient, token: str, assignment_id: int, kind: str) -> list[list[str]]:
    response = client.post(
        f"/teach/assignments/{assignment_id}/export/{kind}.csv", data={"csrf_token": token, "ids": "1"}
    )
    assert response.status_code == 200
    return list(csv.reader(io.StringIO(response.get_data(as_text=True).removeprefix("\ufeff"))))


def spreadsheet_safe(cell: str) -> bool:
    return not cell.startswith(("=", "+", "-", "@", "\t", "\r"))


# ---- the randomised comparison -----------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_every_dashboard_figure_matches_an_independent_computation(session: Session, login: Login, seed: int) -> None:
    world = build_world(session, seed)
    client, token = login(world.teacher.username)

    for assignment in world.assignments:
        exp = expected_for(world, assignment)
        page = get_page(client, f"/teach/assignments/{assignment.id}")
        for exercise_id in assignment.exercise_ids:
            row = re.search(rf'<tr data-exercise="{re.escape(exercise_id)}">(.*?)</tr>', page, re.DOTALL).group(1)
            assert re.search(r'stat-attempted">(\d+)<', row).group(1) == str(exp.attempted[exercise_id])
            assert re.search(r'stat-mean">([^<]*)<', row).group(1) == pct(exp.mean[exercise_id])
            assert re.search(r'stat-first">([^<]*)<', row).group(1) == pct(exp.first_share[exercise_id])
            assert re.search(r'stat-wrong">(\d+)<', row).group(1) == str(exp.wrong[exercise_id])
            card = re.search(
                rf'<article class="card exercise-card" id="ex-\d+" data-exercise="{re.escape(exercise_id)}">'
                r"(.*?)</article>",
                page,
                re.DOTALL,
            ).group(1)
            assert bars(card) == exp.histogram[exercise_id], exercise_id
            shown_tags = {
                tag: (int(n), int(students), share)
                for tag, n, students, share in re.findall(
                    r'<tr data-tag="([^"]+)">.*?</th><td>(\d+)</td><td>(\d+)</td>\s*<td>([^<]*)</td>', card, re.DOTALL
                )
            }
            wanted = {
                tag: (n, students, pct(n / exp.wrong[exercise_id]))
                for tag, (n, students) in exp.tags[exercise_id].items()
            }
            assert shown_tags == wanted, exercise_id
            tagged_any = len(
                {
                    r.id
                    for r in world.rows
                    if r.assignment_id == assignment.id
                    and r.exercise_id == exercise_id
                    and r.status == "graded"
                    and r.score < FULL
                    and r.user_id in {s.id for s in world.students}
                    and any(p["tags"] for p in r.parts.values())
                }
            )
            untagged = exp.wrong[exercise_id] - tagged_any
            if exp.wrong[exercise_id] and untagged:
                expected = (
                    "The other wrong answer matches no known misconception."
                    if untagged == 1
                    else f"The other {untagged} wrong answers match no known misconception."
                )
                assert expected in card, exercise_id
            else:
                assert "match no known misconception" not in card, exercise_id
        check_students(page, expected_progress(world, [assignment]))

        # Grades CSV: one row per enrolled student, counted score per exercise, total.
        grades = download(client, token, assignment.id, "grades")
        # Each student's own terms, override and late marks and the points follow the total (course operations).
        assert grades[0] == [
            "username",
            "display_name",
            *assignment.exercise_ids,
            "total",
            "due_at",
            "extra_attempts",
            "overridden",
            "late",
            "max_points",
            "percent",
        ]
        total_column = grades[0].index("total")
        by_user = {row[0]: row for row in grades[1:]}
        assert set(by_user) == {s.username for s in world.students}
        for student in world.students:
            row = by_user[student.username]
            assert all(spreadsheet_safe(cell) for cell in row), row
            assert row[1].removeprefix("'") == student.display_name
            for index, exercise_id in enumerate(assignment.exercise_ids, 2):
                want = exp.counted.get((student.id, exercise_id))
                assert (row[index] == "") if want is None else float(row[index]) == pytest.approx(want, abs=1e-6)
            total = sum(v for (u, _e), v in exp.counted.items() if u == student.id)
            assert float(row[total_column]) == pytest.approx(total, abs=1e-6)

        # Misconception CSV: the same table as the page.
        table = download(client, token, assignment.id, "misconceptions")
        got = {(r[0], r[1]): (int(r[2]), int(r[3]), float(r[4]), int(r[5])) for r in table[1:]}
        want = {
            (e, t): (n, s, pytest.approx(n / exp.wrong[e], abs=1e-6), exp.wrong[e])
            for e, tags in exp.tags.items()
            for t, (n, s) in tags.items()
        }
        assert got == want

        # Submissions CSV: every row of the assignment, any status, anyone's.
        subs = download(client, token, assignment.id, "submissions")
        mine = sorted((r for r in world.rows if r.assignment_id == assignment.id), key=lambda r: r.id)
        assert [int(r[0]) for r in subs[1:]] == [r.id for r in mine]
        for cells, raw in zip(subs[1:], mine):
            assert all(spreadsheet_safe(cell) for cell in cells), cells
            assert cells[5] == raw.status
            assert (cells[6] == "") if raw.score is None else float(cells[6]) == pytest.approx(raw.score, abs=1e-6)

    # The course dashboard: per assignment statistics and histogram, per student progress over all assignments.
    page = get_page(client, f"/teach/courses/{world.course.id}")
    for assignment in world.assignments:
        exp = expected_for(world, assignment)
        card = re.search(
            rf'<article class="card assignment-stats" id="assignment-{assignment.id}">(.*?)</article>', page, re.DOTALL
        ).group(1)
        assert re.search(r'stat-attempted">(\d+)<', card).group(1) == str(exp.assignment_attempted)
        assert re.search(r'stat-mean">([^<]*)<', card).group(1) == pct(exp.assignment_mean)
        assert re.search(r'stat-first">([^<]*)<', card).group(1) == pct(exp.assignment_first)
        assert bars(card) == exp.assignment_histogram
    check_students(page, expected_progress(world, world.assignments))


# ---- findings, one test each -------------------------------------------------------------------------------


def _wrong(session: Session, user: User, assignment: Assignment, tags_per_part: list[tuple[str, ...]]) -> None:
    parts = {
        f"p{i}": {
            "score": 0.0,
            "correct": False,
            "feedback": "…",
            "misconception": tags[0] if tags else None,
            "tags": list(tags),
            "follow_through": False,
            "read": "x",
        }
        for i, tags in enumerate(tags_per_part)
    }
    session.add(
        Submission(
            user_id=user.id,
            assignment_id=assignment.id,
            exercise_id=LOSS,
            seed=0,
            lang="en",
            raw_answer={"a": 1},
            status="graded",
            score=0.0,
            parts=parts,
            engine_version="1.0.0",
        )
    )


def _one_student_course(session: Session, code: str) -> tuple[User, User, Assignment]:
    """A teacher, one student and one assignment over LOSS (committed)."""
    teacher, student = make_user(session, Role.TEACHER), make_user(session)
    course = Course(code=unique(code), title=code)
    course.enrolments = [Enrolment(user=teacher, role=EnrolmentRole.TEACHER), Enrolment(user=student, role="student")]
    assignment = Assignment(course=course, title_zh=code, title_en=code, exercise_ids=[LOSS])
    session.add_all([course, assignment])
    session.commit()
    return teacher, student, assignment


def test_untagged_wrong_answers_are_counted_per_answer_not_per_tag(session: Session, login: Login) -> None:
    """Three wrong answers: one with two tags, one with one, one with none. One matches no misconception.

    The page used to subtract the sum of the tag counts (3) from the wrong answers (3) and said nothing.
    """
    teacher, student, assignment = _one_student_course(session, "untagged")
    _wrong(session, student, assignment, [("log10", "log2")])  # two tags on one part
    _wrong(session, student, assignment, [("log10",), ("log10",)])  # one tag on two parts
    _wrong(session, student, assignment, [(), ()])  # no tag at all
    session.commit()
    client, _ = login(teacher.username)
    page = get_page(client, f"/teach/assignments/{assignment.id}")
    assert "Wrong answers: 3" in page
    assert "The other wrong answer matches no known misconception." in page


def test_roster_file_with_a_nul_byte_is_refused_not_a_server_error(session: Session, login: Login) -> None:
    """PostgreSQL cannot take a NUL in a query parameter: the upload used to be a 500 there."""
    teacher = make_user(session, Role.TEACHER)
    course = Course(code=unique("nul"), title="Nul")
    course.enrolments = [Enrolment(user=teacher, role=EnrolmentRole.TEACHER)]
    session.add(course)
    session.commit()
    client, token = login(teacher.username)
    response = client.post(
        f"/teach/courses/{course.id}/roster/upload",
        content_type="multipart/form-data",
        data={"csrf_token": token, "file": (io.BytesIO(b"username\nal\x00ice\n"), "roster.csv")},
    )
    assert response.status_code == 422
    assert "Cannot read the file" in response.get_data(as_text=True)


def _post_routes(world: World, token_id: int) -> list[str]:
    """Every POST of the teacher blueprint, with ids from ``world`` (the other teacher's token)."""
    c, a, s = world.course.id, world.assignments[0].id, world.students[0].id
    return [
        "/teach/courses",
        f"/teach/courses/{c}/assignments/new",
        f"/teach/assignments/{a}/edit",
        *(f"/teach/assignments/{a}/export/{kind}.csv" for kind in ("grades", "submissions", "misconceptions")),
        f"/teach/assignments/{a}/regrade",
        f"/teach/courses/{c}/roster/add",
        f"/teach/courses/{c}/roster/upload",
        f"/teach/courses/{c}/roster/confirm",
        f"/teach/courses/{c}/roster/{s}/remove",
        f"/teach/courses/{c}/settings",
        f"/teach/courses/{c}/session-length",
        f"/teach/courses/{c}/archive",
        f"/teach/courses/{c}/unarchive",
        f"/teach/assignments/{a}/extensions",
        f"/teach/assignments/{a}/extensions/{s}/clear",
        f"/teach/assignments/{a}/overrides",
        f"/teach/assignments/{a}/overrides/{s}/clear",
        f"/teach/courses/{c}/gradebook.xlsx",
        f"/teach/courses/{c}/roster/links",
        f"/teach/courses/{c}/roster/{s}/link",
        f"/teach/admin/users/{s}/role",
        f"/teach/admin/users/{s}/active",
        f"/teach/assignments/{a}/delete",
        f"/teach/courses/{c}/staff",
        f"/teach/courses/{c}/staff/{world.students[0].username}/role",
        f"/teach/courses/{c}/staff/{world.students[0].username}/remove",
        "/teach/tokens",
        f"/teach/tokens/{token_id}/revoke",
    ]


def test_every_teacher_post_needs_csrf_and_the_course(app: Flask, session: Session, login: Login) -> None:
    """No POST of the blueprint works without the session's token; another teacher gets 404 on every id of ours."""
    world = build_world(session, 7)
    issue_token(session, world.teacher, name="lms", role="teacher")
    session.commit()
    token_id = session.query(ApiToken.id).filter(ApiToken.user_id == world.teacher.id).scalar()
    routes = _post_routes(world, token_id)
    posts = {
        rule.rule
        for rule in app.url_map.iter_rules()
        if rule.endpoint.startswith("teacher.") and "POST" in rule.methods
    }
    assert len(posts) == len(routes) - 2  # the three exports share a rule; a new POST route needs a line above
    form = {
        "username": world.students[0].username,
        "name": "x",
        "code": unique("c"),
        "title": "t",
        "title_zh": "z",
        "title_en": "e",
        "exercise_ids": LOSS,
        "score_policy": "best",
        "answer_key_policy": "never",
    }
    owner, _ = login(world.teacher.username)
    for url in routes:
        assert owner.post(url, data={**form, "csrf_token": "forged"}).status_code == 400, url
        assert owner.post(url, data=form).status_code == 400, url
    other, token = login(world.other_teacher.username)
    for url in routes[1:-2]:  # course-scoped ones (creating a course and one's own tokens are not)
        assert other.post(url, data={**form, "csrf_token": token}).status_code == 404, url
    assert other.post(routes[-1], data={"csrf_token": token}).status_code == 404
    session.expire_all()
    assert session.get(ApiToken, token_id).revoked_at is None
    assert session.query(RegradeJob).count() == 0
    assert {e.user_id for e in world.course.enrolments} >= {s.id for s in world.students}
    assert [a.title_en for a in world.course.assignments] == ["Best", "Last"]


def test_a_graded_row_with_json_null_parts_does_not_break_the_misconception_views(
    session: Session, login: Login
) -> None:
    """Rows written by hand or by old code may hold JSON null in ``parts``: PostgreSQL's json_each refused it."""
    teacher, student, assignment = _one_student_course(session, "nullparts")
    session.add(
        Submission(
            user_id=student.id,
            assignment_id=assignment.id,
            exercise_id=LOSS,
            seed=0,
            lang="en",
            raw_answer={"a": 1},
            status="graded",
            score=0.25,
            parts=None,
            engine_version="1.0.0",
        )
    )
    _wrong(session, student, assignment, [("log10",)])
    session.commit()
    client, token = login(teacher.username)
    page = get_page(client, f"/teach/assignments/{assignment.id}")
    assert "Wrong answers: 2" in page
    assert "The other wrong answer matches no known misconception." in page
    assert any("log10" in row for row in download(client, token, assignment.id, "misconceptions"))
