"""Fixtures for the course-operation tests: the teacher pages' signed-in clients."""

from __future__ import annotations

from tests.teacher.conftest import login

__all__ = ["login"]
