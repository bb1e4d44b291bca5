"""What the student and teacher pages both show of the engine's exercises: titles and answer field labels."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from exercises import api as engine


@lru_cache(maxsize=1)
def _catalogue() -> dict[str, dict[str, Any]]:
    """Engine exercises by id (titles, fields, graded flag); the engine is static, so cached."""
    return {entry["id"]: entry for entry in engine.list_exercises()}


def exercise_entry(exercise_id: str) -> dict[str, Any] | None:
    """The engine's catalogue entry for ``exercise_id``, or None."""
    return _catalogue().get(exercise_id)


def exercise_title(exercise_id: str, lang: str) -> str:
    """An exercise's title in ``lang``, or its id when the engine does not know it."""
    entry = exercise_entry(exercise_id)
    return entry["title"][lang] if entry else exercise_id


def field_labels(exercise_id: str, lang: str) -> dict[str, str]:
    """Answer field name -> label in ``lang``, in the engine's field order."""
    entry = exercise_entry(exercise_id) or {"fields": []}
    return {f["name"]: f["label"][lang] for f in entry["fields"]}
