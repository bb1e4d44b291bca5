"""Reading an answer without grading it (the live preview), on the variant the caller would submit to.

``validate_answer`` is the one use case behind POST /api/v1/validate (which the exercise page's script calls);
``own_variant`` is the rule for when a caller may see their own variant, shared with GET .../variant.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy.orm import Session

from exercises import api as engine
from exercises.i18n import Text
from grader.grading import policy
from grader.grading.submit_use_case import Caller, Refused, variant_assignment
from grader.grading.variant_seeds import seed_for
from grader.models import Assignment, EnrolmentRole


@dataclass(frozen=True)
class OwnVariant:
    """The seed of the caller's own variant of an exercise, and whether they see it as a student (seed hidden)."""

    seed: int
    as_student: bool


@dataclass(frozen=True)
class ValidateRequest:
    """An answer to read: ``seed`` is used only by a caller with staff powers here (a student reads on their own)."""

    exercise_id: str
    answer: dict[str, Any]
    lang: str
    seed: int | None = None
    assignment_id: int | None = None  # a student reads on their variant in it (its own, with fresh variants)


@dataclass(frozen=True)
class Reading:
    """The engine's reading of the answer (status, errors, interpreted, parsed)."""

    reading: dict[str, Any]


def studied_assignments(session: Session, user_id: int, exercise_id: str) -> list[Assignment]:
    """The assignments setting ``exercise_id`` in the courses where the user is enrolled as a student."""
    return policy.assignments_setting(session, user_id, exercise_id, (EnrolmentRole.STUDENT,))


def _implied_assignment(setting: list[Assignment]) -> Assignment | None:
    """The assignment whose own variant a caller who names none works on: the only assignment of theirs that sets
    the exercise, when it gives fresh variants; None (the shared variant) otherwise."""
    return setting[0] if len(setting) == 1 and setting[0].fresh_variants else None


def _only_fresh(setting: list[Assignment]) -> bool:
    """Several assignments set the exercise and each gives its own variant: the shared one is none of them."""
    return len(setting) > 1 and all(a.fresh_variants for a in setting)


def _assignment_required(exercise_id: str, setting: list[Assignment]) -> Refused:
    """Which variant is meant cannot be told: name the assignment (one of ``setting``)."""
    ids = ", ".join(str(a.id) for a in sorted(setting, key=lambda a: a.id))
    return Refused(
        "assignment_required",
        Text(
            zh=f"练习 {exercise_id} 在你的多个作业里（{ids}），每个作业的题目各不相同：请指明作业。",
            en=f"Exercise {exercise_id} is in several of your assignments ({ids}), each with its own variant: "
            "name the assignment.",
        ),
    )


def own_variant(
    session: Session, caller: Caller, exercise_id: str, now: datetime, assignment: Assignment | None = None
) -> OwnVariant | Refused:
    """The caller's own variant (in ``assignment``, one of theirs that sets the exercise, if given: its own with fresh
    variants); refused ``not_open`` for a student whose assignments that set the exercise (or ``assignment``) are
    all still to open (the variant would show what the opening date holds back), ``not_found`` if none sets it.

    The shared variant belongs to the user and the exercise, whatever the course: a teacher enrolled as a student in
    a course that sets the exercise sees it as a student there (no seed, the opening dates of those assignments
    apply).
    """
    if caller.is_admin:
        as_student, opens_at = False, None
    elif not caller.is_staff:
        setting = (
            [assignment] if assignment is not None else policy.assignments_setting(session, caller.user_id, exercise_id)
        )
        if not setting:
            # Seeds belong to the user and the exercise: shown before any assignment sets it, the variant a
            # teacher assigns later (to open on a date) would have been seen long before.
            return Refused(
                "not_found",
                Text(
                    zh=f"你的作业里没有练习 {exercise_id}，所以还没有你的题目。",
                    en=f"Exercise {exercise_id} is in none of your assignments, so there is no variant of it for you yet.",
                ),
            )
        as_student, opens_at = True, policy.first_opening(setting, now)
        if assignment is None and _only_fresh(setting):
            return _assignment_required(exercise_id, setting)
        assignment = assignment or _implied_assignment(setting)
    else:
        # Only the courses they study count: one they teach opening would show what a student course holds back.
        studied = [a for a in studied_assignments(session, caller.user_id, exercise_id) if assignment in (None, a)]
        as_student, opens_at = bool(studied), policy.first_opening(studied, now)
        if assignment is None and _only_fresh(studied):
            return _assignment_required(exercise_id, studied)
        assignment = assignment or _implied_assignment(studied)
    if opens_at is not None:
        when = opens_at.strftime("%Y-%m-%d %H:%M UTC")
        return Refused(
            "not_open",
            Text(
                zh=f"练习 {exercise_id} 所在的作业尚未开放，{when} 开放后才能查看你的题目。",
                en=f"Exercise {exercise_id} is only in assignments that are not open yet; your variant can be seen once "
                f"one opens, at {when}.",
            ),
        )
    return OwnVariant(seed_for(session, caller.user_id, exercise_id, assignment), as_student)


def validate_answer(session: Session, caller: Caller, request: ValidateRequest, now: datetime) -> Reading | Refused:
    """The engine's reading of ``request.answer`` on the variant the caller would submit to: a student's own, or
    the seed a caller with staff powers here names (none named: only what the text alone can tell)."""
    seed = request.seed
    if not caller.staff_here:
        # A student's own variant, whatever was sent; looked up only when the reading needs it (this runs as the
        # student types), and refused as the variant itself is before an assignment that sets it opens.
        seed = None
        if engine.reads_per_variant(request.exercise_id):
            own = own_variant(
                session,
                caller,
                request.exercise_id,
                now,
                variant_assignment(session, caller, request.exercise_id, request.assignment_id),
            )
            if isinstance(own, Refused):
                return own
            seed = own.seed
    return Reading(engine.validate(request.exercise_id, request.answer, request.lang, seed))
