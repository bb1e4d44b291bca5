"""Capacity-lab runs: one row per parameter set (cached), run by a worker with progress written as it goes."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

from flask import current_app
from sqlalchemy import func, select, update
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlalchemy.orm import Session

from exercises import api as engine
from exercises.i18n import Text
from grader.extensions import Database
from grader.grading import dispatch, heartbeat, leases
from grader.grading.refusals import LabParametersRejected, LabRunsBusy
from grader.models import LabRun, LabStatus, User, utcnow

# The engine's published limits for run_capacity_lab; checked here so a bad request never reaches a worker.
LAB_DIMENSIONS = (32, 64, 128, 256)
MAX_T = 64
MAX_TRIALS = 2000
PROGRESS_STEP = 0.05  # write progress at most every 5 %, to keep database writes few
MAX_OPEN_RUNS_PER_USER = 3  # new runs one person may have waiting or running at once (cached ones are free)


class LeaseLost(RuntimeError):
    """Raised inside a lab run when another worker has taken the row over."""


def lab_params(ds: list[int], t_max: int, trials: int, seed: int) -> dict[str, Any]:
    """Checked, canonical parameters (sorted unique dimensions); raises LabParametersRejected."""
    if not ds or any(isinstance(d, bool) or d not in LAB_DIMENSIONS for d in ds):
        choices = ", ".join(str(d) for d in LAB_DIMENSIONS)
        raise LabParametersRejected(
            Text(zh=f"维度 d 需从 {choices} 中选择至少一个。", en=f"Pick at least one dimension d from {choices}.")
        )
    for name, value, limit in (("t_max", t_max, MAX_T), ("trials", trials, MAX_TRIALS)):
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= limit:
            raise LabParametersRejected(
                Text(zh=f"{name} 需为 1 到 {limit} 的整数。", en=f"{name} must be an integer from 1 to {limit}.")
            )
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < engine.SEED_LIMIT:
        raise LabParametersRejected(Text(zh="种子需为非负整数。", en="seed must be a non-negative integer."))
    return {"ds": sorted(set(ds)), "t_max": t_max, "trials": trials, "seed": seed}


def params_hash(params: dict[str, Any], engine_version: str) -> str:
    """Cache key: SHA-256 of the canonical parameters and the engine version."""
    canonical = json.dumps({"params": params, "engine_version": engine_version}, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def request_lab_run(
    session: Session, *, ds: list[int], t_max: int, trials: int, seed: int = 0, user: User | None = None
) -> LabRun:
    """The cached run for these parameters, or a new queued one (committed, then sent); a failed run is retried."""
    params = lab_params(ds, t_max, trials, seed)
    key = params_hash(params, engine.ENGINE_VERSION)
    run = session.scalar(select(LabRun).where(LabRun.params_hash == key))
    if (run is None or run.status == LabStatus.ERROR) and user is not None:
        _check_not_busy(session, user)
    if run is None:
        run = LabRun(
            params_hash=key,
            params=params,
            engine_version=engine.ENGINE_VERSION,
            requested_by_id=user.id if user else None,
            max_attempts=current_app.config["GRADER_MAX_ATTEMPTS"],
            dispatched_at=utcnow(),
        )
        session.add(run)
        try:
            session.commit()
        except IntegrityError:
            session.rollback()  # the same parameters were requested concurrently; use that row
            return session.scalars(select(LabRun).where(LabRun.params_hash == key)).one()
    elif run.status == LabStatus.ERROR:
        now = utcnow()
        session.execute(
            update(LabRun)
            .where(LabRun.id == run.id, LabRun.status == LabStatus.ERROR)
            .values(
                status=LabStatus.QUEUED, attempts=0, error_message=None, progress=0.0, queued_at=now, dispatched_at=now
            )
        )
        session.commit()
        session.refresh(run)
    else:
        return run
    dispatch.send(LabRun, run.id)
    return run


def _check_not_busy(session: Session, user: User) -> None:
    """Refuse a new run while ``user`` has MAX_OPEN_RUNS_PER_USER of theirs waiting or running: lab runs share
    the workers with grading, and one person queueing dozens would hold up everyone's grades."""
    open_runs = session.scalar(
        select(func.count())
        .select_from(LabRun)
        .where(LabRun.requested_by_id == user.id, LabRun.status.in_((LabStatus.QUEUED, LabStatus.RUNNING)))
    )
    if (open_runs or 0) >= MAX_OPEN_RUNS_PER_USER:
        raise LabRunsBusy()


@dataclass
class ProgressWriter:
    """The engine's progress callback: stores progress in steps, extending the lease; stops a run that lost it."""

    database: Database
    lease: leases.Lease
    lease_seconds: float
    written: float = 0.0

    def __call__(self, fraction: float) -> None:
        """Record ``fraction`` (0..1) if it moved by PROGRESS_STEP or the run is complete."""
        if fraction - self.written < PROGRESS_STEP and fraction < 1.0:
            return
        with self.database.session() as session:
            if not leases.extend(
                session, LabRun, self.lease, self.lease_seconds, progress=min(max(fraction, 0.0), 1.0)
            ):
                raise LeaseLost(self.lease.row_id)
        self.written = fraction


def run_lab(database: Database, lab_id: int, *, worker: str, lease_seconds: float, renew_every: float = 0.0) -> str:
    """Run one lab under a lease, writing progress (which also extends it) and renewing it every ``renew_every``
    seconds (0: only on progress); returns its status ("missing": no row)."""
    with database.session() as session:
        lease = leases.claim_or_status(session, LabRun, lab_id, worker, lease_seconds, LabStatus.ERROR)
        if isinstance(lease, str):
            return lease
        params = dict(session.get_one(LabRun, lab_id).params)
    report = ProgressWriter(database, lease, lease_seconds)
    try:
        with heartbeat.renewing(database, LabRun, lease, lease_seconds, renew_every):
            result = engine.run_capacity_lab(
                params["ds"], params["t_max"], trials=params["trials"], seed=params["seed"], progress=report
            )
    except LeaseLost:
        return LabStatus.RUNNING
    except ValueError as exc:
        # The engine refused the parameters: a permanent failure, so no retry.
        with database.session() as session:
            leases.fail(session, LabRun, lease, LabStatus.ERROR, leases.failure_message(exc))
        return LabStatus.ERROR
    except Exception as exc:
        # Keep the engine's message on the row for the page, then let Celery record the failure.
        with database.session() as session:
            leases.release_after_failure(session, LabRun, lease, leases.failure_message(exc), LabStatus.ERROR)
        raise
    try:
        with database.session() as session:
            written = leases.finish(session, LabRun, lease, LabStatus.DONE, result=_json_safe(result), progress=1.0)
            session.commit()
    except OperationalError as exc:
        # The retry would otherwise find the row still leased to this attempt and wait out the lease.
        leases.give_back(database, LabRun, lease, exc, LabStatus.ERROR)
        raise
    return LabStatus.DONE if written else LabStatus.RUNNING


def _json_safe(value: Any) -> Any:
    """The lab result with dict keys as strings, as JSON stores them (so cached and fresh results look the same)."""
    return json.loads(json.dumps(value))
