"""What the student-facing routes answer, as models: the OpenAPI document's response schemas are generated from
them (``model_schemas``), and the schemathesis test checks every answer against that document.

A response may carry more than a model lists (``extra`` is not forbidden here, unlike a request); a field that is
sometimes left out has a default of None (which the document shows as "may be null").
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

import pydantic
from pydantic import BaseModel, ConfigDict

from exercises.api import SEED_LIMIT

Seed = Annotated[int, pydantic.Field(ge=0, le=SEED_LIMIT - 1)]
SeedText = Annotated[
    str,
    pydantic.Field(
        pattern="^[0-9]{1,19}$",
        description="The seed as decimal text, wherever seed is given: seeds go up to 2^63 − 1, past 2^53, where a "
        "JavaScript number stops being exact (JSON.parse would change the seed).",
    ),
]
Role = Literal["student", "teacher", "admin"]
# A caller's part in a course: their enrolment's role, or their staff role (grader.grading.access); admins: admin.
CoursePart = Literal["student", "teacher", "admin", "co_teacher", "ta"]
Status = Literal["queued", "grading", "graded", "invalid", "error"]
Fraction = Annotated[float, pydantic.Field(ge=0, le=1)]


class Reply(BaseModel):
    """A response body (or a part of one)."""

    model_config = ConfigDict(extra="allow")


class Bilingual(Reply):
    """A text in both languages."""

    zh: str | None = None
    en: str | None = None


class FeedbackMessage(Reply):
    """One message a text is made of: a stable id with its arguments, the same in every language."""

    id: str
    args: dict[str, Any] | None = None


# By the name of the text (feedback, read; an error's message): the messages it is made of. The texts beside it are
# rendered from these in the language asked for; absent on results graded before engine 1.11.
Meaning = Annotated[
    dict[str, list[FeedbackMessage]] | None,
    pydantic.Field(default=None, description="By text (feedback, read; message): its messages, ids with arguments."),
]


class AnswerError(Reply):
    """Why (part of) an answer cannot be read."""

    field: str | None = None
    message: str | None = None
    position: int | None = None
    interpreted: str | None = None
    meaning: Meaning = None


class ErrorDetail(Reply):
    """The error envelope's one object."""

    code: str = pydantic.Field(description="Stable machine-readable code.")
    message: str
    field: str | None = pydantic.Field(description="Offending field, parameter or header.")
    errors: list[AnswerError] | None = pydantic.Field(default=None, description="invalid_answer only.")
    interpreted: dict[str, Any] | None = pydantic.Field(
        default=None, description="invalid_answer only: what could be read."
    )
    retry_after: int | None = pydantic.Field(default=None, description="rate_limited only: seconds.")


class Error(Reply):
    """Every 4xx and 5xx body: {"error": {code, message, field}}."""

    error: ErrorDetail


class Me(Reply):
    """The caller."""

    id: int | None = None
    username: str | None = None
    display_name: str | None = None
    role: Role | None = pydantic.Field(default=None, description="Role this request acts with.")
    account_role: str | None = None
    auth: Literal["token", "session"] | None = None


class Field(Reply):
    """One answer field of an exercise."""

    name: str | None = None
    kind: str | None = None
    weight: float | None = None
    label: Bilingual | None = None
    hint: Bilingual | None = None


class Exercise(Reply):
    """An exercise the engine knows."""

    id: str | None = None
    chapter: str | None = None
    title: Bilingual | None = None
    graded: bool | None = None
    fields: list[Field] | None = None


class Variant(Reply):
    """One variant of an exercise: its data and prompt, never its answer."""

    exercise_id: str
    seed: Seed | None = pydantic.Field(
        default=None, description="Absent for students, and for teachers who study a course that sets it."
    )
    engine_version: str
    lang: str | None = None
    data: dict[str, Any]
    prompt: str
    fields: list[Field]


class Validation(Reply):
    """How the engine reads an answer."""

    status: Literal["valid", "invalid"] | None = None
    parsed: dict[str, Any] | None = None
    interpreted: dict[str, str] | None = None
    errors: list[AnswerError] | None = None


class Part(Reply):
    """The verdict on one part of an answer."""

    score: float | None = None
    correct: bool | None = None
    feedback: str | None = None
    misconception: str | None = None
    tags: list[str] | None = None
    follow_through: bool | None = None
    read: Any = None
    meaning: Meaning = None


class SubmissionUser(Reply):
    """Who submitted."""

    id: int | None = None
    username: str | None = None


class Submission(Reply):
    """One submission, with its verdict once graded."""

    id: int
    exercise_id: str
    seed: Seed | None = pydantic.Field(
        default=None, description="Admins, and teachers of the assignment's course (own tries outside one)."
    )
    seed_text: SeedText | None = None
    lang: str | None = pydantic.Field(default=None, description="The language the answer was submitted in.")
    feedback_lang: str | None = pydantic.Field(
        default=None, description="The language of the feedback texts in parts and errors."
    )
    assignment_id: int | None = None
    user: SubmissionUser | None = None
    status: Status
    score: Fraction | None = None
    engine_version: str | None = None
    parts: dict[str, Part] | None = None
    errors: list[AnswerError] | None = None
    parsed: Any = None
    raw_answer: dict[str, Any] | None = None
    error_message: str | None = None
    attempts: int | None = pydantic.Field(
        default=None,
        description="How many times the workers have tried to grade it (a try lost or failed is retried). Not the "
        "student's attempt number: see attempts_used in Progress.",
    )
    answer_key: dict[str, Any] | None = pydantic.Field(
        default=None,
        description="Only when the assignment's key rule allows (admins and the course's teachers: always).",
    )
    created_at: datetime | None
    queued_at: datetime | None = None
    started_at: datetime | None = None
    finished_at: datetime | None = None


class SubmissionSummary(Reply):
    """A submission as the listing shows it."""

    id: int | None = None
    exercise_id: str | None = None
    assignment_id: int | None = None
    user: dict[str, Any] | None = None
    status: str | None = None
    score: float | None = None
    engine_version: str | None = None
    seed: Seed | None = pydantic.Field(default=None, description="As in Submission.")
    seed_text: SeedText | None = None
    created_at: datetime | None = None
    finished_at: datetime | None = None


class Terms(Reply):
    """The student's own due date and attempt limit per exercise, an extension applied."""

    due_at: datetime | None
    attempts_allowed: int | None
    extended_due: bool
    extra_attempts: Annotated[int, pydantic.Field(ge=0)]


class Assignment(Reply):
    """An assignment and its rules."""

    id: int
    course_id: int
    title: str
    exercise_ids: list[str]
    opens_at: datetime | None
    due_at: datetime | None
    attempts_allowed: int | None
    score_policy: Literal["best", "last"]
    answer_key_policy: Literal["after_due", "after_attempts", "never", "always"]
    late_until: datetime | None = pydantic.Field(
        default=None, description="Late work is taken until then (null: nothing after the due date)."
    )
    late_penalty_per_day: Annotated[float, pydantic.Field(ge=0, le=100)] | None = pydantic.Field(
        default=None, description="Percent off the counted score per started day late."
    )
    late_cap: Annotated[float, pydantic.Field(ge=0, le=100)] | None = pydantic.Field(
        default=None, description="Percent: a late answer counts at most this much."
    )
    fresh_variants: bool = pydantic.Field(
        description="True: each student's variants are this assignment's own "
        "(GET /exercises/{exercise_id}/variant?assignment=<id>); false: shared with the other assignments that share."
    )
    partial_credit: bool = pydantic.Field(
        description="True: a wrong list, vector or matrix part earns the share of its entries that are right; "
        "false: a part earns marks only when all of it is right."
    )
    follow_through_credit: Literal["full", "half", "none"] = pydantic.Field(
        description="What a part done correctly from the student's own wrong earlier step earns: full, half or no "
        "marks. A change applies to existing scores only through a regrade."
    )
    updated_at: datetime = pydantic.Field(
        description="When a setting last changed. A new score policy or exercise list changes students' counted "
        "totals without a grade-change entry: re-read the assignment's gradebook when this moves."
    )


class Course(Reply):
    """A course of the caller's, with its assignments."""

    id: int
    code: str
    title: str
    role: CoursePart
    time_zone: str = pydantic.Field(
        description="IANA zone the course's pages show times in (times in this API are UTC)."
    )
    archived_at: datetime | None = pydantic.Field(
        description="Set once archived: read-only, submissions get 403 course_archived."
    )
    session_hours: int | None = pydantic.Field(
        description="The course's sign-in length: its members' browser sign-ins end this many hours after they "
        "began (null: only the site's idle limit). Set on the course's settings page; bearer tokens are not affected."
    )
    assignments: list[Assignment]


class ExerciseProgress(Reply):
    """The student's progress on one exercise of an assignment."""

    exercise_id: str | None = None
    attempts_used: int | None = None
    attempts_left: int | None = None
    score: float | None = None
    best_score: float | None = None
    last_score: float | None = None
    last_status: str | None = None
    late: dict[str, Any] | None = pydantic.Field(
        default=None,
        description="The counted attempt came late (its penalty is in score; best_score and last_score are the "
        "engine's).",
    )


class Progress(Reply):
    """A student's progress on an assignment."""

    assignment: Assignment | None = None
    student: dict[str, Any] | None = None
    exercises: list[ExerciseProgress] | None = None
    terms: Terms | None = None


RESPONSES = (
    Error,
    Me,
    Course,
    Exercise,
    Variant,
    Validation,
    Submission,
    SubmissionSummary,
    Progress,
)
