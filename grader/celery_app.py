"""Celery bound to a Flask app: tasks run inside an app context and share the app's configuration."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from celery import Celery, Task
from flask import Flask

from grader import file_broker
from grader.config import AMQP_SCHEMES, BROKER_SOCKET_TIMEOUT, REDIS_SCHEMES, hard_time_limits
from grader.grading.dispatch import GRADE_TASK, LAB_TASK

# One retry (a connection a broker restart broke is reopened), not Celery's default three.
PUBLISH_RETRY = {"max_retries": 1, "interval_start": 0, "interval_step": 0.2, "interval_max": 0.2}


def celery_settings(config: dict[str, Any]) -> dict[str, Any]:
    """Celery settings derived from the app config (broker, reliability, time limits)."""
    broker_url = config["CELERY_BROKER_URL"]
    hard_limits = hard_time_limits(config)
    settings: dict[str, Any] = {
        "broker_url": broker_url,
        "task_default_queue": config["GRADER_QUEUE"],
        "task_ignore_result": True,  # the database row is the result
        "task_acks_late": True,
        "task_reject_on_worker_lost": True,
        "worker_prefetch_multiplier": 1,
        "broker_connection_retry_on_startup": True,
        "task_annotations": {
            GRADE_TASK: {
                "soft_time_limit": config["GRADER_GRADE_TIME_LIMIT"],
                "time_limit": hard_limits["GRADER_GRADE_TIME_LIMIT"],
            },
            LAB_TASK: {
                "soft_time_limit": config["GRADER_LAB_TIME_LIMIT"],
                "time_limit": hard_limits["GRADER_LAB_TIME_LIMIT"],
            },
        },
    }
    if broker_url.startswith(REDIS_SCHEMES):
        # Redis redelivers unacked messages after this long; it must exceed every task's hard limit.
        settings["broker_transport_options"] = {
            "visibility_timeout": config["GRADER_VISIBILITY_TIMEOUT"],
            # A Redis that hangs (stopped, partitioned) must fail a publish, not hold it for ever: the row is
            # committed first, so a failed send leaves it for the sweeper, and the request answers meanwhile.
            "socket_timeout": BROKER_SOCKET_TIMEOUT,
            "socket_connect_timeout": BROKER_SOCKET_TIMEOUT,
        }
        settings["task_publish_retry_policy"] = PUBLISH_RETRY
    elif broker_url.startswith(AMQP_SCHEMES):
        settings.update(rabbitmq_settings())
    elif broker_url.startswith("filesystem://"):
        settings["broker_transport"] = file_broker.TRANSPORT  # kombu's file transport, messages renamed into place
        settings["broker_transport_options"] = filesystem_broker_options(Path(config["GRADER_DATA_DIR"]) / "broker")
    return settings


def rabbitmq_settings() -> dict[str, Any]:
    """RabbitMQ as the production broker: durable quorum queues (replicated, kept on disk across restarts),
    persistent messages, and a publish that returns only once the broker has confirmed the message."""
    return {
        "task_default_queue_type": "quorum",  # GRADER_QUEUE, declared by whoever publishes or consumes first
        "task_create_missing_queue_type": "quorum",  # a queue named on the command line only (--queues)
        "task_default_delivery_mode": "persistent",
        "worker_detect_quorum_queues": True,  # quorum queues have no global QoS: prefetch is per consumer
        # A hung or unreachable broker fails the publish (the row is committed, the sweeper sends it later).
        "broker_connection_timeout": BROKER_SOCKET_TIMEOUT,
        "broker_transport_options": {"confirm_publish": True},
        "task_publish_retry_policy": PUBLISH_RETRY,
    }


def filesystem_broker_options(root: Path) -> dict[str, Any]:
    """Folders of the embedded file broker (created here: kombu expects them to exist)."""
    queue, control = root / "queue", root / "control"
    for folder in (queue, control):
        folder.mkdir(parents=True, exist_ok=True)
    return {
        "data_folder_in": str(queue),
        "data_folder_out": str(queue),
        "control_folder": str(control),
        "polling_interval": 0.2,
    }


def celery_init_app(app: Flask) -> Celery:
    """Create the Celery app for ``app`` and store it as ``app.extensions["celery"]``."""

    class FlaskTask(Task):
        """A task that runs inside ``app``'s application context."""

        def __call__(self, *args: object, **kwargs: object) -> object:
            with app.app_context():
                return self.run(*args, **kwargs)

    celery = Celery(
        app.import_name, task_cls=FlaskTask, include=["grader.tasks", "grader.teacher.tasks", "grader.lti.tasks"]
    )
    celery.conf.update(celery_settings(app.config))
    celery.set_default()
    app.extensions["celery"] = celery
    return celery
