"""The student's side of a course (issue 19): previous and next exercise on every exercise page, attempt numbers
per exercise instead of submission ids, and "done" meaning full marks ("attempted" otherwise); on both databases."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy.orm import Session

from grader.i18n import LANG_COOKIE, t
from grader.models import Assignment, User
from grader.ui.exercise_catalogue import exercise_title
from tests.conftest import app_on
from tests.factories import TEST_PASSWORD, make_assignment, make_graded, make_user
from tests.support import Backend
from tests.web.conftest import csrf_from

# In the assignment's order; the capacity lab is not graded, so the exercise pages step over it.
ORDER = ["ch13.shift-pairs", "l03.capacity-lab", "ch09.rnn-step", "ch13.loss-average"]
GRADED = [ORDER[0], ORDER[2], ORDER[3]]


@pytest.fixture
def app(backend: Backend) -> Iterator[Flask]:
    """The app on the session's backend (SQLite and PostgreSQL), not the demo: these pages need their own course."""
    with app_on(backend) as application:
        yield application


def _signed_in(client: FlaskClient, user: User, lang: str) -> None:
    """Sign ``user`` in through the form and choose the page language."""
    token = csrf_from(client.get("/login").get_data(as_text=True))
    reply = client.post("/login", data={"username": user.username, "password": TEST_PASSWORD, "csrf_token": token})
    assert reply.status_code == 302
    client.set_cookie(LANG_COOKIE, lang)


def _course(session: Session) -> tuple[User, Assignment]:
    """A student in a course whose assignment sets ``ORDER``."""
    student = make_user(session)
    return student, make_assignment(session, [student], exercise_ids=ORDER)


def _page(client: FlaskClient, path: str) -> str:
    reply = client.get(path)
    assert reply.status_code == 200, path
    return reply.get_data(as_text=True)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_every_exercise_page_links_the_previous_and_next_graded_exercise(
    client: FlaskClient, session: Session, lang: str
) -> None:
    student, assignment = _course(session)
    _signed_in(client, student, lang)
    base = f"/assignments/{assignment.id}/exercises/"
    for index, exercise_id in enumerate(GRADED):
        html = _page(client, base + exercise_id)
        assert f'aria-label="{t("exercise.pager", lang)}"' in html
        before = GRADED[index - 1] if index > 0 else None
        after = GRADED[index + 1] if index + 1 < len(GRADED) else None
        for rel, key, neighbour in (
            ("prev", "exercise.previous_label", before),
            ("next", "exercise.next_label", after),
        ):
            if neighbour is None:
                assert f'rel="{rel}"' not in html
                continue
            link = re.search(rf'<a [^>]*rel="{rel}"[^>]*aria-label="([^"]*)"\s+href="([^"]*)"', html)
            assert link, (exercise_id, rel)
            assert link.group(1) == t(key, lang, title=exercise_title(neighbour, lang))
            assert link.group(2) == base + neighbour  # never the ungraded lab in between
    assert "l03.capacity-lab" not in _page(client, base + GRADED[1]).split('class="pager"')[1]


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_submissions_are_numbered_per_exercise_never_by_id(client: FlaskClient, session: Session, lang: str) -> None:
    student, assignment = _course(session)
    other = make_user(session)  # someone else's submissions in between move no number
    first = make_graded(session, assignment.id, student.id, GRADED[0], 0.5)
    make_graded(session, assignment.id, other.id, GRADED[0], 1.0)
    elsewhere = make_graded(session, assignment.id, student.id, GRADED[1], 0.2)
    unreadable = make_graded(session, assignment.id, student.id, GRADED[0], status="invalid")  # uses no attempt
    second = make_graded(session, assignment.id, student.id, GRADED[0], 1.0)
    _signed_in(client, student, lang)

    history = _page(client, "/submissions")
    attempt_cells = re.findall(r'<th scope="row"><a href="/submissions/(\d+)"[^>]*>([^<]*)</a></th>', history)
    assert attempt_cells == [  # newest first, per exercise
        (str(second.id), t("subs.attempt", lang, n=2)),
        (str(unreadable.id), t("subs.not_counted", lang)),
        (str(first.id), t("subs.attempt", lang, n=1)),
        (str(elsewhere.id), t("subs.attempt", lang, n=1)),
    ]
    assert f'aria-label="{t("subs.open_attempt", lang, n=2)}"' in history
    assert f"#{second.id}" not in history

    exercise = _page(client, f"/assignments/{assignment.id}/exercises/{GRADED[0]}")
    assert f'<p class="hint" id="latest-attempt">{t("subs.attempt", lang, n=2)}</p>' in exercise  # its latest result

    title = exercise_title(GRADED[0], lang)
    for submission, heading in (
        (second, t("subs.attempt_title", lang, title=title, n=2)),
        (first, t("subs.attempt_title", lang, title=title, n=1)),
        (unreadable, t("subs.uncounted_title", lang, title=title)),
    ):
        page = _page(client, f"/submissions/{submission.id}")
        assert f'<h1 id="attempt-heading">{heading}</h1>' in page
        assert f"#{submission.id}" not in page


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_done_means_full_marks_and_anything_less_is_attempted(client: FlaskClient, session: Session, lang: str) -> None:
    student, assignment = _course(session)
    make_graded(session, assignment.id, student.id, GRADED[0], 1.0)
    make_graded(session, assignment.id, student.id, GRADED[1], 0.99)  # 99 % is not done
    _signed_in(client, student, lang)
    progress = t("assignment.progress_text", lang, done=1, total=3, attempted=1, percent=66)

    page = _page(client, f"/assignments/{assignment.id}")
    states = re.findall(r'<span class="state state-([a-z_]+)">([^<]*)</span>', page)
    assert states == [
        ("done", t("state.done", lang)),
        ("attempted", t("state.attempted", lang)),
        ("not_started", t("state.not_started", lang)),
    ]
    assert progress in page
    assert progress in _page(client, "/courses")  # the course list, by the same rule


def test_an_attempt_still_queued_is_attempted_not_done(client: FlaskClient, session: Session) -> None:
    student, assignment = _course(session)
    make_graded(session, assignment.id, student.id, GRADED[2], status="queued")
    _signed_in(client, student, "en")
    page = _page(client, f"/assignments/{assignment.id}")
    assert '<span class="state state-attempted">' in page and '<span class="state state-done">' not in page
    assert t("assignment.progress_text", "en", done=0, total=3, attempted=1, percent=0) in page
