"""The OpenAPI document is valid JSON and describes every registered /api/v1 route and method."""
from __future__ import annotations

import json
import re

from flask import Flask

from .support import Api


def _registered_operations(app: Flask) -> set[tuple[str, str]]:
    """(OpenAPI path, method) for every /api/v1 rule in the app's URL map."""
    operations = set()
    for rule in app.url_map.iter_rules():
        if rule.rule.startswith("/api/v1/"):
            path = re.sub(r"<(?:[^:>]+:)?([^>]+)>", r"{\1}", rule.rule)
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
