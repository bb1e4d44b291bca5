"""The dashboards' histogram bins of a score, one rule for the kept score statistics (their triggers spell it in
SQL, migration 0025_score_stats), their check (``grader.grading.score_stats``) and the pages."""

from __future__ import annotations

from typing import Any

from sqlalchemy import ColumnElement, case, func

from grader.percent import FULL_MARKS

BIN_EDGES = (0.2, 0.4, 0.6, 0.8)  # histogram bins: 0–19 %, 20–39 %, 40–59 %, 60–79 %, 80–99 %, 100 %
BIN_COUNT = len(BIN_EDGES) + 2


def score_bin(score: ColumnElement[Any]) -> ColumnElement[int]:
    """SQL: the histogram bin (0..BIN_COUNT-1) of a score; full marks get a bin of their own.

    The other edges compare the whole percentage the pages show (``percent.shown_percent``), not the raw value: a
    mean such as (1.0 + 0.2) / 3 is 0.39999999999999997 in floating point, shown as 40 %, and must count in 40–59 %.
    """
    shown = func.round(score * 100)
    whens = [(score >= FULL_MARKS, BIN_COUNT - 1)]
    whens += [(shown >= round(edge * 100), index + 1) for index, edge in reversed(list(enumerate(BIN_EDGES)))]
    return case(*whens, else_=0)
