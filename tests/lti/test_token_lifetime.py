"""What a platform's token endpoint says of its token's lifetime, read so that no answer can break grade passback:
a lifetime past a day (or infinite, or 400 digits long) is trusted for a day, a negative one not at all, and an
answer without a readable token or lifetime is a refusal, never an overflow."""

from __future__ import annotations

from typing import Any

import pytest

from grader.lti.tokens import TOKEN_LIFETIME_MOST, token_and_lifetime


@pytest.mark.parametrize(
    ("said", "seconds"),
    [
        (3600, 3600),
        (59.9, 59),
        ("120", 120),
        (0, 0),
        (-5, 0),
        (float("inf"), TOKEN_LIFETIME_MOST),  # JSON's 1e999
        ("1e999", TOKEN_LIFETIME_MOST),
        (10**400, TOKEN_LIFETIME_MOST),
        (TOKEN_LIFETIME_MOST + 1, TOKEN_LIFETIME_MOST),
    ],
)
def test_a_lifetime_is_read_within_a_day(said: Any, seconds: int) -> None:
    assert token_and_lifetime({"access_token": "tok", "expires_in": said}) == ("tok", seconds)


def test_no_lifetime_is_an_hour() -> None:
    assert token_and_lifetime({"access_token": "tok"}) == ("tok", 3600)


@pytest.mark.parametrize(
    ("body", "refusal"),
    [
        ({"expires_in": 60}, KeyError),
        ([], TypeError),
        ({"access_token": "tok", "expires_in": "soon"}, ValueError),
        ({"access_token": "tok", "expires_in": float("nan")}, ValueError),
        ({"access_token": "tok", "expires_in": None}, TypeError),
        ({"access_token": "tok", "expires_in": True}, TypeError),
        ({"access_token": "tok", "expires_in": [60]}, TypeError),
    ],
)
def test_an_answer_without_a_readable_token_or_lifetime_is_refused(body: Any, refusal: type[Exception]) -> None:
    with pytest.raises(refusal):
        token_and_lifetime(body)
