"""A task message put on a Redis broker in one LPUSH: Celery's message protocol 2 in kombu's Redis envelope.

Every submission sends one message. Through ``Celery.send_task`` a send cost a web request ~0.36 ms of CPU, about
five times the LPUSH it ends in: the producer pool, kombu's retry wrappers, its virtual exchange and its envelope.
A grader message is always the same shape (one row id, the default exchange, no result, no ETA), so it is built
here, as Celery and kombu would build it, and pushed on the list kombu's Redis transport reads the queue from,
on the sending thread's own connection (``grader.redis_direct``): ~0.14 ms with a redis-py client, less without
its pool (bench/README.md, 2026-12-06). A worker (kombu's consumer, Celery's request) reads it as one sent by
``send_task``; tests/test_task_messages.py compares the two. It has no reply address: no task stores a result.

References: Celery's "Message Protocol" (version 2: headers, properties, body ``[args, kwargs, embed]``) and
kombu's Redis transport (a JSON envelope with the body in base64, LPUSHed on the queue's name at priority 0).
"""

from __future__ import annotations

import base64
import functools
import json
import os
import socket
import uuid
from typing import Any

from grader.config import BROKER_SOCKET_TIMEOUT, REDIS_SCHEMES
from grader.redis_direct import direct

# Celery's body for a task without callbacks, errbacks, chain or chord: ``[args, kwargs, embed]``.
_EMBED = {"callbacks": None, "errbacks": None, "chain": None, "chord": None}


def handles(broker_url: str) -> bool:
    """Whether sends to ``broker_url`` go through here (a Redis broker); others go through kombu."""
    return broker_url.startswith(REDIS_SCHEMES)


def envelope(task: str, row_id: int, queue: str) -> bytes:
    """The message for task ``task`` with the one argument ``row_id``, as kombu's Redis transport stores it."""
    task_id = str(uuid.uuid4())
    headers: dict[str, Any] = {
        "lang": "py",
        "task": task,
        "id": task_id,
        "shadow": None,
        "eta": None,
        "expires": None,
        "group": None,
        "group_index": None,
        "retries": 0,
        "timelimit": [None, None],  # the worker applies the task's configured limits
        "root_id": task_id,
        "parent_id": None,
        "argsrepr": f"[{row_id}]",  # what Celery's saferepr writes for monitors
        "kwargsrepr": "{}",
        "origin": _origin(),
        "ignore_result": None,
        "replaced_task_nesting": 0,
        "stamped_headers": None,
        "stamps": {},
    }
    body = json.dumps([[row_id], {}, _EMBED]).encode()
    message = {
        "body": base64.b64encode(body).decode(),
        "content-encoding": "utf-8",
        "content-type": "application/json",
        "headers": headers,
        "properties": {
            "correlation_id": task_id,
            "delivery_mode": 2,
            "delivery_info": {"exchange": "", "routing_key": queue},
            "priority": 0,
            "body_encoding": "base64",
            "delivery_tag": str(uuid.uuid4()),
        },
    }
    return json.dumps(message).encode()


def send(broker_url: str, task: str, row_id: int, queue: str) -> None:
    """Put the message for ``task(row_id)`` on ``queue``; raises ``redis.RedisError`` if Redis cannot take it."""
    # A hung Redis fails the send, as on the kombu path (the row is committed; the sweeper re-sends it); a broken
    # connection (a broker restart) is retried once, as the kombu path's publish retry policy does.
    direct(broker_url, BROKER_SOCKET_TIMEOUT).command("LPUSH", queue, envelope(task, row_id, queue))


@functools.cache
def _origin() -> str:
    """Who sent the message, as Celery names an anonymous sender (``gen<pid>@<host>``)."""
    return f"gen{os.getpid()}@{socket.gethostname()}"


os.register_at_fork(after_in_child=_origin.cache_clear)
