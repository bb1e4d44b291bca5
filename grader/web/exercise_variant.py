"""What the exercise page shows of a variant (its prompt, data tables and answer fields; the worked solution and
where an answer leaves it), made by the engine once per (exercise, seed, language) and kept.

All of it depends on nothing but those (and, for the departure, the answer as typed) while this process runs one
engine version, yet a page made it all again on every request: rendering the tables, generating the solution's
steps, and for a wrong answer with the key shown, reading and checking that answer again (up to ~1 ms). Everything
kept is immutable: frozen dataclasses, tuples and read-only mappings."""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from exercises import api as engine
from grader.models import Submission, SubmissionStatus
from grader.ui.data_view import Block, PagePrompt, page_data_blocks, page_prompt

MULTILINE_KINDS = frozenset({"pairs", "matrix", "vectors", "tokens", "choices"})
# Variants kept per process (each a few KB): a course's students times its exercises, in two languages.
KEPT_VARIANTS = 4096
KEPT_DEPARTURES = 256


@dataclass(frozen=True)
class FieldView:
    """One answer input: engine field name, kind, label and hint in the page language."""

    name: str
    kind: str
    label: str
    hint: str
    multiline: bool


@dataclass(frozen=True)
class VariantView:
    """A variant as the exercise page shows it, in one language: the prompt, the data blocks, the answer fields."""

    prompt: PagePrompt
    blocks: tuple[Block, ...]
    fields: tuple[FieldView, ...]


def field_views(fields: list[dict[str, Any]], lang: str) -> tuple[FieldView, ...]:
    """The engine's answer fields in the page language."""
    return tuple(
        FieldView(f["name"], f["kind"], f["label"][lang], f["hint"][lang], f["kind"] in MULTILINE_KINDS) for f in fields
    )


@functools.lru_cache(maxsize=KEPT_VARIANTS)
def variant_view(exercise_id: str, seed: int, lang: str) -> VariantView:
    """The variant (``exercise_id``, ``seed``) as the page shows it in ``lang``."""
    shown = engine.variant(exercise_id, seed, lang)
    prompt = page_prompt(exercise_id, seed, lang, shown["data"])
    blocks = tuple(page_data_blocks(prompt, shown["data"], lang, exercise_id))
    return VariantView(prompt, blocks, field_views(shown["fields"], lang))


@functools.lru_cache(maxsize=KEPT_VARIANTS)
def _steps(exercise_id: str, seed: int, lang: str) -> tuple[Mapping[str, Any], ...]:
    """The variant's worked solution, read-only."""
    return tuple(MappingProxyType(step) for step in engine.worked_solution(exercise_id, seed, lang))


# Keyed by the answer as typed, which may be as long as a request allows: far fewer kept, so they stay small.
@functools.lru_cache(maxsize=KEPT_DEPARTURES)
def _departure(exercise_id: str, seed: int, lang: str, answer: str) -> int | None:
    """The number of the step where ``answer`` (JSON) first leaves the variant's worked solution, or None."""
    departure = engine.first_departure(exercise_id, seed, json.loads(answer), lang)
    return None if departure is None else int(departure["number"])


def worked_solution(
    exercise_id: str, seed: int, lang: str, latest: Submission | None
) -> tuple[tuple[Mapping[str, Any], ...], int | None]:
    """The variant's worked solution (for a key the rules let the student see), and the number of the step where
    ``latest``, when it is a graded answer to this variant that is not fully right, first leaves it."""
    steps = _steps(exercise_id, seed, lang)
    if (
        not steps
        or latest is None
        or latest.status != SubmissionStatus.GRADED
        or latest.seed != seed
        or (latest.score or 0.0) >= 1.0
    ):
        return steps, None
    # Kept by the answer itself, not the submission's id: the same answer leaves the solution at the same step.
    return steps, _departure(exercise_id, seed, lang, json.dumps(latest.raw_answer, sort_keys=True))
