"""The Redis client parses replies with hiredis (the ``redis[hiredis]`` extra): a third less CPU per command and per
grade notice than redis-py's own parser, in every web process and worker (bench/README.md, 2026-12-05)."""

from __future__ import annotations

import redis
from redis.utils import HIREDIS_AVAILABLE

from tests.support import REDIS_URL


def test_the_redis_client_parses_replies_with_hiredis() -> None:
    assert HIREDIS_AVAILABLE, "install the project with its redis[hiredis] extra"
    client = redis.Redis.from_url(REDIS_URL)
    try:
        client.ping()
        connection = client.connection_pool.get_connection()
        try:
            assert type(connection._parser).__name__.startswith("_Hiredis")
        finally:
            client.connection_pool.release(connection)
    finally:
        client.close()
