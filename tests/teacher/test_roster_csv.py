"""Reading roster files as spreadsheets and editors really save them: encodings, separators, line ends, headers."""

from __future__ import annotations

import codecs
import io
from collections.abc import Callable

import pytest
from flask.testing import FlaskClient
from sqlalchemy.orm import Session

from grader.courses.roster_files import MAX_ROSTER_ROWS, RosterFileError, read_usernames
from grader.models import Course, Enrolment, EnrolmentRole, Role
from tests.factories import make_user, unique

Login = Callable[[str], tuple[FlaskClient, str]]

# Three students with a display name that holds a comma (quoted) and Chinese text, as Excel writes them.
ROWS = [
    ["username", "display_name", "email"],
    ["s41", "Zhang, San", "s41@example.edu"],
    ["s42", "李四", "s42@example.edu"],
    ["s43", "王五", "s43@example.edu"],
]
EXPECTED = [(2, "s41"), (3, "s42"), (4, "s43")]


def table(separator: str = ",", line_end: str = "\r\n", header: str = "username") -> str:
    """ROWS as CSV text with ``separator`` and ``line_end`` (cells holding the separator are quoted)."""
    lines = [[header, *ROWS[0][1:]], *ROWS[1:]]
    quoted = [[f'"{cell}"' if separator in cell else cell for cell in line] for line in lines]
    return line_end.join(separator.join(line) for line in quoted) + line_end


@pytest.mark.parametrize(
    "data",
    [
        pytest.param(table().encode("utf-8"), id="utf-8"),
        pytest.param(codecs.BOM_UTF8 + table().encode("utf-8"), id="utf-8-bom"),
        pytest.param(table().encode("gbk"), id="gbk-excel-chinese-windows"),
        pytest.param(table().encode("gb18030"), id="gb18030"),
        pytest.param(table().encode("utf-16"), id="utf-16-bom"),
        pytest.param(codecs.BOM_UTF16_BE + table().encode("utf-16-be"), id="utf-16-be-bom"),
        pytest.param(table(separator="\t").encode("utf-16"), id="excel-unicode-text-utf-16-tabs"),
        pytest.param(table(separator=";").encode("utf-8"), id="semicolons"),
        pytest.param(table(separator="\t").encode("utf-8"), id="tabs"),
        pytest.param(table(line_end="\n").encode("utf-8"), id="lf"),
        pytest.param(table(line_end="\r").encode("utf-8"), id="cr-only-old-mac"),
        pytest.param(table(line_end="\r").encode("gbk"), id="cr-only-gbk"),
        pytest.param(table().encode("utf-8").rstrip(b"\r\n"), id="no-final-line-end"),
    ],
)
def test_real_world_files_are_read(data: bytes) -> None:
    assert read_usernames(data) == EXPECTED


@pytest.mark.parametrize(
    "header",
    [
        "username",
        "Username",
        "USERNAME",
        "user",
        "User Name",
        "user_name",
        "login",
        "Login",
        "userid",
        "用户名",
        "学号",
        "账号",
        " username ",
    ],
)
def test_common_headers_are_recognised(header: str) -> None:
    assert read_usernames(table(header=header).encode("utf-8")) == EXPECTED


def test_blank_lines_are_skipped_and_lines_keep_their_numbers() -> None:
    """Blank lines (and lines of separators alone, as spreadsheets write empty rows) are no rows and no errors."""
    text = "\r\n学号,姓名\r\n\r\ns41,Zhang\r\n,,\r\n  \r\ns42,Li\r\n,Nobody\r\n\r\n"
    assert read_usernames(text.encode("gbk")) == [(4, "s41"), (7, "s42"), (8, "")]


def test_a_header_is_only_the_first_row() -> None:
    assert read_usernames(b"s41\nusername\n") == [(1, "s41"), (2, "username")]


def test_usernames_alone_with_no_separator() -> None:
    assert read_usernames(b"s41\r\ns42\r\n") == [(1, "s41"), (2, "s42")]


def test_a_quoted_cell_over_two_lines_numbers_rows_by_their_first_line() -> None:
    assert read_usernames(b'username,note\ns41,"two\nlines"\ns42,x\n') == [(2, "s41"), (4, "s42")]


# A workbook is read now (tests/teacher/test_roster_accounts.py); a damaged one, as here, is "not a table".
@pytest.mark.parametrize(
    "data, key",
    [
        pytest.param(b"username\n\xff\xff\n", "roster.err_file", id="neither-utf-8-nor-gb18030"),
        pytest.param(codecs.BOM_UTF16_LE + b"s\x004\x001", "roster.err_file", id="utf-16-odd-length"),
        pytest.param(b"username\nal\x00ice\n", "roster.err_file", id="nul"),
        pytest.param(b"PK\x03\x04\x14\x00\x06\x00\x08\x00\x00\x00!\x00", "roster.err_not_table", id="a-damaged-xlsx"),
    ],
)
def test_unreadable_files_are_refused(data: bytes, key: str) -> None:
    with pytest.raises(RosterFileError) as refused:
        read_usernames(data)
    assert refused.value.key == key


def test_too_many_rows_are_refused_but_blank_lines_do_not_count() -> None:
    rows = "".join(f"s{n}\n\n" for n in range(MAX_ROSTER_ROWS))
    assert len(read_usernames(f"username\n{rows}".encode())) == MAX_ROSTER_ROWS
    with pytest.raises(RosterFileError) as refused:
        read_usernames(f"{rows}one-more\n".encode())
    assert refused.value.key == "roster.err_too_many"


def test_a_gbk_semicolon_file_previews_through_the_page(session: Session, login: Login) -> None:
    """The upload page reads the file Excel on Chinese Windows saves: GBK, here with semicolons and CR line ends."""
    teacher, student = make_user(session, Role.TEACHER), make_user(session)
    course = Course(code=unique("gbk"), title="GBK")
    course.enrolments = [Enrolment(user=teacher, role=EnrolmentRole.TEACHER)]
    session.add(course)
    session.commit()
    client, token = login(teacher.username)
    data = f"学号;姓名\r{student.username};张三\rnobody-here;李四\r".encode("gbk")
    response = client.post(
        f"/teach/courses/{course.id}/roster/upload",
        content_type="multipart/form-data",
        data={"csrf_token": token, "file": (io.BytesIO(data), "名单.csv")},
    )
    page = response.get_data(as_text=True)
    assert response.status_code == 200, page[:500]
    assert "ready to enrol" in page.split('data-line="2"', 1)[1].split("</tr>", 1)[0]
    new_row = page.split('data-line="3"', 1)[1].split("</tr>", 1)[0]
    assert "new account, to enrol" in new_row and "<td>李四</td>" in new_row  # the 姓名 column is read too


@pytest.mark.parametrize(
    "text, expected",
    [
        # Moodle's participants export: the usernames are the third column.
        (
            "First name,Surname,Username,Email address\r\nSan,Zhang,s41,s41@example.edu\r\nSi,Li,s42,s42@example.edu\r\n",
            [(2, "s41"), (3, "s42")],
        ),
        ("姓名,学号\n张三,s41\n李四,s42\n", [(2, "s41"), (3, "s42")]),
        ("name;login\n张三;s41\n", [(2, "s41")]),
        ("s41,extra\ns42\n", [(1, "s41"), (2, "s42")]),  # no header: the first column, as before
        ("Name,Username\nZhang San\n", [(2, "")]),  # a short row has no username: refused by the check, not a crash
    ],
)
def test_the_username_column_is_the_one_its_header_names(text: str, expected: list[tuple[int, str]]) -> None:
    # Found by an audit: only the first column was read, so a Moodle export listed every row, and its header, as
    # an unknown user.
    assert read_usernames(text.encode("utf-8")) == expected
