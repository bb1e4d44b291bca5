"""Redis commands on a connection the calling thread keeps (``grader.redis_direct``): one per thread and process,
replaced when broken, scripts run by digest with the whole script sent when Redis lacks it."""

from __future__ import annotations

import hashlib
import os
import signal
import threading
import uuid

import pytest
import redis

from grader.redis_direct import DirectRedis
from tests.support import REDIS_URL, free_port


@pytest.fixture
def direct() -> DirectRedis:
    return DirectRedis(REDIS_URL, 2.0)


def test_a_thread_keeps_its_connection_and_threads_do_not_share_one(direct: DirectRedis) -> None:
    first, again = direct.command("CLIENT", "ID"), direct.command("CLIENT", "ID")
    in_other_thread: list[int] = []
    other = threading.Thread(target=lambda: in_other_thread.append(direct.command("CLIENT", "ID")))
    other.start()
    other.join()
    assert first == again
    assert in_other_thread and in_other_thread[0] != first


def test_a_broken_connection_is_replaced_and_the_command_still_runs(direct: DirectRedis) -> None:
    key = f"direct-test:{uuid.uuid4().hex}"
    killed = direct.command("CLIENT", "ID")
    with redis.Redis.from_url(REDIS_URL) as other:
        assert other.client_kill_filter(_id=killed) == 1
    try:
        assert direct.command("LPUSH", key, b"one") == 1  # sent on a new connection, once
        assert direct.command("CLIENT", "ID") != killed
        assert direct.command("LLEN", key) == 1
    finally:
        direct.command("DEL", key)


def test_an_error_reply_is_raised_and_the_connection_stays(direct: DirectRedis) -> None:
    before = direct.command("CLIENT", "ID")
    with pytest.raises(redis.ResponseError):
        direct.command("NO-SUCH-COMMAND")
    assert direct.command("CLIENT", "ID") == before


def test_a_redis_that_refuses_raises_a_connection_error() -> None:
    with pytest.raises(redis.ConnectionError):
        DirectRedis(f"redis://127.0.0.1:{free_port()}/0", 2.0).command("PING")


def test_a_script_redis_lacks_is_sent_whole_then_run_by_digest(direct: DirectRedis) -> None:
    # A script of its own (a unique comment): Redis cannot have it yet, as after a restart.
    source = f"-- {uuid.uuid4().hex}\nreturn tonumber(ARGV[1]) + #KEYS"
    digest = hashlib.sha1(source.encode(), usedforsecurity=False).hexdigest()
    assert direct.command("SCRIPT", "EXISTS", digest) == [0]
    assert direct.script(source, ["a", "b"], [40]) == 42
    assert direct.command("SCRIPT", "EXISTS", digest) == [1]
    assert direct.script(source, ["a"], [40]) == 41


def test_a_forked_child_makes_its_own_connection(direct: DirectRedis) -> None:
    parents = direct.command("CLIENT", "ID")
    reading, writing = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover (the child's exit code and its pipe carry the result)
        signal.alarm(20)  # a child stuck on a lock another thread held at the fork dies instead of hanging the test
        os.close(reading)
        code = 1
        try:
            os.write(writing, str(direct.command("CLIENT", "ID")).encode())
            code = 0
        finally:
            os._exit(code)
    os.close(writing)
    with os.fdopen(reading) as pipe:
        childs = int(pipe.read())
    _, status = os.waitpid(child, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert childs != parents
    assert direct.command("CLIENT", "ID") == parents  # the parent's connection still answers its parent
