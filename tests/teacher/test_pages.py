"""The dashboard pages show the statistics, histograms (as SVG with numbers) and tables of the fixture course."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from flask.testing import FlaskClient
from sqlalchemy import select
from sqlalchemy.orm import Session

from grader.models import Submission
from tests.teacher.course_data import LOSS, FixtureCourse, build

Login = Callable[[str], tuple[FlaskClient, str]]


@pytest.fixture
def fixture_course(session: Session) -> FixtureCourse:
    """The hand-computed fixture course."""
    return build(session)


def section(page: str, marker: str, end: str) -> str:
    """The part of ``page`` from ``marker`` to the next ``end``."""
    return page.split(marker, 1)[1].split(end, 1)[0]


def bars(fragment: str) -> list[tuple[str, int]]:
    """(label, number) of every SVG bar in ``fragment``."""
    return [(label, int(value)) for label, value in re.findall(r'data-label="([^"]+)" data-value="(\d+)"', fragment)]


def test_assignment_dashboard(login: Login, fixture_course: FixtureCourse) -> None:
    client, _ = login(fixture_course.teacher.username)
    page = client.get(f"/teach/assignments/{fixture_course.best.id}").get_data(as_text=True)
    row = section(page, f'<tr data-exercise="{LOSS}">', "</tr>")
    assert '<td class="stat-attempted">3</td>' in row
    assert '<td class="stat-mean">75%</td>' in row
    assert '<td class="stat-first">33%</td>' in row
    assert '<td class="stat-wrong">3</td>' in row
    card = section(page, f'<article class="card exercise-card" id="ex-1" data-exercise="{LOSS}">', "</article>")
    assert bars(card) == [("0–19%", 0), ("20–39%", 1), ("40–59%", 0), ("60–79%", 0), ("80–99%", 0), ("100%", 2)]
    assert "Used log base 10 (log10): 2 (67%)" in card  # the misconception chart's accessible title: name (tag)
    assert '<g class="bar" data-label="log10">' in card  # the bar keeps the tag as its key
    assert '<tr data-tag="log10">' in card and "<code>total_loss: 0.54</code>" in card
    assert "Used log base 10 <small><code>log10</code></small>" in card  # the table: name, then tag
    students = section(page, '<table class="students">', "</table>")
    assert f'data-username="{fixture_course.alice.username}"' in students
    assert "1 of 2 attempted, 1 full marks, score 50%" in students  # bob: LOSS 1.0 of two exercises


def test_course_dashboard(login: Login, fixture_course: FixtureCourse) -> None:
    client, _ = login(fixture_course.teacher.username)
    page = client.get(f"/teach/courses/{fixture_course.course.id}").get_data(as_text=True)
    card = section(page, f'id="assignment-{fixture_course.best.id}"', "</article>")
    assert '<dd class="stat-attempted">3</dd>' in card
    assert '<dd class="stat-mean">49%</dd>' in card
    assert '<dd class="stat-first">20%</dd>' in card
    assert [value for _label, value in bars(card)] == [0, 0, 3, 0, 0, 0]
    assert "No submissions yet" in section(page, f'data-username="{fixture_course.dave.username}"', "</tr>")


def test_student_page_shows_feedback(login: Login, fixture_course: FixtureCourse) -> None:
    client, _ = login(fixture_course.teacher.username)
    page = client.get(f"/teach/courses/{fixture_course.course.id}/students/{fixture_course.alice.id}").get_data(
        as_text=True
    )
    assert page.count('<article class="card submission"') == 6  # her rows in this course's two assignments
    assert "Likely misconception: Used log base 10" in page and "(<code>log10</code>)" in page
    assert "Other course" not in page


def test_each_preview_link_of_the_assignment_form_names_its_exercise(
    login: Login, fixture_course: FixtureCourse
) -> None:
    # Found by an audit: thirteen links all read "Preview a sample variant" in a screen reader's list of links.
    client, _ = login(fixture_course.teacher.username)
    page = client.get(f"/teach/courses/{fixture_course.course.id}/assignments/new").get_data(as_text=True)
    links = re.findall(r'<a href="/teach/exercises/[^"]+/preview"[^>]*>(.*?)</a>', page)
    texts = [re.sub(r"<[^>]+>", "", link) for link in links]
    assert len(texts) >= 13 and len(set(texts)) == len(texts), texts


def test_each_submission_links_to_the_students_own_variant(
    login: Login, session: Session, fixture_course: FixtureCourse
) -> None:
    # Found by an audit: the only way to a student's numbers was the seed in submissions.csv, which a spreadsheet
    # rounds (19 digits kept as a double), so the variant looked up was another one.
    submission = session.scalars(
        select(Submission)
        .where(Submission.user_id == fixture_course.alice.id, Submission.exercise_id == LOSS)
        .order_by(Submission.id)
    ).first()
    submission.seed = 2**62 + 12345
    session.commit()
    client, _ = login(fixture_course.teacher.username)
    page = client.get(f"/teach/courses/{fixture_course.course.id}/students/{fixture_course.alice.id}").get_data(
        as_text=True
    )
    href = f"/teach/exercises/{LOSS}/preview?seed={2**62 + 12345}"
    assert f'href="{href}"' in page
    preview = client.get(href)
    assert preview.status_code == 200 and str(2**62 + 12345) in preview.get_data(as_text=True)


def test_never_lower_is_on_until_the_teacher_turns_it_off(login: Login, fixture_course: FixtureCourse) -> None:
    # Found by an audit: one press started a regrade that could lower published scores, with the box unticked.
    client, _ = login(fixture_course.teacher.username)
    page = client.get(f"/teach/assignments/{fixture_course.best.id}").get_data(as_text=True)
    assert '<input type="checkbox" name="never_lower" id="never-lower" checked>' in page


def test_course_page_links_the_lms_grade_passback(login: Login, fixture_course: FixtureCourse) -> None:
    """Sent, pending and needs-attention scores are one click from the course dashboard."""
    client, _ = login(fixture_course.teacher.username)
    course_id = fixture_course.course.id
    page = client.get(f"/teach/courses/{course_id}").get_data(as_text=True)
    assert f'href="/lti/courses/{course_id}/grades" id="lms-passback-link"' in page
    assert client.get(f"/lti/courses/{course_id}/grades").status_code == 200
