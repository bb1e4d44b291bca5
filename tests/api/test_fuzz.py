"""Schemathesis fuzzes every documented operation as a teacher: no 500s, and every response matches the document.

Schemathesis's own pytest plugin (``from_fixture`` + ``parametrize``) breaks on pytest 9.2 (it writes
``Node._nodeid``), so each operation is a plain parametrised test driving the operation's Hypothesis strategy.
"""

from __future__ import annotations

import os

import pytest
import schemathesis
from flask import Flask
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schemathesis import Case, GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from grader.api.openapi import OPERATIONS

from .support import School

# FUZZ_EXAMPLES raises the budget for a one-off heavier run; the suite keeps it small and deterministic.
EXAMPLES_PER_OPERATION = int(os.environ.get("FUZZ_EXAMPLES", "25"))
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]
OPERATION_IDS = [operation["operationId"] for operation in OPERATIONS]


@pytest.mark.parametrize("operation_id", OPERATION_IDS)
def test_operation_conforms_to_document(api_app: Flask, school: School, operation_id: str) -> None:
    operation = schemathesis.openapi.from_wsgi("/api/v1/openapi.json", api_app).find_operation_by_id(operation_id)
    cases = st.one_of(operation.as_strategy(GenerationMode.POSITIVE), operation.as_strategy(GenerationMode.NEGATIVE))
    headers = {"Authorization": f"Bearer {school.tokens['teacher']}"}

    @given(case=cases)
    @settings(
        max_examples=EXAMPLES_PER_OPERATION,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    def responds_as_documented(case: Case) -> None:
        case.call_and_validate(headers=headers, checks=CHECKS)

    responds_as_documented()
