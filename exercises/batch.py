"""JSON-lines requests to the engine: one reply per non-blank line, in order; a bad line is answered with
``{"line", "status": "error", "error": {"code", "message"}}`` and the batch goes on."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, BinaryIO, TextIO

from exercises import api
from exercises.capacity_lab import CAPACITY_LAB_ID
from exercises.i18n import LANGS
from exercises.variant_generation import VariantGenerationError


class LineError(Exception):
    """A request that cannot be served: a code for programs and a message for people."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code
        self.message = message

    def to_dict(self) -> dict[str, str]:
        """JSON form: {"code", "message"}."""
        return {"code": self.code, "message": self.message}


def dumps(value: Any) -> str:
    """One line of JSON."""
    return json.dumps(value, ensure_ascii=False, allow_nan=False)


def _unknown_id_message(exercise_id: object) -> str:
    """Why an id is not known, with the known ones (and a pointer to the lab command for the lab's id)."""
    if exercise_id == CAPACITY_LAB_ID:
        return f"{CAPACITY_LAB_ID} is a lab, not a graded exercise; run `exercises lab` instead"
    return f"unknown exercise id {repr(exercise_id)[:80]}; known ids: {', '.join(api.exercise_ids())}"


def serve(call: Callable[[], dict[str, Any]], exercise_id: object) -> dict[str, Any]:
    """Run an engine call, turning the engine's refusals into a LineError."""
    try:
        return call()
    except api.UnknownExercise as error:
        raise LineError("unknown-exercise", _unknown_id_message(exercise_id)) from error
    except api.BadSeed as error:
        raise LineError("bad-seed", str(error)) from error
    except VariantGenerationError as error:
        raise LineError("engine-error", str(error)) from error


def parse_seed(text: str) -> int:
    """A seed typed on the command line; the engine checks its range."""
    try:
        return int(text)
    except ValueError as error:
        raise LineError("bad-seed", f"seed must be an integer, got {text!r}") from error


def _record_fields(record: object, required: tuple[str, ...]) -> tuple[dict[str, Any], str]:
    """The JSON object of a batch line and its language, or a LineError naming what is wrong."""
    if not isinstance(record, dict):
        raise LineError("not-object", "each line must be a JSON object")
    missing = [name for name in required if name not in record]
    if missing:
        raise LineError("missing-field", f"line lacks {', '.join(missing)} (needs {', '.join(required)})")
    lang = record.get("lang", "zh")
    if lang not in LANGS:
        raise LineError("bad-lang", f"lang must be one of {', '.join(LANGS)}, got {lang!r}")
    return record, lang


def variant_line(record: object) -> dict[str, Any]:
    """One batch line of ``variant``."""
    record, lang = _record_fields(record, ("exercise_id", "seed"))
    return serve(lambda: api.variant(record["exercise_id"], record["seed"], lang), record["exercise_id"])


def grade_line(record: object) -> dict[str, Any]:
    """One batch line of ``grade``."""
    record, lang = _record_fields(record, ("exercise_id", "seed", "answer"))
    return serve(
        lambda: api.grade(record["exercise_id"], record["seed"], record["answer"], lang), record["exercise_id"]
    )


def _reply_to(number: int, line: bytes, handle: Callable[[object], dict[str, Any]]) -> str:
    """The output line for input line ``number``: the engine's answer, or an error naming the problem."""
    try:
        record = json.loads(line)  # bytes: json detects the encoding, bad UTF-8 is a ValueError
    except (ValueError, RecursionError):
        return dumps(
            {"line": number, "status": "error", "error": {"code": "bad-json", "message": "the line is not valid JSON"}}
        )
    try:
        return dumps(handle(record))
    except LineError as error:
        return dumps({"line": number, "status": "error", "error": error.to_dict()})
    except ValueError as error:  # a result that is not plain JSON: an engine bug, reported on its own line
        return dumps({"line": number, "status": "error", "error": {"code": "engine-error", "message": str(error)}})


def run_batch(source: BinaryIO, sink: TextIO, handle: Callable[[object], dict[str, Any]]) -> int:
    """Answer every non-blank JSON line of ``source`` on ``sink`` in order; bad lines get error lines."""
    for number, line in enumerate(iter(source.readline, b""), start=1):
        if not line.strip():
            continue
        sink.write(_reply_to(number, line, handle) + "\n")
        sink.flush()  # a caller may feed one line and wait for its answer
    return 0
