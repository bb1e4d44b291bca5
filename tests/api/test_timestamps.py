"""Every timestamp the API writes has one shape: ISO 8601 in UTC with microseconds, even when they are zero."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

from flask import Flask

from grader.extensions import get_db
from grader.models import Assignment

from .support import Api

SHIFT = "ch13.shift-pairs"
ANSWER = {"pairs": "BOS→red", "bos_scored": "no", "eos_scored": "yes", "scored_count": "1"}
SHAPE = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00")


def _timestamps(value: Any, path: str = "") -> dict[str, str]:
    """Every ``…_at`` / ``…_before`` string in a JSON value, by path."""
    found: dict[str, str] = {}
    if isinstance(value, dict):
        for key, item in value.items():
            if isinstance(item, str) and key.endswith(("_at", "_before")):
                found[f"{path}.{key}"] = item
            found.update(_timestamps(item, f"{path}.{key}"))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found.update(_timestamps(item, f"{path}[{index}]"))
    return found


def test_a_whole_second_keeps_its_microseconds(api_app: Flask, api: Api) -> None:
    # Found by an audit: opens_at "…T08:00:00+00:00" beside updated_at "…T16:41:41.923403+00:00" in one response;
    # a fixed-format parser (PHP's createFromFormat with .u) fails on one of the two.
    with api_app.app_context(), get_db().session() as session:
        assignment = session.get_one(Assignment, api.school.practice_assignment)
        assignment.opens_at = datetime(2026, 11, 1, 8, 0, tzinfo=UTC)
        session.commit()
    body = {"exercise_id": SHIFT, "answer": ANSWER, "assignment_id": api.school.practice_assignment}
    created = api.post("/submissions", "alice", body)
    assert created.status_code == 202
    replies = [
        created.get_json(),
        api.get("/courses", "teacher").get_json(),
        api.get("/submissions", "alice").get_json(),
        api.get("/me", "alice").get_json(),
    ]
    found = {k: v for reply in replies for k, v in _timestamps(reply).items()}
    assert "2026-11-01T08:00:00.000000+00:00" in found.values()
    assert any(path.endswith(".created_at") for path in found)
    assert {path: text for path, text in found.items() if not SHAPE.fullmatch(text)} == {}
