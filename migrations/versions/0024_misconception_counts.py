"""Misconception counts: the assignment dashboard's misconception table and misconceptions.csv read kept rows
instead of expanding every wrong answer's parts JSON at read time.

``answer_tags``: one row per wrong graded answer (score below full marks, in an assignment) and tag, with the field
of its lowest-scoring tagged part (ties: the first field by name), for every submitter; the examples' texts are read
from those few submissions' own parts. ``misconception_counts`` (per
assignment and exercise: wrong answers, tagged answers) and ``misconception_tag_counts`` (per assignment, exercise
and tag: answers, students) count enrolled students only, as the dashboard does: triggers on ``submissions`` keep
all three on every write that makes a row wrong or no longer wrong (grade, regrade, re-queue, delete, move), and
triggers on ``enrolments`` add or take a student's answers when they join or leave a course as a student. As
0021's submission counts, each count is split over 16 rows by student (``user_id % 16``), so that parallel grades
of one exercise do not all wait for one row's lock; a student's answers all fall in one shard, so the students
counted per shard add up.

Revision ID: 0024_misconception_counts
Revises: 0023_listing_counts
Create Date: 2026-12-02 13:10:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0024_misconception_counts"
down_revision: str | None = "0023_listing_counts"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

FULL_MARKS = 0.9995  # grader.percent.FULL_MARKS


def _wrong(row: str) -> str:
    """SQL: the submission ``row`` is a wrong graded answer in an assignment."""
    return f"({row}.status = 'graded' AND {row}.score < {FULL_MARKS} AND {row}.assignment_id IS NOT NULL)"


def _enrolled(row: str) -> str:
    """SQL: the submitter of ``row`` is enrolled as a student in the course of the row's assignment."""
    return (
        "EXISTS (SELECT 1 FROM enrolments en JOIN assignments asg ON asg.course_id = en.course_id "
        f"WHERE asg.id = {row}.assignment_id AND en.user_id = {row}.user_id AND en.role = 'student')"
    )


def _others_of_user(row: str, tag: str) -> str:
    """SQL: the submitter of ``row`` has another answer to the same exercise carrying ``tag``."""
    return (
        f"EXISTS (SELECT 1 FROM answer_tags o WHERE o.user_id = {row}.user_id AND o.assignment_id = {row}.assignment_id "
        f"AND o.exercise_id = {row}.exercise_id AND o.tag = {tag} AND o.submission_id <> {row}.id)"
    )


def _expansion(dialect: str, row: str) -> tuple[str, str]:
    """SQL: the FROM items expanding ``row``'s parts (``p``: key, value) and each part's tags (``t``: value), and
    the part's score, spelled as the dashboard's read-time query spelled them on each database so that
    orders and texts agree."""
    if dialect == "sqlite":
        parts = f"json_each({row}.parts) p, json_each(p.value, '$.tags') t"
        return parts, "CAST(json_extract(p.value, '$.\"score\"') AS REAL)"
    # json_each fails on a non-object, json_array_elements_text on a non-array: both are given empty ones.
    parts = (
        f"json_each(CASE WHEN json_typeof({row}.parts) = 'object' THEN {row}.parts ELSE '{{}}'::json END) p, "
        "json_array_elements_text(CASE WHEN json_typeof(p.value -> 'tags') = 'array' THEN p.value -> 'tags' "
        "ELSE '[]'::json END) t"
    )
    return parts, "CAST((p.value ->> 'score') AS FLOAT)"


def _choice(dialect: str, row: str) -> str:
    """SQL: (tag, field) of ``row``'s parts, each tag once, by its lowest-scoring part (ties: first field by
    name). A null tag (SQLite's json_each gives one for ``"tags": null``) is no tag: a grade must not fail on it."""
    parts, score = _expansion(dialect, row)
    return (
        "SELECT tag, field FROM (SELECT t.value AS tag, p.key AS field, "
        f"row_number() OVER (PARTITION BY t.value ORDER BY {score}, p.key) AS choice FROM {parts} "
        "WHERE t.value IS NOT NULL) chosen "
        "WHERE choice = 1"
    )


def _key(row: str) -> str:
    """SQL: the kept count row (assignment, exercise, shard) of ``row``'s answer."""
    return f"assignment_id = {row}.assignment_id AND exercise_id = {row}.exercise_id AND shard = {row}.user_id % 16"


def _take(row: str) -> list[str]:
    """Statements taking ``row``'s answer out of the kept rows (counts first, while its tags are still there)."""
    guard = f"{_wrong(row)} AND {_enrolled(row)}"
    return [
        "UPDATE misconception_counts SET wrong = wrong - 1, tagged = tagged - CASE WHEN EXISTS (SELECT 1 FROM "
        f"answer_tags WHERE submission_id = {row}.id) THEN 1 ELSE 0 END WHERE {_key(row)} AND {guard}",
        "UPDATE misconception_tag_counts SET answers = answers - 1, students = students - CASE WHEN "
        f"{_others_of_user(row, 'misconception_tag_counts.tag')} THEN 0 ELSE 1 END "
        f"WHERE {_key(row)} AND tag IN (SELECT tag FROM answer_tags WHERE submission_id = {row}.id) AND {guard}",
        f"DELETE FROM answer_tags WHERE submission_id = {row}.id",
    ]


def _add(dialect: str, row: str) -> list[str]:
    """Statements putting ``row``'s answer into the kept rows (its tags first, then the counts)."""
    guard = f"{_wrong(row)} AND {_enrolled(row)}"
    return [
        "INSERT INTO answer_tags (submission_id, tag, assignment_id, exercise_id, user_id, field) "
        f"SELECT {row}.id, tag, {row}.assignment_id, {row}.exercise_id, {row}.user_id, field "
        f"FROM ({_choice(dialect, row)}) picked WHERE {_wrong(row)}",
        "INSERT INTO misconception_counts (assignment_id, exercise_id, shard, wrong, tagged) "
        f"SELECT {row}.assignment_id, {row}.exercise_id, {row}.user_id % 16, 1, CASE WHEN EXISTS (SELECT 1 FROM answer_tags "
        f"WHERE submission_id = {row}.id) THEN 1 ELSE 0 END WHERE {guard} "
        "ON CONFLICT (assignment_id, exercise_id, shard) DO UPDATE SET wrong = misconception_counts.wrong + 1, "
        "tagged = misconception_counts.tagged + excluded.tagged",
        "INSERT INTO misconception_tag_counts (assignment_id, exercise_id, tag, shard, answers, students) "
        f"SELECT {row}.assignment_id, {row}.exercise_id, mine.tag, {row}.user_id % 16, 1, CASE WHEN {_others_of_user(row, 'mine.tag')} "
        f"THEN 0 ELSE 1 END FROM answer_tags mine WHERE mine.submission_id = {row}.id AND {guard} "
        "ON CONFLICT (assignment_id, exercise_id, tag, shard) DO UPDATE SET "
        "answers = misconception_tag_counts.answers + 1, students = misconception_tag_counts.students + excluded.students",
    ]


def _student_wrong(row: str) -> str:
    """SQL FROM/WHERE: the wrong answers of enrolment ``row``'s user to its course's assignments."""
    return (
        f"FROM submissions s JOIN assignments asg ON asg.id = s.assignment_id WHERE s.user_id = {row}.user_id "
        f"AND asg.course_id = {row}.course_id AND {_wrong('s')}"
    )


def _student_tags(row: str) -> str:
    """SQL FROM/WHERE: the answer tags of enrolment ``row``'s user in its course's assignments."""
    return (
        f"FROM answer_tags at JOIN assignments asg ON asg.id = at.assignment_id WHERE at.user_id = {row}.user_id "
        f"AND asg.course_id = {row}.course_id"
    )


def _enrol(row: str) -> list[str]:
    """Statements adding a new student's answers (enrolment ``row``) to the counts."""
    guard = f"{row}.role = 'student'"
    return [
        "INSERT INTO misconception_counts (assignment_id, exercise_id, shard, wrong, tagged) "
        f"SELECT s.assignment_id, s.exercise_id, {row}.user_id % 16, count(*), sum(CASE WHEN EXISTS (SELECT 1 FROM "
        f"answer_tags WHERE submission_id = s.id) THEN 1 ELSE 0 END) {_student_wrong(row)} AND {guard} "
        "GROUP BY s.assignment_id, s.exercise_id ON CONFLICT (assignment_id, exercise_id, shard) DO UPDATE SET "
        "wrong = misconception_counts.wrong + excluded.wrong, tagged = misconception_counts.tagged + excluded.tagged",
        "INSERT INTO misconception_tag_counts (assignment_id, exercise_id, tag, shard, answers, students) "
        f"SELECT at.assignment_id, at.exercise_id, at.tag, {row}.user_id % 16, count(*), 1 {_student_tags(row)} "
        f"AND {guard} GROUP BY at.assignment_id, at.exercise_id, at.tag "
        "ON CONFLICT (assignment_id, exercise_id, tag, shard) DO UPDATE "
        "SET answers = misconception_tag_counts.answers + excluded.answers, "
        "students = misconception_tag_counts.students + 1",
    ]


def _unenrol(row: str) -> list[str]:
    """Statements taking a former student's answers (enrolment ``row``) out of the counts."""
    guard = f"{row}.role = 'student'"
    mine = "s.assignment_id = misconception_counts.assignment_id AND s.exercise_id = misconception_counts.exercise_id"
    tag = (
        "at.assignment_id = misconception_tag_counts.assignment_id AND at.exercise_id = "
        "misconception_tag_counts.exercise_id AND at.tag = misconception_tag_counts.tag"
    )
    return [
        f"UPDATE misconception_counts SET wrong = wrong - (SELECT count(*) {_student_wrong(row)} AND {mine}), "
        "tagged = tagged - (SELECT count(*) "
        f"{_student_wrong(row)} AND {mine} AND EXISTS (SELECT 1 FROM answer_tags WHERE submission_id = s.id)) "
        f"WHERE {guard} AND shard = {row}.user_id % 16 AND (assignment_id, exercise_id) IN "
        "(SELECT s.assignment_id, s.exercise_id "
        f"{_student_wrong(row)})",
        f"UPDATE misconception_tag_counts SET answers = answers - (SELECT count(*) {_student_tags(row)} AND {tag}), "
        f"students = students - 1 WHERE {guard} AND shard = {row}.user_id % 16 AND (assignment_id, exercise_id, tag) IN "
        f"(SELECT at.assignment_id, at.exercise_id, at.tag {_student_tags(row)})",
    ]


_SUBMISSION_COLUMNS = "status, score, parts, assignment_id, exercise_id, user_id"
_ENROLMENT_COLUMNS = "course_id, user_id, role"


def _body(statements: list[str]) -> str:
    """A trigger body: the statements, each ended."""
    return " ".join(f"{statement};" for statement in statements)


def _postgresql() -> list[str]:
    """PostgreSQL's functions and triggers (a grade's old row, not wrong, skips the take's statements at once)."""
    return [
        f"""
        CREATE FUNCTION answers_tagged() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF TG_OP <> 'INSERT' THEN
                IF {_wrong("OLD")} THEN {_body(_take("OLD"))} END IF;
            END IF;
            IF TG_OP <> 'DELETE' THEN
                IF {_wrong("NEW")} THEN {_body(_add("postgresql", "NEW"))} END IF;
            END IF;
            RETURN NULL;
        END
        $$
        """,
        f"CREATE TRIGGER answers_tagged AFTER INSERT ON submissions FOR EACH ROW WHEN ({_wrong('NEW')}) "
        "EXECUTE FUNCTION answers_tagged()",
        f"CREATE TRIGGER answers_untagged AFTER DELETE ON submissions FOR EACH ROW WHEN ({_wrong('OLD')}) "
        "EXECUTE FUNCTION answers_tagged()",
        f"CREATE TRIGGER answers_retagged AFTER UPDATE OF {_SUBMISSION_COLUMNS} ON submissions FOR EACH ROW "
        f"WHEN ({_wrong('OLD')} OR {_wrong('NEW')}) EXECUTE FUNCTION answers_tagged()",
        f"""
        CREATE FUNCTION students_tagged() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF TG_OP <> 'INSERT' THEN {_body(_unenrol("OLD"))} END IF;
            IF TG_OP <> 'DELETE' THEN {_body(_enrol("NEW"))} END IF;
            RETURN NULL;
        END
        $$
        """,
        "CREATE TRIGGER students_tagged AFTER INSERT OR DELETE ON enrolments FOR EACH ROW "
        "EXECUTE FUNCTION students_tagged()",
        f"CREATE TRIGGER students_retagged AFTER UPDATE OF {_ENROLMENT_COLUMNS} ON enrolments FOR EACH ROW "
        "EXECUTE FUNCTION students_tagged()",
    ]


def _sqlite() -> list[str]:
    """SQLite's triggers (an update's take and add in one trigger, so that they run in that order)."""
    return [
        f"CREATE TRIGGER answers_tagged_insert AFTER INSERT ON submissions WHEN {_wrong('NEW')} "
        f"BEGIN {_body(_add('sqlite', 'NEW'))} END",
        f"CREATE TRIGGER answers_tagged_delete AFTER DELETE ON submissions WHEN {_wrong('OLD')} "
        f"BEGIN {_body(_take('OLD'))} END",
        f"CREATE TRIGGER answers_tagged_update AFTER UPDATE OF {_SUBMISSION_COLUMNS} ON submissions "
        f"WHEN {_wrong('OLD')} OR {_wrong('NEW')} BEGIN {_body(_take('OLD') + _add('sqlite', 'NEW'))} END",
        f"CREATE TRIGGER students_tagged_insert AFTER INSERT ON enrolments BEGIN {_body(_enrol('NEW'))} END",
        f"CREATE TRIGGER students_tagged_delete AFTER DELETE ON enrolments BEGIN {_body(_unenrol('OLD'))} END",
        f"CREATE TRIGGER students_tagged_update AFTER UPDATE OF {_ENROLMENT_COLUMNS} ON enrolments "
        f"BEGIN {_body(_unenrol('OLD') + _enrol('NEW'))} END",
    ]


_SQLITE_TRIGGERS = (
    "answers_tagged_insert",
    "answers_tagged_delete",
    "answers_tagged_update",
    "students_tagged_insert",
    "students_tagged_delete",
    "students_tagged_update",
)


def _fill(dialect: str) -> list[str]:
    """Statements filling the kept rows from the submissions and enrolments already there."""
    parts, score = _expansion(dialect, "s")
    return [
        "INSERT INTO answer_tags (submission_id, tag, assignment_id, exercise_id, user_id, field) "
        "SELECT id, tag, assignment_id, exercise_id, user_id, field FROM (SELECT s.id, s.assignment_id, "
        "s.exercise_id, s.user_id, t.value AS tag, p.key AS field, row_number() OVER "
        f"(PARTITION BY s.id, t.value ORDER BY {score}, p.key) AS choice FROM submissions s, {parts} "
        f"WHERE {_wrong('s')} AND t.value IS NOT NULL) chosen WHERE choice = 1",
        "INSERT INTO misconception_counts (assignment_id, exercise_id, shard, wrong, tagged) "
        "SELECT s.assignment_id, s.exercise_id, s.user_id % 16, count(*), sum(CASE WHEN EXISTS (SELECT 1 FROM "
        f"answer_tags WHERE submission_id = s.id) THEN 1 ELSE 0 END) FROM submissions s WHERE {_wrong('s')} AND "
        f"{_enrolled('s')} GROUP BY s.assignment_id, s.exercise_id, s.user_id % 16",
        "INSERT INTO misconception_tag_counts (assignment_id, exercise_id, tag, shard, answers, students) "
        "SELECT at.assignment_id, at.exercise_id, at.tag, at.user_id % 16, count(*), count(DISTINCT at.user_id) "
        f"FROM answer_tags at WHERE {_enrolled('at')} GROUP BY at.assignment_id, at.exercise_id, at.tag, "
        "at.user_id % 16",
    ]


def upgrade() -> None:
    """Apply this revision."""
    dialect = op.get_bind().dialect.name
    op.create_table(
        "answer_tags",
        sa.Column("submission_id", sa.Integer(), nullable=False),
        sa.Column("tag", sa.Text(), nullable=False),
        sa.Column("assignment_id", sa.Integer(), nullable=False),
        sa.Column("exercise_id", sa.String(length=64), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("field", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(
            ["assignment_id"],
            ["assignments.id"],
            name=op.f("fk_answer_tags_assignment_id_assignments"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("submission_id", "tag", name=op.f("pk_answer_tags")),
    )
    op.create_index("ix_answer_tags_newest", "answer_tags", ["assignment_id", "exercise_id", "tag", "submission_id"])
    op.create_index("ix_answer_tags_student", "answer_tags", ["user_id", "assignment_id", "exercise_id", "tag"])
    op.create_table(
        "misconception_counts",
        sa.Column("assignment_id", sa.Integer(), nullable=False),
        sa.Column("exercise_id", sa.String(length=64), nullable=False),
        sa.Column("shard", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("wrong", sa.Integer(), nullable=False),
        sa.Column("tagged", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["assignment_id"],
            ["assignments.id"],
            name=op.f("fk_misconception_counts_assignment_id_assignments"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("assignment_id", "exercise_id", "shard", name=op.f("pk_misconception_counts")),
    )
    op.create_table(
        "misconception_tag_counts",
        sa.Column("assignment_id", sa.Integer(), nullable=False),
        sa.Column("exercise_id", sa.String(length=64), nullable=False),
        sa.Column("tag", sa.Text(), nullable=False),
        sa.Column("shard", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("answers", sa.Integer(), nullable=False),
        sa.Column("students", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["assignment_id"],
            ["assignments.id"],
            name=op.f("fk_misconception_tag_counts_assignment_id_assignments"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint(
            "assignment_id", "exercise_id", "tag", "shard", name=op.f("pk_misconception_tag_counts")
        ),
    )
    for statement in _fill(dialect):
        op.execute(statement)
    for statement in _sqlite() if dialect == "sqlite" else _postgresql():
        op.execute(statement)


def downgrade() -> None:
    """Revert this revision."""
    if op.get_bind().dialect.name == "sqlite":
        for name in _SQLITE_TRIGGERS:
            op.execute(f"DROP TRIGGER IF EXISTS {name}")
    else:
        for trigger in ("answers_tagged", "answers_untagged", "answers_retagged"):
            op.execute(f"DROP TRIGGER {trigger} ON submissions")
        for trigger in ("students_tagged", "students_retagged"):
            op.execute(f"DROP TRIGGER {trigger} ON enrolments")
        op.execute("DROP FUNCTION answers_tagged()")
        op.execute("DROP FUNCTION students_tagged()")
    op.drop_table("misconception_tag_counts")
    op.drop_table("misconception_counts")
    op.drop_index("ix_answer_tags_student", table_name="answer_tags")
    op.drop_index("ix_answer_tags_newest", table_name="answer_tags")
    op.drop_table("answer_tags")
