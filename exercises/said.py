"""What the engine says, kept as meaning: message ids with their arguments, rendered in a language when read.

A result's feedback is stored with the messages it was made of, so that a reader in the other language gets the
same sentences rendered in theirs without grading again. ``Said`` is a run of messages, rendered the way
``Text + Text`` joins texts (Chinese run together, English with a space between), so that ``said.get(lang)`` is
exactly the text the engine always gave. A message whose wording comes from the variant's own numbers or from a
reader (a generated diagnosis, a read error) has no id of its own: it is kept as its two texts (``LITERAL``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from exercises.i18n import Text, normalise_lang

LITERAL = "text"  # args {"zh", "en"}: both texts, for a sentence no catalogue id can say again
RULE = "field.rule"  # args {"exercise", "field"}: the rule an answer part applies
MISCONCEPTION = "misconception"  # args {"exercise", "tag"}: a hand-written misconception's feedback


@dataclass(frozen=True)
class Message:
    """One message: its catalogue ``id`` and JSON ``args``, with the text they give (for rendering at once)."""

    id: str
    args: Mapping[str, Any]
    text: Text = field(compare=False)

    def to_json(self) -> dict[str, Any]:
        """What is stored: the id and its arguments, never the text."""
        return {"id": self.id, "args": dict(self.args)} if self.args else {"id": self.id}


@dataclass(frozen=True)
class Said:
    """A run of messages making one feedback text; ``+`` appends, ``get`` renders in a language."""

    messages: tuple[Message, ...]

    def __add__(self, other: Said) -> Said:
        return Said(self.messages + other.messages)

    def get(self, lang: str | None) -> str:
        """The text in ``lang``: as ``Text.__add__`` would have joined the messages' texts."""
        return join([message.text for message in self.messages], lang)

    def to_json(self) -> list[dict[str, Any]]:
        """The stored form: one id-and-arguments object per message."""
        return [message.to_json() for message in self.messages]


def join(texts: list[Text], lang: str | None) -> str:
    """Texts one after another in ``lang``: Chinese run together, English with a space between."""
    if normalise_lang(lang) == "en":
        return " ".join(text.en for text in texts)
    return "".join(text.zh for text in texts)


def say(message_id: str, template: Text, **args: Any) -> Said:
    """The catalogue message ``message_id`` (whose wording is ``template``) with ``args`` filled in."""
    return Said((Message(message_id, args, template.format(**args) if args else template),))


def literal(text: Text) -> Said:
    """A text with no catalogue id (worded from a variant or a reader), kept as both of its languages."""
    return Said((Message(LITERAL, {"zh": text.zh, "en": text.en}, text),))


def rule(exercise_id: str, field_name: str, text: Text) -> Said:
    """The rule of answer part ``field_name`` of ``exercise_id`` (``text`` is its wording)."""
    return Said((Message(RULE, {"exercise": exercise_id, "field": field_name}, text),))


def misconception(exercise_id: str, tag: str, text: Text) -> Said:
    """The feedback of the hand-written misconception ``tag`` of ``exercise_id`` (``text`` is its wording)."""
    return Said((Message(MISCONCEPTION, {"exercise": exercise_id, "tag": tag}, text),))
