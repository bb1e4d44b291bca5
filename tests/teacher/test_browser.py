"""The teacher's journey in headless Chromium: dashboard with histograms, grades CSV download, regrade on a worker."""

from __future__ import annotations

import csv
import io
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from openpyxl import load_workbook
from playwright.sync_api import Browser, expect
from sqlalchemy import select
from werkzeug.serving import make_server

from exercises import api as engine
from grader import create_app
from grader.extensions import get_db
from grader.models import Assignment, GradeLogEntry, Submission, User
from grader.serve import prepare, worker_environment
from tests.browser_support import BROWSER_MARKS, shot
from tests.factories import rebuild_progress
from tests.support import WorkerProcess

REGRADE_TIMEOUT_MS = 60_000
LOG10_ANSWER = {
    "sequence_probability": "0.288",
    "total_loss": "0.5406",
    "mean_loss_with_eos": "0.135",
    "mean_loss_without_eos": "0.18",
}
RIGHT_GREEDY = {"tokens": "blue key . EOS", "stopped_by": "EOS"}

pytestmark = BROWSER_MARKS


@dataclass(frozen=True)
class Live:
    """The demo app served over HTTP with a worker that knows the regrade task."""

    url: str
    app: Flask


def _graded(user: User, assignment: Assignment, exercise_id: str, answer: dict[str, str]) -> Submission:
    """A submission stored with the current engine's verdict."""
    result = engine.grade(exercise_id, 0, answer, "en")
    return Submission(
        user_id=user.id,
        assignment_id=assignment.id,
        exercise_id=exercise_id,
        seed=0,
        lang="en",
        raw_answer=answer,
        parsed_answer=result["parsed"],
        status="graded",
        score=result["score"],
        parts=result["parts"],
        engine_version=result["engine_version"],
    )


def seed_class_work(app: Flask) -> None:
    """Demo students' answers: a log10 slip, right answers, and one stale verdict from an old engine."""
    with app.app_context(), get_db(app).session() as session:
        chapter13 = session.scalars(select(Assignment).where(Assignment.title_en.startswith("Chapter 13"))).one()
        students = {u.username: u for u in session.scalars(select(User).where(User.role == "student"))}
        session.add_all(
            [
                _graded(students["student1"], chapter13, "ch13.loss-average", LOG10_ANSWER),
                _graded(students["student2"], chapter13, "ch13.loss-average", LOG10_ANSWER),
                _graded(students["student1"], chapter13, "ch13.greedy-decode", RIGHT_GREEDY),
            ]
        )
        stale = _graded(students["student3"], chapter13, "ch13.greedy-decode", RIGHT_GREEDY)
        stale.score, stale.engine_version = 0.0, "0.9.0"
        stale.parts = {name: {**part, "correct": False, "score": 0.0} for name, part in stale.parts.items()}
        session.add(stale)
        rebuild_progress(session)  # commits: the rows the pipeline would have kept


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Live]:
    """The demo app (SQLite, file broker) on a free port, with a real worker process."""
    app = create_app({"GRADER_ENV": "testing", "GRADER_DATA_DIR": str(tmp_path_factory.mktemp("teach-live"))})
    prepare(app)
    seed_class_work(app)
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, name="teach-live", daemon=True)
    thread.start()
    log_path = tmp_path_factory.mktemp("teach-live-worker") / "worker.log"
    worker = WorkerProcess(worker_environment(app), app.config["GRADER_QUEUE"], log_path)
    try:
        worker.wait_ready()
        yield Live(f"http://127.0.0.1:{server.server_port}", app)
    finally:
        worker.stop_soon()  # the module's own data folder and broker: nothing waits for its shutdown
        server.shutdown()
        thread.join(10)


def _scalar(live: Live, query: Any) -> Any:
    with live.app.app_context(), get_db(live.app).session() as session:
        return session.scalar(query)


def test_teacher_journey(browser: Browser, live: Live) -> None:
    """Log in, read the dashboards, download grades, regrade and watch the job finish."""
    page = browser.new_page(viewport={"width": 1200, "height": 900}, accept_downloads=True)
    page.context.add_cookies([{"name": "lang", "value": "en", "url": live.url}])
    page.goto(f"{live.url}/teach/")
    page.fill("#username", "teacher")
    page.fill("#password", "demo-teacher")
    page.keyboard.press("Enter")
    expect(page.locator("h1")).to_have_text("Courses I teach")
    page.click("ul.course-list a")
    expect(page.locator("h1")).to_contain_text("Course dashboard")
    expect(page.locator("figure.histogram svg").first).to_be_visible()
    expect(page.locator("table.students tbody tr")).to_have_count(3)
    shot(page, "teacher-01-course-dashboard")
    with page.expect_download() as info:
        page.click("#gradebook-xlsx")
    book = load_workbook(io.BytesIO(Path(info.value.path()).read_bytes()))  # the saved file has no .xlsx name
    assert book.sheetnames[0] == "Summary"
    assert [row[0] for row in book["Summary"].iter_rows(min_row=2, values_only=True)] == [
        "student1",
        "student2",
        "student3",
    ]

    page.click("article.assignment-stats h3 a >> nth=0")
    expect(page.locator("h1")).to_contain_text("Assignment dashboard: Chapter 13")
    loss = page.locator('article[data-exercise="ch13.loss-average"]')
    expect(loss.locator("figure.histogram g.bar")).to_have_count(6)
    expect(loss.locator('figure.shares g.bar[data-label="log10"]')).to_contain_text("2 (100%)")
    expect(loss.locator('tr[data-tag="log10"]')).to_be_visible()
    shot(page, "teacher-02-assignment-dashboard")

    page.check("#export-grades-ids")  # the machine-readable file: ids as headers
    with page.expect_download() as info:
        page.click("#export-grades")
    download = info.value
    rows = list(csv.DictReader(io.StringIO(Path(download.path()).read_text(encoding="utf-8-sig"))))
    assert [row["username"] for row in rows] == ["student1", "student2", "student3"]
    assert rows[0]["ch13.greedy-decode"] == "1" and rows[2]["ch13.greedy-decode"] == "0"

    page.check("#never-lower")
    page.click("#start-regrade")
    expect(page.locator("h1")).to_contain_text("Regrade #")
    shot(page, "teacher-03-regrade-started")
    expect(page.locator("#regrade-progress")).to_have_attribute("data-status", "done", timeout=REGRADE_TIMEOUT_MS)
    expect(page.locator("#regrade-progress progress")).to_have_attribute("value", "100")
    report = page.locator("table.regrade-report tbody tr")
    expect(report).to_have_count(1)
    expect(report.first).to_contain_text("student3")
    expect(report.first.locator("td.new-score")).to_have_text("100%")
    shot(page, "teacher-04-regrade-done")
    assert _scalar(live, select(GradeLogEntry.new_score).where(GradeLogEntry.reason.startswith("regrade #"))) == 1.0
    page.close()


def test_the_dashboards_fit_a_phone(browser: Browser, live: Live) -> None:
    """At 375 px the course and assignment dashboards scrolled sideways: a visually-hidden heading escaped the
    students table's scroll box, and the misconception box asked for 28rem."""
    page = browser.new_page(viewport={"width": 375, "height": 667}, is_mobile=True)
    page.goto(f"{live.url}/teach/")
    page.fill("#username", "teacher")
    page.fill("#password", "demo-teacher")
    page.keyboard.press("Enter")
    page.click("ul.course-list a")
    expect(page.locator("table.students")).to_be_visible()
    for name in ("course", "assignment"):
        if name == "assignment":
            page.click("article.assignment-stats h3 a >> nth=0")
            expect(page.locator('article[data-exercise="ch13.loss-average"]')).to_be_visible()
        overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
        assert overflow <= 0, (name, overflow)
    page.close()
