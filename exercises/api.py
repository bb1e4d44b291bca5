"""The engine's public face: plain functions returning JSON-ready dicts, used by the CLI, workers and web app."""

from __future__ import annotations

import copy
import functools
from typing import Any

from exercises.base import ENGINE_VERSION, SEED_LIMIT, GradeResult, Variant
from exercises.capacity_lab import CAPACITY_LAB_ID, CAPACITY_LAB_TITLE, run_capacity_lab
from exercises.checking import check_answer, to_json
from exercises.diagnosis import worked
from exercises.diagnosis.search import generated_name
from exercises.engine_errors import BadSeed, UnknownExercise
from exercises.gradable import needs_variant, variant_errors
from exercises.grading_policy import DEFAULT_POLICY, FollowThrough, GradingPolicy
from exercises.i18n import Text, normalise_lang
from exercises.parsing import parse_answer
from exercises.plugin import Exercise
from exercises.precision import precision_warnings
from exercises.readers import display
from exercises.registry import EXERCISES, get_exercise
from exercises.said_rendering import in_language
from exercises.variant_generation import check_seed, generate_variant

__all__ = [
    "DEFAULT_POLICY",
    "ENGINE_VERSION",
    "SEED_LIMIT",
    "BadSeed",
    "FollowThrough",
    "GradingPolicy",
    "UnknownExercise",
    "answer_key",
    "exercise_ids",
    "first_departure",
    "grade",
    "list_exercises",
    "misconception_example",
    "misconception_name",
    "misconception_names",
    "prompt_without_data",
    "reads_per_variant",
    "run_capacity_lab",
    "texts_in",
    "validate",
    "variant",
    "worked_solution",
]


# (exercise, seed) pairs kept: the students of a large course at work at once (each variant and answer key kept
# ~5.4 KB, so ~11 MB per process when full); generating one again costs up to ~7 ms, on every preview of a
# student whose entry a smaller cache had let go.
VARIANT_CACHE_SIZE = 2048
# (exercise id, tag) -> short name of every hand-written misconception (tag_part functions only add tags from that
# list); a generated tag (gen:<step>:<mistake>) is worded from the exercise's steps instead.
_MISCONCEPTION_NAMES: dict[tuple[str, str], Text] = {
    (exercise.id, misconception.tag): misconception.name
    for exercise in EXERCISES
    for misconception in exercise.misconceptions
}


_IDS = frozenset(exercise.id for exercise in EXERCISES)


@functools.lru_cache(maxsize=VARIANT_CACHE_SIZE)
def _cached_variant(exercise_id: str, seed: int) -> Variant:
    """The generated variant for (id, checked int seed), kept for reuse; never handed out (its data is mutable)."""
    return generate_variant(get_exercise(exercise_id), seed)


def _generate(exercise: Exercise, seed: object) -> Variant:
    """``exercise.generate(seed)`` from the cache, as a deep copy so that no caller can alter the cached data."""
    # Checked before the look-up: True or 1.0 would otherwise hit the entry cached for 1.
    return copy.deepcopy(_cached_variant(exercise.id, check_seed(seed)))


def _fields(exercise: Exercise) -> list[dict[str, Any]]:
    """The answer fields of an exercise as JSON."""
    return [
        {
            "name": f.name,
            "kind": f.kind,
            "weight": f.weight,
            "label": {"zh": f.label.zh, "en": f.label.en},
            "hint": {"zh": f.hint.zh, "en": f.hint.en},
        }
        for f in exercise.fields
    ]


def list_exercises() -> list[dict[str, Any]]:
    """Every exercise with its titles and answer fields, the capacity lab last (not graded)."""
    listed = [
        {
            "id": e.id,
            "chapter": e.chapter,
            "title": {"zh": e.title.zh, "en": e.title.en},
            "graded": True,
            "fields": _fields(e),
        }
        for e in EXERCISES
    ]
    listed.append(
        {
            "id": CAPACITY_LAB_ID,
            "chapter": "l03",
            "graded": False,
            "fields": [],
            "title": {"zh": CAPACITY_LAB_TITLE.zh, "en": CAPACITY_LAB_TITLE.en},
        }
    )
    return listed


def exercise_ids(graded_only: bool = True) -> list[str]:
    """The ids of the registered exercises (and the capacity lab unless ``graded_only``)."""
    ids = [e.id for e in EXERCISES]
    return ids if graded_only else [*ids, CAPACITY_LAB_ID]


def variant(exercise_id: str, seed: int, lang: str = "zh") -> dict[str, Any]:
    """The variant for (id, seed) with its prompt in ``lang``; never contains the answer."""
    exercise = get_exercise(exercise_id)
    lang = normalise_lang(lang)
    generated = _generate(exercise, seed)
    return {
        "exercise_id": exercise.id,
        "seed": generated.seed,
        "engine_version": generated.engine_version,
        "lang": lang,
        "data": to_json(dict(generated.data)),
        "prompt": exercise.prompt(generated, lang),
        "fields": _fields(exercise),
    }


def prompt_without_data(exercise_id: str, seed: int, lang: str = "zh", placeholder: str = "") -> str:
    """``variant(...)["prompt"]`` for a page that renders the variant's ``data`` itself: the plain-text copy of the
    data that the prompt lays out (the ch13 probability table) is replaced by ``placeholder``, so that it shows once.

    Not a key of ``variant()``: that dict is the API's and the CLI's variant, whose shape clients rely on.
    """
    exercise = get_exercise(exercise_id)
    return exercise.prompt_without_data(_generate(exercise, seed), normalise_lang(lang), placeholder)


def validate(exercise_id: str, answer: object, lang: str = "zh", seed: int | None = None) -> dict[str, Any]:
    """Read an answer without grading it: what was understood, or where and why it could not be read.

    ``warnings`` name parts whose numbers carry fewer decimals than the hint asks (they do not make it invalid).
    With ``seed`` it also checks what only the variant can tell, e.g. one letter per item of this variant, or the
    shape of a vector or matrix (the errors ``grade`` would give, so that such an answer uses no attempt).
    """
    exercise = get_exercise(exercise_id)
    lang = normalise_lang(lang)
    parsed = parse_answer(exercise, answer, lang)
    errors = parsed.errors
    if seed is not None and reads_per_variant(exercise_id):
        generated = _generate(exercise, seed)
        # On the parts read so far, not only once all are: a matrix of the wrong shape must not show "read as"
        # while the student has yet to fill another part. The cached key: the preview runs this as they type.
        errors += variant_errors(
            exercise, generated, parsed.values, lang, _cached_answer_key(exercise.id, generated.seed)
        )
    # Warnings never block: a number with fewer decimals than the hint asks may be exact (0.5), so it stays valid.
    return {
        "status": "invalid" if errors else "valid",
        "parsed": {name: to_json(value) for name, value in parsed.values.items()},
        "interpreted": dict(parsed.interpreted),
        "errors": [e.to_dict() for e in errors],
        "warnings": precision_warnings(exercise.fields, dict(parsed.values), lang),
    }


def reads_per_variant(exercise_id: str) -> bool:
    """Whether reading an answer also depends on the variant (so ``validate`` wants its seed): e.g. one letter per
    item, where the variant says how many items there are, or a vector or matrix, whose shape the variant fixes."""
    return needs_variant(get_exercise(exercise_id))


def grade(
    exercise_id: str, seed: int, answer: object, lang: str = "zh", policy: GradingPolicy = DEFAULT_POLICY
) -> dict[str, Any]:
    """Parse and check an answer for (id, seed) under an assignment's grading ``policy`` (the default: full partial
    and follow-through credit); an unreadable answer comes back ``invalid`` with errors."""
    exercise = get_exercise(exercise_id)
    lang = normalise_lang(lang)
    generated = _generate(exercise, seed)
    parsed = parse_answer(exercise, answer, lang)
    if not parsed.valid:
        result = GradeResult(
            exercise.id,
            generated.seed,
            generated.engine_version,
            "invalid",
            None,
            {},
            parsed.errors,
            {k: to_json(v) for k, v in parsed.values.items()},
        )
    else:
        result = check_answer(exercise, generated, parsed.values, lang, policy)
    return result.to_dict()


def texts_in(item: dict[str, Any], lang: str = "zh") -> tuple[dict[str, Any], bool]:
    """A stored part or error of ``grade``'s result with its texts in ``lang``, from the messages stored with it (no
    grading, no variant), and whether they could all be said so; otherwise the stored texts stay."""
    return in_language(item, normalise_lang(lang))


def answer_key(exercise_id: str, seed: int) -> dict[str, Any]:
    """The reference answer for (id, seed); for teachers, or for students once the key may show."""
    exercise = get_exercise(exercise_id)
    return copy.deepcopy(_cached_answer_key(exercise.id, check_seed(seed)))


def answer_key_text(exercise_id: str, seed: int, lang: str = "zh") -> dict[str, str]:
    """The answer key written as answers are read back ("否", "BOS→blue, …", "0.693147"), per field, in ``lang``."""
    exercise = get_exercise(exercise_id)
    key = _cached_answer_key(exercise.id, check_seed(seed))
    return {f.name: display(f.kind, key[f.name], normalise_lang(lang)) for f in exercise.fields}


@functools.lru_cache(maxsize=VARIANT_CACHE_SIZE)
def _cached_answer_key(exercise_id: str, seed: int) -> dict[str, Any]:
    """The answer key for (id, checked int seed), kept for reuse: staff see it with every submission they read."""
    exercise = get_exercise(exercise_id)
    return {name: to_json(value) for name, value in exercise.solve(_generate(exercise, seed)).items()}


def worked_solution(exercise_id: str, seed: int, lang: str = "zh") -> list[dict[str, Any]]:
    """This variant's solution as the engine's named steps, in ``lang`` (for the key view, once its rule allows);
    empty for an exercise without steps."""
    exercise = get_exercise(exercise_id)
    return worked.worked_solution(exercise, _generate(exercise, seed), normalise_lang(lang))


def first_departure(exercise_id: str, seed: int, answer: object, lang: str = "zh") -> dict[str, Any] | None:
    """For an answer (typed or JSON), the first step of the worked solution where its numbers leave it: the step's
    number and label, the part it shows in, and the mistake when the diagnosis knows it; None for an answer that is
    right, unreadable, or of an exercise without steps."""
    exercise = get_exercise(exercise_id)
    lang = normalise_lang(lang)
    generated = _generate(exercise, seed)
    parsed = parse_answer(exercise, answer, lang)
    if not parsed.valid:
        return None
    result = check_answer(exercise, generated, parsed.values, lang)
    if result.status != "graded":
        return None
    tags = {name: part.tags for name, part in result.parts.items()}
    return worked.first_departure(exercise, generated, parsed.values, tags, lang)


def misconception_name(exercise_id: str, tag: str, lang: str = "zh") -> str | None:
    """The short human name of ``tag`` on ``exercise_id`` in ``lang``; None for a tag (or exercise) it does not know."""
    # None rather than UnknownExercise: stored results may carry tags of an older engine, shown then as the bare tag.
    name = _MISCONCEPTION_NAMES.get((exercise_id, tag))
    if name is None and exercise_id in _IDS:
        name = generated_name(get_exercise(exercise_id), tag)
    return None if name is None else name.get(normalise_lang(lang))


def misconception_example(exercise_id: str, tag: str, lang: str = "zh") -> str | None:
    """What an answer carrying ``tag`` said, in words, where the stored reading would not tell a teacher (choices
    shown in each student's own order); None where the stored reading is the better example."""
    if exercise_id not in _IDS:
        return None
    example = get_exercise(exercise_id).tag_example
    return None if example is None else example(tag, normalise_lang(lang))


def misconception_names(exercise_id: str, lang: str = "zh") -> dict[str, str]:
    """Every misconception tag of ``exercise_id`` with its short name in ``lang`` (for pages that render results)."""
    chosen = normalise_lang(lang)
    return {
        misconception.tag: misconception.name.get(chosen) for misconception in get_exercise(exercise_id).misconceptions
    }
