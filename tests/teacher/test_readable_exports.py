"""The grades and submissions CSV files as people open them: UTF-8 with BOM, headers in the page's language, points
with the maximum in the header and percent, "not attempted" apart from 0, times in the course's zone, marks."""

from __future__ import annotations

import csv
import io
from collections.abc import Callable
from datetime import timedelta

import pytest
from flask.testing import FlaskClient
from sqlalchemy.orm import Session

from grader.i18n import LANG_COOKIE
from tests.teacher.course_data import COST, LOSS, SHIFT, FixtureCourse, at
from tests.teacher.marked_course import build_marked, shanghai

Login = Callable[[str], tuple[FlaskClient, str]]
NOT_ATTEMPTED = {"en": "not attempted", "zh": "未作答"}
LATE = {"en": "(late)", "zh": "（迟交）"}
OVERRIDDEN = {"en": "(overridden)", "zh": "（教师改分）"}


@pytest.fixture
def marked_course(session: Session) -> FixtureCourse:
    """The fixture course with points, a due date in Shanghai, late work and overrides."""
    return build_marked(session)


def download(login: Login, fixture: FixtureCourse, kind: str, lang: str) -> tuple[list[str], list[list[str]]]:
    """The teacher's download of ``kind`` with pages in ``lang``: after checking the BOM, header and rows."""
    client, token = login(fixture.teacher.username)
    client.set_cookie(LANG_COOKIE, lang)
    response = client.post(f"/teach/assignments/{fixture.best.id}/export/{kind}.csv", data={"csrf_token": token})
    assert response.status_code == 200
    assert response.headers["Content-Type"] == "text/csv; charset=utf-8"
    body = response.get_data()
    assert body.startswith(b"\xef\xbb\xbf")  # UTF-8 BOM: Excel and WPS open the file by double-click
    header, *rows = list(csv.reader(io.StringIO(body.decode("utf-8-sig"))))
    return header, rows


@pytest.mark.parametrize(
    ("lang", "header"),
    [
        (
            "en",
            [
                "Username",
                "Name",
                f"{LOSS} (points, max 2)",
                f"{COST} (points, max 3)",
                "Total (points, max 5)",
                "Score (%)",
                "Due",
                "Extra attempts",
                f"{LOSS} (%)",
                f"{COST} (%)",
            ],
        ),
        (
            "zh",
            [
                "用户名",
                "姓名",
                f"{LOSS}（满分 2 分）",
                f"{COST}（满分 3 分）",
                "总分（满分 5 分）",
                "得分率（%）",
                "截止时间",
                "额外尝试次数",
                f"{LOSS}（得分率 %）",
                f"{COST}（得分率 %）",
            ],
        ),
    ],
)
def test_grades_in_points_and_percent_with_marks(
    login: Login, marked_course: FixtureCourse, lang: str, header: list[str]
) -> None:
    """Points per exercise (0 kept apart from not attempted), late and overridden cells marked, due in Shanghai, and
    each exercise's percent (empty when not attempted)."""
    got_header, rows = download(login, marked_course, "grades", lang)
    assert got_header == header
    by_name = {row[1]: row[2:] for row in rows}
    due = shanghai(7, 30)
    assert by_name["Alice"] == ["2", f"0 {LATE[lang]}", "2", "40", due, "0", "100", "0"]
    assert by_name["Bob"] == ["2", NOT_ATTEMPTED[lang], f"4 {OVERRIDDEN[lang]}", "80", due, "0", "100", ""]
    assert by_name["Carol"] == ["0.5", f"2 {LATE[lang]}", "2.5", "50", due, "0", "25", "66.666667"]
    assert by_name["Dave"] == [NOT_ATTEMPTED[lang], f"3 {OVERRIDDEN[lang]}", "3", "60", due, "0", "", "100"]


def test_machine_readable_grades_keep_ids_fractions_and_utc(login: Login, marked_course: FixtureCourse) -> None:
    """``ids=1`` gives today's file whatever the page's language: ids as headers, fractions, UTC, mark lists."""
    client, token = login(marked_course.teacher.username)
    client.set_cookie(LANG_COOKIE, "zh")
    response = client.post(
        f"/teach/assignments/{marked_course.best.id}/export/grades.csv", data={"csrf_token": token, "ids": "1"}
    )
    rows = list(csv.DictReader(io.StringIO(response.get_data().decode("utf-8-sig"))))
    alice = next(row for row in rows if row["display_name"] == "Alice")
    assert (alice[LOSS], alice[COST], alice["total"], alice["late"], alice["percent"]) == ("1", "0", "2", COST, "40")
    assert alice["due_at"] == (at(8) - timedelta(seconds=30)).isoformat()
    dave = next(row for row in rows if row["display_name"] == "Dave")
    assert (dave[LOSS], dave["overridden"]) == ("", COST)


@pytest.mark.parametrize(
    ("lang", "header"),
    [
        (
            "en",
            [
                "Submission",
                "Username",
                "Name",
                "Exercise",
                "Status",
                "Points",
                "Out of",
                "Score (%)",
                "Answer",
                "Misconceptions",
                "Submitted",
                "Graded",
                "Counted",
            ],
        ),
        (
            "zh",
            [
                "提交编号",
                "用户名",
                "姓名",
                "练习",
                "状态",
                "得分",
                "满分",
                "得分率（%）",
                "作答内容",
                "误区",
                "提交时间",
                "评分时间",
                "计入统计",
            ],
        ),
    ],
)
def test_submissions_in_points_and_course_time(
    login: Login, marked_course: FixtureCourse, lang: str, header: list[str]
) -> None:
    """Each submission's score in points of its exercise and percent, its times in the course's zone with offset."""
    got_header, rows = download(login, marked_course, "submissions", lang)
    assert got_header == header
    assert len(rows) == 11
    first = rows[0]
    assert first[1:10] == [
        marked_course.alice.username,
        "Alice",
        LOSS,
        "Graded" if lang == "en" else "已批改",
        "1",
        "2",
        "50",
        "answer: typed at 1",
        "log10",
    ]
    assert first[10:] == [shanghai(1), shanghai(1), "yes" if lang == "en" else "是"]
    late = [row for row in rows if row[5].endswith(LATE[lang])]
    # Everything after the due date: the counted COST answers, the dropped exercise's and the outsider's rows too.
    assert [(row[2], row[3], row[5]) for row in late] == [
        ("Alice", COST, f"0 {LATE[lang]}"),
        ("Carol", COST, f"2 {LATE[lang]}"),
        ("Alice", SHIFT, f"1 {LATE[lang]}"),
        ("Zed", LOSS, f"0 {LATE[lang]}"),
    ]
    invalid = next(
        row for row in rows if row[4] == ("Unreadable (no attempt used)" if lang == "en" else "无法读取（未计次数）")
    )
    assert (invalid[5], invalid[7], invalid[12]) == ("", "", "no" if lang == "en" else "否")
