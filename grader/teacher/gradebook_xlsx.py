"""The course gradebook as an .xlsx workbook (openpyxl): a summary sheet (every student × assignment, total points
and percent) and one sheet per assignment (points per exercise, marks as cell comments and fills)."""

from __future__ import annotations

import io
import re

from openpyxl import Workbook
from openpyxl.comments import Comment
from openpyxl.styles import Font, PatternFill
from openpyxl.worksheet.worksheet import Worksheet
from sqlalchemy import select
from sqlalchemy.orm import Session

from grader.grading.points import points_of
from grader.i18n import t
from grader.models import Assignment, Course
from grader.teacher.exports import number, safe_text
from grader.teacher.grade_table import StudentGrades, grade_table
from grader.teacher.readable_exports import grades_header, local_time

SHEET_TITLE_MAX = 31  # Excel's limit
SHEET_TITLE_BANNED = re.compile(r"[\[\]:*?/\\]")
MARK_FILLS = {  # a late cell amber, an overridden one blue, so they are seen without opening the comments
    "export.mark.late": PatternFill("solid", fgColor="FFE699"),
    "export.mark.overridden": PatternFill("solid", fgColor="BDD7EE"),
}
AUTHOR = "grader"


def sheet_title(index: int, title: str) -> str:
    """A unique sheet name Excel accepts: the assignment's number and title, without the banned characters."""
    return f"{index}. {SHEET_TITLE_BANNED.sub(' ', title)}"[:SHEET_TITLE_MAX]


def gradebook_xlsx(session: Session, course: Course, lang: str) -> bytes:
    """The workbook of every assignment of ``course`` with headers in ``lang`` and due dates in its zone."""
    assignments = list(
        session.scalars(select(Assignment).where(Assignment.course_id == course.id).order_by(Assignment.id))
    )
    book = Workbook()
    summary = book.active
    assert summary is not None  # a new workbook always has its first sheet
    summary.title = t("export.summary", lang)[:SHEET_TITLE_MAX]
    tables = {assignment.id: grade_table(session, assignment) for assignment in assignments}
    for index, assignment in enumerate(assignments, start=1):
        assignment_sheet(
            book.create_sheet(sheet_title(index, assignment.title(lang))), assignment, tables[assignment.id], lang
        )
    summary_sheet(summary, assignments, tables, lang)
    buffer = io.BytesIO()
    book.save(buffer)
    return buffer.getvalue()


def header(sheet: Worksheet, titles: list[str]) -> None:
    """The first row, bold, frozen in view (titles that look like formulas, from assignment titles, kept text)."""
    sheet.append([safe_text(title) for title in titles])
    for cell in sheet[1]:
        cell.font = Font(bold=True)
    sheet.freeze_panes = "C2"


def mark(sheet: Worksheet, row: int, column: int, lang: str, keys: list[str]) -> None:
    """Fill and comment a cell with the marks that apply (late, overridden)."""
    if not keys:
        return
    cell = sheet.cell(row=row, column=column)
    cell.fill = MARK_FILLS[keys[-1]]
    cell.comment = Comment(" ".join(t(key, lang) for key in keys), AUTHOR)


def assignment_sheet(sheet: Worksheet, assignment: Assignment, table: list[StudentGrades], lang: str) -> None:
    """Points per exercise (the words "not attempted" apart from 0), total, percent, due date, extra attempts, and
    each exercise's percent (empty when not attempted)."""
    header(sheet, grades_header(assignment, lang))
    not_attempted = t("export.not_attempted", lang)
    for number_, row in enumerate(table, start=2):
        sheet.append(
            [
                safe_text(row.username),
                safe_text(row.display_name),
                *(not_attempted if cell.earned is None else round(cell.earned, 6) for cell in row.cells),
                round(row.total.points, 6),
                None if row.total.fraction is None else round(row.total.fraction * 100, 6),
                local_time(row.terms.due_at, assignment.course.time_zone),
                row.terms.extra_attempts,
                *(None if cell.score is None else round(cell.score * 100, 6) for cell in row.cells),
            ]
        )
        for column, cell in enumerate(row.cells, start=3):
            marks = [
                key for key, on in (("export.mark.late", cell.late), ("export.mark.overridden", cell.overridden)) if on
            ]
            mark(sheet, number_, column, lang, marks)
        mark(sheet, number_, 3 + len(row.cells), lang, ["export.mark.overridden"] if row.total_overridden else [])


def summary_sheet(
    sheet: Worksheet, assignments: list[Assignment], tables: dict[int, list[StudentGrades]], lang: str
) -> None:
    """Every student (of any assignment's table) × assignment: total points, or "not attempted"; and the percent of
    the points of the whole course."""
    possible = {a.id: sum(points_of(a).values()) for a in assignments}
    header(
        sheet,
        [
            t("export.col.username", lang),
            t("export.col.name", lang),
            *(t("export.col.points_of", lang, name=a.title(lang), max=number(possible[a.id])) for a in assignments),
            t("export.col.points_of", lang, name=t("export.col.total", lang), max=number(sum(possible.values()))),
            t("export.col.percent", lang),
        ],
    )
    names: dict[str, str] = {}
    rows: dict[tuple[str, int], StudentGrades] = {}
    for assignment_id, table in tables.items():
        for row in table:
            names[row.username] = row.display_name
            rows[(row.username, assignment_id)] = row
    whole = sum(possible.values())
    not_attempted = t("export.not_attempted", lang)
    for username in sorted(names):
        mine = [rows.get((username, a.id)) for a in assignments]
        earned = sum(row.total.points for row in mine if row is not None)
        sheet.append(
            [
                safe_text(username),
                safe_text(names[username]),
                *(round(row.total.points, 6) if row is not None and row.attempted else not_attempted for row in mine),
                round(earned, 6),
                round(earned / whole * 100, 6) if whole else None,
            ]
        )
