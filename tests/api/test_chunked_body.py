"""A body sent without Content-Length (Transfer-Encoding: chunked) is held to the same 64 KiB limit: 413, not a
"malformed JSON" 400 about the cut that the limit made."""

from __future__ import annotations

import io
import json

import pytest
from werkzeug.test import TestResponse

from grader.api import MAX_BODY_BYTES

from .support import Api, assert_error

SHIFT = "ch13.shift-pairs"
ANSWER = {"pairs": "BOS→red", "bos_scored": "no", "eos_scored": "yes", "scored_count": "1"}


def _body(api: Api, size: int) -> bytes:
    """A valid JSON body for both routes, padded with trailing spaces to exactly ``size`` bytes."""
    data = json.dumps(
        {"exercise_id": SHIFT, "answer": ANSWER, "lang": "en", "assignment_id": api.school.practice_assignment}
    ).encode("utf-8")
    assert len(data) <= size
    return data + b" " * (size - len(data))


def _chunked(api: Api, path: str, body: bytes) -> TestResponse:
    """POST ``body`` as alice with no Content-Length, as a server that handles chunked requests passes it on
    (it sets wsgi.input_terminated: the stream ends where the body does)."""
    return api.client.post(
        f"/api/v1{path}",
        input_stream=io.BytesIO(body),
        content_type="application/json",
        headers=api.headers("alice", {"Transfer-Encoding": "chunked"}),
        environ_overrides={"wsgi.input_terminated": True},
    )


@pytest.mark.parametrize("path", ["/submissions", "/validate"])
def test_a_chunked_body_beyond_the_limit_is_413(api: Api, path: str) -> None:
    for size in (MAX_BODY_BYTES + 1, 4 * MAX_BODY_BYTES):
        assert_error(_chunked(api, path, _body(api, size)), 413, "payload_too_large")
    assert api.get("/submissions", "alice").get_json()["total"] == 0


@pytest.mark.parametrize("path", ["/submissions", "/validate"])
def test_a_chunked_body_up_to_the_limit_is_read(api: Api, path: str) -> None:
    for size in (1000, MAX_BODY_BYTES):
        response = _chunked(api, path, _body(api, size))
        assert response.status_code in (200, 202), response.get_json()


def test_the_content_length_case_answers_alike(api: Api) -> None:
    chunked = _chunked(api, "/validate", _body(api, MAX_BODY_BYTES + 1)).get_json()
    sized = api.post("/validate", "alice", raw=_body(api, MAX_BODY_BYTES + 1))
    assert sized.status_code == 413 and sized.get_json() == chunked
