"""The OpenAPI paths of running a course: students' own terms (extensions) and score overrides on an assignment."""

from __future__ import annotations

from grader.api.openapi_common import READ, WRITE, JSONObject, answer, no_content, operation

COURSE_OPERATIONS: tuple[JSONObject, ...] = (
    operation(
        "list_overrides",
        "The assignment's score overrides (its course's teachers and admins).",
        answer("OverrideList", "Overrides"),
        READ,
    ),
    operation(
        "put_override",
        "Set a student's counted score on an exercise or the total, with a reason (logged; kept "
        "through regrades until cleared).",
        answer("Override", "The override as stored"),
        WRITE,
        body="OverrideRequest",
    ),
    operation(
        "delete_override",
        "Clear a student's override (logged).",
        no_content("Cleared"),
        READ,
    ),
    operation(
        "list_extensions",
        "The assignment's extensions (its course's teachers and admins).",
        answer("ExtensionList", "Extensions"),
        READ,
    ),
    operation(
        "put_extension",
        "Give a student a later due date and/or extra attempts (replaces an earlier one).",
        answer("Extension", "The extension as stored"),
        WRITE,
        body="ExtensionRequest",
    ),
    operation("delete_extension", "Remove a student's extension.", no_content("Removed"), READ),
)
