"""The teacher's sample preview writes the answer key as students see it (field labels, rounded values, yes/no in
the page's language) and titles its data section for a teacher, not "Your data"."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from flask.testing import FlaskClient
from markupsafe import escape
from sqlalchemy.orm import Session

from exercises import api as engine
from grader.models import Role
from tests.factories import make_user

Login = Callable[[str], tuple[FlaskClient, str]]
ATTENTION = "ch09.scaled-dot-attention"
KEY = re.compile(r'<dl class="answer-key">(.*?)</dl>', re.DOTALL)
ENTRY = re.compile(r"<dt>(.*?)</dt><dd><code>(.*?)</code></dd>", re.DOTALL)


@pytest.mark.parametrize(
    ("lang", "heading", "no"), [("zh", "学生看到的数据", "否"), ("en", "The data as students see it", "no")]
)
def test_the_key_is_written_as_students_see_it(
    login: Login, session: Session, lang: str, heading: str, no: str
) -> None:
    client, _ = login(make_user(session, Role.TEACHER).username)
    client.set_cookie("lang", lang)
    page = client.get(f"/teach/exercises/{ATTENTION}/preview?seed=0").get_data(as_text=True)
    (key,) = KEY.findall(page)
    shown = dict(ENTRY.findall(key))
    labels = {f["name"]: f["label"][lang] for f in engine.variant(ATTENTION, 0, lang)["fields"]}
    expected = engine.answer_key_text(ATTENTION, 0, lang)  # what the student's exercise page shows
    assert shown == {str(escape(labels[name])): str(escape(value)) for name, value in expected.items()}
    assert shown[str(escape(labels["diagonal_dominant"]))] == no
    assert "0.7071067811865475" not in key and "diagonal_dominant" not in key and "true" not in key.lower()
    assert f"<h2>{heading}</h2>" in page and "<h2>本题数据</h2>" not in page and "<h2>Your data</h2>" not in page
