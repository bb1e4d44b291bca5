"""Requests gunicorn refuses before the app (a query string over its line limit, oversized headers) are answered
in the API's JSON error envelope by our worker class, under a real gunicorn."""

from __future__ import annotations

import json
import socket
import subprocess
from collections.abc import Iterator

import pytest
from flask import Flask

from grader import gunicorn_worker
from grader.api.openapi import document
from tests.support import free_port, wait_for

HOST = "127.0.0.2"  # a loopback address of its own, away from anything else listening


def _exchange(port: int, request: bytes) -> tuple[int, dict[str, str], bytes]:
    """Send raw ``request``; the status, headers (lower-case names) and body of the answer."""
    with socket.create_connection((HOST, port), timeout=10) as connection:
        connection.sendall(request)
        answer = b""
        while chunk := connection.recv(65536):
            answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    status_line, *header_lines = head.decode("latin-1").split("\r\n")
    headers = {name.lower(): value.strip() for name, _, value in (line.partition(":") for line in header_lines)}
    return int(status_line.split()[1]), headers, body


def _get(path: str, extra_headers: str = "") -> bytes:
    return f"GET {path} HTTP/1.1\r\nHost: grader\r\nConnection: close\r\n{extra_headers}\r\n".encode()


def _listening(port: int) -> bool | None:
    try:
        socket.create_connection((HOST, port), timeout=1).close()
    except OSError:
        return None
    return True


@pytest.fixture(scope="module")
def gunicorn_port(tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    """gunicorn serving the app with our worker class, as the Dockerfile runs it."""
    data_dir = tmp_path_factory.mktemp("gunicorn")
    port = free_port(HOST)
    env = {"GRADER_ENV": "testing", "SECRET_KEY": "s" * 40, "GRADER_DATA_DIR": str(data_dir), "PATH": "/usr/bin:/bin"}
    command = gunicorn_worker.command(f"{HOST}:{port}", workers=1, threads=2)
    log = (data_dir / "gunicorn.log").open("wb")
    process = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        wait_for(lambda: _listening(port), f"gunicorn to listen (log: {data_dir / 'gunicorn.log'})")
        yield port
    finally:
        process.terminate()
        process.wait(timeout=30)
        log.close()


def test_a_query_string_over_the_line_limit_is_a_json_414(gunicorn_port: int) -> None:
    status, headers, body = _exchange(gunicorn_port, _get("/api/v1/submissions?exercise=" + "x" * 5000))
    assert status == 414
    assert headers["content-type"] == "application/json"
    error = json.loads(body)["error"]
    assert error["code"] == "uri_too_long" and error["field"] == "query" and error["message"]


def test_oversized_headers_are_a_json_431(gunicorn_port: int) -> None:
    status, headers, body = _exchange(gunicorn_port, _get("/api/v1/openapi.json", f"X-Big: {'y' * 9000}\r\n"))
    assert status == 431 and headers["content-type"] == "application/json"
    assert json.loads(body)["error"]["code"] == "headers_too_large"


def test_ordinary_requests_still_reach_the_app(gunicorn_port: int) -> None:
    status, _, body = _exchange(gunicorn_port, _get("/api/v1/openapi.json"))
    assert status == 200 and json.loads(body)["openapi"].startswith("3.")


def test_a_malformed_request_line_is_still_gunicorns_400(gunicorn_port: int) -> None:
    status, _, _ = _exchange(gunicorn_port, b"NOT A REQUEST\r\n\r\n")
    assert status == 400


def test_the_document_lists_the_414_on_every_operation(app: Flask) -> None:
    spec = document(app)
    assert "uri_too_long" in spec["components"]["responses"]["E414"]["description"]
    for item in spec["paths"].values():
        for operation in item.values():
            assert operation["responses"]["414"] == {"$ref": "#/components/responses/E414"}
