"""Reading an uploaded roster: a CSV (UTF-8, UTF-16 or GBK, any common separator) or an .xlsx workbook, as
Moodle, Canvas and 教务系统 export them; which column holds the username and which the name."""

from __future__ import annotations

import codecs
import csv
import io
import zipfile
from dataclasses import dataclass
from xml.etree.ElementTree import ParseError

from openpyxl import load_workbook
from openpyxl.utils.exceptions import InvalidFileException

MAX_ROSTER_ROWS = 2000
MAX_COLUMNS = 50  # of a workbook row: an export has a dozen; a sheet 16,384 wide would only cost memory
# Header cells, compared case-insensitively with '_' and runs of spaces read as one space.
USERNAME_HEADERS = frozenset(
    {
        "username",
        "user",
        "user name",
        "userid",
        "user id",
        "login",
        "login name",
        "account",
        "student id",
        "sis login id",
        "login id",
        "用户名",
        "用户",
        "学号",
        "账号",
        "帐号",
        "登录名",
    }
)
NAME_HEADERS = frozenset({"name", "full name", "display name", "student name", "student", "姓名", "名字", "学生姓名"})
FIRST_NAME_HEADERS = frozenset({"first name", "firstname", "given name"})
LAST_NAME_HEADERS = frozenset({"last name", "lastname", "surname", "family name"})
SEPARATORS = (",", ";", "\t")  # in order of preference when two are as likely
SNIFF_LINES = 20  # the separator is guessed from the first non-blank lines
UTF16_BOMS = (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)
ZIP_MAGIC = b"PK\x03\x04"  # an .xlsx is a zip archive

Table = list[tuple[int, list[str]]]  # (line or sheet row number, cells) of the non-blank rows


class RosterFileError(ValueError):
    """The uploaded roster cannot be read; ``key`` names the teacher-page string that says why."""

    def __init__(self, key: str, **values: object) -> None:
        super().__init__(key)
        self.key = key
        self.values = values


@dataclass(frozen=True)
class RosterEntry:
    """One row of a roster file: its line (or sheet row), the username and the name given (empty if none)."""

    line: int
    username: str
    display_name: str


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


def _header(cell: str) -> str:
    """A header cell as compared with the known names: 'User_Name ' reads 'user name'."""
    return " ".join(cell.replace("_", " ").split()).casefold()


def _csv_table(data: bytes) -> Table:
    """The non-blank rows of a CSV file, each numbered by the line it starts on."""
    text = _decode(data)
    if "\x00" in text:  # no username holds a NUL, and PostgreSQL refuses one in a query parameter
        raise RosterFileError("roster.err_file")
    # Old Mac files end lines with a CR alone, which the csv module refuses inside a line (it is handed lines split
    # at LF): every line end becomes one LF, so line numbers stay those an editor shows.
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    separator = _separator([line for line in text.split("\n") if line.strip()][:SNIFF_LINES])
    reader = csv.reader(io.StringIO(text), delimiter=separator)
    table: Table = []
    start = 1
    try:
        for cells in reader:
            # A quoted cell may span lines: a row is numbered by the line it starts on.
            line, start = start, reader.line_num + 1
            if any(cell.strip() for cell in cells):  # a blank line (or only separators) is no row
                table.append((line, cells))
                if len(table) > MAX_ROSTER_ROWS + 1:  # the header and one row too many: no need to read on
                    break
    except csv.Error as exc:
        raise RosterFileError("roster.err_file") from exc
    return table


def _cell_text(value: object) -> str:
    """A workbook cell as the text a teacher sees: 学号 2023001 stored as a number reads '2023001', not '2023001.0'."""
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _xlsx_table(data: bytes) -> Table:
    """The non-blank rows of a workbook's first sheet, numbered as the sheet numbers them."""
    try:
        book = load_workbook(io.BytesIO(data), read_only=True, data_only=True)
        try:
            table: Table = []
            for number, values in enumerate(book.worksheets[0].iter_rows(max_col=MAX_COLUMNS, values_only=True), 1):
                cells = [_cell_text(value) for value in values]
                if any(cell.strip() for cell in cells):
                    table.append((number, cells))
                    if len(table) > MAX_ROSTER_ROWS + 1:
                        break
        finally:
            book.close()
    # What a zip that is no workbook (a .docx, a damaged file) raises on the way; each means "not a roster table".
    except (zipfile.BadZipFile, InvalidFileException, KeyError, IndexError, ParseError, ValueError, TypeError) as exc:
        raise RosterFileError("roster.err_not_table") from exc
    if any("\x00" in cell for _number, cells in table for cell in cells):
        raise RosterFileError("roster.err_file")
    return table


def _columns(header: list[str]) -> tuple[int, int | None, int | None, int | None] | None:
    """(username, name, first name, last name) column indexes a header row names; None if it names no username."""
    names = [_header(cell) for cell in header]

    def find(known: frozenset[str]) -> int | None:
        return next((i for i, name in enumerate(names) if name in known), None)

    username = find(USERNAME_HEADERS)
    if username is None:
        return None
    return username, find(NAME_HEADERS), find(FIRST_NAME_HEADERS), find(LAST_NAME_HEADERS)


def _cell(cells: list[str], column: int | None) -> str:
    """The stripped cell in ``column``; empty if the row is shorter or there is no such column."""
    return cells[column].strip() if column is not None and column < len(cells) else ""


def read_entries(data: bytes) -> list[RosterEntry]:
    """The rows of a roster file (CSV or .xlsx): the username from the column a header row names (username, 学号,
    SIS Login ID, …), else the first; the name from 姓名 / Name / First and Last name, else empty. The header row
    and blank rows are skipped."""
    table = _xlsx_table(data) if data.startswith(ZIP_MAGIC) else _csv_table(data)
    columns = _columns(table[0][1]) if table else None
    if columns is not None:
        table = table[1:]
    username, name, first, last = columns or (0, None, None, None)
    if len(table) > MAX_ROSTER_ROWS:
        raise RosterFileError("roster.err_too_many", n=MAX_ROSTER_ROWS)
    return [
        RosterEntry(
            line,
            _cell(cells, username),
            _cell(cells, name) or " ".join(filter(None, (_cell(cells, first), _cell(cells, last)))),
        )
        for line, cells in table
    ]


def read_usernames(data: bytes) -> list[tuple[int, str]]:
    """(line number, username) of each row of a roster file (see read_entries)."""
    return [(entry.line, entry.username) for entry in read_entries(data)]
