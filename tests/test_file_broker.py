"""The embedded broker's messages appear whole or not at all, even while another process is writing them."""

from __future__ import annotations

import contextlib
import multiprocessing
import time
from pathlib import Path
from queue import Empty
from typing import Any

import pytest
from kombu import Connection

from grader import create_app, file_broker

QUEUE = "grading"
MESSAGES, SIZE = 12, 3_000_000  # big messages: writing one takes long enough for a reader to look at it midway


def _channel(folder: Path) -> Any:
    """A channel of the embedded broker's transport on ``folder``."""
    options = {"data_folder_in": str(folder), "data_folder_out": str(folder)}
    return Connection("filesystem://", transport=file_broker.TRANSPORT, transport_options=options).channel()


def _produce(folder: Path) -> None:
    """Put MESSAGES large messages on the queue (runs in another process, like the web app)."""
    channel = _channel(folder)
    for number in range(MESSAGES):
        channel._put(QUEUE, {"number": number, "body": "x" * SIZE})


def test_a_reader_never_sees_a_message_half_written(tmp_path: Path) -> None:
    # kombu's own file transport creates the file before writing it: a reader listing the folder in between got
    # an empty or cut message, and the worker stopped on the JSON error (every message, at this size).
    producer = multiprocessing.get_context("fork").Process(target=_produce, args=(tmp_path,))
    producer.start()
    channel, received = _channel(tmp_path), []
    deadline = time.monotonic() + 60
    while len(received) < MESSAGES and time.monotonic() < deadline:
        with contextlib.suppress(Empty):
            received.append(channel._get(QUEUE))
    producer.join(30)
    assert producer.exitcode == 0
    assert sorted(message["number"] for message in received) == list(range(MESSAGES))
    assert all(len(message["body"]) == SIZE for message in received)
    assert not list(tmp_path.glob(f"*{file_broker.PARTIAL_SUFFIX}"))  # nothing left half written


def test_the_embedded_default_sends_and_receives_through_this_transport(tmp_path: Path) -> None:
    app = create_app(
        {"GRADER_ENV": "testing", "SECRET_KEY": "test-secret-key-not-for-production", "GRADER_DATA_DIR": str(tmp_path)}
    )
    assert app.config["CELERY_BROKER_URL"].startswith("filesystem://")  # no broker configured: the embedded one
    celery = app.extensions["celery"]
    with celery.connection_for_write() as writing, celery.connection_for_read() as reading:
        assert isinstance(writing.transport, file_broker.Transport)
        assert isinstance(reading.transport, file_broker.Transport)


def test_a_file_that_is_not_a_message_is_dropped_not_fatal(tmp_path: Path) -> None:
    # Before, the JSON error of such a file was an "unrecoverable error" that stopped the worker.
    channel = _channel(tmp_path)
    (tmp_path / f"0_cut-short.{QUEUE}.msg").write_bytes(b'{"body": "x')  # "0_" sorts before every real name
    channel._put(QUEUE, {"number": 1})
    with pytest.raises(Empty):
        channel._get(QUEUE)
    assert channel._get(QUEUE) == {"number": 1}
    assert not list(tmp_path.glob("*.msg"))
