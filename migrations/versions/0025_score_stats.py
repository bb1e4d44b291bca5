"""Score statistics: the dashboards' summaries (students with a counted score, the sum of their scores, first tries
and fully correct first tries, students per histogram bin) kept per assignment and per (assignment, exercise)
(grader.models.AssignmentScoreStats, ExerciseScoreStats), split by student over 16 shards, so that a dashboard reads
a few rows per assignment whatever the number of students.

They count only the students enrolled as students in the assignment's course, and only the exercises it sets:
triggers on ``progress_rows`` and ``assignment_progress`` (every change of a counted score), on ``enrolments`` (a
student in or out, a role change) and on ``assignments`` (a new one, an edited exercise list or course: its rows are
built afresh, since a student's assignment score, and so its bin, is points / exercises set) keep them. Rows exist
for every exercise set (and, with one set, for the assignment) and shard, so a trigger only ever UPDATEs: counting
an exercise not set finds no row. A user's deletion first deletes their enrolments (a BEFORE trigger), so that
their scores are taken off while their progress rows are still there, whatever order the cascades then run in.

Revision ID: 0025_score_stats
Revises: 0024_misconception_counts
Create Date: 2026-12-02 13:20:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0025_score_stats"
down_revision: str | None = "0024_misconception_counts"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

FULL_MARKS = 0.9995  # grader.percent.FULL_MARKS
EDGES = (20, 40, 60, 80)  # grader.score_bins.BIN_EDGES as the whole percentages compared
BINS = len(EDGES) + 2
SHARDS = 16
BIN_COLUMNS = tuple(f"bin_{index}" for index in range(BINS))
COLUMNS = ("attempted", "score_sum", "pairs", "firsts", *BIN_COLUMNS)
SHARD_VALUES = "(SELECT column1 AS shard FROM (VALUES " + ", ".join(f"({n})" for n in range(SHARDS)) + ") AS vv)"


def _bin(score: str) -> str:
    """SQL: the histogram bin of ``score``, by grader.score_bins.score_bin's rule (the same SQL)."""
    whens = " ".join(
        f"WHEN round({score} * 100) >= {edge} THEN {index + 1}" for index, edge in reversed(list(enumerate(EDGES)))
    )
    return f"CASE WHEN {score} >= {FULL_MARKS} THEN {BINS - 1} {whens} ELSE 0 END"


def _one(condition: str) -> str:
    """SQL: 1 where ``condition`` holds, else 0."""
    return f"CASE WHEN {condition} THEN 1 ELSE 0 END"


def _exercise_terms(row: str) -> dict[str, str]:
    """SQL per kept column: what progress row ``row`` adds to its exercise's figures."""
    scored = f"{row}.score IS NOT NULL"
    return {
        "attempted": _one(scored),
        "score_sum": f"COALESCE({row}.score, 0)",
        "pairs": _one(f"{scored} AND {row}.first_score IS NOT NULL"),
        "firsts": _one(f"{scored} AND {row}.first_score >= {FULL_MARKS}"),
        **{name: _one(f"{scored} AND {_bin(f'{row}.score')} = {index}") for index, name in enumerate(BIN_COLUMNS)},
    }


def _assignment_terms(row: str, exercises: str) -> dict[str, str]:
    """SQL per kept column: what the assignment sums ``row`` add to the assignment's figures (``exercises``: the
    number of exercises set)."""
    score = f"({row}.points / {exercises})"
    return {
        "attempted": "1",
        "score_sum": score,
        "pairs": f"{row}.pairs",
        "firsts": f"{row}.firsts",
        **{name: _one(f"{_bin(score)} = {index}") for index, name in enumerate(BIN_COLUMNS)},
    }


def _set(added: dict[str, str] | None, taken: dict[str, str] | None) -> str:
    """SQL: the SET list adding ``added``'s terms and taking ``taken``'s."""
    return ", ".join(
        name + " = " + name + (f" + {added[name]}" if added else "") + (f" - ({taken[name]})" if taken else "")
        for name in COLUMNS
    )


def _enrolled(row: str) -> str:
    """SQL: ``row``'s student is enrolled as a student in its assignment's course."""
    return (
        "EXISTS (SELECT 1 FROM assignments ea JOIN enrolments ee ON ee.course_id = ea.course_id "
        f"WHERE ea.id = {row}.assignment_id AND ee.user_id = {row}.user_id AND ee.role = 'student')"
    )


def _exercise_update(new: str | None, old: str | None) -> str:
    """SQL: move a progress row's exercise figures by its ``new`` values less its ``old`` ones (either None)."""
    key = new or old
    return (
        f"UPDATE exercise_score_stats SET {_set(_exercise_terms(new) if new else None, _exercise_terms(old) if old else None)} "
        f"WHERE assignment_id = {key}.assignment_id AND exercise_id = {key}.exercise_id "
        f"AND shard = {key}.user_id % {SHARDS} AND {_enrolled(str(key))}"
    )


def _assignment_update(new: str | None, old: str | None) -> str:
    """SQL: move an assignment's figures by a student's ``new`` sums less their ``old`` ones (either None)."""
    key = new or old
    added = _assignment_terms(new, "exercises") if new else None
    taken = _assignment_terms(old, "exercises") if old else None
    return (
        f"UPDATE assignment_score_stats SET {_set(added, taken)} WHERE assignment_id = {key}.assignment_id "
        f"AND shard = {key}.user_id % {SHARDS} AND {_enrolled(str(key))}"
    )


def _enrolment_updates(row: str, sign: str) -> list[str]:
    """SQL: add (``sign`` +) or take (-) every figure of the enrolment ``row``'s student in its course."""
    terms = _exercise_terms("p")
    exercise_set = ", ".join(f"{name} = exercise_score_stats.{name} {sign} ({terms[name]})" for name in COLUMNS)
    sums = _assignment_terms("g", "assignment_score_stats.exercises")
    sums_set = ", ".join(f"{name} = assignment_score_stats.{name} {sign} ({sums[name]})" for name in COLUMNS)
    return [
        f"UPDATE exercise_score_stats SET {exercise_set} FROM (SELECT r.* FROM progress_rows r JOIN assignments ra "
        f"ON ra.id = r.assignment_id WHERE ra.course_id = {row}.course_id AND r.user_id = {row}.user_id "
        "AND r.score IS NOT NULL) AS p WHERE exercise_score_stats.assignment_id = p.assignment_id "
        f"AND exercise_score_stats.exercise_id = p.exercise_id AND exercise_score_stats.shard = p.user_id % {SHARDS}",
        f"UPDATE assignment_score_stats SET {sums_set} FROM (SELECT s.* FROM assignment_progress s JOIN assignments "
        f"sa ON sa.id = s.assignment_id WHERE sa.course_id = {row}.course_id AND s.user_id = {row}.user_id) AS g "
        f"WHERE assignment_score_stats.assignment_id = g.assignment_id "
        f"AND assignment_score_stats.shard = g.user_id % {SHARDS}",
    ]


def _bulk_update(table: str, sign: str) -> str:
    """SQL (PostgreSQL, a statement trigger): add (``sign`` +) or take (-) the figures of every row of the
    statement's transition table ``changed_rows`` of ``table``, one UPDATE per kept row touched. A rebuild's
    thousands of rows would otherwise update each kept row once per student, in one transaction."""
    if table == "progress_rows":
        terms = _exercise_terms("p")
        sums = ", ".join(f"sum({terms[name]}) AS {name}" for name in COLUMNS)
        changes = ", ".join(f"{name} = exercise_score_stats.{name} {sign} d.{name}" for name in COLUMNS)
        return (
            f"UPDATE exercise_score_stats SET {changes} FROM (SELECT p.assignment_id, p.exercise_id, "
            f"p.user_id % {SHARDS} AS shard, {sums} FROM changed_rows p WHERE p.score IS NOT NULL "
            f"AND {_enrolled('p')} GROUP BY p.assignment_id, p.exercise_id, p.user_id % {SHARDS}) AS d "
            "WHERE exercise_score_stats.assignment_id = d.assignment_id AND exercise_score_stats.exercise_id = "
            "d.exercise_id AND exercise_score_stats.shard = d.shard"
        )
    terms = _assignment_terms("g", "k.exercises")
    sums = ", ".join(f"sum({terms[name]}) AS {name}" for name in COLUMNS)
    changes = ", ".join(f"{name} = assignment_score_stats.{name} {sign} d.{name}" for name in COLUMNS)
    return (
        f"UPDATE assignment_score_stats SET {changes} FROM (SELECT k.assignment_id, k.shard, {sums} "
        "FROM changed_rows g JOIN assignment_score_stats k ON k.assignment_id = g.assignment_id "
        f"AND k.shard = g.user_id % {SHARDS} WHERE {_enrolled('g')} GROUP BY k.assignment_id, k.shard) AS d "
        "WHERE assignment_score_stats.assignment_id = d.assignment_id AND assignment_score_stats.shard = d.shard"
    )


def _fills(dialect: str, which: str) -> list[str]:
    """SQL: (re)build the kept rows of the assignments matching ``which`` (a condition on assignments ``a``)."""
    exercises = (
        "json_array_elements_text(a.exercise_ids) AS x(value)"
        if dialect == "postgresql"
        else "json_each(a.exercise_ids) AS x"
    )
    terms = _exercise_terms("p")
    counted = ", ".join(f"sum({terms[name]}) AS {name}" for name in COLUMNS)
    found = ", ".join(f"COALESCE(g.{name}, 0)" for name in COLUMNS)
    length = "json_array_length(a.exercise_ids)"
    sums = _assignment_terms("s", length)
    summed = ", ".join(f"sum({sums[name]}) AS {name}" for name in COLUMNS)
    return [
        f"DELETE FROM exercise_score_stats WHERE assignment_id IN (SELECT a.id FROM assignments a WHERE {which})",
        f"DELETE FROM assignment_score_stats WHERE assignment_id IN (SELECT a.id FROM assignments a WHERE {which})",
        f"INSERT INTO exercise_score_stats (assignment_id, exercise_id, shard, {', '.join(COLUMNS)}) "
        f"SELECT e.assignment_id, e.exercise_id, e.shard, {found} FROM (SELECT DISTINCT a.id AS assignment_id, "
        f"x.value AS exercise_id, v.shard FROM assignments a, {exercises}, {SHARD_VALUES} AS v WHERE {which}) AS e "
        f"LEFT JOIN (SELECT p.assignment_id, p.exercise_id, p.user_id % {SHARDS} AS shard, {counted} "
        f"FROM progress_rows p JOIN assignments a ON a.id = p.assignment_id WHERE {which} "
        f"AND p.score IS NOT NULL AND {_enrolled('p')} GROUP BY p.assignment_id, p.exercise_id, p.user_id % {SHARDS}) "
        "AS g ON g.assignment_id = e.assignment_id AND g.exercise_id = e.exercise_id AND g.shard = e.shard",
        f"INSERT INTO assignment_score_stats (assignment_id, shard, exercises, {', '.join(COLUMNS)}) "
        f"SELECT e.assignment_id, e.shard, e.exercises, {found} FROM (SELECT a.id AS assignment_id, v.shard, "
        f"{length} AS exercises FROM assignments a, {SHARD_VALUES} AS v WHERE {which} AND {length} > 0) AS e "
        f"LEFT JOIN (SELECT s.assignment_id, s.user_id % {SHARDS} AS shard, {summed} FROM assignment_progress s "
        f"JOIN assignments a ON a.id = s.assignment_id WHERE {which} AND {length} > 0 AND {_enrolled('s')} "
        f"GROUP BY s.assignment_id, s.user_id % {SHARDS}) AS g "
        "ON g.assignment_id = e.assignment_id AND g.shard = e.shard",
    ]


_PROGRESS_KEY = ("assignment_id", "user_id", "exercise_id")
_SUMS_KEY = ("assignment_id", "user_id")


def _moved(key: Sequence[str], distinct: str) -> str:
    """SQL: an UPDATE changed the row's key (``distinct``: the dialect's null-safe inequality)."""
    return "(" + " OR ".join(f"OLD.{name} {distinct} NEW.{name}" for name in key) + ")"


def _changed(names: Sequence[str], distinct: str) -> str:
    """SQL: an UPDATE changed one of ``names``."""
    return "(" + " OR ".join(f"OLD.{name} {distinct} NEW.{name}" for name in names) + ")"


def _postgresql() -> list[str]:
    """PostgreSQL's functions and triggers."""
    statements = []
    for table, key, watched, update in (
        ("progress_rows", _PROGRESS_KEY, ("score", "first_score"), _exercise_update),
        ("assignment_progress", _SUMS_KEY, ("points", "pairs", "firsts"), _assignment_update),
    ):
        statements += [
            f"""
            CREATE FUNCTION {table}_score_stats() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF TG_OP = 'UPDATE' AND NOT {_moved(key, "IS DISTINCT FROM")} THEN
                    {update("NEW", "OLD")};
                    RETURN NULL;
                END IF;
                IF TG_OP <> 'INSERT' THEN
                    {update(None, "OLD")};
                END IF;
                IF TG_OP <> 'DELETE' THEN
                    {update("NEW", None)};
                END IF;
                RETURN NULL;
            END
            $$
            """,
            f"""
            CREATE FUNCTION {table}_score_stats_bulk() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF TG_OP = 'INSERT' THEN
                    {_bulk_update(table, "+")};
                ELSE
                    {_bulk_update(table, "-")};
                END IF;
                RETURN NULL;
            END
            $$
            """,
            f"CREATE TRIGGER {table}_score_stats_added AFTER INSERT ON {table} REFERENCING NEW TABLE AS "
            f"changed_rows FOR EACH STATEMENT EXECUTE FUNCTION {table}_score_stats_bulk()",
            f"CREATE TRIGGER {table}_score_stats_taken AFTER DELETE ON {table} REFERENCING OLD TABLE AS "
            f"changed_rows FOR EACH STATEMENT EXECUTE FUNCTION {table}_score_stats_bulk()",
            f"CREATE TRIGGER {table}_score_stats_changed AFTER UPDATE OF {', '.join((*key, *watched))} ON {table} "
            f"FOR EACH ROW WHEN ({_changed((*key, *watched), 'IS DISTINCT FROM')}) "
            f"EXECUTE FUNCTION {table}_score_stats()",
        ]
    take, add = (";\n".join(_enrolment_updates(row, sign)) for row, sign in (("OLD", "-"), ("NEW", "+")))
    statements += [
        f"""
        CREATE FUNCTION enrolments_score_stats() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF TG_OP <> 'INSERT' AND OLD.role = 'student' THEN
                {take};
            END IF;
            IF TG_OP <> 'DELETE' AND NEW.role = 'student' THEN
                {add};
            END IF;
            RETURN NULL;
        END
        $$
        """,
        "CREATE TRIGGER enrolments_score_stats AFTER INSERT OR DELETE ON enrolments "
        "FOR EACH ROW EXECUTE FUNCTION enrolments_score_stats()",
        "CREATE TRIGGER enrolments_score_stats_changed AFTER UPDATE OF role, user_id, course_id ON enrolments "
        f"FOR EACH ROW WHEN ({_changed(('role', 'user_id', 'course_id'), 'IS DISTINCT FROM')}) "
        "EXECUTE FUNCTION enrolments_score_stats()",
        f"""
        CREATE FUNCTION assignments_score_stats() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            {";".join(_fills("postgresql", "a.id = NEW.id"))};
            RETURN NULL;
        END
        $$
        """,
        "CREATE TRIGGER assignments_score_stats AFTER INSERT ON assignments "
        "FOR EACH ROW EXECUTE FUNCTION assignments_score_stats()",
        "CREATE TRIGGER assignments_score_stats_changed AFTER UPDATE OF exercise_ids, course_id ON assignments "
        "FOR EACH ROW WHEN (OLD.exercise_ids::text IS DISTINCT FROM NEW.exercise_ids::text "
        "OR OLD.course_id IS DISTINCT FROM NEW.course_id) EXECUTE FUNCTION assignments_score_stats()",
        """
        CREATE FUNCTION users_score_stats() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            DELETE FROM enrolments WHERE user_id = OLD.id;
            RETURN OLD;
        END
        $$
        """,
        "CREATE TRIGGER users_score_stats BEFORE DELETE ON users FOR EACH ROW EXECUTE FUNCTION users_score_stats()",
    ]
    return statements


def _sqlite() -> list[str]:
    """SQLite's triggers (one per case: a trigger body has no IF)."""
    statements = []
    for table, key, watched, update in (
        ("progress_rows", _PROGRESS_KEY, ("score", "first_score"), _exercise_update),
        ("assignment_progress", _SUMS_KEY, ("points", "pairs", "firsts"), _assignment_update),
    ):
        columns = ", ".join((*key, *watched))
        moved = _moved(key, "IS NOT")
        statements += [
            f"CREATE TRIGGER {table}_score_stats_insert AFTER INSERT ON {table} BEGIN {update('NEW', None)}; END",
            f"CREATE TRIGGER {table}_score_stats_delete AFTER DELETE ON {table} BEGIN {update(None, 'OLD')}; END",
            f"CREATE TRIGGER {table}_score_stats_update AFTER UPDATE OF {columns} ON {table} "
            f"WHEN NOT {moved} AND {_changed(watched, 'IS NOT')} BEGIN {update('NEW', 'OLD')}; END",
            f"CREATE TRIGGER {table}_score_stats_move AFTER UPDATE OF {columns} ON {table} WHEN {moved} "
            f"BEGIN {update(None, 'OLD')}; {update('NEW', None)}; END",
        ]
    take, add = ("; ".join(_enrolment_updates(row, sign)) for row, sign in (("OLD", "-"), ("NEW", "+")))
    changed = _changed(("role", "user_id", "course_id"), "IS NOT")
    fill = "; ".join(_fills("sqlite", "a.id = NEW.id"))
    statements += [
        f"CREATE TRIGGER enrolments_score_stats_insert AFTER INSERT ON enrolments WHEN NEW.role = 'student' "
        f"BEGIN {add}; END",
        f"CREATE TRIGGER enrolments_score_stats_delete AFTER DELETE ON enrolments WHEN OLD.role = 'student' "
        f"BEGIN {take}; END",
        "CREATE TRIGGER enrolments_score_stats_take AFTER UPDATE OF role, user_id, course_id ON enrolments "
        f"WHEN {changed} AND OLD.role = 'student' BEGIN {take}; END",
        "CREATE TRIGGER enrolments_score_stats_add AFTER UPDATE OF role, user_id, course_id ON enrolments "
        f"WHEN {changed} AND NEW.role = 'student' BEGIN {add}; END",
        f"CREATE TRIGGER assignments_score_stats_insert AFTER INSERT ON assignments BEGIN {fill}; END",
        "CREATE TRIGGER assignments_score_stats_update AFTER UPDATE OF exercise_ids, course_id ON assignments "
        f"WHEN OLD.exercise_ids IS NOT NEW.exercise_ids OR OLD.course_id IS NOT NEW.course_id BEGIN {fill}; END",
        "CREATE TRIGGER users_score_stats BEFORE DELETE ON users BEGIN "
        "DELETE FROM enrolments WHERE user_id = OLD.id; END",
    ]
    return statements


_SQLITE_TRIGGERS = (
    *(
        f"{table}_score_stats_{case}"
        for table in ("progress_rows", "assignment_progress")
        for case in ("insert", "delete", "update", "move")
    ),
    *(f"enrolments_score_stats_{case}" for case in ("insert", "delete", "take", "add")),
    "assignments_score_stats_insert",
    "assignments_score_stats_update",
    "users_score_stats",
)
_POSTGRESQL_TRIGGERS = (
    *(
        (table, tuple(f"{table}_score_stats_{case}" for case in ("added", "taken", "changed")))
        for table in ("progress_rows", "assignment_progress")
    ),
    ("enrolments", ("enrolments_score_stats", "enrolments_score_stats_changed")),
    ("assignments", ("assignments_score_stats", "assignments_score_stats_changed")),
    ("users", ("users_score_stats",)),
)


def _figures() -> list[sa.Column[int] | sa.Column[float]]:
    """The kept figures' columns, shared by both tables."""
    return [
        sa.Column("attempted", sa.Integer(), nullable=False),
        sa.Column("score_sum", sa.Double(), nullable=False),
        sa.Column("pairs", sa.Integer(), nullable=False),
        sa.Column("firsts", sa.Integer(), nullable=False),
        *(sa.Column(name, sa.Integer(), nullable=False) for name in BIN_COLUMNS),
    ]


def upgrade() -> None:
    """Apply this revision."""
    op.create_table(
        "exercise_score_stats",
        sa.Column("assignment_id", sa.Integer(), nullable=False),
        sa.Column("exercise_id", sa.String(length=64), nullable=False),
        sa.Column("shard", sa.Integer(), autoincrement=False, nullable=False),
        *_figures(),
        sa.ForeignKeyConstraint(
            ["assignment_id"],
            ["assignments.id"],
            name=op.f("fk_exercise_score_stats_assignment_id_assignments"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("assignment_id", "exercise_id", "shard", name=op.f("pk_exercise_score_stats")),
    )
    op.create_table(
        "assignment_score_stats",
        sa.Column("assignment_id", sa.Integer(), nullable=False),
        sa.Column("shard", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("exercises", sa.Integer(), nullable=False),
        *_figures(),
        sa.ForeignKeyConstraint(
            ["assignment_id"],
            ["assignments.id"],
            name=op.f("fk_assignment_score_stats_assignment_id_assignments"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("assignment_id", "shard", name=op.f("pk_assignment_score_stats")),
    )
    dialect = op.get_bind().dialect.name
    for statement in _fills(dialect, "1 = 1"):
        op.execute(statement)
    for statement in _sqlite() if dialect == "sqlite" else _postgresql():
        op.execute(statement)


def downgrade() -> None:
    """Revert this revision."""
    if op.get_bind().dialect.name == "sqlite":
        for name in _SQLITE_TRIGGERS:
            op.execute(f"DROP TRIGGER {name}")
    else:
        for table, names in _POSTGRESQL_TRIGGERS:
            for name in names:
                op.execute(f"DROP TRIGGER {name} ON {table}")
        for table, _ in _POSTGRESQL_TRIGGERS:
            op.execute(f"DROP FUNCTION {table}_score_stats()")
        for table in ("progress_rows", "assignment_progress"):
            op.execute(f"DROP FUNCTION {table}_score_stats_bulk()")
    op.drop_table("assignment_score_stats")
    op.drop_table("exercise_score_stats")
