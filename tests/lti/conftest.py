"""LTI fixtures: the test LMS on 127.0.0.2, registered with the grader, and a browser-like client of the grader
(the Flask test client at http://127.0.0.1:5000) that runs the OIDC login and launch through it."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, urlsplit

import jwt
import pytest
import requests
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import select
from sqlalchemy.orm import Session
from werkzeug.serving import make_server
from werkzeug.test import TestResponse

from grader import create_app
from grader.extensions import get_db
from grader.grading.sweeper import sweep
from grader.lti.registration import PlatformInput, add_platform
from grader.models import Assignment, LtiIdentity, User
from tests.conftest import clean_database
from tests.factories import make_taught_assignment
from tests.lti.platform import (
    CLIENT_ID,
    DEPLOYMENT_ID,
    INSTRUCTOR,
    LEARNER,
    LmsPlatform,
    PlannedLaunch,
    read_launch_form,
)
from tests.lti.platform_ags import Gradebook, add_gradebook
from tests.pipeline_helpers import submit_book_answer, wait_final
from tests.support import Backend, WorkerProcess, wait_for

TOOL_URL = "http://127.0.0.1:5000"


@pytest.fixture
def lms() -> Iterator[LmsPlatform]:
    """The test LMS, serving on 127.0.0.2, launching the tool at TOOL_URL."""
    platform = LmsPlatform().start(TOOL_URL)
    yield platform
    platform.stop()


def register(session: Session, lms: LmsPlatform) -> LmsPlatform:
    """Register ``lms`` with the grader (one known deployment); committed."""
    add_platform(
        session,
        PlatformInput(lms.url, CLIENT_ID, lms.url + "/auth", lms.url + "/token", lms.url + "/jwks", (DEPLOYMENT_ID,)),
    )
    session.commit()
    return lms


@pytest.fixture
def registered(session: Session, lms: LmsPlatform) -> LmsPlatform:
    """The test LMS registered with the grader."""
    return register(session, lms)


@pytest.fixture
def live_grader(app: Flask) -> Iterator[str]:
    """The grader served over HTTP on 127.0.0.1 (the LMS fetches our key set from it); its base URL."""
    server = make_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()


@dataclass
class Login:
    """A login the tool started: its state, nonce, and the platform's launch form fields for it."""

    state: str
    nonce: str
    auth_url: str


class ToolBrowser:
    """A browser of the grader site (cookies kept) that goes through the LMS's login and launch."""

    def __init__(self, client: FlaskClient, lms: LmsPlatform) -> None:
        self.client, self.lms = client, lms

    def start_login(self, hint: str) -> Login:
        """Send the LMS's login initiation to the tool; the state and nonce it hands the platform."""
        response = self.client.get("/lti/login", query_string=self.lms.login_params(hint), base_url=self.lms.tool_url)
        assert response.status_code == 302, response.get_data(as_text=True)
        query = parse_qs(urlsplit(response.location).query)
        return Login(query["state"][0], query["nonce"][0], response.location)

    def platform_form(self, login: Login) -> dict[str, str]:
        """The platform's signed launch form for ``login`` (over HTTP from the test LMS)."""
        answer = requests.get(login.auth_url, timeout=10)
        assert answer.status_code == 200, answer.text
        _action, fields = read_launch_form(answer.text)
        return fields

    def post_launch(self, fields: dict[str, str]) -> TestResponse:
        """Post the launch form to the tool, as the browser would."""
        return self.client.post("/lti/launch", data=fields, base_url=self.lms.tool_url)

    def launch(self, plan: PlannedLaunch, tamper: Callable[[dict[str, Any]], str] | None = None) -> TestResponse:
        """A whole launch of ``plan``; ``tamper`` gets the platform's claims and returns the id_token to post."""
        login = self.start_login(self.lms.plan(plan))
        fields = self.platform_form(login)
        if tamper is not None:
            fields["id_token"] = tamper(jwt.decode(fields["id_token"], options={"verify_signature": False}))
        return self.post_launch(fields)

    def has_session(self) -> bool:
        """True if the grader set a session cookie in this browser."""
        return self.client.get_cookie("session", domain="127.0.0.1") is not None

    def drop_state_cookies(self) -> None:
        """Forget every LTI state cookie (a browser blocking third-party cookies)."""
        for cookie in list(self.client._cookies.values()):
            if cookie.key.startswith("lti1p3-state-"):
                self.client.delete_cookie(cookie.key, domain=cookie.domain, path=cookie.path)


@pytest.fixture
def browser_of(app: Flask) -> Callable[[LmsPlatform], ToolBrowser]:
    """A new browser (its own cookies) of the grader for an LMS."""
    return lambda lms: ToolBrowser(app.test_client(), lms)


@dataclass
class BoundCourse:
    """A taught assignment whose LMS context (ctx-1) its teacher bound by launching a link to it."""

    assignment: Assignment
    custom: dict[str, str]  # the link's custom parameters
    staff: ToolBrowser  # the teacher's browser, signed in
    first_launch: TestResponse


def bind_course(app: Flask, session: Session, lms: LmsPlatform) -> BoundCourse:
    """A taught assignment whose teacher is the LMS instructor "prof" (linked by an administrator), who has
    launched a link to it, binding ctx-1 to its course."""
    assignment, teacher, _student = make_taught_assignment(session)
    session.add(LtiIdentity(issuer=lms.url, sub="prof", user_id=teacher.id))
    session.commit()
    custom = {"assignment_id": str(assignment.id)}
    staff = ToolBrowser(app.test_client(), lms)
    response = staff.launch(PlannedLaunch("prof", [INSTRUCTOR], custom=custom))
    assert response.status_code == 302, response.get_data(as_text=True)[:400]
    return BoundCourse(assignment, custom, staff, response)


# The fast worker and its app: our own LMS retries come within a second (backoff scaled down), calls to an LMS time
# out after 3 s, and a score task that may still wait in the queue is sent again after 1 s, not 30 (the shortest
# pause between two tries; an LMS's Retry-After of 3 s in a test stays above it, so it is still what holds a retry).
LTI_TIMING = {
    "GRADER_LTI_BACKOFF_SCALE": "0.05",
    "GRADER_LTI_HTTP_TIMEOUT": "3",
    "GRADER_LTI_DISPATCH_AGAIN_SECONDS": "1",
}


@pytest.fixture(scope="session")
def fast_worker(backend: Backend, tmp_path_factory: pytest.TempPathFactory) -> Iterator[WorkerProcess]:
    """A real worker with the LTI_TIMING settings on a queue of its own, shared by the LTI modules (each start and
    warm stop of a worker costs seconds)."""
    queue = f"{backend.queue}-lti"
    env = backend.env(GRADER_QUEUE=queue, **LTI_TIMING)
    process = WorkerProcess(env, queue, tmp_path_factory.mktemp("lti-worker") / "worker.log")
    try:
        process.wait_ready()
        yield process
    finally:
        process.stop_soon()  # the session is ending: nothing waits for its shutdown
        backend.drop_queue(queue)


@pytest.fixture
def lms_app(backend: Backend) -> Iterator[Flask]:
    """The app on the fast worker's queue, with its LTI_TIMING."""
    application = create_app(backend.config(GRADER_QUEUE=f"{backend.queue}-lti", **LTI_TIMING))
    yield application
    clean_database(application)
    get_db(application).dispose()


def serve(app: Flask) -> tuple[str, Callable[[], None]]:
    """Serve ``app`` over HTTP on 127.0.0.1: its base URL and how to stop it."""
    server = make_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_port}", server.shutdown


STAFF: dict[str, ToolBrowser] = {}  # the instructor's signed-in browser, by LMS


@pytest.fixture
def course_in_lms(
    lms_app: Flask, fast_worker: WorkerProcess
) -> Iterator[tuple[LmsPlatform, Gradebook, Assignment, User]]:
    """A live grader, the LMS with a gradebook, the context bound by its instructor, and alice launched once."""

    base, stop = serve(lms_app)
    lms = LmsPlatform()
    book = add_gradebook(lms)
    lms.start(base)
    with lms_app.app_context(), get_db(lms_app).session() as session:
        register(session, lms)
        bound = bind_course(lms_app, session, lms)
        assignment, custom, staff = bound.assignment, bound.custom, bound.staff
        assert (
            ToolBrowser(lms_app.test_client(), lms).launch(PlannedLaunch("alice", [LEARNER], custom=custom)).status_code
            == 302
        )
        STAFF[lms.url] = staff
        alice = session.scalars(
            select(User).join(LtiIdentity, LtiIdentity.user_id == User.id).where(LtiIdentity.sub == "alice")
        ).one()
        yield lms, book, assignment, alice
    lms.stop()
    stop()


def grade(app: Flask, alice: User, assignment: Assignment) -> float:
    """Alice submits the book's answer to the assignment; the score the worker gave it."""
    with app.app_context(), get_db(app).session() as session:
        stored = submit_book_answer(session, alice, assignment_id=assignment.id)
        graded = wait_final(session, stored.id)
        assert graded.score is not None
        return graded.score


def sweep_until(app: Flask, probe: Callable[[], Any], what: str) -> Any:
    """Sweep (which sends what is due) until ``probe`` holds; its value. A sweep every 0.2 s: the waits for a
    retry's back-off last seconds, and twenty sweeps a second spent CPU the other test processes need."""

    def step() -> Any:
        sweep(app)
        return probe()

    return wait_for(step, what, every=0.2)
