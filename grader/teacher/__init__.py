"""Teacher pages at /teach: courses, rosters, assignments, the dashboard, CSV exports, regrades and API tokens."""
from __future__ import annotations

from flask import Flask

from grader.teacher import (  # noqa: F401  (view modules register their routes; tasks registers the regrade task)
    assignment_views,
    course_admin_views,
    course_views,
    dashboard_views,
    export_views,
    extension_views,
    regrade_views,
    roster_views,
    tasks,
    token_views,
)
from grader.teacher.blueprint import teacher


def init_app(app: Flask) -> None:
    """Register the teacher pages on ``app``; calling it twice is harmless."""
    if teacher.name not in app.blueprints:
        app.register_blueprint(teacher)
