"""The document lists every path parameter a route's URL rule reads and every request header its view reads, and
no API module reads a header other than through its declaration (grader/api/headers.py), which is what the
document lists."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from grader.api import headers
from grader.routing import RowIdConverter

from .support import Api

API_SOURCE = Path(headers.__file__).parent


def _api_operations(api: Api) -> list[tuple[Any, str, dict[str, Any]]]:
    """(rule, method, documented operation) for every /api/v1 rule and method."""
    document = api.get("/openapi.json", None).get_json()
    found = []
    for rule in api.client.application.url_map.iter_rules():
        if rule.rule.startswith("/api/v1/"):
            path = re.sub(r"<(?:[^:>]+:)?([^>]+)>", r"{\1}", rule.rule)
            for method in (rule.methods or set()) - {"HEAD", "OPTIONS"}:
                found.append((rule, method, document["paths"][path][method.lower()]))
    return found


def _parameters(operation: dict[str, Any], where: str) -> dict[str, dict[str, Any]]:
    return {p["name"]: p["schema"] for p in operation.get("parameters", []) if p["in"] == where}


def test_every_path_parameter_of_a_rule_is_documented(api: Api) -> None:
    seen = set()
    for rule, method, operation in _api_operations(api):
        documented = _parameters(operation, "path")
        assert set(documented) == set(rule.arguments), (method, rule.rule)
        for name, converter in rule._converters.items():
            seen.add(type(converter))
            if isinstance(converter, RowIdConverter):
                # The documented bound is the converter's: its largest id matches, one more does not.
                largest = documented[name]["maximum"]
                assert re.fullmatch(converter.regex, str(largest)), (rule.rule, name)
                assert not re.fullmatch(converter.regex, str(largest + 1)), (rule.rule, name)
    assert RowIdConverter in seen


def test_every_header_a_view_reads_is_documented(api: Api) -> None:
    app = api.client.application
    documented_anywhere = set()
    for rule, method, operation in _api_operations(api):
        read = getattr(app.view_functions[rule.endpoint], "request_headers", ())
        documented = _parameters(operation, "header")
        assert documented == {header.name: header.schema for header in read}, (method, rule.rule)
        documented_anywhere |= set(documented)
    declared = {value.name for value in vars(headers).values() if isinstance(value, headers.RequestHeader)}
    assert declared == documented_anywhere and "Idempotency-Key" in declared


def test_no_api_module_reads_a_header_outside_its_declaration() -> None:
    readers = [
        path.name
        for path in API_SOURCE.glob("*.py")
        if path.name != "headers.py" and re.search(r"request\.headers|environ\.get\(.HTTP_", path.read_text())
    ]
    assert readers == []
