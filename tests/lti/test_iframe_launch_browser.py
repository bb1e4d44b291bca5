"""In Chromium, a launch inside the LMS's cross-site iframe (the LMS page on 127.0.0.2, the grader on 127.0.0.1)
signs the student in and shows their assignment in the frame: the state and session cookies are SameSite=None;
Secure; Partitioned and the grader allows the LMS as a frame ancestor."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from urllib.parse import urlencode

import pytest
from flask import Flask
from playwright.sync_api import Browser, BrowserContext, expect
from werkzeug.serving import make_server

from grader import create_app
from grader.extensions import get_db
from tests.browser_support import BROWSER_MARKS, shot
from tests.conftest import clean_database
from tests.lti.conftest import bind_course, register
from tests.lti.platform import LEARNER, LmsPlatform, PlannedLaunch
from tests.support import Backend

pytestmark = BROWSER_MARKS


def _course_page(app: Flask, lms: LmsPlatform) -> None:
    @app.get("/course")
    def course() -> str:
        from flask import request

        login = lms.tool_url + "/lti/login?" + urlencode(lms.login_params(request.args["hint"]))
        return f'<h1>LMS course</h1><iframe id="tool" src="{login}" width="1000" height="700"></iframe>'


@pytest.fixture
def framed(backend: Backend) -> Iterator[tuple[Flask, LmsPlatform]]:
    """The LMS (with a course page framing the tool) and the grader, which lets the LMS frame it."""
    lms = LmsPlatform()
    lms.extra_routes.append(_course_page)
    lms.start("http://127.0.0.1:1")  # the grader's address is set below, once it listens
    app = create_app(backend.config(GRADER_FRAME_ANCESTORS=lms.url))
    server = make_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    lms.tool_url = f"http://127.0.0.1:{server.server_port}"
    yield app, lms
    server.shutdown()
    lms.stop()
    clean_database(app)
    get_db(app).dispose()


def test_a_student_launched_in_the_lms_iframe_sees_their_assignment_signed_in(
    framed: tuple[Flask, LmsPlatform], browser: Browser, contexts: list[BrowserContext]
) -> None:
    app, lms = framed
    with app.app_context(), get_db(app).session() as session:
        register(session, lms)
        bound = bind_course(app, session, lms)
        custom, title = bound.custom, bound.assignment.title_zh
    hint = lms.plan(PlannedLaunch("alice", [LEARNER], custom=custom))
    context = browser.new_context(viewport={"width": 1100, "height": 900})
    contexts.append(context)
    page = context.new_page()
    page.goto(f"{lms.url}/course?hint={hint}")
    frame = page.frame_locator("#tool")
    expect(frame.locator("h1")).to_contain_text(title, timeout=20000)
    expect(frame.locator(".who")).to_contain_text("User alice")
    shot(page, "lti-iframe-launch")
    session_cookie = next(c for c in context.cookies() if c["name"] == "session")
    assert session_cookie["sameSite"] == "None" and session_cookie["secure"]
