"""Keyset pages of GET /submissions: ``before_id`` walks newest first, ``after_id`` oldest first (incremental sync).

A walk returns every row it may see exactly once and in order, also while new submissions arrive; the cursors keep
the listing's visibility rules; bad cursor values are a 400 naming the parameter; and on PostgreSQL a course's
listing reads that course's rows only, not every newer (or older) row of other courses.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from flask import Flask
from sqlalchemy import insert, select, text

from grader.api import submission_listing
from grader.extensions import get_db
from grader.models import Submission
from tests.support import Backend, sql_sent

from .support import Api, assert_error

SHIFT = "ch13.shift-pairs"
ANSWER = {"pairs": "BOS→red", "bos_scored": "no", "eos_scored": "yes", "scored_count": "1"}
STATUSES = ("graded", "error", "invalid")


def _insert(app: Flask, owners: list[tuple[int, int | None]]) -> list[int]:
    """Finished submissions for (user id, assignment id) pairs, in this order; their ids."""
    ids = []
    with get_db(app).session() as session:
        for index, (user_id, assignment_id) in enumerate(owners):
            row = Submission(
                user_id=user_id,
                assignment_id=assignment_id,
                exercise_id=SHIFT,
                seed=index,
                lang="en",
                raw_answer=ANSWER,
                status=STATUSES[index % len(STATUSES)],
                engine_version="1.0.0",
            )
            session.add(row)
            session.flush()
            ids.append(row.id)
        session.commit()
    return ids


def _interleaved(api: Api, count: int) -> list[tuple[int, int]]:
    """``count`` owners cycling through alice, bob, carol and the teacher over both courses' assignments."""
    school, users = api.school, api.school.user_ids
    cycle = [
        (users["alice"], school.open_assignment),
        (users["carol"], school.other_assignment),
        (users["bob"], school.practice_assignment),
        (users["alice"], school.closed_assignment),
        (users["carol"], school.other_assignment),
        (users["teacher"], school.practice_assignment),
        (users["bob"], school.open_assignment),
    ]
    return [cycle[index % len(cycle)] for index in range(count)]


def _listed(api: Api, who: str, query: str) -> dict[str, Any]:
    """One page of the listing as ``who``, which must be a 200."""
    response = api.get(f"/submissions?{query}", who)
    assert response.status_code == 200, response.get_data(as_text=True)
    return response.get_json()


def _walk(
    api: Api,
    who: str,
    query: str,
    cursor: str,
    start: int | None = None,
    between: Callable[[int], None] = lambda _page: None,
) -> list[int]:
    """The ids of every page of a cursor walk (``cursor``: before_id or after_id), calling ``between`` after each."""
    ids: list[int] = []
    position = start
    for page_number in range(100):
        page = _listed(api, who, query + ("" if position is None else f"&{cursor}={position}"))
        ids += [row["id"] for row in page["submissions"]]
        between(page_number)
        if cursor == "before_id":
            assert page["next_after_id"] is None
            position = page["next_before_id"]
            if position is None:
                return ids
            assert position == page["submissions"][-1]["id"]
        else:
            assert page["next_before_id"] is None
            if not page["submissions"]:
                assert page["next_after_id"] == position  # caught up: poll again from the same place
                return ids
            position = page["next_after_id"]
            assert position == page["submissions"][-1]["id"]
    raise AssertionError("the walk did not end")


def _visible_to(api: Api, who: str, owners: list[tuple[int, int | None]], ids: list[int]) -> list[int]:
    """Of the inserted rows, the ids ``who`` may read (as the listing's rules say), in id order."""
    school, users = api.school, api.school.user_ids
    course_a = {school.open_assignment, school.closed_assignment, school.future_assignment, school.practice_assignment}
    if who == "teacher":
        return [i for i, (user, assignment) in zip(ids, owners) if assignment in course_a or user == users["teacher"]]
    if who == "teacher_b":
        return [i for i, (_user, assignment) in zip(ids, owners) if assignment == school.other_assignment]
    return [i for i, (user, _assignment) in zip(ids, owners) if user == users[who]]


@pytest.mark.parametrize("who", ["teacher", "teacher_b", "alice", "admin"])
def test_before_id_walk_returns_every_visible_row_once_newest_first(api: Api, api_app: Flask, who: str) -> None:
    owners = _interleaved(api, 40)
    ids = _insert(api_app, owners)
    expected = ids if who == "admin" else _visible_to(api, who, owners, ids)
    walked = _walk(api, who, "limit=3", "before_id")
    assert walked == sorted(expected, reverse=True)
    first = _listed(api, who, "limit=3")
    assert (first["total"], first["limit"], first["offset"]) == (len(expected), 3, 0)
    # total is the whole listing's size on every page, whatever the cursor.
    assert _listed(api, who, f"limit=3&before_id={expected[len(expected) // 2]}")["total"] == len(expected)


def test_before_id_walk_is_stable_while_new_submissions_arrive(api: Api, api_app: Flask) -> None:
    owners = _interleaved(api, 30)
    ids = _insert(api_app, owners)
    arrived: list[int] = []

    def submit_more(_page: int) -> None:
        # Two new rows of course A per page: with offsets, each would push two already-listed rows onto the next page.
        arrived.extend(_insert(api_app, [owners[0], owners[2]]))
        response = api.post(
            "/submissions",
            "alice",
            {"exercise_id": SHIFT, "answer": ANSWER, "assignment_id": api.school.practice_assignment},
        )
        assert response.status_code == 202, response.get_data(as_text=True)
        arrived.append(response.get_json()["id"])

    walked = _walk(api, "teacher", f"limit=4&course={api.school.course_a}", "before_id", between=submit_more)
    assert walked == sorted(_course_a_ids(api, owners, ids), reverse=True)
    assert len(arrived) > 10 and not set(walked) & set(arrived)
    # The newest page now starts with what arrived during the walk.
    newest = _listed(api, "teacher", f"limit=2&course={api.school.course_a}")["submissions"]
    assert [row["id"] for row in newest] == sorted(arrived, reverse=True)[:2]


def _course_a_ids(api: Api, owners: list[tuple[int, int | None]], ids: list[int]) -> set[int]:
    """The inserted rows that belong to course A's assignments."""
    return {i for i, (_user, assignment) in zip(ids, owners) if assignment != api.school.other_assignment}


def test_a_page_ends_exactly_at_the_last_row(api: Api, api_app: Flask) -> None:
    ids = _insert(api_app, [(api.school.user_ids["alice"], api.school.practice_assignment)] * 6)
    first = _listed(api, "alice", "limit=3")
    assert [row["id"] for row in first["submissions"]] == ids[:2:-1] and first["next_before_id"] == ids[3]
    last = _listed(api, "alice", f"limit=3&before_id={ids[3]}")
    assert [row["id"] for row in last["submissions"]] == ids[2::-1]
    assert last["next_before_id"] is None  # no empty page to fetch after a full last one
    assert _listed(api, "alice", f"limit=3&before_id={ids[0]}")["submissions"] == []
    assert _listed(api, "alice", "limit=3&before_id=1")["next_before_id"] is None


def test_after_id_walks_oldest_first_and_picks_up_new_rows(api: Api, api_app: Flask) -> None:
    owners = _interleaved(api, 25)
    ids = _insert(api_app, owners)
    query = f"limit=4&course={api.school.course_a}"
    course_a = sorted(_course_a_ids(api, owners, ids))
    synced = _walk(api, "teacher", query, "after_id", start=0)
    assert synced == course_a
    # Resume where the walk stopped: only what arrived since, oldest first.
    new_owners = _interleaved(api, 9)
    new_ids = _insert(api_app, new_owners)
    resumed = _walk(api, "teacher", query, "after_id", start=synced[-1])
    assert resumed == sorted(_course_a_ids(api, new_owners, new_ids))
    page = _listed(api, "teacher", f"{query}&after_id={resumed[-1]}")
    assert page["submissions"] == [] and page["next_after_id"] == resumed[-1] and page["next_before_id"] is None
    assert page["total"] == len(course_a) + len(resumed)


def test_after_id_without_a_course_keeps_the_callers_rows(api: Api, api_app: Flask) -> None:
    owners = _interleaved(api, 21)
    ids = _insert(api_app, owners)
    for who in ("alice", "carol", "teacher", "teacher_b"):
        assert _walk(api, who, "limit=2", "after_id", start=0) == _visible_to(api, who, owners, ids)
    assert _walk(api, "admin", "limit=5", "after_id", start=ids[9]) == ids[10:]


def test_a_students_cursor_walk_never_returns_another_students_rows(api: Api, api_app: Flask) -> None:
    owners = _interleaved(api, 35)
    ids = _insert(api_app, owners)
    school = api.school
    mine = _visible_to(api, "alice", owners, ids)
    in_open = [i for i, (_u, a) in zip(ids, owners) if a == school.open_assignment and i in mine]
    for query, expected in (
        ("limit=2", mine),
        (f"limit=2&course={school.course_a}", mine),
        (f"limit=2&student={school.user_ids['bob']}", []),
        (f"limit=2&course={school.course_b}", []),
        (f"limit=2&assignment={school.open_assignment}", in_open),
    ):
        assert _walk(api, "alice", query, "before_id") == expected[::-1], query
        assert _walk(api, "alice", query, "after_id", start=0) == expected, query
    rows = _listed(api, "alice", f"limit=200&before_id={ids[-1] + 1}")["submissions"]
    assert rows and {row["user"]["id"] for row in rows} == {school.user_ids["alice"]}
    # A teacher acting through a student-role token lists only their own rows, even in their course.
    teachers_own = [i for i, (user, _a) in zip(ids, owners) if user == school.user_ids["teacher"]]
    assert _walk(api, "teacher_as_student", f"limit=2&course={school.course_a}", "after_id", 0) == teachers_own


@pytest.mark.parametrize("merged", [True, False], ids=["merged", "one-scan"])
def test_a_teachers_course_filter_with_a_cursor_stays_in_the_course(
    api: Api, api_app: Flask, merged: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not merged:  # a course with more assignments than are merged is read in one scan of id order
        monkeypatch.setattr(submission_listing, "MERGE_ASSIGNMENTS_MAX", 0)
    owners = _interleaved(api, 35)
    ids = _insert(api_app, owners)
    course_a, course_b = api.school.course_a, api.school.course_b
    in_a = sorted(_course_a_ids(api, owners, ids))
    in_b = sorted(set(ids) - set(in_a))
    for who in ("teacher", "admin"):
        assert _walk(api, who, f"limit=3&course={course_a}", "before_id") == in_a[::-1]
        assert _walk(api, who, f"limit=3&course={course_a}", "after_id", start=0) == in_a
    assert _walk(api, "teacher_b", f"limit=3&course={course_b}", "before_id", start=in_b[-1]) == in_b[-2::-1]
    # Another teacher's course lists nothing, with or without a cursor.
    for query in (f"course={course_b}", f"course={course_b}&before_id={ids[-1]}", f"course={course_b}&after_id=0"):
        page = _listed(api, "teacher", query)
        assert (page["submissions"], page["total"]) == ([], 0), query
    assert _listed(api, "teacher_b", f"course={course_a}&after_id=0")["submissions"] == []
    # Course and assignment together: the assignment only if it is the course's.
    other = api.school.other_assignment
    assert _listed(api, "admin", f"course={course_a}&assignment={other}&before_id={ids[-1]}")["submissions"] == []
    open_rows = [i for i, (_u, a) in zip(ids, owners) if a == api.school.open_assignment]
    query = f"limit=2&course={course_a}&assignment={api.school.open_assignment}"
    assert _walk(api, "teacher", query, "after_id", start=0) == open_rows


def test_filters_apply_within_a_cursor_walk(api: Api, api_app: Flask) -> None:
    owners = _interleaved(api, 42)
    ids = _insert(api_app, owners)
    errors = [i for index, i in enumerate(ids) if STATUSES[index % len(STATUSES)] == "error"]
    in_a = _course_a_ids(api, owners, ids)
    walked = _walk(api, "teacher", f"limit=2&course={api.school.course_a}&status=error", "before_id")
    assert walked == sorted((i for i in errors if i in in_a), reverse=True)
    bob = api.school.user_ids["bob"]
    bobs = [i for i, (user, _a) in zip(ids, owners) if user == bob]
    assert _walk(api, "admin", f"limit=2&student={bob}&exercise={SHIFT}", "after_id", start=0) == bobs


def test_offset_pages_hand_over_to_the_cursor(api: Api, api_app: Flask) -> None:
    ids = _insert(api_app, _interleaved(api, 12))
    page = _listed(api, "admin", "limit=4&offset=4")
    assert [row["id"] for row in page["submissions"]] == ids[7:3:-1]
    assert (page["offset"], page["next_before_id"], page["next_after_id"]) == (4, ids[4], None)
    assert [row["id"] for row in _listed(api, "admin", f"limit=4&before_id={ids[4]}")["submissions"]] == ids[3::-1]
    assert _listed(api, "admin", "limit=4&offset=8")["next_before_id"] is None
    # offset=0 is no offset, so it may go with a cursor.
    assert _listed(api, "admin", f"limit=4&offset=0&before_id={ids[4]}")["offset"] == 0


def test_cursor_conflicts_are_a_400_naming_the_parameter(api: Api) -> None:
    error = assert_error(api.get("/submissions?before_id=10&after_id=2", "alice"), 400, "invalid_parameter", "after_id")
    assert "before_id" in error["message"]
    assert_error(api.get("/submissions?before_id=10&offset=5", "alice"), 400, "invalid_parameter", "offset")
    assert_error(api.get("/submissions?after_id=10&offset=1", "teacher"), 400, "invalid_parameter", "offset")
    # A bad value is named before any conflict is.
    assert_error(api.get("/submissions?before_id=x&after_id=2", "alice"), 400, "invalid_parameter", "before_id")


BAD_IDS = [
    "x",
    "-1",
    "--5",
    "-",
    "1.5",
    "1e3",
    "0x10",
    "+7",
    " 7",
    "7 ",
    "１２",
    "٣",
    "²",
    "2147483648",
    "99999999999999999999999999",
    "null",
    "[1]",
]


@pytest.mark.parametrize("name", ["before_id", "after_id"])
@pytest.mark.parametrize("value", BAD_IDS)
def test_bad_cursor_values_are_a_400_naming_the_parameter(api: Api, name: str, value: str) -> None:
    response = api.get("/submissions", "teacher", query_string={name: value, "course": api.school.course_a})
    error = assert_error(response, 400, "invalid_parameter", name)
    assert name in error["message"]


def test_cursor_bounds_and_a_doubled_minus_sign(api: Api) -> None:
    assert_error(api.get("/submissions?before_id=0", "alice"), 400, "invalid_parameter", "before_id")
    assert _listed(api, "alice", "after_id=0")["next_after_id"] == 0
    assert _listed(api, "alice", "before_id=2147483647")["next_before_id"] is None
    assert _listed(api, "alice", "after_id=2147483647")["next_after_id"] == 2147483647
    for name in ("limit", "offset", "course", "student"):  # int("--5") fails: this was a 500 for every number
        assert_error(api.get(f"/submissions?{name}=--5", "alice"), 400, "invalid_parameter", name)


def _rows_read(plan: dict[str, Any]) -> int:
    """Rows (and index entries) of ``submissions`` that a plan node and its children read, from EXPLAIN ANALYZE."""
    read = 0
    if plan.get("Relation Name") == "submissions" or "submissions" in plan.get("Index Name", ""):
        read += (
            plan["Actual Rows"] * plan["Actual Loops"]
            + plan.get("Rows Removed by Filter", 0)
            + plan.get("Rows Removed by Index Recheck", 0)
        )
    return read + sum(_rows_read(child) for child in plan.get("Plans", []))


def test_postgresql_reads_only_the_listed_courses_rows(api: Api, api_app: Flask, backend: Backend) -> None:
    """Course A's rows are the oldest and course B's the newest: neither course's pages may walk the other's rows."""
    if backend.name != "postgresql":
        pytest.skip("reads the row counts of PostgreSQL's EXPLAIN ANALYZE")
    school, users = api.school, api.school.user_ids
    per_course = 3000
    a_assignments = (school.open_assignment, school.closed_assignment, school.practice_assignment)
    with get_db(api_app).session() as session:
        for owners in (
            [(users[("alice", "bob")[i % 2]], a_assignments[i % 3]) for i in range(per_course)],
            [(users["carol"], school.other_assignment)] * per_course,
        ):
            session.execute(
                insert(Submission),
                [
                    {
                        "user_id": user,
                        "assignment_id": assignment,
                        "exercise_id": SHIFT,
                        "seed": 0,
                        "lang": "en",
                        "raw_answer": ANSWER,
                        "status": "graded",
                    }
                    for user, assignment in owners
                ],
            )
        session.commit()
        a_ids = list(session.scalars(select(Submission.id).where(Submission.assignment_id.in_(a_assignments))))
        session.execute(text("ANALYZE submissions"))  # as autovacuum would soon after a class's data arrived
        session.commit()
    for who, query in (
        ("teacher", f"course={school.course_a}&limit=20"),
        ("teacher", f"course={school.course_a}&limit=20&before_id={a_ids[len(a_ids) // 2]}"),
        ("admin", f"course={school.course_a}&limit=20&status=graded&before_id={a_ids[-100]}"),
        ("teacher_b", f"course={school.course_b}&limit=20&after_id=0"),
        ("teacher", f"assignment={school.open_assignment}&limit=20"),
    ):
        with sql_sent(api_app) as sent:
            assert len(_listed(api, who, query)["submissions"]) == 20
        pages = [(s, p) for s, p in sent if "FROM submissions" in s and "LIMIT" in s and "count(" not in s]
        assert len(pages) == 1, sent
        with get_db(api_app).engine.connect() as connection:
            explained = connection.exec_driver_sql(
                f"EXPLAIN (ANALYZE, FORMAT JSON) {pages[0][0]}", pages[0][1]
            ).scalar()
        plan = explained[0]["Plan"] if isinstance(explained, list) else json.loads(explained)[0]["Plan"]
        # Each assignment gives at most a page and one row, and the page is then read by id (~100 rows in all);
        # walking the primary key or scanning the table would read the other course's 3,000 rows.
        assert _rows_read(plan) <= 500, (query, json.dumps(plan, indent=1)[:6000])
