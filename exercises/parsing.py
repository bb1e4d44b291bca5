"""Reading a raw answer part by part: the fields it must have, the words around each value, and why a part
cannot be read (an error, never an exception)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from exercises import messages
from exercises.base import AnswerField, FieldError, ParsedAnswer
from exercises.engine_errors import ReadError
from exercises.plugin import Exercise
from exercises.readers import display, read_kind
from exercises.said import Said, literal
from exercises.text_input import MAX_TEXT_CHARS, refuse_unreadable
from exercises.unit_text import blank_noise

MAX_FIELD_NAME = 64


def parse_answer(exercise: Exercise, raw: object, lang: str = "zh") -> ParsedAnswer:
    """Read every field of ``raw``; a field that can't be read becomes an error, never an exception."""
    raw = _as_object(exercise, raw)
    if isinstance(raw, FieldError):
        return ParsedAnswer({}, {}, (_localised(raw, lang),))
    known = {f.name for f in exercise.fields}
    errors: list[FieldError] = [
        field_error(
            str(name)[:MAX_FIELD_NAME],
            messages.shared(messages.UNKNOWN_FIELD, name=str(name)[:MAX_FIELD_NAME], expected=", ".join(sorted(known))),
            lang,
        )
        for name in raw
        if name not in known
    ]
    values: dict[str, Any] = {}
    interpreted: dict[str, str] = {}
    for answer_field in exercise.fields:
        if answer_field.name not in raw:
            errors.append(field_error(answer_field.name, messages.shared(messages.MISSING_FIELD), lang))
            continue
        try:
            typed = raw[answer_field.name]
            # Text over the length limit is refused by the reader before any work: no words are looked for in it.
            too_long = isinstance(typed, str) and len(typed) > MAX_TEXT_CHARS
            if not too_long:
                refuse_unreadable(typed)
            bare = typed if too_long else _without_words(exercise, answer_field, typed)
            value = read_kind(
                answer_field.kind,
                bare,
                symbols=exercise.symbols,
                aliases=answer_field.aliases,
                options=answer_field.options,
            )
        except ReadError as error:
            errors.append(
                field_error(answer_field.name, literal(error.message), lang, error.position, error.interpreted)
            )
            continue
        values[answer_field.name] = value
        interpreted[answer_field.name] = display(answer_field.kind, value, lang)
    return ParsedAnswer(values, interpreted, tuple(errors))


NUMERIC_KINDS = {"number", "int", "optional_int", "vector", "matrix", "vectors"}
SCALAR_KINDS = {"number", "int", "optional_int"}


def _without_words(exercise: Exercise, answer_field: AnswerField, raw: object) -> object:
    """The typed text with the words around the value blanked: ``答：``, ``≈`` / ``约`` on numbers, the field's units
    (and ``≈`` once more after a leading unit, as in ``共约 4 个``); on a scalar part whose exercise has no symbol
    ``x``, an ``x`` between numbers is a multiplication sign."""
    numeric = answer_field.kind in NUMERIC_KINDS
    times_x = answer_field.kind in SCALAR_KINDS and "x" not in exercise.symbols
    text = answer_field.units.blank(blank_noise(raw, numeric, times_x))
    return blank_noise(text, numeric) if numeric else text


def _as_object(exercise: Exercise, raw: object) -> Mapping[str, Any] | FieldError:
    """Accept an object, a JSON text of one, or bare text for a one-field exercise."""
    if isinstance(raw, str):
        stripped = raw.strip()
        if stripped.startswith("{"):
            try:
                raw = json.loads(stripped)
            except ValueError:
                if len(exercise.fields) != 1:
                    return FieldError(None, "not-json")
                # One field: "{{a,0},{0,a}}" is a matrix in curly brackets, for that field's reader.
                return {exercise.fields[0].name: raw}
        elif len(exercise.fields) == 1:
            return {exercise.fields[0].name: raw}
    if not isinstance(raw, Mapping):
        return FieldError(None, "not-object")
    return raw


def _localised(error: FieldError, lang: str) -> FieldError:
    """Turn the placeholder code of an answer-level error into its message."""
    text = messages.NOT_JSON if error.message == "not-json" else messages.NOT_OBJECT
    return field_error(None, messages.shared(text), lang)


def field_error(
    name: str | None, said: Said, lang: str, position: int | None = None, interpreted: str | None = None
) -> FieldError:
    """Why field ``name`` cannot be read: ``said`` in ``lang``, with the messages it is made of."""
    return FieldError(name, said.get(lang), position, interpreted, said)
