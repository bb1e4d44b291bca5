"""Teacher pages at /teach: courses, rosters, assignments, the dashboard, CSV exports, regrades and API tokens."""

from __future__ import annotations

from importlib import import_module

from flask import Flask

from grader.teacher.access import may_in_course
from grader.teacher.blueprint import teacher

# Every teacher view module, named once; its routes are added to the blueprint here, not by importing it. (The
# regrade task, grader.teacher.tasks, is listed in the Celery app's include, grader.celery_app.)
VIEW_MODULES = tuple(
    import_module(f"{__name__}.{name}")
    for name in (
        "admin_views",
        "assignment_views",
        "course_admin_views",
        "course_views",
        "dashboard_views",
        "export_views",
        "extension_views",
        "gradebook_views",
        "override_views",
        "regrade_views",
        "roster_link_views",
        "roster_views",
        "staff_views",
        "token_views",
    )
)


def init_app(app: Flask) -> None:
    """Register the teacher pages on ``app``; calling it twice is harmless."""
    for module in VIEW_MODULES:
        module.routes.register(teacher)
    app.add_template_global(may_in_course)
    if teacher.name not in app.blueprints:
        app.register_blueprint(teacher)
