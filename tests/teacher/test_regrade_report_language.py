"""The regrade report says why in the page's language: answer fields by their labels, part scores as percentages,
statuses and the reason a change was kept in words; a reason it cannot read is shown as stored."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from flask import Flask
from flask.testing import FlaskClient
from markupsafe import escape
from sqlalchemy.orm import Session

from grader.extensions import get_db
from grader.grading.regrade import run_regrade
from grader.models import RegradeChange, RegradeJob, RegradeStatus
from grader.teacher.regrade_reasons import shown_reason
from tests.teacher.regrade_data import EXERCISE, OLD_ENGINE, RegradeFixture, build

Login = Callable[[str], tuple[FlaskClient, str]]
ROW = re.compile(
    r'<tr data-submission="(\d+)".*?<td class="why">(.*?) <small>.*?<td class="outcome">(.*?)</td>', re.DOTALL
)
LABELS = {
    "zh": ("贪心解码输出的全部 token", "解码停止的原因"),
    "en": ("Every token greedy decoding outputs", "What stopped the decode"),
}


def _rows(client: FlaskClient, job_id: int, lang: str) -> dict[int, tuple[str, str]]:
    """The report's rows on the job's page in ``lang``: submission id -> (why, outcome), as HTML text."""
    client.set_cookie("lang", lang)
    page = client.get(f"/teach/regrades/{job_id}").get_data(as_text=True)
    return {int(sid): (why.strip(), outcome.strip()) for sid, why, outcome in ROW.findall(page)}


def _job(app: Flask, session: Session, fixture: RegradeFixture, never_lower: bool) -> int:
    """A regrade of the fixture's assignment, run to the end in this process."""
    job = RegradeJob(
        assignment_id=fixture.assignment.id,
        requested_by_id=fixture.teacher.id,
        requested_by=f"user:{fixture.teacher.username}",
        never_lower=never_lower,
    )
    session.add(job)
    session.commit()
    assert run_regrade(get_db(app), job.id, worker="test-worker", lease_seconds=60) == RegradeStatus.DONE
    return job.id


def test_the_report_names_fields_by_label_in_both_languages(app: Flask, session: Session, login: Login) -> None:
    fixture = build(session)
    job_id = _job(app, session, fixture, never_lower=True)
    client, _ = login(fixture.teacher.username)
    zh, en = _rows(client, job_id, "zh"), _rows(client, job_id, "en")
    tokens_zh, stopped_zh = LABELS["zh"]
    tokens_en, stopped_en = LABELS["en"]
    # Raised and applied (parts in the stored order, by field id): tokens had the tie-to-later misconception.
    assert zh[fixture.raised.id] == (
        escape(f"{stopped_zh}：✗ 0% → ✓；{tokens_zh}：✗ 0% [并列时取了靠后者] → ✓"),
        "已更新",
    )
    assert en[fixture.raised.id] == (
        escape(f"{stopped_en}: ✗ 0% → ✓; {tokens_en}: ✗ 0% [Tie went to the later one] → ✓"),
        "applied",
    )
    # Lowered, kept back by never-lower: the outcome says why, in words.
    assert zh[fixture.lowered.id] == (f"{tokens_zh}：✓ → ✗ 75%", escape("保留原结果：本次启用了“不降分”"))
    assert en[fixture.lowered.id] == (f"{tokens_en}: ✓ → ✗ 75%", escape("kept as stored: “never lower” was on"))
    why_zh, outcome_zh = zh[fixture.now_invalid.id]
    assert why_zh.startswith("状态：已批改 → 无法读取（未计次数）；") and "保留原结果" in outcome_zh
    assert en[fixture.now_invalid.id][0].startswith("status: Graded → Unreadable (no attempt used); ")
    for rows in (zh, en):  # no raw field id, unrounded score or English status word left
        for why, _ in rows.values():
            assert "tokens:" not in why and "stopped_by" not in why and "0.00" not in why and "graded →" not in why


def _stored_change(session: Session, fixture: RegradeFixture, reason: str, applied: bool) -> int:
    """A report row with ``reason`` stored as it is, on a new job; returns the job's id."""
    job = RegradeJob(
        assignment_id=fixture.assignment.id, requested_by=f"user:{fixture.teacher.username}", status=RegradeStatus.DONE
    )
    session.add(job)
    session.flush()
    session.add(
        RegradeChange(
            job_id=job.id,
            submission_id=fixture.lowered.id,
            user_id=fixture.lowered.user_id,
            exercise_id=EXERCISE,
            old_status="graded",
            new_status="graded",
            old_score=1.0,
            new_score=0.875,
            old_engine_version=OLD_ENGINE,
            new_engine_version="9.9.9",
            applied=applied,
            reason=reason,
        )
    )
    session.commit()
    return job.id


@pytest.mark.parametrize(
    ("reason", "applied", "zh", "en"),
    [
        (
            "tokens: ✓ → ✗ 0.75 (kept: over the limit of 3 attempts)",
            False,
            ("贪心解码输出的全部 token：✓ → ✗ 75%", "保留原结果：计入新结果会超过每题 3 次的提交上限"),
            (
                "Every token greedy decoding outputs: ✓ → ✗ 75%",
                "kept as stored: counting the new verdict would go over the limit of 3 attempts",
            ),
        ),
        (
            "score weighting changed",
            True,
            ("各部分对错未变，但各部分的分值权重变了", "已更新"),
            ("the parts' verdicts are the same, but their weighting in the score changed", "applied"),
        ),
        # Not in the current format: shown as stored, piece by piece or whole.
        (
            "an older note; tokens: ✓ → ✗ 0.75",
            True,
            ("an older note；贪心解码输出的全部 token：✓ → ✗ 75%", "已更新"),
            ("an older note; Every token greedy decoding outputs: ✓ → ✗ 75%", "applied"),
        ),
        (
            "tokens: ✓ → ✗ 0.75 (kept: a reason from the future)",
            False,
            ("tokens: ✓ → ✗ 0.75 (kept: a reason from the future)", "保留原结果（原因见左）"),
            ("tokens: ✓ → ✗ 0.75 (kept: a reason from the future)", "kept as stored (see why)"),
        ),
        (
            "unknown_field: ✓ → ✗ 0.5",
            True,
            ("unknown_field：✓ → ✗ 50%", "已更新"),
            ("unknown_field: ✓ → ✗ 50%", "applied"),
        ),
    ],
)
def test_stored_reasons_are_reworded_or_shown_as_stored(
    session: Session, login: Login, reason: str, applied: bool, zh: tuple[str, str], en: tuple[str, str]
) -> None:
    fixture = build(session)
    job_id = _stored_change(session, fixture, reason, applied)
    client, _ = login(fixture.teacher.username)
    for lang, expected in (("zh", zh), ("en", en)):
        assert _rows(client, job_id, lang) == {fixture.lowered.id: tuple(str(escape(text)) for text in expected)}
        shown = shown_reason(reason, EXERCISE, lang, applied)
        assert (shown.why, shown.kept or expected[1]) == expected
