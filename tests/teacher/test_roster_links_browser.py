"""In headless Chromium: a teacher uploads a roster in which two students have no account, confirms, downloads the
sign-in links; one student opens their link, is refused a short password, chooses a good one and is in the course;
the link then no longer works, and the new password signs in through the login form."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect
from sqlalchemy import select

from grader.demo import COURSE_CODE
from grader.extensions import get_db
from grader.models import Course
from tests.browser_support import BROWSER_MARKS, LiveApp, served_demo, shot

pytestmark = BROWSER_MARKS
PHONE = {"width": 390, "height": 844}
PASSWORD = "my own password 2026"


Live = LiveApp


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Live]:
    """The demo course on SQLite, served on a free port of 127.0.0.1."""
    with served_demo(tmp_path_factory.mktemp("roster-links-live"), "roster-links-live") as served:
        yield served


def _page(browser: Browser, opened: list[BrowserContext], live: Live, lang: str, viewport: dict[str, int]) -> Page:
    """A page of a new browser context (a device of its own) in ``lang``."""
    context = browser.new_context(viewport=viewport, accept_downloads=True)  # type: ignore[arg-type]
    opened.append(context)
    context.add_cookies([{"name": "lang", "value": lang, "url": live.url}])
    return context.new_page()


def _demo_course_id(live: Live) -> int:
    with live.app.app_context(), get_db(live.app).session() as session:
        return session.scalars(select(Course.id).where(Course.code == COURSE_CODE)).one()


def _sign_in(page: Page, live: Live, username: str, password: str) -> None:
    page.goto(f"{live.url}/login")
    page.fill("#username", username)
    page.fill("#password", password)
    page.click("form.stack button[type=submit]")


def test_upload_then_link_then_first_sign_in(
    browser: Browser, contexts: list[BrowserContext], live: Live, tmp_path: Path
) -> None:
    teacher = _page(browser, contexts, live, "en", {"width": 1100, "height": 900})
    _sign_in(teacher, live, "teacher", "demo-teacher")
    roster_url = f"{live.url}/teach/courses/{_demo_course_id(live)}/roster"
    teacher.goto(roster_url)
    roster = "学号,姓名\n2026101,张三\n2026102,李四\nstudent1,学生一\n".encode("gbk")
    teacher.set_input_files("#roster-file", files=[{"name": "名单.csv", "mimeType": "text/csv", "buffer": roster}])
    teacher.click("form[enctype] button[type=submit]")
    expect(teacher.locator("#creates-note")).to_contain_text("2 of them have no account yet")
    expect(teacher.locator('tr[data-line="2"]')).to_contain_text("new account, to enrol")
    expect(teacher.locator('tr[data-line="4"]')).to_contain_text("already enrolled")
    shot(teacher, "roster-accounts-preview-en")
    teacher.click("#confirm-roster")
    expect(teacher.locator("body")).to_contain_text("Created 2 account(s).")
    expect(teacher.locator("#links-hint")).to_contain_text("2 student(s) have not chosen a password yet")
    with teacher.expect_download() as download_info:
        teacher.click("#download-links")
    saved = tmp_path / "links.csv"
    download_info.value.save_as(saved)
    data = saved.read_bytes()
    assert data.startswith("\ufeff".encode())
    rows = {row["username"]: row for row in csv.DictReader(io.StringIO(data.decode("utf-8-sig")))}
    assert set(rows) == {"2026101", "2026102"} and rows["2026101"]["name"] == "张三"
    link = rows["2026101"]["sign_in_link"]
    assert link.startswith(f"{live.url}/welcome/")

    student = _page(browser, contexts, live, "zh", PHONE)
    student.goto(link)
    expect(student.locator("h1")).to_have_text("设置密码")
    expect(student.locator("section")).to_contain_text("张三，欢迎！你的用户名是 2026101。")
    student.fill("#password", "short")
    student.fill("#again", "short")
    # The browser's own minlength check would stop the form; the server's message is what is tested here.
    student.eval_on_selector("#password", "el => el.removeAttribute('minlength')")
    student.click("#set-password")
    expect(student.locator("#password-error")).to_contain_text("密码太短：至少需要 8 个字符。")
    expect(student.locator("#password")).to_have_attribute("aria-invalid", "true")
    shot(student, "sign-in-link-refused-zh-phone")
    student.fill("#password", PASSWORD)
    student.fill("#again", PASSWORD)
    student.click("#set-password")
    expect(student.locator("main")).to_contain_text("Seq2Seq")
    assert student.url.endswith("/courses")
    shot(student, "sign-in-link-done-zh-phone")

    later = _page(browser, contexts, live, "en", PHONE)
    later.goto(link)
    expect(later.locator("#link-dead")).to_contain_text("expired or was already used")
    _sign_in(later, live, "2026101", PASSWORD)
    expect(later.locator("main")).to_contain_text("Seq2Seq")
    teacher.goto(roster_url)
    expect(teacher.locator("#links-hint")).to_contain_text("1 student(s) have not chosen a password yet")
