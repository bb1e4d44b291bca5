"""The OpenAPI document and the server agree where schemathesis found them apart: a null seed, an integer written
as 1.0, an empty ?exercise= and the Idempotency-Key's characters. Each case is checked against both: what the
document's schema says of the value, and what the server does with it."""

from __future__ import annotations

from typing import Any

import jsonschema_rs
import pytest

from grader.api.openapi import document

from .support import Api, assert_error

SHIFT = "ch13.shift-pairs"


def _schema(api: Api, name: str) -> dict[str, Any]:
    return dict(document(api.client.application)["components"]["schemas"][name])


def _conforms(schema: dict[str, Any], value: Any) -> bool:
    return bool(jsonschema_rs.validator_for(schema).is_valid(value))


def _validate(api: Api, **fields: Any) -> Any:
    return api.post("/validate", "teacher", {"exercise_id": SHIFT, "answer": {}, **fields})


@pytest.mark.parametrize("schema_name", ["ValidateRequest", "SubmissionRequest"])
def test_a_null_seed_and_assignment_are_documented_and_read_as_absent(api: Api, schema_name: str) -> None:
    schema = _schema(api, schema_name)
    assert _conforms(schema, {"exercise_id": SHIFT, "answer": {}, "seed": None, "assignment_id": None})
    assert _validate(api, seed=None).status_code == 200
    assert _validate(api, seed=None).get_json() == _validate(api).get_json()


def test_an_integer_written_with_a_zero_fraction_is_an_integer(api: Api) -> None:
    assignment = api.school.practice_assignment
    assert _conforms(
        _schema(api, "ValidateRequest"), {"exercise_id": SHIFT, "answer": {}, "assignment_id": float(assignment)}
    )
    as_float = _validate(api, assignment_id=float(assignment), seed=7.0)
    assert as_float.status_code == 200
    assert as_float.get_json() == _validate(api, assignment_id=assignment, seed=7).get_json()


@pytest.mark.parametrize(("field", "value"), [("assignment_id", 1.5), ("seed", 2.5), ("seed", float(2**60))])
def test_other_floats_are_still_refused_naming_the_field(api: Api, field: str, value: float) -> None:
    assert_error(_validate(api, **{field: value}), 422, field=field)


def test_an_empty_exercise_filter_is_outside_the_document_and_refused(api: Api) -> None:
    listing = document(api.client.application)["paths"]["/api/v1/submissions"]["get"]
    exercise = next(p for p in listing["parameters"] if p["name"] == "exercise")["schema"]
    assert not _conforms(exercise, "") and _conforms(exercise, SHIFT)
    assert_error(api.get("/submissions?exercise=", "teacher"), 400, "invalid_parameter", "exercise")
    assert api.get(f"/submissions?exercise={SHIFT}", "teacher").status_code == 200


@pytest.mark.parametrize(
    ("key", "accepted"),
    [
        ("k-1", True),
        ("a key with spaces", True),
        ("~!x", True),
        (" leading", False),
        ("trailing ", False),
        ("tab\there", False),
        ("é", False),
        ("x" * 129, False),
    ],
)
def test_the_idempotency_key_pattern_is_what_the_server_accepts(api: Api, key: str, accepted: bool) -> None:
    submit = document(api.client.application)["paths"]["/api/v1/submissions"]["post"]
    schema = next(p for p in submit["parameters"] if p["name"] == "Idempotency-Key")["schema"]
    assert _conforms(schema, key) is accepted
    body = {"exercise_id": SHIFT, "answer": {}, "seed": 0}
    answer = api.post("/submissions", "teacher", body, headers={"Idempotency-Key": key})
    if accepted:
        assert answer.status_code in (201, 202, 422), answer.get_data(as_text=True)
    else:
        assert_error(answer, 400, "invalid_header", "Idempotency-Key")
