"""Feedback in the reader's language: the stored verdict stays; only its texts are re-rendered by the engine.

A submission's feedback is written in the language it was submitted in. Reading the answer does not depend
on the language (only the messages do), so the same engine version grading the same answer again in another
language gives the same verdict with translated texts. Anything that does not line up exactly (another engine
version, a different status or score on any part) keeps the stored texts: the stored result is the truth.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from typing import Any

from exercises import api as engine
from grader.grading.grading_rules import policy_of
from grader.models import Submission, SubmissionStatus

# Texts that depend on the language; everything else in a part is the verdict and must match the stored one.
PART_TEXTS = ("feedback", "read")
VERDICT_KEYS = ("score", "correct", "follow_through", "misconception")


@dataclass(frozen=True)
class Feedback:
    """A submission's per-part results and read errors, with texts in ``lang``."""

    parts: dict[str, Any]
    errors: list[Any]
    lang: str


def feedback_in(submission: Submission, lang: str) -> Feedback:
    """``submission``'s stored parts and errors, with their texts in ``lang`` when the engine can say so."""
    stored = Feedback(dict(submission.parts or {}), list(submission.errors or []), submission.lang)
    if (
        lang == submission.lang
        or submission.engine_version != engine.ENGINE_VERSION
        or submission.status not in (SubmissionStatus.GRADED, SubmissionStatus.INVALID)
    ):
        return stored
    # Under the assignment's policy as it is now: one changed since and not yet regraded differs, and keeps the stored.
    grading_policy = policy_of(submission.assignment) if submission.assignment_id is not None else engine.DEFAULT_POLICY
    fresh = _graded_in(
        submission.exercise_id,
        submission.seed,
        json.dumps(submission.raw_answer, sort_keys=True),
        lang,
        grading_policy,
    )
    if fresh.get("status") != submission.status:
        return stored
    if submission.status == SubmissionStatus.INVALID:
        same_fields = [e.get("field") for e in fresh.get("errors") or []] == [e.get("field") for e in stored.errors]
        return Feedback(stored.parts, list(fresh.get("errors") or []), lang) if same_fields else stored
    translated = _translated_parts(stored.parts, fresh.get("parts") or {})
    return Feedback(translated, stored.errors, lang) if translated is not None else stored


def _translated_parts(stored: dict[str, Any], fresh: dict[str, Any]) -> dict[str, Any] | None:
    """The stored parts with the fresh texts, or None if any verdict differs."""
    if set(stored) != set(fresh):
        return None
    translated = {}
    for name, part in stored.items():
        if any(part.get(key) != fresh[name].get(key) for key in VERDICT_KEYS):
            return None
        translated[name] = {**part, **{key: fresh[name][key] for key in PART_TEXTS if key in fresh[name]}}
    return translated


@functools.lru_cache(maxsize=1024)
def _graded_in(
    exercise_id: str, seed: int, answer_json: str, lang: str, grading_policy: engine.GradingPolicy
) -> dict[str, Any]:
    """The engine's result for an answer (as JSON text, so it can be a cache key) in ``lang``; cached."""
    try:
        return engine.grade(exercise_id, seed, json.loads(answer_json), lang, grading_policy)
    except (engine.UnknownExercise, engine.BadSeed):
        return {}
