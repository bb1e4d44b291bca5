"""Rendering stored messages (``exercises/said.py``) in the reader's language, without grading anything again.

A stored id is looked up in the shared catalogue (``messages.CATALOGUE``) or in the declarations of its exercise
(a part's rule, a hand-written misconception's feedback): nothing here generates a variant or checks an answer.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from exercises.engine_errors import UnknownExercise
from exercises.i18n import Text
from exercises.messages import CATALOGUE
from exercises.registry import get_exercise
from exercises.said import LITERAL, MISCONCEPTION, RULE, join


class UnknownMessage(ValueError):
    """A stored message this engine cannot say (an id or an exercise's part or tag it no longer has)."""


def message_text(stored: Mapping[str, Any]) -> Text:
    """The two texts of one stored message ``{"id", "args"}``; ``UnknownMessage`` for one this engine cannot say."""
    message_id, args = stored.get("id"), stored.get("args") or {}
    if not isinstance(message_id, str) or not isinstance(args, Mapping):
        raise UnknownMessage(repr(stored))
    try:
        if message_id == LITERAL:
            return Text(str(args["zh"]), str(args["en"]))
        if message_id == RULE:
            return get_exercise(str(args["exercise"])).answer_field(str(args["field"])).rule
        if message_id == MISCONCEPTION:
            declared = get_exercise(str(args["exercise"])).misconceptions
            return next(m.feedback for m in declared if m.tag == args["tag"])
        template = CATALOGUE[message_id]
        return template.format(**args) if args else template
    except (KeyError, IndexError, StopIteration, UnknownExercise) as missing:
        raise UnknownMessage(message_id) from missing


def render_said(stored: object, lang: str) -> str:
    """A stored run of messages as one text in ``lang``, joined as the engine joined it when grading."""
    if not isinstance(stored, list):
        raise UnknownMessage(repr(stored))
    return join([message_text(item) for item in stored if isinstance(item, Mapping)], lang)


def in_language(item: Mapping[str, Any], lang: str) -> tuple[dict[str, Any], bool]:
    """A stored part or error of a result with each text that has its messages (``meaning``, kept as it is: ids do
    not depend on the language) rendered in ``lang``, and whether all of them were.

    A result from before engine 1.11 has no messages, and one naming what this engine no longer knows cannot be
    said again: those keep the stored texts (in the language they were graded in), and the flag is False.
    """
    shown = dict(item)
    meaning = item.get("meaning")
    if not isinstance(meaning, Mapping) or not meaning:
        return shown, False
    try:
        rendered = {
            name: render_said(said, lang) for name, said in meaning.items() if name in shown and name != "meaning"
        }
    except UnknownMessage:
        return shown, False
    return {**shown, **rendered}, True
