"""Worker liveness: each running worker writes its row every few seconds, so the sweeper knows who can claim."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import String
from sqlalchemy.orm import Mapped, mapped_column

from grader.models.base import Base


class WorkerBeat(Base):
    """The latest sign of life of one worker (a Celery node): which queues it reads and how many jobs it can hold.

    ``concurrency`` is also the most messages it may have taken from the broker without yet claiming their rows
    (prefetch multiplier 1), which the sweeper allows for before calling a queued row's message lost.
    """

    __tablename__ = "worker_beats"

    name: Mapped[str] = mapped_column(String(200), primary_key=True)
    queues: Mapped[str] = mapped_column(String(1000))  # comma-separated queue names
    concurrency: Mapped[int]
    seen_at: Mapped[datetime]
