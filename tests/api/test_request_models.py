"""The request models are the API's one declaration of what a route reads: strict, closed to unknown fields, their
refusals mapped to our error envelope (first field in declared order, our code and message, the field named), and
the bounds the document shows are the bounds the checks apply."""

from __future__ import annotations

from typing import Any

import pytest

from grader.api import schemas_course, schemas_roster, schemas_submissions
from grader.api.openapi_common import query_params
from grader.api.schemas_base import ApiModel, QueryModel, validated
from grader.api_errors import ApiError

SHIFT = "ch13.shift-pairs"
MODELS = [
    value
    for module in (schemas_submissions, schemas_course, schemas_roster)
    for value in vars(module).values()
    if isinstance(value, type) and issubclass(value, ApiModel) and value.__module__ == module.__name__
]


def _refusal(model: type[ApiModel], values: dict[str, Any]) -> ApiError:
    with pytest.raises(ApiError) as raised:
        validated(model, values)
    return raised.value


@pytest.mark.parametrize("model", MODELS, ids=[m.__name__ for m in MODELS])
def test_every_model_is_strict_and_closed(model: type[ApiModel]) -> None:
    assert model.model_config.get("extra") == "forbid" and model.model_config.get("strict") is True
    assert model.model_json_schema().get("additionalProperties") is False


def test_a_refusal_keeps_our_code_message_and_field() -> None:
    error = _refusal(schemas_submissions.SubmissionRequest, {"exercise_id": SHIFT, "answer": []})
    assert (error.status, error.code, error.field) == (422, "invalid_type", "answer")
    assert error.message == "Field 'answer' must be a JSON object {field: value}."  # braces are not a template


def test_the_first_refusal_is_the_first_field_in_declared_order() -> None:
    error = _refusal(schemas_submissions.SubmissionRequest, {"answer": 5, "seed": "x"})
    assert (error.code, error.field, error.message) == (
        "missing_field",
        "exercise_id",
        "Field 'exercise_id' is required.",
    )
    error = _refusal(schemas_submissions.SubmissionRequest, {"exercise_id": "ch99.nope", "answer": 5})
    assert (error.code, error.field) == ("unknown_exercise", "exercise_id")


def test_a_field_can_say_what_its_absence_is() -> None:
    error = _refusal(schemas_course.OverrideRequest, {"reason": "typo"})
    assert (error.code, error.field, error.message) == (
        "invalid_type",
        "score",
        "Field 'score' must be a number from 0 to 1.",
    )


def test_a_refusal_inside_a_list_names_the_row() -> None:
    error = _refusal(schemas_roster.RosterRequest, {"students": [{"username": "ann"}, {"username": 5}]})
    assert (error.code, error.field, error.message) == (
        "invalid_type",
        "students[1].username",
        "Field 'students[1].username' must be a string.",
    )


def test_a_rule_over_two_parameters_names_the_one_it_blames() -> None:
    error = _refusal(schemas_submissions.SubmissionListQuery, {"before_id": "3", "after_id": "4"})
    assert (error.status, error.code, error.field) == (400, "invalid_parameter", "after_id")
    error = _refusal(schemas_submissions.SubmissionListQuery, {"offset": "5", "before_id": "3"})
    assert error.field == "offset" and "'before_id'" in error.message


def test_a_query_value_is_read_from_text() -> None:
    query = validated(schemas_submissions.SubmissionListQuery, {"limit": "7", "status": "graded", "exercise": SHIFT})
    assert (query.limit, query.offset, query.status, query.exercise) == (7, 0, "graded", SHIFT)
    assert validated(schemas_submissions.SubmissionQuery, {"wait": "2.5"}).wait == 2.5


QUERY_MODELS = [m for m in MODELS if issubclass(m, QueryModel)]


@pytest.mark.parametrize("model", QUERY_MODELS, ids=[m.__name__ for m in QUERY_MODELS])
def test_documented_bounds_are_the_checked_bounds(model: type[QueryModel]) -> None:
    for parameter in query_params(model):
        name, schema = parameter["name"], parameter["schema"]
        if schema.get("type") == "integer":
            assert validated(model, {name: str(schema["maximum"])})
            assert validated(model, {name: str(schema["minimum"])})
            for outside in (schema["maximum"] + 1, schema["minimum"] - 1):
                assert _refusal(model, {name: str(outside)}).field == name
        elif "enum" in schema:
            for choice in schema["enum"]:
                assert validated(model, {name: choice})
            assert _refusal(model, {name: "nope"}).field == name
        elif "maxLength" in schema:
            assert validated(model, {name: "x" * schema["maxLength"]})
            assert _refusal(model, {name: "x" * (schema["maxLength"] + 1)}).field == name


def test_documented_body_bounds_are_the_checked_bounds() -> None:
    schema = schemas_submissions.SubmissionRequest.model_json_schema()["properties"]["seed"]
    body = {"exercise_id": SHIFT, "answer": {}}
    assert (
        validated(schemas_submissions.SubmissionRequest, {**body, "seed": schema["maximum"]}).seed == schema["maximum"]
    )
    error = _refusal(schemas_submissions.SubmissionRequest, {**body, "seed": schema["maximum"] + 1})
    assert (error.code, error.field) == ("invalid_value", "seed")
