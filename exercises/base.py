"""Types shared by the engine: variants, answer fields, misconceptions and the frozen results of checking."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from exercises.comparators import DEFAULT_TOLERANCE, Tolerance
from exercises.i18n import Text
from exercises.said import Said
from exercises.units import Units

# 1.11.0: parts and errors carry ``meaning``, the message ids their texts were made of (results read the same).
ENGINE_VERSION = "1.11.0"
# Seeds are integers in [0, SEED_LIMIT): what a signed 64-bit column stores; the one definition of the bound.
SEED_LIMIT = 2**63

Answer = Mapping[str, Any]
Data = Mapping[str, Any]


@dataclass(frozen=True)
class Variant:
    """One student's numbers for one exercise; ``data`` is JSON and never holds the answer."""

    exercise_id: str
    seed: int
    engine_version: str
    data: Data
    subseed: int = 0


def book_variant(exercise_id: str, data: Data) -> Variant:
    """The seed-0 variant: the chapter's own numbers (``data``), never drawn."""
    return Variant(exercise_id, 0, ENGINE_VERSION, data, 0)


@dataclass(frozen=True)
class AnswerField:
    """One answer part: how to read it, compare it, weigh it and explain its rule."""

    name: str
    kind: str
    label: Text
    hint: Text
    rule: Text
    weight: float = 1.0
    tolerance: Tolerance = DEFAULT_TOLERANCE
    # For kind "enum": the words each key accepts. For kind "bool": extra words read as yes ("true") or no
    # ("false"), only those the question makes unambiguous ("相同" for "are the states equal?").
    aliases: Mapping[str, Sequence[str]] | None = None
    options: Sequence[str] | None = None  # for kinds "choice"/"choices": the option letters offered
    # A list with one entry per entry of the key (e.g. one letter per item): any other length cannot be graded,
    # since a skipped or extra entry would shift every later one onto the wrong item.
    one_per_item: bool = False
    units: Units = Units()  # words allowed around the number, such as "nats" or "维"
    # The earlier parts this one is worked out from; None: every earlier part (the fields list a chain of steps).
    # Parallel questions name none, so that a mistake one of them shows is not ruled out by another answered right.
    uses: tuple[str, ...] | None = None


@dataclass(frozen=True)
class Misconception:
    """A known wrong procedure: its solver returns the answer fields it changes, or None where it changes nothing."""

    tag: str
    solve: Callable[[Variant], Answer | None]
    feedback: Text  # what the student probably did, and the rule that was broken
    # A short human name for the tag (a noun phrase, display only: results store the tag, never the name). No default,
    # so that a misconception cannot be declared without one.
    name: Text
    # Earlier parts the wrong procedure takes from the key unchanged and builds its answer on ("the divergence is at
    # the wrong step" builds on the wrong step): a student who answered one of them otherwise did not take its path,
    # so the tag is not named (checking's consistent_tags).
    builds_on: tuple[str, ...] = ()
    # False for a diagnosis added after the exercise's variants were drawn: it names answers but never makes the
    # variant rules redraw a seed (a student's numbers must not change with an engine update).
    draws_variants: bool = True


@dataclass(frozen=True)
class PartResult:
    """The verdict on one answer part."""

    score: float
    correct: bool
    feedback: str
    misconception: str | None
    tags: tuple[str, ...] = ()
    follow_through: bool = False
    read: str = ""
    # What ``feedback`` and ``read`` say as messages, so that a reader in the other language gets them in theirs.
    feedback_said: Said | None = field(default=None, compare=False)
    read_said: Said | None = field(default=None, compare=False)

    def to_dict(self) -> dict[str, Any]:
        """JSON form, as the CLI and the API print it and the service stores it (``meaning``: the messages its
        texts are made of, by text: a reader's language renders them again)."""
        data: dict[str, Any] = {
            "score": self.score,
            "correct": self.correct,
            "feedback": self.feedback,
            "misconception": self.misconception,
            "tags": list(self.tags),
            "follow_through": self.follow_through,
            "read": self.read,
        }
        meaning = _meaning(feedback=self.feedback_said, read=self.read_said)
        if meaning:
            data["meaning"] = meaning
        return data


def _meaning(**said: Said | None) -> dict[str, Any]:
    """The stored messages of each text that has them, by the name of the text they make."""
    return {name: value.to_json() for name, value in said.items() if value is not None}


@dataclass(frozen=True)
class FieldError:
    """Why one field of an answer could not be read."""

    field: str | None
    message: str
    position: int | None = None
    interpreted: str | None = None
    message_said: Said | None = dataclasses.field(default=None, compare=False)  # what ``message`` says, as messages

    def to_dict(self) -> dict[str, Any]:
        """JSON form of the error (``meaning``: the message's ids, where it has them)."""
        data: dict[str, Any] = {
            "field": self.field,
            "message": self.message,
            "position": self.position,
            "interpreted": self.interpreted,
        }
        meaning = _meaning(message=self.message_said)
        if meaning:
            data["meaning"] = meaning
        return data


@dataclass(frozen=True)
class ParsedAnswer:
    """An answer read field by field: values for the readable fields, errors for the rest."""

    values: Mapping[str, Any]
    interpreted: Mapping[str, str]
    errors: tuple[FieldError, ...] = ()

    @property
    def valid(self) -> bool:
        """True when every field could be read."""
        return not self.errors


@dataclass(frozen=True)
class GradeResult:
    """The verdict on a whole answer: ``graded`` with parts and a score, or ``invalid`` with errors."""

    exercise_id: str
    seed: int
    engine_version: str
    status: str
    score: float | None
    parts: Mapping[str, PartResult] = field(default_factory=dict)
    errors: tuple[FieldError, ...] = ()
    parsed: Mapping[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """JSON form, the stable shape printed by ``grader exercises grade`` and stored by the service."""
        return {
            "exercise_id": self.exercise_id,
            "seed": self.seed,
            "engine_version": self.engine_version,
            "status": self.status,
            "score": self.score,
            "parts": {name: part.to_dict() for name, part in self.parts.items()},
            "errors": [error.to_dict() for error in self.errors],
            "parsed": dict(self.parsed),
        }
