"""API test fixtures, built on the backbone's ``app`` (per database backend) and ``worker`` fixtures."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from flask import Flask

from grader.ratelimit import EXTENSION_KEY as LIMITER_KEY

from .support import Api, School, build_school

GENEROUS_LIMIT = "10000/minute"


@pytest.fixture
def api_app(app: Flask) -> Iterator[Flask]:
    """The backbone's app (per backend) with a generous submission limit and fresh rate-limit counters."""
    app.config["SUBMISSION_RATE_LIMIT"] = GENEROUS_LIMIT
    app.extensions[LIMITER_KEY].reset()
    yield app
    app.extensions[LIMITER_KEY].reset()


@pytest.fixture
def school(api_app: Flask) -> School:
    """The standard people, courses and assignments."""
    return build_school(api_app)


@pytest.fixture
def api(api_app: Flask, school: School) -> Api:
    """A JSON client for the API."""
    return Api(api_app.test_client(), school)
