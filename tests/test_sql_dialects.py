"""SQL that differs by database lives in grader.sql_dialects alone: no other module branches on the dialect, and each
of its pieces gives each database its own statement."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from sqlalchemy import column, select, table
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Dialect

from grader import sql_dialects
from grader.models import VariantAssignment

GRADER = Path(sql_dialects.__file__).parent
BRANCH = re.compile(r"""dialect(\.name)?\s*[!=]=|[!=]=\s*["'](postgresql|sqlite)["']""")
# A column type adapting its values per dialect: SQLAlchemy's own place for that (TypeDecorator.process_bind_param).
ALLOWED = {"sql_dialects.py", "models/base.py"}
DIALECTS: dict[str, Dialect] = {
    "postgresql": postgresql.dialect(),  # type: ignore[no-untyped-call]
    "sqlite": sqlite.dialect(),
}


def test_no_module_but_sql_dialects_branches_on_the_database() -> None:
    branching = [
        f"{path.relative_to(GRADER)}:{number}"
        for path in sorted(GRADER.rglob("*.py"))
        if str(path.relative_to(GRADER)) not in ALLOWED
        for number, line in enumerate(path.read_text("utf-8").splitlines(), 1)
        if BRANCH.search(line)
    ]
    assert branching == []


@pytest.mark.parametrize("name", sorted(DIALECTS))
def test_an_insert_that_ignores_a_conflict_is_spelled_for_each_database(name: str) -> None:
    statement = sql_dialects.insert_ignoring_conflict(
        name, VariantAssignment, ["user_id", "exercise_id"], user_id=1, exercise_id="x", seed=2
    )
    assert "ON CONFLICT (user_id, exercise_id) DO NOTHING" in str(statement.compile(dialect=DIALECTS[name]))


@pytest.mark.parametrize(("name", "expected"), [("postgresql", "= ANY (ARRAY["), ("sqlite", "t.a = ?")])
def test_an_equality_keeps_the_index_order_on_postgresql(name: str, expected: str) -> None:
    probe = table("t", column("a"))
    condition = sql_dialects.equals_keeping_index_order(probe.c.a, 7, name)
    assert expected in str(select(probe).where(condition).compile(dialect=DIALECTS[name]))


@pytest.mark.parametrize(("name", "expected"), [("postgresql", "json_array_elements_text"), ("sqlite", "json_each")])
def test_json_arrays_are_expanded_by_each_database_s_function(name: str, expected: str) -> None:
    probe = table("t", column("doc"))
    elements = sql_dialects.json_array_texts(name, probe.c.doc, "tags").alias("tag")
    assert expected in str(select(elements.c.value).compile(dialect=DIALECTS[name]))


def test_only_postgresql_runs_single_statements_in_autocommit() -> None:
    assert sql_dialects.single_statement_autocommit("postgresql")
    assert not sql_dialects.single_statement_autocommit("sqlite")
