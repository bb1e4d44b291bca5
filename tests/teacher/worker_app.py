"""Celery entry point for the teacher tests: the backbone's worker app plus the regrade task module.

Once create_app registers the teacher pages (and the Celery ``include`` lists grader.teacher.tasks), this is the
same as ``grader.worker``; until then it makes sure the worker knows the regrade task.
"""
from __future__ import annotations

import grader.teacher.tasks  # noqa: F401  (registers grader.regrade_assignment)
from grader.worker import celery, flask_app

__all__ = ["celery", "flask_app"]
