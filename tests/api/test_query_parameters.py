"""GET routes refuse query parameters they do not read, and ones sent twice: a typo (the body's ``assignment_id``
for the listing's ``assignment``) would otherwise answer with unfiltered rows, and of a repeated one only the first
would count."""

from __future__ import annotations

from typing import Any

import pytest

from .support import Api, assert_error

SHIFT = "ch13.shift-pairs"
ANSWER = {"pairs": "BOS→red", "bos_scored": "no", "eos_scored": "yes", "scored_count": "1"}


def _submission(api: Api) -> int:
    """A submission of alice's (the one route with an id in its path needs one)."""
    body = {"exercise_id": SHIFT, "answer": ANSWER, "assignment_id": api.school.practice_assignment}
    response = api.post("/submissions", "alice", body)
    assert response.status_code == 202, response.get_json()
    return int(response.get_json()["id"])


def _get_routes(api: Api) -> dict[str, tuple[str, str]]:
    """Every API GET route: a path to it, who calls it, and one query parameter it reads (or none)."""
    return {
        "openapi_json": ("/openapi.json", ""),
        "me": ("/me", ""),
        "courses": ("/courses", "lang"),
        "exercises": ("/exercises", ""),
        "own_variant": (f"/exercises/{SHIFT}/variant", "lang"),
        "any_variant": (f"/exercises/{SHIFT}/variants/0", "lang"),
        "get_submission": (f"/submissions/{_submission(api)}", "wait"),
        "list_submissions": ("/submissions", "limit"),
        "assignment_progress": (f"/assignments/{api.school.open_assignment}/progress", "lang"),
        "assignment_grades": (f"/assignments/{api.school.open_assignment}/grades", "limit"),
        "course_students": (f"/courses/{api.school.course_a}/students", "limit"),
        "grade_changes": ("/grade-changes", "limit"),
        "list_extensions": (f"/assignments/{api.school.open_assignment}/extensions", ""),
        "list_overrides": (f"/assignments/{api.school.open_assignment}/overrides", ""),
        "admin_users": ("/admin/users", "q"),
        "list_staff": (f"/courses/{api.school.course_a}/staff", ""),
        "get_staff": (f"/courses/{api.school.course_a}/staff/teacher", ""),
    }


def _caller(name: str) -> str:
    """Who calls a route in these tests: a teacher, but an administrator where only one may."""
    return "admin" if name.startswith("admin_") else "teacher"


def test_every_get_route_is_covered_here(api: Api) -> None:
    routes = {
        rule.endpoint.removeprefix("api_v1.")
        for rule in api.client.application.url_map.iter_rules()
        if rule.rule.startswith("/api/v1/") and "GET" in (rule.methods or ())
    }
    assert routes == set(_get_routes(api))


def test_every_get_route_refuses_an_unknown_parameter(api: Api) -> None:
    for name, (path, _) in _get_routes(api).items():
        error = assert_error(api.get(f"{path}?colour=red", _caller(name)), 400, "unknown_parameter", "colour")
        assert "colour" in error["message"], name


def test_every_get_route_refuses_a_repeated_parameter(api: Api) -> None:
    for name, (path, known) in _get_routes(api).items():
        if known:
            value = "1" if known in ("wait", "limit") else "en"
            assert_error(
                api.get(f"{path}?{known}={value}&{known}={value}", _caller(name)), 400, "repeated_parameter", known
            )


def test_every_get_route_refuses_an_empty_parameter(api: Api) -> None:
    """``?course=`` is a blank setting, not "no filter": answered with every course's rows it would leak a sync."""
    for name, (path, known) in _get_routes(api).items():
        if known:
            error = assert_error(api.get(f"{path}?{known}=", _caller(name)), 400, "invalid_parameter", known)
            assert "empty" in error["message"], name
    for query in ("course=", "assignment=", "after_id=", "course"):
        assert_error(api.get(f"/grade-changes?{query}", "teacher"), 400, "invalid_parameter", query.rstrip("="))


@pytest.mark.parametrize(
    "query, field",
    [
        ("assignment_id=3", "assignment_id"),
        ("student_id=3", "student_id"),
        ("course_id=1", "course_id"),
        ("limit=1&limit=500", "limit"),
        ("limit=500&limit=1", "limit"),
        ("exercise=a&exercise=b", "exercise"),
        ("status=graded&status=queued", "status"),
        ("course=&course=", "course"),
        ("lang=en", "lang"),
    ],
)
def test_the_listing_refuses_typos_and_repeats(api: Api, query: str, field: str) -> None:
    _submission(api)
    assert_error(api.get(f"/submissions?{query}", "alice"), 400, field=field)


def test_a_body_field_name_gets_a_hint(api: Api) -> None:
    error = assert_error(api.get("/submissions?assignment_id=3", "alice"), 400, "unknown_parameter", "assignment_id")
    assert "'assignment'" in error["message"]


def test_an_odd_name_is_echoed_back_escaped_and_short(api: Api) -> None:
    error = assert_error(api.get("/me?a%00b=1", "alice"), 400, "unknown_parameter")
    assert "\x00" not in error["field"] and "\x00" not in error["message"]
    long_name = "x" * 5000
    error = assert_error(api.get(f"/me?{long_name}=1", "alice"), 400, "unknown_parameter")
    assert len(error["message"]) < 200


@pytest.mark.parametrize(
    "path, query",
    [
        ("/courses", "lang=en"),
        (
            "/submissions",
            "course={course}&assignment={assignment}&student={student}&exercise="
            f"{SHIFT}&status=queued&limit=5&offset=0",
        ),
        ("/submissions", "before_id=10"),
        ("/submissions", "after_id=0"),
        ("/assignments/{assignment}/progress", "student={student}&lang=en"),
        (f"/exercises/{SHIFT}/variant", "lang=en"),
    ],
)
def test_the_parameters_each_route_reads_still_work(api: Api, path: str, query: str) -> None:
    ids: dict[str, Any] = {
        "course": api.school.course_a,
        "assignment": api.school.open_assignment,
        "student": api.school.user_ids["alice"],
    }
    response = api.get(f"{path.format(**ids)}?{query.format(**ids)}", "alice")
    assert response.status_code == 200, response.get_json()


def test_anonymous_callers_hear_401_first(api: Api) -> None:
    assert_error(api.get("/me?colour=red", None), 401)


@pytest.mark.parametrize("path", ["/submissions", "/validate"])
@pytest.mark.parametrize(
    "query, field", [("seed=5", "seed"), ("assignment_id=3", "assignment_id"), ("wait=1&wait=1", "wait")]
)
def test_the_post_routes_refuse_query_parameters(api: Api, path: str, query: str, field: str) -> None:
    # Found by an audit: a teacher who put the seed in the URL got a reading of no variant (the query was ignored).
    body = {"exercise_id": SHIFT, "answer": ANSWER, "assignment_id": api.school.practice_assignment}
    before = api.get("/submissions", "alice").get_json()["total"]
    assert_error(api.post(f"{path}?{query}", "alice", body), 400, "unknown_parameter", field)
    assert api.get("/submissions", "alice").get_json()["total"] == before  # nothing stored


def test_a_json_key_given_twice_is_refused_naming_it(api: Api) -> None:
    # Parsers disagree on which of two values wins; the last one won here, silently.
    practice = api.school.practice_assignment
    raw = (
        f'{{"exercise_id": "{SHIFT}", "assignment_id": 999999, "assignment_id": {practice}, "answer": '
        '{"pairs": "BOS→red", "pairs": "BOS→blue"}}'
    )
    error = assert_error(api.post("/submissions", "alice", raw=raw), 422, "invalid_value", "assignment_id")
    assert "more than once" in error["message"]
    nested = f'{{"exercise_id": "{SHIFT}", "assignment_id": {practice}, "answer": {{"pairs": "a", "pairs": "b"}}}}'
    assert_error(api.post("/validate", "alice", raw=nested), 422, "invalid_value", "answer.pairs")


def test_a_null_seed_from_a_student_is_no_seed(api: Api) -> None:
    # null means "absent" for every other optional field; a client that sends unset fields as null was refused.
    body = {"exercise_id": SHIFT, "answer": ANSWER, "assignment_id": api.school.practice_assignment, "seed": None}
    assert api.post("/submissions", "alice", body).status_code == 202
    assert_error(api.post("/submissions", "alice", {**body, "seed": 0}), 403, "seed_not_allowed", "seed")
