"""How long a score waits before it is tried again: an LMS's Retry-After (seconds or an HTTP date) is honoured as
given, never shortened by the backoff scale; without one, our own backoff grows with the attempts, with jitter."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import pytest

from grader.lti.outbox import MAX_DELAY, retry_delay

NOW = datetime(2026, 12, 2, 1, 0, tzinfo=UTC)


def test_retry_after_in_seconds_is_honoured_whatever_the_scale() -> None:
    assert retry_delay(1, "120", NOW, scale=0.05) == 120.0
    assert retry_delay(1, " 7 ", NOW) == 7.0


def test_retry_after_as_an_http_date_waits_until_then() -> None:
    later = format_datetime(NOW + timedelta(seconds=90), usegmt=True)
    assert retry_delay(1, later, NOW, scale=0.05) == pytest.approx(90.0)
    past = format_datetime(NOW - timedelta(seconds=90), usegmt=True)
    assert retry_delay(1, past, NOW) == 1.0  # a date already past: try again soon, not at once


def test_an_absurd_retry_after_is_capped() -> None:
    assert retry_delay(1, "99999999", NOW) == MAX_DELAY * 6
    far = format_datetime(NOW + timedelta(days=30), usegmt=True)
    assert retry_delay(1, far, NOW) == MAX_DELAY * 6


def test_without_retry_after_the_backoff_grows_with_jitter_and_is_scaled() -> None:
    first = [retry_delay(1, None, NOW) for _ in range(50)]
    eighth = [retry_delay(8, None, NOW) for _ in range(50)]
    assert all(1.0 <= d <= 2.0 for d in first) and all(128.0 <= d <= 256.0 for d in eighth)
    assert len(set(eighth)) > 1  # jittered, so that many rows do not retry in step
    assert all(d <= MAX_DELAY for d in (retry_delay(30, None, NOW) for _ in range(20)))
    assert all(d <= 0.1 for d in (retry_delay(1, "garbage", NOW, scale=0.05) for _ in range(20)))
    # A digit to str.isdigit, not to float(): it used to raise in the outbox's delivery.
    assert all(d <= 0.1 for d in (retry_delay(1, "²", NOW, scale=0.05) for _ in range(20)))
