"""The requests of the student-facing routes: variants, validate, submissions and progress (bodies and queries).

Each model is the one declaration of what its route reads: the view validates with it and the OpenAPI document's
``components.schemas`` and query parameters are generated from it (``grader/api/openapi_common.py``). Fields are
checked in their declared order, which is the order the first refusal is chosen by.
"""

from __future__ import annotations

from typing import Annotated, Any, Self

from pydantic import Field, model_validator

from exercises import api as engine
from grader.api.body import LANGS
from grader.api.schemas_base import (
    ApiModel,
    Checked,
    QueryModel,
    json_object,
    language,
    optional_integer,
    query_choice,
    query_integer,
    query_number,
    query_text,
    refusal,
    text,
)
from grader.models import SubmissionStatus
from grader.routing import ROW_ID_MAX

MAX_WAIT_SECONDS = 10.0
PAGE_LIMIT_MAX = 200
EXERCISE_ID_MAX = 64


def unknown_exercise_message(exercise_id: str) -> str | None:
    """Why ``exercise_id`` has no variants or answers, or None if the engine grades it."""
    if exercise_id in engine.exercise_ids():
        return None
    shown = exercise_id if len(exercise_id) <= 64 else exercise_id[:64] + "…"  # never echo a whole junk path
    # The listing shows ungraded ones too (the capacity lab): say why such an id has no variant or answers.
    ungraded = exercise_id in {e["id"] for e in engine.list_exercises() if not e.get("graded", True)}
    why = " It is not graded: it has no variants or answers (open it in the web app)." if ungraded else ""
    return f"Unknown exercise '{shown}'.{why}"


_EXERCISE_TEXT = text(EXERCISE_ID_MAX)


def _known_exercise(value: Any, name: str) -> Any:
    """A body's ``exercise_id``: a string the engine grades (422 unknown_exercise otherwise)."""
    value = _EXERCISE_TEXT.check(value, name)
    message = unknown_exercise_message(value)
    if message:
        raise refusal("unknown_exercise", message)
    return value


ExerciseId = Annotated[str, Checked(_known_exercise, _EXERCISE_TEXT.schema)]
Answer = Annotated[dict[str, Any], json_object()]
Lang = Annotated[str, language()]
AssignmentId = optional_integer(1, ROW_ID_MAX + 1)
Seed = optional_integer(0, engine.SEED_LIMIT)


class SubmissionRequest(ApiModel):
    """The body of POST /submissions."""

    exercise_id: ExerciseId
    answer: Answer
    lang: Lang = "zh"
    assignment_id: Annotated[int | None, AssignmentId, Field(description="Required for students (422 without it).")] = (
        None
    )
    seed: Annotated[
        int | None,
        Seed,
        Field(
            description="Admins; teachers outside any assignment or with an assignment of a course they teach "
            "(anyone else: 403 seed_not_allowed). A teacher enrolled as a student in a course that sets the "
            "exercise must send one there (422 without it), or submit to that course as a student."
        ),
    ] = None


class ValidateRequest(ApiModel):
    """A submission's body also reads: assignment_id and seed are allowed."""

    exercise_id: ExerciseId
    answer: Answer
    # Well-formed as in a submission, so that a body valid for one is valid for the other.
    assignment_id: Annotated[
        int | None,
        AssignmentId,
        Field(description="Checked; a teacher who does not teach its course reads as its students do."),
    ] = None
    seed: Annotated[
        int | None,
        Seed,
        Field(
            description="Teachers and admins: the variant to read the answer on. Ignored for students (their "
            "own variant)."
        ),
    ] = None
    lang: Lang = "zh"


# ---- query parameters ----

RowId = query_integer(1, ROW_ID_MAX)
Cursor = query_integer(0, ROW_ID_MAX)
LangParam = Annotated[str, query_choice(LANGS), Field(description="Language of prompts and messages.")]


class LangQuery(QueryModel):
    """``?lang=`` alone."""

    lang: LangParam = "zh"


class VariantQuery(QueryModel):
    """GET /exercises/{exercise_id}/variant."""

    lang: LangParam = "zh"
    assignment: Annotated[
        int | None,
        RowId,
        Field(
            description="The variant in this assignment of the caller's (its own if it has fresh variants; 404 "
            "naming 'assignment' if it is not one of theirs that sets the exercise). Without it, the only "
            "assignment's of theirs that sets the exercise, or the variant their assignments share; 422 "
            "assignment_required when several set it, each with its own variant."
        ),
    ] = None


class SubmissionQuery(QueryModel):
    """GET /submissions/{submission_id}."""

    wait: Annotated[
        float,
        query_number(0.0, MAX_WAIT_SECONDS),
        Field(description="Hold the request up to this many seconds until the submission is final."),
    ] = 0.0
    lang: Annotated[
        str | None,
        query_choice(LANGS),
        Field(description="Feedback texts in this language (the verdict is the stored one); default: as submitted."),
    ] = None


class SubmissionListQuery(QueryModel):
    """GET /submissions: filters, and a page by offset or by one cursor."""

    course: Annotated[int | None, RowId, Field(description="Course id.")] = None
    assignment: Annotated[int | None, RowId, Field(description="Assignment id.")] = None
    student: Annotated[int | None, RowId, Field(description="Student user id.")] = None
    exercise: Annotated[str | None, query_text(EXERCISE_ID_MAX), Field(description="Exercise id.")] = None
    status: Annotated[str | None, query_choice([s.value for s in SubmissionStatus]), Field(description="Status.")] = (
        None
    )
    limit: Annotated[int, query_integer(1, PAGE_LIMIT_MAX), Field(description="Page size.")] = 50
    offset: Annotated[int, query_integer(0, 2**62), Field(description="Rows to skip.")] = 0
    before_id: Annotated[int | None, RowId, Field(description="Only submissions with a smaller id, newest first.")] = (
        None
    )
    after_id: Annotated[
        int | None,
        Cursor,
        Field(
            description="Only submissions with a larger id, oldest first (0: from the first). New rows, not "
            "changes: a later grade or regrade of a row listed before comes through GET /api/v1/grade-changes. "
            "Ids are taken when a row is inserted and rows appear when it commits, so two submissions at the "
            "same moment can appear out of id order: a client that must miss none asks again from an id it saw "
            "a few seconds before the newest and skips the ids it has."
        ),
    ] = None

    @model_validator(mode="after")
    def _one_cursor(self) -> Self:
        """At most one of ``before_id`` and ``after_id``, and neither with a non-zero ``offset``."""
        if self.before_id is not None and self.after_id is not None:
            raise refusal(
                "invalid_parameter",
                "Query parameters 'before_id' (newest first) and 'after_id' (oldest first) cannot be combined; "
                "send one.",
                field="after_id",
            )
        if self.offset and (self.before_id is not None or self.after_id is not None):
            name = "before_id" if self.before_id is not None else "after_id"
            raise refusal(
                "invalid_parameter",
                f"Query parameter 'offset' cannot be combined with '{name}': "
                "the cursor already says where the page starts.",
                field="offset",
            )
        return self


class ProgressQuery(QueryModel):
    """GET /assignments/{assignment_id}/progress."""

    lang: LangParam = "zh"
    student: Annotated[int | None, RowId, Field(description="Student user id (teachers).")] = None
