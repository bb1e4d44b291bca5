"""Audit of the pages as a student and a teacher would use them: what the answer-key note promises, how the key and
breadcrumbs read, teacher-form errors tied to their fields, and what the exercise and lab scripts say when the
session, the page or the network fails (headless Chromium against a live server and a real worker)."""

from __future__ import annotations

import io
import re
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from playwright.sync_api import Browser, BrowserContext, Page, Route, expect
from sqlalchemy import func, select

from exercises import api as engine
from grader.extensions import get_db
from grader.grading import pipeline
from grader.grading.variant_seeds import seed_for
from grader.i18n import LANG_COOKIE, t
from grader.models import AnswerKeyPolicy, Assignment, Submission, SubmissionStatus, User, utcnow
from tests.browser_support import BROWSER_MARKS, signed_in_page
from tests.web.conftest import LiveServer, log_in, make_app, serving

SHIFT = "ch13.shift-pairs"
GRADING_TIMEOUT_MS = 60_000


@pytest.fixture(scope="module")
def live_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """The demo app served over HTTP with a real Celery worker, as `grader serve` runs them (as tests/web's)."""
    with serving(make_app(tmp_path_factory.mktemp("live-pages-audit"))) as live:
        yield live


@pytest.fixture()
def demo(tmp_path: Path) -> Flask:
    """A fresh demo app (SQLite, demo course and logins) per test."""
    return make_app(tmp_path)


def _assignment_id(app: Flask, prefix: str) -> int:
    """The id of the demo assignment whose English title starts with ``prefix``."""
    with app.app_context(), get_db(app).session() as session:
        return session.scalars(select(Assignment.id).where(Assignment.title_en.startswith(prefix))).one()


def _set_assignment(app: Flask, assignment_id: int, **values: Any) -> None:
    """Change settings of an assignment directly (what the teacher's form would save)."""
    with app.app_context(), get_db(app).session() as session:
        assignment = session.get_one(Assignment, assignment_id)
        for name, value in values.items():
            setattr(assignment, name, value)
        session.commit()


def _key_section(html: str) -> str:
    """The answer-key card of an exercise page."""
    start = html.index('id="key-heading"')
    return html[start : html.index("</section>", start)]


def _submit_form(client: FlaskClient, token: str, url: str, answer: dict[str, str]) -> None:
    """Submit through the page's plain form (no JavaScript)."""
    response = client.post(url, data={"csrf_token": token, **{f"answer.{k}": v for k, v in answer.items()}})
    assert response.status_code == 302, response.get_data(as_text=True)[:300]


def _grade_all(app: Flask, assignment_id: int) -> None:
    """Grade every queued submission of the assignment by the grading task's own body (no worker in these tests)."""
    with app.app_context():
        database = get_db(app)
        with database.session() as session:
            queued = session.scalars(
                select(Submission.id).where(
                    Submission.assignment_id == assignment_id, Submission.status == SubmissionStatus.QUEUED
                )
            ).all()
        for submission_id in queued:
            outcome = pipeline.grade_submission(database, submission_id, worker="page-audit", lease_seconds=30)
            assert outcome in pipeline.FINAL_OUTCOMES, (submission_id, outcome)


WRONG_SHIFT = {"pairs": "BOS→x", "bos_scored": "否", "eos_scored": "是", "scored_count": "1"}


# --- The answer-key note says the assignment's actual rule -------------------------------------------------------


def test_key_note_after_using_every_attempt_under_an_after_due_rule_does_not_promise_the_key(demo: Flask) -> None:
    """The demo's chapter 13 shows its key after the due date only: a student who used up the attempts was told
    the key appears "once your attempts run out" and then never saw it."""
    ch13 = _assignment_id(demo, "Chapter 13")
    _set_assignment(demo, ch13, attempts_allowed=1)
    client = demo.test_client()
    token = log_in(client, "student1")
    url = f"/assignments/{ch13}/exercises/{SHIFT}"
    _submit_form(client, token, url, WRONG_SHIFT)
    _grade_all(demo, ch13)
    note = _key_section(client.get(url).get_data(as_text=True))
    assert t("exercise.key_after_due", "zh") in note
    assert "用完" not in note and 'class="answer-key"' not in note


def test_a_result_still_grading_links_to_the_page_that_follows_it(demo: Flask) -> None:
    """Reloaded while its latest answer is queued, the exercise page said "the result will appear here" and never
    updated; it now links to the submission's page, which refreshes itself until the grade is in."""
    ch13 = _assignment_id(demo, "Chapter 13")
    client = demo.test_client()
    token = log_in(client, "student1")
    url = f"/assignments/{ch13}/exercises/{SHIFT}"
    _submit_form(client, token, url, WRONG_SHIFT)  # no worker here: it stays queued
    with demo.app_context(), get_db(demo).session() as session:
        queued = session.scalars(select(Submission).where(Submission.assignment_id == ch13)).one()
    assert queued.status == SubmissionStatus.QUEUED
    page = client.get(url).get_data(as_text=True)
    assert f'href="/submissions/{queued.id}"' in page
    assert 'http-equiv="refresh"' in client.get(f"/submissions/{queued.id}").get_data(as_text=True)


def test_the_exercise_page_starts_from_the_latest_answer_as_typed(demo: Flask) -> None:
    # Found by an audit: the form was empty on every visit, so changing one of four parts meant typing them all.
    ch13 = _assignment_id(demo, "Chapter 13")
    client = demo.test_client()
    token = log_in(client, "student1")
    url = f"/assignments/{ch13}/exercises/{SHIFT}"
    assert 'data-prefilled="latest"' not in client.get(url).get_data(as_text=True)  # nothing sent yet
    typed = {**WRONG_SHIFT, "pairs": 'BOS→x, "x"→<y>'}
    _submit_form(client, token, url, typed)
    page = client.get(url).get_data(as_text=True)
    assert 'data-prefilled="latest"' in page
    assert 'aria-describedby="f-pairs-hint f-pairs-preview">BOS→x, &#34;x&#34;→&lt;y&gt;</textarea>' in page
    assert 'id="f-scored_count" name="answer.scored_count" value="1"' in page
    other = demo.test_client()
    log_in(other, "student2")
    assert "&#34;x&#34;→&lt;y&gt;" not in other.get(url).get_data(as_text=True)  # nobody else's


def test_a_submission_page_waiting_long_for_its_grade_reloads_itself_less_often(demo: Flask) -> None:
    # Found by an audit: every 2 s without end while the workers were down, each reload restarting a screen reader.
    ch13 = _assignment_id(demo, "Chapter 13")
    client = demo.test_client()
    token = log_in(client, "student1")
    _submit_form(client, token, f"/assignments/{ch13}/exercises/{SHIFT}", WRONG_SHIFT)  # no worker: stays queued
    with demo.app_context(), get_db(demo).session() as session:
        queued = session.scalars(select(Submission).where(Submission.assignment_id == ch13)).one()
    url = f"/submissions/{queued.id}"
    assert '<meta http-equiv="refresh" content="2">' in client.get(url).get_data(as_text=True)
    with demo.app_context(), get_db(demo).session() as session:
        session.get_one(Submission, queued.id).created_at = utcnow() - timedelta(minutes=2)
        session.commit()
    assert '<meta http-equiv="refresh" content="15">' in client.get(url).get_data(as_text=True)
    _grade_all(demo, ch13)
    assert 'http-equiv="refresh"' not in client.get(url).get_data(as_text=True)


@pytest.mark.parametrize(
    ("policy", "settings", "note"),
    [
        (AnswerKeyPolicy.AFTER_DUE, {"due_at": None}, "exercise.key_no_due"),
        (AnswerKeyPolicy.AFTER_ATTEMPTS, {"attempts_allowed": None}, "exercise.key_unlimited"),
        (AnswerKeyPolicy.AFTER_ATTEMPTS, {"attempts_allowed": 3}, "exercise.key_after_attempts"),
    ],
)
def test_key_note_follows_the_key_rule(demo: Flask, policy: str, settings: dict[str, Any], note: str) -> None:
    """A rule that can never show the key says so; one that waits for attempts does not talk about a due date."""
    ch13 = _assignment_id(demo, "Chapter 13")
    _set_assignment(demo, ch13, answer_key_policy=policy, **settings)
    client = demo.test_client()
    client.set_cookie(LANG_COOKIE, "en")
    log_in(client, "student1")
    section = _key_section(client.get(f"/assignments/{ch13}/exercises/{SHIFT}").get_data(as_text=True))
    assert t(note, "en") in section


def test_key_note_names_the_other_assignment_that_hides_the_key(demo: Flask) -> None:
    """The key rule here allows the key, but an open assignment elsewhere sets the same exercise and hides it."""
    ch13 = _assignment_id(demo, "Chapter 13")
    _set_assignment(demo, ch13, answer_key_policy=AnswerKeyPolicy.ALWAYS)
    with demo.app_context(), get_db(demo).session() as session:
        course = session.get_one(Assignment, ch13).course
        course.assignments.append(
            Assignment(
                title_zh="复习", title_en="Review", exercise_ids=[SHIFT], answer_key_policy=AnswerKeyPolicy.NEVER
            )
        )
        session.commit()
    client = demo.test_client()
    log_in(client, "student1")
    section = _key_section(client.get(f"/assignments/{ch13}/exercises/{SHIFT}").get_data(as_text=True))
    assert t("exercise.key_elsewhere", "zh") in section and 'class="answer-key"' not in section


# --- The answer key and breadcrumbs read like the rest of the page -----------------------------------------------


def test_answer_key_is_written_as_answers_are_read_not_as_json(demo: Flask) -> None:
    """A Chinese page showed the key as JSON: ``false``, ``[["BOS", "blue"], ...]``, 0.6931471805599453."""
    ch13 = _assignment_id(demo, "Chapter 13")
    _set_assignment(demo, ch13, answer_key_policy=AnswerKeyPolicy.ALWAYS)
    client = demo.test_client()
    log_in(client, "student1")
    section = _key_section(client.get(f"/assignments/{ch13}/exercises/{SHIFT}").get_data(as_text=True))
    with demo.app_context(), get_db(demo).session() as session:
        user_id = session.scalars(select(User.id).where(User.username == "student1")).one()
        seed = seed_for(session, user_id, SHIFT)
    reads = {
        name: part["read"]
        for name, part in engine.grade(SHIFT, seed, engine.answer_key(SHIFT, seed), "zh")["parts"].items()
    }
    assert "<code>否</code>" in section and "<code>是</code>" in section
    assert f"<code>{reads['pairs']}</code>" in section
    assert "false" not in section and "true" not in section and "&#34;" not in section


def test_submission_breadcrumb_names_the_exercise_by_its_title(demo: Flask) -> None:
    ch13 = _assignment_id(demo, "Chapter 13")
    client = demo.test_client()
    token = log_in(client, "student1")
    response = client.post(
        f"/assignments/{ch13}/exercises/{SHIFT}",
        data={"csrf_token": token, **{f"answer.{k}": v for k, v in WRONG_SHIFT.items()}},
    )
    page = client.get(response.location).get_data(as_text=True)
    crumbs = page[page.index('class="breadcrumb"') : page.index("</nav>", page.index('class="breadcrumb"'))]
    title = next(entry["title"]["zh"] for entry in engine.list_exercises() if entry["id"] == SHIFT)
    assert f">{title}</a>" in crumbs and f">{SHIFT}</a>" not in crumbs


# --- Teacher pages -----------------------------------------------------------------------------------------------


def _teacher(app: Flask) -> tuple[FlaskClient, str]:
    """The demo teacher, signed in, pages in English."""
    client = app.test_client()
    client.set_cookie(LANG_COOKIE, "en")
    return client, log_in(client, "teacher")


def test_every_page_names_an_icon_that_is_served(demo: Flask) -> None:
    """Browsers ask for an icon on every page: the page names one that exists, so none of them logs a 404."""
    client = demo.test_client()
    icon = re.search(r'<link rel="icon"[^>]*href="([^"]+)"', client.get("/login").get_data(as_text=True))
    assert icon is not None
    response = client.get(icon.group(1))
    assert response.status_code == 200 and response.mimetype == "image/svg+xml"


def test_course_list_says_one_student_not_one_students(demo: Flask) -> None:
    client, token = _teacher(demo)
    created = client.post("/teach/courses", data={"csrf_token": token, "code": "solo-1", "title": "Solo"})
    course_id = int(created.location.rsplit("/", 1)[1])
    client.post(f"/teach/courses/{course_id}/roster/add", data={"csrf_token": token, "username": "student1"})
    page = client.get("/teach/").get_data(as_text=True)
    assert "— 1 student</li>" in re.sub(r"\s+", " ", page)
    assert "1 students" not in page and "3 students" in page


def test_roster_upload_without_a_username_says_so(demo: Flask) -> None:
    """An empty CSV (or just its header) used to give the same page back with no word about it."""
    client, token = _teacher(demo)
    for content in (b"", b"username\r\n"):
        page = client.post(
            "/teach/courses/1/roster/upload",
            content_type="multipart/form-data",
            data={"csrf_token": token, "file": (io.BytesIO(content), "students.csv")},
        ).get_data(as_text=True)
        assert t("roster.err_no_rows", "en") in page
        assert 'aria-describedby="upload-hint upload-error" aria-invalid="true"' in page


def test_assignment_form_errors_are_tied_to_their_fields(demo: Flask) -> None:
    client, token = _teacher(demo)
    page = client.post(
        "/teach/courses/1/assignments/new",
        data={
            "csrf_token": token,
            "title_zh": "",
            "title_en": "",
            "attempts": "many",
            "score_policy": "best",
            "answer_key_policy": "never",
            "opens_at": "",
            "due_at": "soon",
        },
    ).get_data(as_text=True)
    for field, error in (
        ("title_zh", "titles"),
        ("title_en", "titles"),
        ("attempts", "attempts"),
        ("due_at", "due_at"),
    ):
        tag = re.search(rf'<input[^>]* id="{field}"[^>]*>', page)
        assert tag and f'aria-describedby="err-{error}"' in tag.group(0) and 'aria-invalid="true"' in tag.group(0)
        assert f'id="err-{error}"' in page


def test_course_form_errors_are_tied_to_their_fields(demo: Flask) -> None:
    client, token = _teacher(demo)
    page = client.post("/teach/courses", data={"csrf_token": token, "code": "x", "title": ""}).get_data(as_text=True)
    code = re.search(r'<input id="course-code"[^>]*>', page)
    title = re.search(r'<input id="course-title"[^>]*>', page)
    assert code and 'aria-describedby="course-code-hint err-course-bad_code"' in code.group(0)
    assert title and 'aria-describedby="err-course-bad_title"' in title.group(0)
    assert 'id="err-course-bad_code"' in page and 'id="err-course-bad_title"' in page


# --- The scripts when the session, the page or the network fails ------------------------------------------------


def _signed_in_page(contexts: list[BrowserContext], browser: Browser, live: LiveServer, username: str) -> Page:
    """A page of a new browser context signed in as ``username``."""
    return signed_in_page(contexts, browser, live.url, username)


def _log_out(page: Page) -> None:
    page.click("header form[action='/logout'] button")
    expect(page.locator("#username")).to_be_visible()


def _submissions_of(live: LiveServer, username: str) -> int:
    with live.app.app_context(), get_db(live.app).session() as session:
        user_id = session.scalars(select(User.id).where(User.username == username)).one()
        return session.scalar(select(func.count(Submission.id)).where(Submission.user_id == user_id)) or 0


def _chapter_13(live: LiveServer) -> int:
    with live.app.app_context(), get_db(live.app).session() as session:
        return session.scalars(select(Assignment.id).where(Assignment.title_en.startswith("Chapter 13"))).one()


@BROWSER_MARKS[0]
@BROWSER_MARKS[1]
class TestScriptsWhenThingsFail:
    """The exercise and lab scripts against a live server and worker."""

    def test_signed_out_elsewhere_is_said_and_the_preview_does_not_hang(
        self, browser: Browser, live_app: LiveServer, contexts: list[BrowserContext]
    ) -> None:
        """Logging out on another device ends this page's session: the page said "cannot reach the server; check
        your connection" and the live preview said "checking the format…" for ever."""
        page = _signed_in_page(contexts, browser, live_app, "student3")
        exercise = f"/assignments/{_chapter_13(live_app)}/exercises/{SHIFT}"
        page.goto(live_app.url + exercise)
        _log_out(_signed_in_page(contexts, browser, live_app, "student3"))
        page.fill("#f-scored_count", "4")
        expect(page.locator("#validate-summary")).to_contain_text(t("exercise.signed_out", "zh"))
        expect(page.locator("#f-scored_count-preview")).not_to_contain_text(t("exercise.checking", "zh"))
        page.click("#submit-button")
        result = page.locator("#result-content")
        expect(result).to_contain_text(t("exercise.signed_out", "zh"))
        expect(result).not_to_contain_text(t("exercise.network_error", "zh"))
        login_link = result.locator("a", has_text=t("exercise.log_in_again", "zh"))
        assert login_link.get_attribute("href") == "/login?next=" + exercise.replace("/", "%2F")

    def test_a_page_left_from_before_a_new_login_asks_for_a_reload(
        self, browser: Browser, live_app: LiveServer, contexts: list[BrowserContext]
    ) -> None:
        """Logged out and in again in another tab: the old tab's CSRF token is stale (403 csrf_failed)."""
        page = _signed_in_page(contexts, browser, live_app, "student3")
        page.goto(f"{live_app.url}/assignments/{_chapter_13(live_app)}/exercises/{SHIFT}")
        other = page.context.new_page()
        other.goto(f"{live_app.url}/courses")
        _log_out(other)
        other.fill("#username", "student3")
        other.fill("#password", "demo-student3")
        other.click("form.stack button[type=submit]")
        expect(other.locator("h1")).to_have_text("我的课程")
        for name, text in WRONG_SHIFT.items():
            page.fill(f"#f-{name}", text)
        page.click("#submit-button")
        expect(page.locator("#result-content")).to_contain_text(t("exercise.page_expired", "zh"))

    def test_pressing_submit_again_after_a_lost_reply_does_not_store_the_answer_twice(
        self, browser: Browser, live_app: LiveServer, contexts: list[BrowserContext]
    ) -> None:
        """The first POST reaches the server but its reply is lost: the page said "retry", and the retry carried a
        new Idempotency-Key, so the same answer was stored (and charged) twice."""
        page = _signed_in_page(contexts, browser, live_app, "student2")
        page.goto(f"{live_app.url}/assignments/{_chapter_13(live_app)}/exercises/ch13.greedy-decode")
        before = _submissions_of(live_app, "student2")
        keys: list[str | None] = []

        def lose_first_reply(route: Route) -> None:
            keys.append(route.request.headers.get("idempotency-key"))
            if len(keys) == 1:
                route.fetch()  # the server stores it ...
                route.abort()  # ... and the browser never hears back
            else:
                route.continue_()

        page.route("**/api/v1/submissions", lose_first_reply)
        page.fill("#f-tokens", "blue key . EOS")
        page.fill("#f-stopped_by", "EOS")
        page.click("#submit-button")
        expect(page.locator("#result-content")).to_contain_text(t("exercise.network_error", "zh"))
        page.click("#submit-button")
        expect(page.locator("#result-content p.score")).to_be_visible(timeout=GRADING_TIMEOUT_MS)
        assert len(keys) == 2 and keys[0] == keys[1]
        assert _submissions_of(live_app, "student2") == before + 1

    def test_a_failed_wait_for_the_grade_does_not_invite_a_second_submission(
        self, browser: Browser, live_app: LiveServer, contexts: list[BrowserContext]
    ) -> None:
        """The answer was stored but fetching its grade failed: "check your connection and retry" cost a second
        attempt; now the page says it was submitted and links to it."""
        page = _signed_in_page(contexts, browser, live_app, "student1")
        page.goto(f"{live_app.url}/assignments/{_chapter_13(live_app)}/exercises/ch13.exposure-divergence")
        # No held reply (so the page must fetch the grade), and that fetch fails.
        page.route(
            "**/api/v1/submissions",
            lambda route: route.continue_(headers={**route.request.headers, "prefer": "wait=0"}),
        )
        page.route("**/api/v1/submissions/*", lambda route: route.abort())
        for name, text in {
            "first_wrong_step": "1",
            "first_input_divergence_step": "2",
            "teacher_forced_input": "red",
            "generated_input": "blue",
        }.items():
            page.fill(f"#f-{name}", text)
        page.click("#submit-button")
        result = page.locator("#result-content")
        # The note links the stored submission (students see attempt numbers, not global ids: issue 19).
        expect(result.locator("a[href^='/submissions/']")).to_be_visible(timeout=GRADING_TIMEOUT_MS)
        with live_app.app.app_context(), get_db(live_app.app).session() as session:
            newest = session.scalar(select(func.max(Submission.id)))
        expect(result.locator(f"a[href='/submissions/{newest}']")).to_be_visible()
        expect(result).to_contain_text(t("exercise.result_pending", "zh"))
        expect(result).not_to_contain_text("#")
        expect(result).not_to_contain_text(t("exercise.network_error", "zh"))
        assert result.locator("a").get_attribute("href") == f"/submissions/{newest}"

    def test_lab_run_refused_for_a_stale_session_is_explained_not_a_bare_status(
        self, browser: Browser, live_app: LiveServer, contexts: list[BrowserContext]
    ) -> None:
        """Signed out on another device, the lab's start button showed "✗ 200" (the login page it was sent to)."""
        page = _signed_in_page(contexts, browser, live_app, "student1")
        page.goto(f"{live_app.url}/lab")
        _log_out(_signed_in_page(contexts, browser, live_app, "student1"))
        page.click("#lab-run")
        status = page.locator("#lab-status")
        expect(status).to_contain_text(t("exercise.signed_out", "zh"))
        expect(status).not_to_contain_text("✗ 200")
