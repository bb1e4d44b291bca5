"""End-to-end in headless Chromium against a live server and a real Celery worker; screenshots of every step."""

from __future__ import annotations

import time
from typing import Any

from playwright.sync_api import Browser, Page, Route, expect
from sqlalchemy import func, select

from exercises import api as engine
from grader.extensions import get_db
from grader.models import Assignment, Submission, User, VariantAssignment
from tests.browser_support import BROWSER_MARKS, shot

EXERCISE = "ch13.shift-pairs"
GRADING_TIMEOUT_MS = 60_000
LAB_TIMEOUT_MS = 180_000

pytestmark = BROWSER_MARKS


def _db_value(live: Any, query: Any) -> Any:
    """One scalar from the live server's database."""
    with live.app.app_context(), get_db(live.app).session() as session:
        return session.scalar(query)


def _answer_text(key: dict[str, Any], eos_scored: bool) -> dict[str, str]:
    """The shift-pairs answer as a student types it in Chinese, with EOS scored or not."""
    return {
        "pairs": "，".join(f"{a}→{b}" for a, b in key["pairs"]),
        "bos_scored": "是" if key["bos_scored"] else "否",
        "eos_scored": "是" if eos_scored else "否",
        "scored_count": str(key["scored_count"]),
    }


def _fill(page: Page, answer: dict[str, str]) -> None:
    for name, text in answer.items():
        page.fill(f"#f-{name}", text)


def _log_in_to_chapter_13(page: Page, live: Any, username: str) -> int:
    """Sign a demo student in through the form; returns the id of the Chapter 13 assignment."""
    page.goto(f"{live.url}/login")
    page.fill("#username", username)
    page.fill("#password", f"demo-{username}")
    page.click("form.stack button[type=submit]")
    return _db_value(live, select(Assignment.id).where(Assignment.title_en.startswith("Chapter 13")))


def _progress(page: Page) -> float:
    return float(page.locator("#assignment-progress progress").get_attribute("value") or 0)


def test_student_journey(browser: Browser, live_server: Any) -> None:
    """Log in, catch a syntax slip for free, learn from a misconception, get full marks, switch language, run the lab."""
    page = browser.new_page(viewport={"width": 1100, "height": 900})
    base = live_server.url
    page.goto(f"{base}/courses")
    expect(page.locator("h1")).to_have_text("登录")
    page.fill("#username", "student1")
    page.fill("#password", "demo-student1")
    shot(page, "01-login")
    page.keyboard.press("Enter")
    expect(page.locator("h1")).to_have_text("我的课程")
    shot(page, "02-courses")

    assignment_id = _db_value(live_server, select(Assignment.id).where(Assignment.title_en.startswith("Chapter 13")))
    page.click(f"a[href='/assignments/{assignment_id}']")
    expect(page.locator("table.exercises")).to_be_visible()
    shot(page, "03-assignment")
    page.click(f"a[href='/assignments/{assignment_id}/exercises/{EXERCISE}']")
    expect(page.locator("#attempts-left")).to_have_text("剩余 5/5 次")
    expect(page.locator(".chips .chip").first).to_be_visible()
    # The script rounds no score of its own: results and the bar come rendered by the server, whose one rule
    # (grader/percent.py, tests/web/test_rendering.py) never makes 99.6% look like full marks.
    assert page.evaluate("typeof Grader.percent") == "undefined"

    user_id = _db_value(live_server, select(User.id).where(User.username == "student1"))
    seed = _db_value(
        live_server,
        select(VariantAssignment.seed).where(
            VariantAssignment.user_id == user_id, VariantAssignment.exercise_id == EXERCISE
        ),
    )
    key = engine.answer_key(EXERCISE, seed)

    # A syntax slip: the live preview says why, and pressing submit costs nothing.
    _fill(page, {**_answer_text(key, True), "scored_count": "4x"})
    expect(page.locator("#f-scored_count-preview")).to_contain_text("✗ 无法读取")
    expect(page.locator("#f-pairs-preview")).to_contain_text("✓ 读作：BOS→")
    page.click("#submit-button")
    expect(page.locator("#validate-summary")).to_contain_text("不会消耗提交次数")
    expect(page.locator("#f-scored_count")).to_be_focused()
    shot(page, "04-syntax-error-no-attempt")
    assert _db_value(live_server, select(func.count(Submission.id))) == 0
    expect(page.locator("#attempts-left")).to_have_text("剩余 5/5 次")

    # A wrong answer with a known misconception: EOS left out of the loss.
    progress_before = _progress(page)
    _fill(page, _answer_text(key, eos_scored=False))
    page.click("#submit-button")
    wrong_part = page.locator(".part.bad")
    expect(wrong_part).to_contain_text("✗ 错误", timeout=GRADING_TIMEOUT_MS)
    # Rendered by the page's script from the API's reply: the short name, never the internal tag id.
    expect(wrong_part.locator(".misconception")).to_contain_text(
        str(engine.misconception_name("ch13.shift-pairs", "eos-not-scored", "zh"))
    )
    expect(wrong_part.locator(".misconception")).not_to_contain_text("eos-not-scored")
    expect(wrong_part.locator(".feedback")).to_contain_text("EOS")
    expect(page.locator("#attempts-left")).to_have_text("剩余 4/5 次")
    shot(page, "05-misconception")
    progress_after_wrong = _progress(page)

    # The right answer, submitted from the keyboard: full marks, and the progress bar moves.
    page.fill("#f-eos_scored", "是")
    page.focus("#f-scored_count")
    page.keyboard.press("Enter")
    expect(page.locator(".result-body .score")).to_contain_text("得分：100%", timeout=GRADING_TIMEOUT_MS)
    expect(page.locator(".part.bad")).to_have_count(0)
    expect(page.locator("#assignment-progress .progress-text")).to_contain_text("已完成 1/6")
    # "1/6 done" held already after the wrong answer; the attempts line is refreshed with the bar, and it moves.
    expect(page.locator("#attempts-left")).to_have_text("剩余 3/5 次")
    progress_after_right = _progress(page)
    assert progress_before < progress_after_wrong < progress_after_right
    shot(page, "06-full-marks")

    # English, and it sticks across pages.
    page.click("button[name=lang][value=en]")
    expect(page.locator("#answer-heading")).to_have_text("Your answer")
    page.goto(f"{base}/submissions")
    expect(page.locator("h1")).to_have_text("My submissions")
    expect(page.locator("table.history tbody tr")).to_have_count(2)
    shot(page, "07-english-submissions")

    # The capacity lab runs on the worker and draws its plot.
    page.goto(f"{base}/lab")
    for d in ("32", "64", "128", "256"):  # nothing chosen: the server's reason is shown, not a bare status
        page.uncheck(f"input[name=ds][value='{d}']")
    page.click("#lab-run")
    expect(page.locator("#lab-status")).to_have_text("✗ Choose one or more of d = 32, 64, 128, 256.")
    for d in ("32", "128", "256"):
        page.check(f"input[name=ds][value='{d}']")
    page.fill("#t_max", "40")
    page.click("#lab-run")
    expect(page.locator("#lab-status")).not_to_be_empty()
    shot(page, "08-lab-running")
    expect(page.locator("#lab-plot svg")).to_be_visible(timeout=LAB_TIMEOUT_MS)
    expect(page.locator("#lab-plot svg g.series")).to_have_count(4)  # d = 32, 128, 256 and attention
    expect(page.locator("#lab-plot svg line.threshold")).to_have_count(1)
    expect(page.locator("#lab-table tbody tr")).to_have_count(3)
    expect(page.locator("#lab-table caption")).to_have_text("First T with accuracy below 90%")
    shot(page, "09-lab-plot")
    page.close()


def test_exercise_page_on_a_phone(browser: Browser, live_server: Any) -> None:
    """A narrow screen: the page fits the width (wide tables scroll inside their box) and the form is reachable."""
    page = browser.new_page(viewport={"width": 390, "height": 844}, device_scale_factor=2, is_mobile=True)
    assignment_id = _log_in_to_chapter_13(page, live_server, "student2")
    page.goto(f"{live_server.url}/assignments/{assignment_id}/exercises/ch13.greedy-decode")
    expect(page.locator("table.data caption").first).to_contain_text("概率表")
    overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
    assert overflow <= 0
    page.keyboard.press("Tab")
    expect(page.locator(".skip-link")).to_be_focused()
    shot(page, "10-phone-exercise")
    page.close()


def test_a_rate_limited_submission_is_explained_in_the_page_language(browser: Browser, live_server: Any) -> None:
    """Over the per-user limit, the page says so in Chinese with the wait, instead of the API's English text."""
    page = browser.new_page(viewport={"width": 1100, "height": 900})
    assignment_id = _log_in_to_chapter_13(page, live_server, "student3")
    page.goto(f"{live_server.url}/assignments/{assignment_id}/exercises/{EXERCISE}")
    answer = {"pairs": "BOS→blue", "bos_scored": "否", "eos_scored": "是", "scored_count": "1"}
    live_server.app.config["SUBMISSION_RATE_LIMIT"] = "1/minute"
    try:
        _fill(page, answer)
        page.click("#submit-button")
        expect(page.locator("#result-content p.score")).to_be_visible(timeout=GRADING_TIMEOUT_MS)
        page.click("#submit-button")
        expect(page.locator("#result-content p.message.error")).to_contain_text("提交太频繁")
        shot(page, "11-rate-limited")
    finally:
        live_server.app.config["SUBMISSION_RATE_LIMIT"] = "30/minute"
    student = _db_value(live_server, select(User.id).where(User.username == "student3"))
    assert _db_value(live_server, select(func.count(Submission.id)).where(Submission.user_id == student)) == 1
    page.close()


def test_submitting_right_after_typing_is_not_a_network_error(browser: Browser, live_server: Any) -> None:
    """Enter pressed within the live preview's 400 ms: the preview firing during the submit's own (slow) check
    must not supersede it and turn the submit into a bogus "cannot reach the server"."""
    page = browser.new_page(viewport={"width": 1100, "height": 900})
    assignment_id = _log_in_to_chapter_13(page, live_server, "student2")
    page.goto(f"{live_server.url}/assignments/{assignment_id}/exercises/{EXERCISE}")

    def slow_validation(route: Route) -> None:
        time.sleep(0.8)  # longer than the preview's debounce, so it fires while the submit waits for this reply
        route.continue_()

    page.route("**/api/v1/validate", slow_validation)
    _fill(page, {"pairs": "BOS→blue", "bos_scored": "否", "eos_scored": "是", "scored_count": "1"})
    page.click("#submit-button")
    expect(page.locator("#result-content p.score")).to_be_visible(timeout=GRADING_TIMEOUT_MS)
    student = _db_value(live_server, select(User.id).where(User.username == "student2"))
    assert _db_value(live_server, select(func.count(Submission.id)).where(Submission.user_id == student)) == 1
    page.close()


def _exercise_requests(page: Page) -> tuple[list[Any], list[str]]:
    """Start recording the page's submission POSTs (the request objects) and its result GETs (their URLs)."""
    posts: list[Any] = []
    gets: list[str] = []

    def record(request: Any) -> None:
        if request.url.endswith("/api/v1/submissions") and request.method == "POST":
            posts.append(request)
        elif "/api/v1/submissions/" in request.url and request.method == "GET":
            gets.append(request.url)

    page.on("request", record)
    return posts, gets


LOSS_AVERAGE_GUESS = {
    "sequence_probability": "0.3",
    "total_loss": "1.2",
    "mean_loss_with_eos": "0.3",
    "mean_loss_without_eos": "0.4",
}


def test_the_grade_comes_back_on_the_submit_request_itself(browser: Browser, live_server: Any) -> None:
    """The page asks the server to hold the POST until graded (Prefer: wait), so one request brings the grade."""
    page = browser.new_page(viewport={"width": 1100, "height": 900})
    assignment_id = _log_in_to_chapter_13(page, live_server, "student1")
    page.goto(f"{live_server.url}/assignments/{assignment_id}/exercises/ch13.loss-average")
    posts, gets = _exercise_requests(page)
    _fill(page, LOSS_AVERAGE_GUESS)
    with page.expect_response("**/api/v1/submissions") as submitted:
        page.click("#submit-button")
    expect(page.locator("#result-content p.score")).to_be_visible(timeout=GRADING_TIMEOUT_MS)
    assert [post.headers.get("prefer") for post in posts] == ["wait=10"]
    assert submitted.value.status == 200 and submitted.value.json()["status"] == "graded"
    assert gets == []  # the grade came with the POST's reply
    page.close()


def test_a_submit_answered_before_the_grade_falls_back_to_waiting(browser: Browser, live_server: Any) -> None:
    """A server (or proxy) that ignores Prefer answers 202 at once: the page then waits on GET ?wait as before."""
    page = browser.new_page(viewport={"width": 1100, "height": 900})
    assignment_id = _log_in_to_chapter_13(page, live_server, "student3")
    page.goto(f"{live_server.url}/assignments/{assignment_id}/exercises/ch13.loss-average")

    def without_prefer(route: Route) -> None:
        headers = {name: value for name, value in route.request.headers.items() if name.lower() != "prefer"}
        route.continue_(headers=headers)

    page.route("**/api/v1/submissions", without_prefer)
    posts, gets = _exercise_requests(page)
    _fill(page, LOSS_AVERAGE_GUESS)
    with page.expect_response("**/api/v1/submissions") as submitted:
        page.click("#submit-button")
    expect(page.locator("#result-content p.score")).to_be_visible(timeout=GRADING_TIMEOUT_MS)
    assert len(posts) == 1 and submitted.value.status == 202
    assert gets and all("wait=10" in url for url in gets)
    page.close()


def test_a_script_that_is_not_one_of_our_files_does_not_run(browser: Browser, live_server: Any) -> None:
    """The pages' script policy: our own files run (the live preview works), an inline script does not."""
    page = browser.new_page()
    violations: list[str] = []
    page.on(
        "console",
        lambda message: violations.append(message.text) if "Content Security Policy" in message.text else None,
    )
    assignment_id = _log_in_to_chapter_13(page, live_server, "student3")
    page.goto(f"{live_server.url}/assignments/{assignment_id}/exercises/{EXERCISE}")
    page.fill("#f-scored_count", "4")
    expect(page.locator("#f-scored_count-preview")).to_contain_text("✓")  # exercise.js ran and read the answer
    page.evaluate("""() => { const tag = document.createElement('script');
                             tag.textContent = 'window.injected = true'; document.body.appendChild(tag); }""")
    assert page.evaluate("window.injected === undefined")
    assert violations, "the browser reported no blocked script"
    page.close()
