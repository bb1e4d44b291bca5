"""Who sees what: students their own work, teachers their courses, admins everything; tokens never exceed owners."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from exercises import api as engine
from grader.auth_session import SESSION_USER_KEY
from grader.extensions import get_db
from grader.models import ApiToken
from grader.security import find_live_token
from grader.ui.csrf import CSRF_HEADER, CSRF_SESSION_KEY

from .support import Api, assert_error

SHIFT = "ch13.shift-pairs"
ANSWER = {"pairs": "BOS→red", "bos_scored": "no", "eos_scored": "yes", "scored_count": "1"}


def _submit(api: Api, who: str, **extra: Any) -> int:
    """Submit a readable answer as ``who``; returns the new id."""
    response = api.post("/submissions", who, {"exercise_id": SHIFT, "answer": ANSWER, **extra})
    assert response.status_code == 202, response.get_json()
    return response.get_json()["id"]


def test_student_cannot_read_another_students_submission(api: Api) -> None:
    alices = _submit(api, "alice", assignment_id=api.school.open_assignment)
    assert api.get(f"/submissions/{alices}", "alice").status_code == 200
    assert_error(api.get(f"/submissions/{alices}", "bob"), 404, "not_found")
    assert_error(api.get(f"/submissions/{alices}?wait=0.2", "bob"), 404, "not_found")


def test_teacher_reads_own_course_only(api: Api) -> None:
    alices = _submit(api, "alice", assignment_id=api.school.open_assignment)
    assert api.get(f"/submissions/{alices}", "teacher").status_code == 200
    assert_error(api.get(f"/submissions/{alices}", "teacher_b"), 404, "not_found")
    assert api.get(f"/submissions/{alices}", "admin").status_code == 200
    assert_error(api.get(f"/submissions/{alices}", "teacher_as_student"), 404)


def test_students_submit_to_an_assignment(api: Api) -> None:
    # Outside an assignment nothing would limit the attempts, and the per-part verdicts on the student's own
    # variant would give away what the assignment's attempts and key rule protect.
    response = api.post("/submissions", "alice", {"exercise_id": SHIFT, "answer": ANSWER})
    assert_error(response, 422, "missing_field", "assignment_id")
    assert_error(
        api.post("/submissions", "teacher_as_student", {"exercise_id": SHIFT, "answer": ANSWER}),
        422,
        "missing_field",
        "assignment_id",
    )
    assert api.get("/submissions", "admin").get_json()["total"] == 0
    # Staff may still try answers outside any assignment (their own, private to them).
    staff = _submit(api, "teacher", seed=0)
    assert_error(api.get(f"/submissions/{staff}", "teacher_b"), 404)


def test_students_never_get_an_answer_key_before_the_rule_allows(api: Api) -> None:
    first = _submit(api, "alice", assignment_id=api.school.open_assignment)
    mine = api.get(f"/submissions/{first}", "alice").get_json()
    assert "answer_key" not in mine and "seed" not in mine and "seed_text" not in mine
    teacher_view = api.get(f"/submissions/{first}", "teacher").get_json()
    assert teacher_view["answer_key"] == engine.answer_key(SHIFT, teacher_view["seed"])
    # The seed as text too: student seeds pass 2**53, where JSON.parse in a JavaScript client would change them.
    assert teacher_view["seed"] > 2**53 and teacher_view["seed_text"] == str(teacher_view["seed"])
    (row,) = [r for r in api.get("/submissions", "teacher").get_json()["submissions"] if r["id"] == first]
    assert row["seed_text"] == teacher_view["seed_text"]
    assert "seed_text" not in api.get("/submissions", "alice").get_json()["submissions"][0]


def test_own_variant_is_stable_personal_and_keyless(api: Api) -> None:
    alice = api.get(f"/exercises/{SHIFT}/variant", "alice").get_json()
    assert api.get(f"/exercises/{SHIFT}/variant", "alice").get_json() == alice
    assert "seed" not in alice
    assert set(alice) == {"exercise_id", "engine_version", "lang", "data", "prompt", "fields"}
    teacher = api.get(f"/exercises/{SHIFT}/variant", "teacher").get_json()
    assert teacher == engine.variant(SHIFT, teacher["seed"], "zh")


def test_a_student_has_no_variant_of_an_exercise_none_of_their_assignments_sets(api: Api) -> None:
    # Seeds belong to the user and the exercise: seen now, it is the variant a later assignment would set.
    unassigned = "ch09.rnn-step"
    assert unassigned not in api.get(f"/exercises/{SHIFT}/variant", "alice").get_json()["exercise_id"]
    assert_error(api.get(f"/exercises/{unassigned}/variant", "alice"), 404, "not_found", "exercise_id")
    preview = {"exercise_id": unassigned, "answer": {"pre_activation": "[0, 0]", "h": "[0, 0]"}}
    assert_error(api.post("/validate", "alice", preview), 404, "not_found", "exercise_id")
    assert api.get(f"/exercises/{unassigned}/variant", "teacher").status_code == 200  # staff try anything


def test_teacher_fetches_any_variant_as_the_engine_prints_it(api: Api) -> None:
    response = api.get(f"/exercises/{SHIFT}/variants/0?lang=en", "teacher")
    assert response.get_json() == engine.variant(SHIFT, 0, "en")
    assert api.get(f"/exercises/{SHIFT}/variants/7", "admin").get_json() == engine.variant(SHIFT, 7, "zh")


def test_listing_is_scoped_and_filtered(api: Api, worker: Any) -> None:
    ids = {who: _submit(api, who, assignment_id=api.school.open_assignment) for who in ("alice", "bob")}
    carols = _submit(api, "carol", assignment_id=api.school.other_assignment)
    assert [row["id"] for row in api.get("/submissions", "alice").get_json()["submissions"]] == [ids["alice"]]
    teacher_rows = api.get("/submissions", "teacher").get_json()
    assert {row["id"] for row in teacher_rows["submissions"]} == set(ids.values())
    bob_id = api.school.user_ids["bob"]
    only_bob = api.get(f"/submissions?student={bob_id}&course={api.school.course_a}", "teacher").get_json()
    assert [row["id"] for row in only_bob["submissions"]] == [ids["bob"]]
    assert api.get("/submissions?exercise=ch09.rnn-step", "teacher").get_json()["total"] == 0
    for submission_id in (*ids.values(), carols):  # settle every grade so the status filter has a fixed answer
        assert api.get(f"/submissions/{submission_id}?wait=10", "admin").get_json()["status"] == "graded"
    assert api.get("/submissions?status=graded&limit=1", "admin").get_json()["total"] == 3
    assert api.get("/submissions?status=queued", "admin").get_json()["total"] == 0
    assert api.get("/submissions?limit=1&offset=1", "admin").get_json()["submissions"][0]["id"] == ids["bob"]
    # teacher_b teaches course B: carol's submission there, none of course A's.
    assert {row["id"] for row in api.get("/submissions", "teacher_b").get_json()["submissions"]} == {carols}


def test_progress_own_and_by_teacher(api: Api, worker: Any) -> None:
    assignment = api.school.open_assignment
    submitted = _submit(api, "alice", assignment_id=assignment)
    # Wait for the worker so the progress read below sees a settled grade, not a race with it.
    graded = api.get(f"/submissions/{submitted}?wait=10", "alice").get_json()
    assert graded["status"] == "graded", graded
    own = api.get(f"/assignments/{assignment}/progress", "alice").get_json()
    assert own["student"]["username"] == "alice"
    assert own["exercises"][0] == {
        "exercise_id": SHIFT,
        "attempts_used": 1,
        "attempts_left": 1,
        "score": graded["score"],
        "best_score": graded["score"],
        "last_score": graded["score"],
        "last_status": "graded",
        "override": None,
        "late": None,
    }
    alice_id = api.school.user_ids["alice"]
    by_teacher = api.get(f"/assignments/{assignment}/progress?student={alice_id}", "teacher").get_json()
    assert by_teacher["exercises"] == own["exercises"]
    assert_error(api.get(f"/assignments/{assignment}/progress?student={alice_id}", "bob"), 403, field="student")
    assert_error(api.get(f"/assignments/{assignment}/progress", "teacher_b"), 404)
    assert_error(api.get(f"/assignments/{assignment}/progress", "carol"), 404)


def test_me_and_courses(api: Api) -> None:
    me = api.get("/me", "teacher_as_student").get_json()
    assert (me["username"], me["role"], me["account_role"], me["auth"]) == ("teacher", "student", "teacher", "token")
    courses = api.get("/courses?lang=en", "alice").get_json()["courses"]
    assert [(c["code"], c["role"]) for c in courses] == [("A", "student")]
    assert (courses[0]["time_zone"], courses[0]["archived_at"], courses[0]["session_hours"]) == ("UTC", None, None)
    assert [a["title"] for a in courses[0]["assignments"]] == ["open", "closed", "future", "practice"]
    assert [c["code"] for c in api.get("/courses", "admin").get_json()["courses"]] == ["A", "B"]


def test_revoked_token_is_refused(api: Api) -> None:
    with get_db(api.client.application).session() as session:
        live = find_live_token(session, api.school.tokens["alice"])
        assert live is not None
        token = session.get(ApiToken, live.token_id)
        assert token is not None
        token.revoked_at = datetime.now(UTC)
        session.commit()
    assert_error(api.get("/me", "alice"), 401, "invalid_token")


def test_session_cookie_works_and_needs_csrf_for_posts(api: Api) -> None:
    with api.client.session_transaction() as cookie_session:
        cookie_session[SESSION_USER_KEY] = api.school.user_ids["alice"]
    assert api.client.get("/api/v1/me").get_json()["auth"] == "session"
    body = {"exercise_id": SHIFT, "answer": ANSWER, "lang": "en"}
    assert_error(api.client.post("/api/v1/validate", json=body), 403, "csrf_failed")  # grader/web/api_csrf.py
    with api.client.session_transaction() as cookie_session:
        cookie_session[CSRF_SESSION_KEY] = "t0ken"
    response = api.client.post("/api/v1/validate", json=body, headers={CSRF_HEADER: "t0ken"})
    assert response.status_code == 200 and response.get_json()["status"] == "valid"


def test_idempotent_retry_returns_the_first_submission(api: Api) -> None:
    body = {"exercise_id": SHIFT, "answer": ANSWER, "assignment_id": api.school.practice_assignment}
    first = api.post("/submissions", "alice", body, headers={"Idempotency-Key": "retry-1"})
    again = api.post("/submissions", "alice", body, headers={"Idempotency-Key": "retry-1"})
    assert (first.status_code, again.status_code) == (202, 200)
    assert again.get_json()["id"] == first.get_json()["id"]
    assert again.headers["Idempotent-Replayed"] == "true"
    # Keys are per user: bob's identical key creates bob's own submission.
    bobs = api.post("/submissions", "bob", body, headers={"Idempotency-Key": "retry-1"})
    assert bobs.status_code == 202 and bobs.get_json()["id"] != first.get_json()["id"]
    assert api.get("/submissions", "admin").get_json()["total"] == 2


def test_validate_returns_the_engines_reading(api: Api) -> None:
    answer = {"pairs": "BOS→red, red→句号", "bos_scored": "否", "eos_scored": "maybe", "scored_count": "2"}
    response = api.post("/validate", "alice", {"exercise_id": SHIFT, "answer": answer, "lang": "en"})
    assert response.status_code == 200
    assert response.get_json() == engine.validate(SHIFT, answer, "en")
    assert response.get_json()["status"] == "invalid"
    assert api.get("/submissions", "alice").get_json()["total"] == 0
