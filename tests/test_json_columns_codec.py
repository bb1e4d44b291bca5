"""JSON columns and grade notices go through ``grader.json_codec`` (pydantic-core): every value reads back as the
standard library's ``json`` would give it, in both directions, on both databases."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from flask import Flask
from sqlalchemy.orm import Session

from exercises import api as engine
from grader import json_codec
from grader.extensions import get_db
from grader.models import Submission, User
from tests.engine.test_book_answers import BOOK_ANSWERS
from tests.factories import EXERCISE
from tests.pipeline_helpers import submit

DEEP = 300  # levels of nesting: beyond what pydantic-core reads (~200), which ``json`` still reads

SAMPLES: list[Any] = [
    {"中文": "注意力 α·β", "line": "a\u2028b", "control": "\x00\x1f", "quote": '"\\'},
    [1.5, 0.1, 1e16, 1e-7, -0.0, 2**70, -(2**63), True, False, None],
    {"nested": {"z": 1, "a": [{"k": [[]]}]}},
]


def graded_rows() -> list[dict[str, Any]]:
    """What the engine returns for every book answer: the columns a graded write stores."""
    return [engine.grade(exercise_id, 0, answer, "en") for exercise_id, answer in sorted(BOOK_ANSWERS.items())]


@pytest.mark.parametrize("value", [*SAMPLES, *graded_rows()])
def test_values_read_back_as_json_gives_them_in_both_directions(value: Any) -> None:
    assert json.loads(json_codec.dumps(value)) == value
    assert json_codec.loads(json.dumps(value)) == value
    assert json_codec.loads(json_codec.dumps_bytes(value)) == value
    assert list(json_codec.loads(json_codec.dumps(value))) == list(value)  # keys keep their order


def test_non_finite_numbers_are_written_as_json_writes_them() -> None:
    written = json_codec.dumps([math.nan, math.inf, -math.inf])
    assert written == json.dumps([math.nan, math.inf, -math.inf]).replace(" ", "")
    assert [str(value) for value in json_codec.loads(written)] == ["nan", "inf", "-inf"]


def test_nesting_deeper_than_pydantic_core_reads_still_reads() -> None:
    deep = '"x"'
    for _ in range(DEEP):
        deep = f"[{deep}]"
    value = json_codec.loads(deep)
    for _ in range(DEEP):
        value = value[0]
    assert value == "x"


@pytest.mark.parametrize("text", ["", "{", "[1,]", "nope", b"\xff"])
def test_text_that_is_not_json_is_refused(text: str | bytes) -> None:
    with pytest.raises(ValueError):
        json_codec.loads(text)


def _nested(levels: int) -> dict[str, Any]:
    """An answer whose one field is nested ``levels`` lists deep, around non-ASCII text."""
    value: Any = "中文 α"
    for _ in range(levels):
        value = [value]
    return {"states": value, "note": "注意力\u2028"}


def test_a_json_column_stores_and_reads_back_every_value(app: Flask, session: Session, student: User) -> None:
    answer = _nested(DEEP)
    stored = submit(
        session, user_id=student.id, exercise_id=EXERCISE, seed=0, raw_answer=answer, parsed_answer=None, lang="en"
    )
    with get_db(app).session() as fresh:
        row = fresh.get(Submission, stored.id)
        assert row is not None
        assert row.raw_answer == answer


def test_a_value_json_cannot_write_is_refused_as_json_refuses_it() -> None:
    with pytest.raises(TypeError):
        json_codec.dumps(object())
