"""JSON for the database's JSON columns and the worker's grade notices, written and read by pydantic-core.

A graded row carries a few kilobytes of JSON (parts, errors, the parsed answer) through two codecs per job: the
write's parameters and the waiting request's reading of the notice (the write returns those columns as their
stored text, which the notice carries as it is: ``final_row``). With the standard library these took ~50 µs to
write and ~30 µs to read each; pydantic-core (already installed for the API's models) takes ~12 and ~18
(bench/README.md, 2026-12-06).

For the values these columns hold (objects with text keys, lists, text, numbers, booleans, null) what reads back
is what ``json`` gives: keys keep their order, floats are written in their shortest exact form, NaN and the
infinities as ``json`` writes them (which PostgreSQL refuses, as before). Text differs only in form: non-ASCII
characters are written as UTF-8 instead of ``\\u`` escapes. Both ways fall back to ``json`` for nesting deeper than
pydantic-core goes (~200 levels), so any value ``json`` wrote still writes and reads, and an object neither knows
is refused with ``json``'s TypeError. (A few types ``json`` refuses, sets and datetimes, pydantic-core writes as
lists and ISO text; nothing stored here is one.)
"""

from __future__ import annotations

import json
from typing import Any

import pydantic_core


def dumps(value: Any) -> str:
    """``value`` as JSON text."""
    return dumps_bytes(value).decode()


def dumps_bytes(value: Any) -> bytes:
    """``value`` as JSON, UTF-8 encoded."""
    try:
        return pydantic_core.to_json(value)
    except ValueError:
        # Deeper nesting than pydantic-core writes, or a type it does not know: ``json`` writes the one and
        # refuses the other (TypeError) as it always did.
        return json.dumps(value, ensure_ascii=False).encode()


def loads(data: str | bytes) -> Any:
    """The value of the JSON document ``data``."""
    try:
        return pydantic_core.from_json(data)
    except ValueError:
        return json.loads(data)  # deeper nesting than pydantic-core reads; a document that is not JSON raises here
