"""A regrade can be previewed: how many scores would change, up and down, before it runs; nothing is written."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from flask.testing import FlaskClient
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from grader.grading.regrade_preview import RegradePreview, preview_regrade
from grader.models import RegradeJob, Role, Submission
from tests.factories import make_user
from tests.teacher import regrade_data

Login = Callable[[str], tuple[FlaskClient, str]]


@pytest.mark.parametrize(
    ("lang", "counts"),
    [
        ("en", "4 submissions checked with the current engine: 3 would change, 1 up and 2 down."),
        ("zh", "用当前引擎检查了 4 份提交：3 份会改变，其中分数提高 1 份、降低 2 份。"),
    ],
)
def test_the_preview_counts_changes_up_and_down_and_writes_nothing(
    login: Login, session: Session, lang: str, counts: str
) -> None:
    fixture = regrade_data.build(session)
    stored = session.execute(select(Submission.id, Submission.score, Submission.status).order_by(Submission.id)).all()
    client, _ = login(fixture.teacher.username)
    client.set_cookie("lang", lang)
    assignment_page = client.get(f"/teach/assignments/{fixture.assignment.id}").get_data(as_text=True)
    assert f"/teach/assignments/{fixture.assignment.id}/regrade/preview" in assignment_page
    page = client.get(f"/teach/assignments/{fixture.assignment.id}/regrade/preview")
    assert page.status_code == 200
    assert counts in page.get_data(as_text=True)
    session.expire_all()
    after = session.execute(select(Submission.id, Submission.score, Submission.status).order_by(Submission.id)).all()
    assert after == stored
    assert session.scalar(select(func.count(RegradeJob.id))) == 0


def test_a_preview_over_its_limit_says_it_is_partial(session: Session) -> None:
    fixture = regrade_data.build(session)
    # In id order: raised, lowered (the queued one is not final and is never checked).
    assert preview_regrade(session, fixture.assignment, limit=2) == RegradePreview(2, 2, 1, 1, 0, True)
    assert preview_regrade(session, fixture.assignment).partial is False


def test_another_teacher_cannot_preview(login: Login, session: Session) -> None:
    fixture = regrade_data.build(session)
    stranger = make_user(session, Role.TEACHER)
    client, _ = login(stranger.username)
    assert client.get(f"/teach/assignments/{fixture.assignment.id}/regrade/preview").status_code == 404
