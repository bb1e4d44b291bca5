"""Course membership for teachers: create a course, enrol students one by one or from a CSV, remove them."""
from __future__ import annotations

import codecs
import csv
import io
import re
from dataclasses import dataclass, replace

from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from grader.models import Course, Enrolment, EnrolmentRole, User
from grader.models.courses import DEFAULT_TIME_ZONE

COURSE_CODE = re.compile(r"[A-Za-z0-9._-]{2,64}")
MAX_TITLE = 200
MAX_ROSTER_ROWS = 2000
# The roster file (and the confirm form listing its rows) may be this large: 2,000 rows with a display name and an
# e-mail address take about 150 KB, twice that in UTF-16. Every other request keeps the app's cap (the API's).
MAX_ROSTER_BYTES = 1024 * 1024
MAX_LINE_DIGITS = 7  # of a line number in the confirm form (a 1 MiB file has fewer than 10**7 lines)
# First cells of a header row, compared case-insensitively with '_' and runs of spaces read as one space.
HEADER_NAMES = frozenset({"username", "user", "user name", "userid", "user id", "login", "login name", "account",
                          "student id", "用户名", "用户", "学号", "账号", "帐号", "登录名"})
SEPARATORS = (",", ";", "\t")  # in order of preference when two are as likely
SNIFF_LINES = 20  # the separator is guessed from the first non-blank lines
UTF16_BOMS = (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)
# Checks and inserts of one enrolment request: a race lost to a concurrent request is checked again this often.
ENROL_TRIES = 3


class RosterFileError(ValueError):
    """The uploaded roster cannot be read; ``key`` names the teacher-page string that says why."""

    def __init__(self, key: str, **values: object) -> None:
        super().__init__(key)
        self.key = key
        self.values = values


@dataclass(frozen=True)
class RosterRow:
    """One line of an uploaded roster and whether it can be enrolled (``error`` is a string key, or None)."""

    line: int
    username: str
    error: str | None


def course_form_errors(session: Session, code: str, title: str) -> list[str]:
    """String keys of what is wrong with a new course's code and title (empty when it can be created)."""
    errors = []
    if not COURSE_CODE.fullmatch(code):
        errors.append("course.bad_code")
    elif session.scalar(select(Course.id).where(Course.code == code)) is not None:
        errors.append("course.code_taken")
    if not title or len(title) > MAX_TITLE:
        errors.append("course.bad_title")
    return errors


def create_course(session: Session, teacher: User, code: str, title: str,
                  time_zone: str = DEFAULT_TIME_ZONE) -> Course | None:
    """A new course with ``teacher`` enrolled as its teacher; commits. Check course_form_errors first.

    None if the code was taken after that check (another request, e.g. a double click, created it meanwhile).
    """
    course = Course(code=code, title=title, time_zone=time_zone)
    course.enrolments.append(Enrolment(user=teacher, role=EnrolmentRole.TEACHER))
    session.add(course)
    try:
        session.commit()
    except IntegrityError:
        # The unique code is the only constraint a valid form can break; the database is the arbiter of the race.
        session.rollback()
        return None
    return course


def student_counts(session: Session, course_ids: list[int]) -> dict[int, int]:
    """Enrolled students per course, in one GROUP BY."""
    rows = session.execute(
        select(Enrolment.course_id, func.count())
        .where(Enrolment.course_id.in_(course_ids), Enrolment.role == EnrolmentRole.STUDENT)
        .group_by(Enrolment.course_id)
    )
    return {course_id: int(n) for course_id, n in rows}


def members(session: Session, course: Course, role: str) -> list[User]:
    """The course's members with ``role``, by username."""
    return list(session.scalars(
        select(User).join(Enrolment).where(Enrolment.course_id == course.id, Enrolment.role == role).order_by(User.username)
    ))


def _decode(data: bytes) -> str:
    """The file's text: UTF-16 when it starts with that BOM, else UTF-8 (with or without BOM), else GB18030."""
    # Excel writes "CSV UTF-8" with a BOM, "Unicode text" as UTF-16 with a BOM, and a plain CSV on Chinese Windows in
    # GBK, which GB18030 extends. Any ASCII or UTF-8 file is read as UTF-8 first; GB18030 would misread it.
    encodings = ("utf-16",) if data.startswith(UTF16_BOMS) else ("utf-8-sig", "gb18030")
    for encoding in encodings:
        try:
            return data.decode(encoding)
        except UnicodeDecodeError:
            continue
    raise RosterFileError("roster.err_file")


def _separator(lines: list[str]) -> str:
    """The column separator of the first lines: the candidate found on every line, then most often; a comma if none
    is found (a file of usernames alone)."""
    def score(separator: str) -> tuple[int, int]:
        counts = [line.count(separator) for line in lines]
        return min(counts, default=0), sum(counts)

    best = max(SEPARATORS, key=score)  # max keeps the first of equals: the comma
    return best if score(best)[1] else ","


def _is_header(cell: str) -> bool:
    """True if ``cell`` (a first row's first cell) names the username column, e.g. 'User_Name', 'Login', '学号'."""
    return " ".join(cell.replace("_", " ").split()).casefold() in HEADER_NAMES


def read_usernames(data: bytes) -> list[tuple[int, str]]:
    """(line number, username) from a roster CSV: the column a header row names (username, 学号, …; an LMS export
    such as Moodle's puts it third), else the first; the header row and blank lines are skipped."""
    text = _decode(data)
    if "\x00" in text:  # no username holds a NUL, and PostgreSQL refuses one in a query parameter
        raise RosterFileError("roster.err_file")
    # Old Mac files end lines with a CR alone, which the csv module refuses inside a line (it is handed lines split
    # at LF): every line end becomes one LF, so line numbers stay those an editor shows.
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    separator = _separator([line for line in text.split("\n") if line.strip()][:SNIFF_LINES])
    reader = csv.reader(io.StringIO(text), delimiter=separator)
    table: list[tuple[int, list[str]]] = []
    start = 1
    try:
        for cells in reader:
            # A quoted cell may span lines: a row is numbered by the line it starts on.
            line, start = start, reader.line_num + 1
            if any(cell.strip() for cell in cells):  # a blank line (or only separators) is no row
                table.append((line, cells))
    except csv.Error as exc:
        raise RosterFileError("roster.err_file") from exc
    column = next((i for i, cell in enumerate(table[0][1]) if _is_header(cell)), None) if table else None
    if column is not None:
        table = table[1:]
    rows = [(line, cells[column or 0].strip() if len(cells) > (column or 0) else "") for line, cells in table]
    if len(rows) > MAX_ROSTER_ROWS:
        raise RosterFileError("roster.err_too_many", n=MAX_ROSTER_ROWS)
    return rows


def confirmed_rows(values: list[str]) -> list[tuple[int, str]] | None:
    """(line number, username) from the confirm form's ``line:username`` values; None if one is not that shape."""
    rows = []
    for value in values:
        line, colon, name = value.partition(":")  # a username may hold a colon; the line number never does
        if not colon or not line.isascii() or not line.isdigit() or len(line) > MAX_LINE_DIGITS:
            return None
        rows.append((int(line), name))
    return rows if len(rows) <= MAX_ROSTER_ROWS else None


def check_rows(session: Session, course: Course, rows: list[tuple[int, str]]) -> list[RosterRow]:
    """Each row with the reason it cannot be enrolled, if any; two queries however long the file is."""
    names = {name for _line, name in rows if name}
    users = dict(session.execute(select(User.username, User.id).where(User.username.in_(names))).all()) if names else {}
    roles = dict(session.execute(
        select(Enrolment.user_id, Enrolment.role).where(Enrolment.course_id == course.id, Enrolment.user_id.in_(users.values()))
    ).all()) if users else {}
    seen: set[str] = set()
    checked = []
    for line, name in rows:
        user_id = users.get(name)
        if not name:
            error: str | None = "roster.err_empty"
        elif name in seen:
            error = "roster.err_duplicate"
        elif user_id is None:
            error = "roster.err_unknown"
        elif roles.get(user_id) == EnrolmentRole.TEACHER:
            error = "roster.err_teacher"
        elif user_id in roles:
            error = "roster.err_enrolled"
        else:
            error = None
        seen.add(name)
        checked.append(RosterRow(line, name, error))
    return checked


def enrol(session: Session, course: Course, lines: list[tuple[int, str]]) -> tuple[int, list[RosterRow]]:
    """Enrol the (line number, username) rows that pass check_rows as students; commits. Returns (number enrolled,
    rows refused), the refused ones with the line numbers given."""
    for _attempt in range(ENROL_TRIES):
        rows = check_rows(session, course, lines)
        ready = [row.username for row in rows if row.error is None]
        if not ready:
            break
        users = session.scalars(select(User).where(User.username.in_(ready))).all()
        session.add_all(Enrolment(course_id=course.id, user_id=user.id, role=EnrolmentRole.STUDENT) for user in users)
        try:
            session.commit()
        except IntegrityError:
            # Another request enrolled one of them (or an account went) after the check: check the rows again, so
            # that row says why and the others are still enrolled.
            session.rollback()
            continue
        return len(ready), [row for row in rows if row.error is not None]
    return 0, [row if row.error else replace(row, error="roster.err_busy") for row in rows]


def student(session: Session, course: Course, user_id: int) -> User | None:
    """The user enrolled as a student of the course with ``user_id``; None if there is none."""
    return session.scalar(
        select(User).join(Enrolment).where(Enrolment.course_id == course.id, Enrolment.user_id == user_id,
                                           Enrolment.role == EnrolmentRole.STUDENT)
    )


def remove_student(session: Session, course: Course, user_id: int) -> User | None:
    """Remove a student from the course (their submissions stay); commits. None if they were not a student here."""
    enrolment = session.scalar(
        select(Enrolment).where(Enrolment.course_id == course.id, Enrolment.user_id == user_id,
                                Enrolment.role == EnrolmentRole.STUDENT)
    )
    if enrolment is None:
        return None
    user = enrolment.user
    session.delete(enrolment)
    session.commit()
    return user
