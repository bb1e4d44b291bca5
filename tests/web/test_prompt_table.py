"""The ch13 table exercises show their probability table once on the exercise page: as an HTML table where the
prompt's space-aligned text copy stood (the page's line wrapping would scramble the text), with no placeholder
sentence in its place."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from flask import Flask
from flask.testing import FlaskClient
from markupsafe import escape
from sqlalchemy import select

from exercises import api as engine
from exercises.registry import get_exercise
from exercises.variant_generation import generate_variant
from grader.extensions import get_db
from grader.grading.variant_seeds import seed_for
from grader.models import Assignment, User
from grader.ui.data_view import format_number

TABLE_EXERCISES = ("ch13.greedy-decode", "ch13.loss-average", "ch13.exposure-divergence")
PROMPT_DIV = re.compile(r'<div class="prompt">(.*?)</div>', re.DOTALL)
POINTER = {"zh": "（表见下方。）", "en": "(The table is below.)"}
Login = Callable[[FlaskClient, str], str]


def _chapter13_and_seed(app: Flask, exercise_id: str) -> tuple[int, int]:
    """The demo's chapter 13 assignment and student1's seed for ``exercise_id`` (fixed on first view)."""
    with app.app_context(), get_db(app).session() as session:
        assignment = session.scalars(select(Assignment.id).where(Assignment.title_en.startswith("Chapter 13"))).one()
        student = session.scalars(select(User).where(User.username == "student1")).one()
        return assignment, seed_for(session, student.id, exercise_id)


def _row_html(previous: str, row: list[float]) -> str:
    """One probability row as the data template renders it."""
    cells = "".join(f"<td>{escape(format_number(p))}</td>" for p in row)
    return f'<tr><th scope="row">{escape(previous)}</th>{cells}</tr>'


@pytest.mark.parametrize("exercise_id", TABLE_EXERCISES)
def test_the_table_shows_once_as_html_and_not_as_text(
    app: Flask, client: FlaskClient, login: Login, exercise_id: str
) -> None:
    token = login(client, "student1")
    assignment, seed = _chapter13_and_seed(app, exercise_id)
    exercise = get_exercise(exercise_id)
    for lang in ("zh", "en"):
        client.post("/lang", data={"csrf_token": token, "lang": lang, "next": "/courses"})
        html = client.get(f"/assignments/{assignment}/exercises/{exercise_id}").get_data(as_text=True)
        data = engine.variant(exercise_id, seed, lang)["data"]
        for previous, row in data["table"].items():
            assert html.count(_row_html(previous, row)) == 1, (lang, previous)
        before, after = PROMPT_DIV.findall(html)
        block = exercise.data_text(generate_variant(exercise, seed), lang)
        # No line of the text table anywhere on the page, in the prompt or elsewhere, and nothing preformatted.
        assert [line for line in block.splitlines() if escape(line) in html] == []
        assert "<pre" not in html
        assert all(escape(pointer) not in html for pointer in POINTER.values())
        # The HTML table stands between the prompt's text before it and after it, where the text copy stood.
        first_row = _row_html(*next(iter(data["table"].items())))
        assert html.index(before) < html.index(first_row) < html.index(after)
        # The rest of the question is all there: the page's prompt is the text prompt with only the table left out.
        paragraphs = engine.variant(exercise_id, seed, lang)["prompt"].split("\n\n")
        at = paragraphs.index(block)
        assert before == escape("\n\n".join(paragraphs[:at])), lang
        assert after == escape("\n\n".join(paragraphs[at + 1 :])), lang


def test_a_prompt_without_a_table_is_shown_whole(app: Flask, client: FlaskClient, login: Login) -> None:
    login(client, "student1")
    assignment, seed = _chapter13_and_seed(app, "ch13.shift-pairs")
    html = client.get(f"/assignments/{assignment}/exercises/ch13.shift-pairs").get_data(as_text=True)
    [prompt] = PROMPT_DIV.findall(html)
    assert prompt == escape(engine.variant("ch13.shift-pairs", seed, "zh")["prompt"])
    assert POINTER["zh"] not in html and "<table" not in prompt
