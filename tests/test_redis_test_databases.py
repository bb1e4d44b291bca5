"""Each test process gets a Redis database of its own (tests flush theirs on purpose): a database claimed by a live
process is never handed out again, and one left claimed by a dead process is taken over."""

from __future__ import annotations

import os
import subprocess
import uuid

import redis

from tests.support import REDIS_CLAIM_SECONDS, REDIS_URL, _took_over_dead_claim, own_redis_url


def _dead_pid() -> int:
    """The id of a process that has exited."""
    process = subprocess.Popen(["true"])
    process.wait()
    return process.pid


def test_this_process_holds_the_claim_on_its_database() -> None:
    index = own_redis_url().rsplit("/", 1)[1]
    assert 1 <= int(index) <= 15
    claims = redis.Redis.from_url(f"{REDIS_URL}/0")
    assert claims.get(f"grader-test-db:{index}") == str(os.getpid()).encode()


def test_a_live_claim_is_kept_and_a_dead_one_taken_over() -> None:
    claims = redis.Redis.from_url(f"{REDIS_URL}/0")
    key = f"grader-test-db:probe-{uuid.uuid4().hex[:8]}"  # not one of the 15, so no real run is disturbed
    try:
        claims.set(key, str(os.getppid()), ex=REDIS_CLAIM_SECONDS)
        assert not _took_over_dead_claim(claims, key, "me")
        claims.set(key, str(_dead_pid()), ex=REDIS_CLAIM_SECONDS)
        assert _took_over_dead_claim(claims, key, "4242")
        assert claims.get(key) == b"4242"
    finally:
        claims.delete(key)
