"""Every error status once, each with the shared JSON body naming the code and, where one is at fault, the field."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from flask import Flask
from sqlalchemy import func, select

from exercises import api as engine
from grader import create_app
from grader.extensions import get_db
from grader.models import VariantAssignment

from .support import Api, assert_error, set_exercises

SHIFT = "ch13.shift-pairs"
BOOK = {"pairs": "BOS→blue, blue→door, door→., .→EOS", "bos_scored": "no", "eos_scored": "yes", "scored_count": "4"}


def _count(api: Api, who: str) -> int:
    """How many submissions ``who`` can list."""
    return api.get("/submissions", who).get_json()["total"]


def test_400_malformed_json(api: Api) -> None:
    assert_error(
        api.post("/submissions", "alice", raw='{"exercise_id": "ch13', content_type="application/json"),
        400,
        "invalid_json",
    )


def test_400_body_not_an_object(api: Api) -> None:
    assert_error(api.post("/validate", "alice", body=[1, 2]), 400, "invalid_json")


def test_400_wait_not_a_number_or_out_of_range(api: Api) -> None:
    created = api.post(
        "/submissions", "alice", {"exercise_id": SHIFT, "answer": BOOK, "assignment_id": api.school.practice_assignment}
    ).get_json()
    for wait in ("soon", "11", "-1", "nan", "inf"):
        assert_error(api.get(f"/submissions/{created['id']}?wait={wait}", "alice"), 400, "invalid_parameter", "wait")


def test_400_bad_listing_parameters(api: Api) -> None:
    assert_error(api.get("/submissions?limit=0", "alice"), 400, field="limit")
    assert_error(api.get("/submissions?status=done", "alice"), 400, field="status")
    assert_error(api.get("/submissions?course=x", "alice"), 400, field="course")


def test_400_bad_seed_in_path(api: Api) -> None:
    assert_error(api.get(f"/exercises/{SHIFT}/variants/abc", "teacher"), 400, field="seed")
    assert_error(api.get(f"/exercises/{SHIFT}/variants/{2**63}", "teacher"), 400, field="seed")


def test_400_bad_idempotency_key(api: Api) -> None:
    response = api.post(
        "/submissions", "alice", {"exercise_id": SHIFT, "answer": BOOK}, headers={"Idempotency-Key": "x" * 129}
    )
    assert_error(response, 400, "invalid_header", "Idempotency-Key")


def test_401_without_credentials_and_with_a_bad_token(api: Api) -> None:
    error = assert_error(api.get("/me", None), 401, "unauthenticated")
    assert error["field"] is None
    response = api.client.get("/api/v1/me", headers={"Authorization": "Bearer grd_not-a-token"})
    assert_error(response, 401, "invalid_token")
    assert response.headers["WWW-Authenticate"].startswith("Bearer")
    assert_error(api.client.get("/api/v1/me", headers={"Authorization": "Basic abc"}), 401, "invalid_token")


def test_403_student_may_not_fetch_variants_by_seed_or_send_a_seed(api: Api) -> None:
    assert_error(api.get(f"/exercises/{SHIFT}/variants/0", "alice"), 403, "forbidden")
    assert_error(api.get(f"/exercises/{SHIFT}/variants/0", "teacher_as_student"), 403, "forbidden")
    response = api.post("/submissions", "alice", {"exercise_id": SHIFT, "answer": BOOK, "seed": 0})
    assert_error(response, 403, "seed_not_allowed", "seed")
    assert _count(api, "alice") == 0


def test_403_closed_and_future_assignments(api: Api) -> None:
    body = {"exercise_id": SHIFT, "answer": BOOK}
    assert_error(
        api.post("/submissions", "alice", body | {"assignment_id": api.school.closed_assignment}), 403, "past_due"
    )
    assert_error(
        api.post("/submissions", "alice", body | {"assignment_id": api.school.future_assignment}), 403, "not_open"
    )
    assert _count(api, "alice") == 0


def test_another_courses_assignment_looks_like_a_missing_one(api: Api) -> None:
    body = {"exercise_id": SHIFT, "answer": BOOK, "assignment_id": api.school.other_assignment}
    missing = api.post("/submissions", "alice", body | {"assignment_id": 999999})
    response = api.post("/submissions", "alice", body)
    assert_error(response, 404, "no_such_assignment", "assignment_id")
    assert response.get_json() == missing.get_json()
    assert _count(api, "alice") == 0


def test_404_unknown_route_submission_exercise_and_assignment(api: Api) -> None:
    assert_error(api.get("/nowhere", "alice"), 404, "not_found")
    assert_error(api.get("/submissions/999999", "alice"), 404, "not_found")
    assert_error(api.get("/exercises/ch99.nope/variant", "alice"), 404, "not_found")
    assert_error(
        api.post("/submissions", "alice", {"exercise_id": SHIFT, "answer": BOOK, "assignment_id": 999999}),
        404,
        "no_such_assignment",
        "assignment_id",
    )


def test_405_wrong_method(api: Api) -> None:
    response = api.client.delete("/api/v1/submissions", headers=api.headers("alice"))
    assert_error(response, 405, "method_not_allowed")
    assert "POST" in response.headers["Allow"]


def test_409_idempotency_key_reused_for_another_body(api: Api) -> None:
    headers = {"Idempotency-Key": "k-409"}
    body = {"exercise_id": SHIFT, "answer": BOOK, "assignment_id": api.school.practice_assignment}
    assert api.post("/submissions", "alice", body, headers=headers).status_code == 202
    other = body | {"answer": BOOK | {"scored_count": "3"}}
    assert_error(api.post("/submissions", "alice", other, headers=headers), 409, "idempotency_conflict")
    assert _count(api, "alice") == 1


def test_413_body_too_large(api: Api) -> None:
    huge = json.dumps(
        {"exercise_id": SHIFT, "answer": {"pairs": "x" * (api.client.application.config["MAX_CONTENT_LENGTH"])}}
    )
    assert_error(api.post("/submissions", "alice", raw=huge), 413, "payload_too_large")


def test_415_not_json(api: Api) -> None:
    response = api.post("/submissions", "alice", raw="exercise_id=x", content_type="application/x-www-form-urlencoded")
    assert_error(response, 415, "unsupported_media_type", "Content-Type")


@pytest.mark.parametrize(
    ("raw", "field", "code"),
    [
        ('{"exercise_id": "ch13.shift-pairs", "answer": "blue door"}', "answer", "invalid_type"),
        ('{"exercise_id": "ch13.shift-pairs", "answer": [1]}', "answer", "invalid_type"),
        ('{"exercise_id": 7, "answer": {}}', "exercise_id", "invalid_type"),
        ('{"exercise_id": "ch99.nope", "answer": {}}', "exercise_id", "unknown_exercise"),
        ('{"answer": {}}', "exercise_id", "missing_field"),
        ('{"exercise_id": "ch13.shift-pairs", "answer": {}, "lang": "fr"}', "lang", "invalid_value"),
        ('{"exercise_id": "ch13.shift-pairs", "answer": {}, "assignment_id": "1"}', "assignment_id", "invalid_type"),
        ('{"exercise_id": "ch13.shift-pairs", "answer": {}, "assignment_id": true}', "assignment_id", "invalid_type"),
        ('{"exercise_id": "ch13.shift-pairs", "answer": {}, "colour": 1}', "colour", "unknown_field"),
        (
            '{"exercise_id": "ch13.shift-pairs", "answer": {"scored_count": NaN}}',
            "answer.scored_count",
            "invalid_value",
        ),
        (
            '{"exercise_id": "ch13.shift-pairs", "answer": {"scored_count": -Infinity}}',
            "answer.scored_count",
            "invalid_value",
        ),
        (
            '{"exercise_id": "ch13.shift-pairs", "answer": {"scored_count": 1e999}}',
            "answer.scored_count",
            "invalid_value",
        ),
        ('{"exercise_id": "ch13.shift-pairs", "answer": {"pairs": "a\\ud800b"}}', "answer.pairs", "invalid_value"),
        (
            '{"exercise_id": "ch13.shift-pairs", "answer": {"pairs": ["x", "\\u0000"]}}',
            "answer.pairs[1]",
            "invalid_value",
        ),
    ],
)
def test_422_wrong_types_and_odd_values_name_the_field(api: Api, raw: str, field: str, code: str) -> None:
    assert_error(api.post("/submissions", "alice", raw=raw), 422, code, field)
    assert_error(
        api.post("/submissions", "teacher", raw=raw.replace('"answer"', '"seed": 0, "answer"')), 422, code, field
    )
    assert _count(api, "alice") == 0


@pytest.mark.parametrize("seed", ['"0"', "1.5", "-1", str(2**63), "true"])
def test_422_bad_seed_from_a_teacher(api: Api, seed: str) -> None:
    raw = f'{{"exercise_id": "{SHIFT}", "answer": {{}}, "seed": {seed}}}'
    assert_error(api.post("/submissions", "teacher", raw=raw), 422, field="seed")


def test_422_unreadable_answer_uses_no_attempt(api: Api) -> None:
    body = {
        "exercise_id": SHIFT,
        "answer": BOOK | {"scored_count": "four-ish"},
        "assignment_id": api.school.open_assignment,
    }
    error = assert_error(api.post("/submissions", "alice", body), 422, "invalid_answer", "answer.scored_count")
    assert [e["field"] for e in error["errors"]] == ["scored_count"]
    assert _count(api, "alice") == 0
    progress = api.get(f"/assignments/{api.school.open_assignment}/progress", "alice").get_json()
    assert progress["exercises"][0]["attempts_used"] == 0


def test_400_invalid_utf8_and_absurd_nesting(api: Api) -> None:
    assert_error(api.post("/validate", "alice", raw=b'{"exercise_id": "\xff"}'), 400, "invalid_json")
    assert_error(api.post("/validate", "alice", raw="[" * 30000 + "]" * 30000), 400, "invalid_json")


def test_429_is_json_with_retry_after(api: Api) -> None:
    api.client.application.config["SUBMISSION_RATE_LIMIT"] = "2/minute"
    body = {"exercise_id": SHIFT, "answer": BOOK, "assignment_id": api.school.practice_assignment}
    assert [api.post("/submissions", "alice", body).status_code for _ in range(2)] == [202, 202]
    limited = api.post("/submissions", "alice", body)
    error = assert_error(limited, 429, "rate_limited")
    assert 1 <= int(limited.headers["Retry-After"]) <= 60
    assert error["retry_after"] == int(limited.headers["Retry-After"])
    assert _count(api, "alice") == 2
    assert api.post("/submissions", "bob", body).status_code == 202  # the limit is per user


def test_a_replay_is_answered_even_past_the_rate_limit(api: Api) -> None:
    api.client.application.config["SUBMISSION_RATE_LIMIT"] = "2/minute"
    body = {"exercise_id": SHIFT, "answer": BOOK, "assignment_id": api.school.practice_assignment}
    first = api.post("/submissions", "alice", body, headers={"Idempotency-Key": "lost-reply-1"})
    assert first.status_code == 202
    assert api.post("/submissions", "alice", body).status_code == 202
    assert_error(api.post("/submissions", "alice", body), 429, "rate_limited")  # a new submission is limited
    # The client whose reply was lost retries: it gets its stored submission back, not a 429.
    again = api.post("/submissions", "alice", body, headers={"Idempotency-Key": "lost-reply-1"})
    assert again.status_code == 200 and again.headers["Idempotent-Replayed"] == "true"
    assert again.get_json()["id"] == first.get_json()["id"]
    other = {**body, "answer": {**BOOK, "scored_count": "3"}}
    assert_error(
        api.post("/submissions", "alice", other, headers={"Idempotency-Key": "lost-reply-1"}),
        409,
        "idempotency_conflict",
    )
    assert _count(api, "alice") == 2


def test_500_is_json_without_a_stack_trace(tmp_path: Path) -> None:
    app: Flask = create_app(
        {
            "GRADER_ENV": "testing",
            "GRADER_DATA_DIR": str(tmp_path),
            "PROPAGATE_EXCEPTIONS": False,
            "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite'}",
            "CELERY_BROKER_URL": "memory://",
        }
    )

    def explode() -> str:
        raise RuntimeError("secret internal detail")

    app.add_url_rule("/api/v1/_explode", "explode", explode)
    response = app.test_client().get("/api/v1/_explode")
    assert_error(response, 500, "internal_error")
    assert "secret internal detail" not in response.get_data(as_text=True)


def test_validate_reads_a_submission_body_too(api: Api) -> None:
    # One body serves both calls: the live preview checks exactly what will be submitted.
    body = {"exercise_id": SHIFT, "answer": BOOK, "assignment_id": api.school.open_assignment, "lang": "en"}
    assert api.post("/validate", "alice", body).get_json()["status"] == "valid"
    assert api.post("/validate", "teacher", body | {"seed": 3}).get_json()["status"] == "valid"
    assert_error(api.post("/validate", "alice", body | {"assignment_id": "x"}), 422, "invalid_type", "assignment_id")
    assert_error(api.post("/validate", "alice", body | {"colour": 1}), 422, "unknown_field", "colour")


def test_too_few_letters_for_the_concept_check_are_a_422_on_the_callers_own_variant(api: Api) -> None:
    set_exercises(api.client.application, api.school.practice_assignment, ["l03.concept-check"])
    body = {
        "exercise_id": "l03.concept-check",
        "answer": {"choices": "a, b, c"},
        "lang": "en",
        "assignment_id": api.school.practice_assignment,
    }
    error = assert_error(api.post("/submissions", "alice", body), 422, "invalid_answer", "answer.choices")
    assert error["message"].startswith("Expected 6 entries (one per item), read 3")  # alice's variant has 6 items
    assert _count(api, "alice") == 0  # nothing stored, no attempt used
    preview = api.post("/validate", "alice", body).get_json()
    assert preview["status"] == "invalid" and preview["errors"][0]["message"] == error["message"]
    # Staff preview the variant they name; the book variant (seed 0) has 8 items.
    teacher_preview = api.post("/validate", "teacher", body | {"seed": 0}).get_json()
    assert teacher_preview["errors"][0]["message"].startswith("Expected 8 entries")
    assert api.post("/validate", "teacher", body).get_json()["status"] == "valid"  # no seed: the text alone


def test_the_preview_looks_up_a_students_variant_only_when_the_reading_needs_it(api: Api) -> None:
    assert engine.reads_per_variant("l03.concept-check") and not engine.reads_per_variant(SHIFT)

    def variants_of_alice() -> int:
        with get_db(api.client.application).session() as session:
            return (
                session.scalar(
                    select(func.count())
                    .select_from(VariantAssignment)
                    .where(VariantAssignment.user_id == api.school.user_ids["alice"])
                )
                or 0
            )

    set_exercises(api.client.application, api.school.practice_assignment, ["l03.concept-check"])
    before = variants_of_alice()
    assert api.post("/validate", "alice", {"exercise_id": SHIFT, "answer": BOOK}).get_json()["status"] == "valid"
    assert variants_of_alice() == before  # a shift-pairs preview as she types needs no variant
    api.post("/validate", "alice", {"exercise_id": "l03.concept-check", "answer": {"choices": "a, b"}})
    assert variants_of_alice() == before + 1  # the concept check's letter count does


def test_the_capacity_lab_is_listed_and_says_why_it_has_no_variant(api: Api) -> None:
    # The listing shows it (graded: false); its variant and a submission to it were "unknown exercise", unexplained.
    assert {"id": "l03.capacity-lab", "graded": False}.items() <= next(
        e for e in api.get("/exercises", "teacher").get_json()["exercises"] if e["id"] == "l03.capacity-lab"
    ).items()
    error = assert_error(api.get("/exercises/l03.capacity-lab/variants/0", "teacher"), 404, "not_found")
    assert "not graded" in error["message"]
    error = assert_error(
        api.post("/validate", "teacher", {"exercise_id": "l03.capacity-lab", "answer": {}}),
        422,
        "unknown_exercise",
        "exercise_id",
    )
    assert "not graded" in error["message"]
    assert "not graded" not in assert_error(api.get("/exercises/ch99.nothing/variants/0", "teacher"), 404)["message"]


def test_options_answers_with_the_allow_header_as_documented(api: Api) -> None:
    response = api.client.options("/api/v1/submissions")
    assert response.status_code == 200 and response.get_data() == b""
    assert set(response.headers["Allow"].replace(" ", "").split(",")) >= {"GET", "POST"}
    assert (
        "OPTIONS answers 200 with the Allow header" in api.get("/openapi.json", None).get_json()["info"]["description"]
    )
