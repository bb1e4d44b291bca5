"""The columns a grading writes, carried in the worker's final notice so that a waiting request need not re-read.

The worker's lease-guarded write returns these columns (``RETURNING``) as they were committed; the notice it
publishes after the commit carries them as JSON; a request waiting on that submission sets them on the row it
already holds (read or inserted by itself). The database stays the one source: the notice only carries what the
committed write returned, and a request that gets no usable copy (a lost or older-style notice) re-reads the row.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, ColumnElement, DateTime, Text, cast
from sqlalchemy.orm import attributes

from grader import json_codec
from grader.models import FINAL_STATUSES, Submission

# Every column that the claim, the graded write or the sweeper can change after the INSERT; the others (who, what,
# which variant, the answer as typed, when) are written once by the INSERT.
GRADING_COLUMNS = (
    "status",
    "score",
    "parts",
    "errors",
    "parsed_answer",
    "engine_version",
    "error_message",
    "attempts",
    "lease_owner",
    "lease_until",
    "dispatched_at",
    "resends",
    "queued_at",
    "started_at",
    "finished_at",
)


def _is_timestamp(column_type: Any) -> bool:
    """True for DateTime and for types that decorate it (UTCDateTime)."""
    return isinstance(column_type, DateTime) or isinstance(getattr(column_type, "impl_instance", None), DateTime)


_TIMESTAMPS = frozenset(name for name in GRADING_COLUMNS if _is_timestamp(Submission.__table__.c[name].type))
# The JSON columns come back as the text stored (``returned_columns``) and go into the payload as that text.
_JSON_TEXT = tuple(name for name in GRADING_COLUMNS if isinstance(Submission.__table__.c[name].type, JSON))
PAYLOAD_VERSION = 1


def returned_columns() -> list[ColumnElement[Any]]:
    """The table columns a graded write returns: the id, then ``GRADING_COLUMNS``, the JSON ones as their stored
    text. Parsing a few kilobytes of parts and errors back into objects only for ``encode`` to write them out again
    was a tenth of a grade's CPU in the worker."""
    table = Submission.__table__.c
    return [
        table.id,
        *(cast(table[name], Text).label(name) if name in _JSON_TEXT else table[name] for name in GRADING_COLUMNS),
    ]


def encode(row: Any) -> bytes:
    """The notice payload for a row returned with ``returned_columns`` (a Row or a mapping)."""
    values = dict(row._mapping) if hasattr(row, "_mapping") else dict(row)
    fields = {
        name: _iso(values[name]) if name in _TIMESTAMPS else values[name]
        for name in GRADING_COLUMNS
        if name not in _JSON_TEXT
    }
    head = json_codec.dumps_bytes({"v": PAYLOAD_VERSION, "id": values["id"], "row": fields})
    # The stored text is JSON already (the database checked it on the way in; NULL is JSON's null): it goes in as
    # it is, after the other columns, inside the row object that ``head`` closes with its last two bytes.
    stored = b"".join(b',"%s":%s' % (name.encode(), _stored_text(values[name])) for name in _JSON_TEXT)
    return head[:-2] + stored + head[-2:]


def _stored_text(text: str | None) -> bytes:
    """A JSON column's stored text as payload bytes (SQL NULL as JSON's null)."""
    return b"null" if text is None else text.encode()


def apply(submission: Submission, payload: bytes) -> bool:
    """Set the columns carried by ``payload`` on ``submission`` as committed state; False (nothing set) if the
    payload is not a final row of this submission in a form this code reads."""
    try:
        decoded = json_codec.loads(payload)
        fields = decoded["row"]
        if (
            decoded.get("v") != PAYLOAD_VERSION
            or decoded.get("id") != submission.id
            or set(fields) != set(GRADING_COLUMNS)
        ):
            return False
        values = {name: _from_iso(fields[name]) if name in _TIMESTAMPS else fields[name] for name in GRADING_COLUMNS}
    except (ValueError, TypeError, KeyError, AttributeError):
        return False
    if values["status"] not in FINAL_STATUSES:
        return False  # the worker only announces final rows: anything else is read from the database
    for name, value in values.items():
        # Committed state, not a change: the session must not write it back.
        attributes.set_committed_value(submission, name, value)
    return True


def _iso(moment: datetime | None) -> str | None:
    """A timestamp as ISO 8601 text (offset kept), or None."""
    return None if moment is None else moment.isoformat()


def _from_iso(text: str | None) -> datetime | None:
    """The timestamp of ``_iso``'s text."""
    return None if text is None else datetime.fromisoformat(text)
