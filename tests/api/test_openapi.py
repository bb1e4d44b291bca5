"""The OpenAPI document is valid JSON and describes every registered /api/v1 route and method."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path
from typing import Any

import pytest
from flask import Flask

from grader.api import body
from grader.api.openapi_common import CONVERTER_SCHEMAS, openapi_path, query_params
from grader.api.schemas_course import ExtensionRequest, OverrideRequest
from grader.api.schemas_roster import AccountChange, RosterRequest, SignInLinksRequest
from grader.api.schemas_staff import StaffRequest
from grader.api.schemas_submissions import SubmissionRequest, ValidateRequest
from grader.api_errors import BLUEPRINT, ApiError
from grader.auth_session import SESSION_USER_KEY

from .support import Api


def _registered_operations(app: Flask) -> set[tuple[str, str]]:
    """(OpenAPI path, method) for every /api/v1 rule in the app's URL map."""
    operations = set()
    for rule in app.url_map.iter_rules():
        if rule.rule.startswith("/api/v1/"):
            path = openapi_path(rule)
            operations |= {(path, method.lower()) for method in rule.methods or () if method not in ("HEAD", "OPTIONS")}
    return operations


def test_document_covers_every_route(api: Api) -> None:
    response = api.get("/openapi.json", None)
    assert response.status_code == 200
    document = json.loads(response.get_data(as_text=True))
    assert document["openapi"].startswith("3.")
    documented = {(path, method) for path, item in document["paths"].items() for method in item}
    assert documented == _registered_operations(api.client.application)


def test_every_reference_resolves_and_errors_share_one_schema(api: Api) -> None:
    document = api.get("/openapi.json", None).get_json()
    text = json.dumps(document)
    for ref in set(re.findall(r'"\$ref": "#/([^"]+)"', text)):
        node = document
        for part in ref.split("/"):
            node = node[part]
    for status in (400, 401, 403, 404, 409, 413, 415, 422, 429, 500, 503):
        schema = document["components"]["responses"][f"E{status}"]["content"]["application/json"]["schema"]
        assert schema == {"$ref": "#/components/schemas/Error"}
    post = document["paths"]["/api/v1/submissions"]["post"]
    assert {"202", "409", "413", "422", "429"} <= set(post["responses"])


def _operation(document: dict[str, Any], app: Flask, method: str, path: str) -> dict[str, Any]:
    """The documented operation that serves ``method path`` (matched by the app's own URL map)."""
    rule, _ = app.url_map.bind("localhost").match(path, method=method, return_rule=True)
    return document["paths"][openapi_path(rule)][method.lower()]


def test_every_path_parameter_and_parsed_header_of_a_route_is_documented(api: Api) -> None:
    """Each route's path parameters are its rule's (in its order), and the headers its view reads are documented
    with the header model's names and schemas."""
    document = api.get("/openapi.json", None).get_json()
    app = api.client.application
    for rule in app.url_map.iter_rules():
        if rule.endpoint.startswith(f"{BLUEPRINT}."):
            view = app.view_functions[rule.endpoint]
            for method in (rule.methods or set()) - {"HEAD", "OPTIONS"}:
                parameters = document["paths"][openapi_path(rule)][method.lower()].get("parameters", [])
                in_path = [p["name"] for p in parameters if p["in"] == "path"]
                assert in_path == re.findall(r"<(?:[^:>]+:)?([^>]+)>", rule.rule), (method, rule.rule)
                assert set(in_path) == rule.arguments
                headers = [p for p in parameters if p["in"] == "header"]
                model = getattr(view, "header_model", None)
                assert headers == (query_params(model, "header") if model else []), (method, rule.rule)
    submit = document["paths"]["/api/v1/submissions"]["post"]["parameters"]
    assert [p["name"] for p in submit] == ["Idempotency-Key", "Prefer"]


def test_no_api_module_reads_a_header_but_through_a_header_model() -> None:
    """A ``request.headers`` read in a view would be a header the document does not know of."""
    package = Path(body.__file__).parent
    readers = {
        module.name
        for module in package.glob("*.py")
        for node in ast.walk(ast.parse(module.read_text()))
        if isinstance(node, ast.Attribute) and node.attr == "headers"
        if isinstance(node.value, ast.Name) and node.value.id == "request"
    }
    assert readers == {"schemas_headers.py"}


@pytest.mark.parametrize("converter", sorted(CONVERTER_SCHEMAS, key=lambda c: c.__name__), ids=lambda c: c.__name__)
def test_a_path_converters_documented_bounds_are_what_the_server_accepts(converter: type) -> None:
    schema = CONVERTER_SCHEMAS[converter]
    if schema["type"] != "integer":
        return
    pattern = re.compile(converter.regex)
    largest, above = str(schema["maximum"]), str(schema["maximum"] + 1)
    assert pattern.fullmatch(largest) and pattern.fullmatch(str(schema["minimum"]))
    if pattern.fullmatch(above):  # a seed segment matches any text: the view's reading refuses it
        assert body.path_seed(largest) == schema["maximum"] and body.path_seed(str(schema["minimum"])) == 0
        with pytest.raises(ApiError):
            body.path_seed(above)


def test_request_bodies_are_the_models_the_views_read(api: Api) -> None:
    document = api.get("/openapi.json", None).get_json()
    bodies = {
        ("/api/v1/submissions", "post"): SubmissionRequest,
        ("/api/v1/validate", "post"): ValidateRequest,
        ("/api/v1/assignments/{assignment_id}/extensions/{student_id}", "put"): ExtensionRequest,
        ("/api/v1/assignments/{assignment_id}/overrides/{student_id}", "put"): OverrideRequest,
        ("/api/v1/courses/{course_id}/roster", "post"): RosterRequest,
        ("/api/v1/courses/{course_id}/sign-in-links", "post"): SignInLinksRequest,
        ("/api/v1/admin/users/{user_id}", "patch"): AccountChange,
        ("/api/v1/courses/{course_id}/staff/{username}", "put"): StaffRequest,
    }
    documented = {
        (path, method): operation["requestBody"]["content"]["application/json"]["schema"]["$ref"]
        for path, item in document["paths"].items()
        for method, operation in item.items()
        if "requestBody" in operation
    }
    assert documented == {key: f"#/components/schemas/{model.__name__}" for key, model in bodies.items()}
    for model in bodies.values():
        schema = document["components"]["schemas"][model.__name__]
        assert schema["additionalProperties"] is False
        assert set(schema["properties"]) == set(model.model_fields)


def test_every_error_response_component_is_used_and_headers_are_documented(api: Api) -> None:
    document = api.get("/openapi.json", None).get_json()
    text = json.dumps(document["paths"])
    for name in document["components"]["responses"]:
        assert f'"#/components/responses/{name}"' in text, name
    components = document["components"]
    assert set(components["headers"]) == {
        "Location",
        "Idempotent-Replayed",
        "Preference-Applied",
        "Retry-After",
        "WWW-Authenticate",
    }
    assert set(components["responses"]["E401"]["headers"]) == {"WWW-Authenticate"}
    assert (
        set(components["responses"]["E429"]["headers"])
        == set(components["responses"]["E503"]["headers"])
        == {"Retry-After"}
    )
    post = document["paths"]["/api/v1/submissions"]["post"]
    assert set(post["responses"]["200"]["headers"]) == {"Location", "Idempotent-Replayed", "Preference-Applied"}
    assert "per user" in next(p for p in post["parameters"] if p["name"] == "Idempotency-Key")["description"]
    attempts = components["schemas"]["Submission"]["properties"]["attempts"]["description"]
    assert "workers" in attempts and "attempts_used" in attempts
    validate = document["paths"]["/api/v1/validate"]["post"]["responses"]
    assert "not_open" in validate["403"]["description"] and "csrf_failed" in validate["403"]["description"]


def _documented_headers(document: dict[str, Any], response: dict[str, Any]) -> set[str]:
    """The header names a documented response (or the component it refers to) lists."""
    if "$ref" in response:
        response = document["components"]["responses"][response["$ref"].rsplit("/", 1)[1]]
    return set(response.get("headers", {}))


TRACKED_HEADERS = ("Location", "Idempotent-Replayed", "Preference-Applied", "Retry-After", "WWW-Authenticate")


def test_what_the_api_answers_is_documented(api: Api) -> None:
    document = api.get("/openapi.json", None).get_json()
    app = api.client.application
    shift = "ch13.shift-pairs"
    answer = {"pairs": "BOS→red", "bos_scored": "no", "eos_scored": "yes", "scored_count": "1"}
    body = {"exercise_id": shift, "answer": answer, "assignment_id": api.school.practice_assignment}
    created = api.post("/submissions", "alice", body, headers={"Idempotency-Key": "k1"})
    provoked = [
        ("POST", "/submissions", created),
        ("POST", "/submissions", api.post("/submissions", "alice", body, headers={"Idempotency-Key": "k1"})),
        (
            "POST",
            "/submissions",
            api.post("/submissions", "alice", body | {"lang": "en"}, headers={"Idempotency-Key": "k1"}),
        ),
        ("POST", "/submissions", api.post("/submissions", "alice", body | {"seed": 1})),
        ("POST", "/submissions", api.post("/submissions", "alice", body | {"assignment_id": 10**6})),
        ("POST", "/submissions", api.post("/submissions", "alice", raw="x" * 70_000)),
        ("POST", "/submissions", api.post("/submissions", "alice", body, content_type="text/plain")),
        ("POST", "/submissions", api.post("/submissions", "alice", body | {"colour": 1})),
        ("POST", "/submissions", api.post("/submissions", None, body)),
        ("POST", "/validate", api.post("/validate", "alice", body | {"exercise_id": "nope"})),
        ("GET", "/me", api.get("/me?x=1", "alice")),
        ("GET", "/me", api.get("/me", None, headers={"Authorization": "Bearer grd_no"})),
        ("GET", "/submissions/1", api.get("/submissions/999999", "alice")),
        ("GET", f"/exercises/{shift}/variants/0", api.get(f"/exercises/{shift}/variants/0", "alice")),
        (
            "GET",
            f"/assignments/{api.school.open_assignment}/progress",
            api.get(f"/assignments/{api.school.open_assignment}/progress?student=1", "alice"),
        ),
    ]
    with api.client.session_transaction() as cookie_session:  # signed in on the pages, with no CSRF header sent
        cookie_session[SESSION_USER_KEY] = api.school.user_ids["alice"]
    provoked.append(("POST", "/validate", api.client.post("/api/v1/validate", json=body)))
    assert provoked[-1][2].get_json()["error"]["code"] == "csrf_failed"
    app.config["SUBMISSION_RATE_LIMIT"] = "1/hour"
    for _ in range(2):
        provoked.append(("POST", "/submissions", api.post("/submissions", "bob", body)))
    statuses = set()
    for method, path, response in provoked:
        operation = _operation(document, app, method, f"/api/v1{path}")
        status = str(response.status_code)
        statuses.add(response.status_code)
        assert status in operation["responses"], (method, path, status, response.get_json())
        documented = _documented_headers(document, operation["responses"][status])
        sent = {name for name in TRACKED_HEADERS if name in response.headers}
        assert sent <= documented, (method, path, status, sent)
    assert {200, 202, 400, 401, 403, 404, 409, 413, 415, 422, 429} <= statuses
