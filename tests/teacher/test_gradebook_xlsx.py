"""The course gradebook workbook, downloaded from the course page and read back with openpyxl."""

from __future__ import annotations

import io
from collections.abc import Callable

import pytest
from flask.testing import FlaskClient
from openpyxl import load_workbook
from openpyxl.worksheet.worksheet import Worksheet
from sqlalchemy.orm import Session

from grader.i18n import LANG_COOKIE
from grader.teacher.gradebook_xlsx import sheet_title
from tests.teacher.course_data import COST, GREEDY, LOSS, FixtureCourse
from tests.teacher.marked_course import build_marked, shanghai

Login = Callable[[str], tuple[FlaskClient, str]]
XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"


@pytest.fixture
def marked_course(session: Session) -> FixtureCourse:
    """The fixture course with points, a due date in Shanghai, late work and overrides."""
    return build_marked(session)


def workbook(login: Login, fixture: FixtureCourse, lang: str) -> dict[str, Worksheet]:
    """The teacher's download with pages in ``lang``, by sheet name."""
    client, token = login(fixture.teacher.username)
    client.set_cookie(LANG_COOKIE, lang)
    page = client.get(f"/teach/courses/{fixture.course.id}")
    assert f'action="/teach/courses/{fixture.course.id}/gradebook.xlsx"' in page.get_data(as_text=True)
    response = client.post(f"/teach/courses/{fixture.course.id}/gradebook.xlsx", data={"csrf_token": token})
    assert response.status_code == 200
    assert response.mimetype == XLSX
    assert f"course-{fixture.course.id}-gradebook.xlsx" in response.headers["Content-Disposition"]
    book = load_workbook(io.BytesIO(response.get_data()))
    return {sheet.title: sheet for sheet in book.worksheets}


def values(sheet: Worksheet) -> list[list[object]]:
    """The sheet's cells, row by row."""
    return [list(row) for row in sheet.iter_rows(values_only=True)]


@pytest.mark.parametrize(
    ("lang", "sheets", "not_attempted"),
    [
        ("en", ["Summary", "1. Best", "2. Last"], "not attempted"),
        ("zh", ["总览", "1. 最高分", "2. 最后一次"], "未作答"),
    ],
)
def test_one_sheet_per_assignment_and_a_summary(
    login: Login, marked_course: FixtureCourse, lang: str, sheets: list[str], not_attempted: str
) -> None:
    """Numbers as numbers, "not attempted" apart from 0, late and overridden cells commented, due in the course's zone."""
    book = workbook(login, marked_course, lang)
    assert list(book) == sheets
    best = values(book[sheets[1]])
    assert best[0][2:4] == (
        [f"{LOSS} (points, max 2)", f"{COST} (points, max 3)"]
        if lang == "en"
        else [f"{LOSS}（满分 2 分）", f"{COST}（满分 3 分）"]
    )
    by_name = {row[1]: row[2:] for row in best[1:]}
    due = shanghai(7, 30)
    # Each exercise's percent last (None, an empty cell, when not attempted).
    assert by_name["Alice"] == [2, 0, 2, 40, due, 0, 100, 0]
    assert by_name["Bob"] == [2, not_attempted, 4, 80, due, 0, 100, None]
    assert by_name["Dave"] == [not_attempted, 3, 3, 60, due, 0, None, 100]
    rows = {row[1].value: row for row in book[sheets[1]].iter_rows(min_row=2)}
    assert rows["Alice"][3].comment is not None and rows["Alice"][3].comment.text == (
        "(late)" if lang == "en" else "（迟交）"
    )
    assert rows["Alice"][2].comment is None
    assert rows["Bob"][4].comment is not None  # the total overridden
    assert rows["Dave"][3].comment is not None  # COST overridden
    last = values(book[sheets[2]])
    assert last[0][2] == (f"{GREEDY} (points, max 1)" if lang == "en" else f"{GREEDY}（满分 1 分）")
    summary = values(book[sheets[0]])
    assert summary[0][2:] == (
        ["Best (points, max 5)", "Last (points, max 1)", "Total (points, max 6)", "Score (%)"]
        if lang == "en"
        else ["最高分（满分 5 分）", "最后一次（满分 1 分）", "总分（满分 6 分）", "得分率（%）"]
    )
    totals = {row[1]: row[2:] for row in summary[1:]}
    assert totals["Alice"] == [2, 0.5, 2.5, pytest.approx(2.5 / 6 * 100, abs=1e-5)]
    assert totals["Dave"] == [3, not_attempted, 3, 50]
    assert set(totals) == {"Alice", "Bob", "Carol", "Dave"}


def test_another_teachers_course_is_not_found(login: Login, marked_course: FixtureCourse) -> None:
    """A teacher of another course gets a 404 and no workbook."""
    client, token = login(marked_course.other_teacher.username)
    response = client.post(f"/teach/courses/{marked_course.course.id}/gradebook.xlsx", data={"csrf_token": token})
    assert response.status_code == 404


def test_formula_like_titles_and_names_stay_text(login: Login, session: Session, marked_course: FixtureCourse) -> None:
    """An assignment title or a display name that a spreadsheet would run as a formula is written as text."""
    marked_course.best.title_en = "=1+1"
    marked_course.alice.display_name = '=HYPERLINK("http://evil")'
    session.commit()
    book = workbook(login, marked_course, "en")
    assert list(book)[1] == "1. =1+1"
    header = book["Summary"][1][2]
    assert (header.value, header.data_type) == ("'=1+1 (points, max 5)", "s")
    names = [row[1] for row in book["1. =1+1"].iter_rows(min_row=2)]
    assert {(cell.value, cell.data_type) for cell in names} >= {('\'=HYPERLINK("http://evil")', "s")}


@pytest.mark.parametrize(
    ("index", "title", "sheet"),
    [
        (1, "Best", "1. Best"),
        (2, "a/b:c*d?[e]\\f", "2. a b c d  e  f"),
        (12, "x" * 40, "12. " + "x" * 27),
    ],
)
def test_sheet_titles_excel_accepts(index: int, title: str, sheet: str) -> None:
    """Excel's rules: at most 31 characters, none of []:*?/\\; the number keeps them unique."""
    assert sheet_title(index, title) == sheet
