"""Capacity-lab runs through the real worker: cached by parameters, progress stored, bad parameters refused."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from grader.grading.labs import request_lab_run
from grader.grading.refusals import LabParametersRejected
from grader.models import LabRun, LabStatus
from tests.support import WorkerProcess, wait_for


def test_lab_run_completes_and_is_cached_by_parameters(session: Session, worker: WorkerProcess) -> None:
    run = request_lab_run(session, ds=[32], t_max=4, trials=5, seed=3)
    done = wait_for(
        lambda: (r := session.get(LabRun, run.id, populate_existing=True)).status == LabStatus.DONE and r,
        "the lab run to finish",
    )
    assert done.progress == 1.0
    assert done.result is not None and done.result["ds"] == [32]
    assert len(done.result["fixed_accuracy"]["32"]) == 4

    again = request_lab_run(session, ds=[32, 32], t_max=4, trials=5, seed=3)  # same parameters, written differently
    assert again.id == run.id and again.status == LabStatus.DONE
    other = request_lab_run(session, ds=[32], t_max=4, trials=5, seed=4)
    assert other.id != run.id
    assert session.scalar(select(func.count()).select_from(LabRun)) == 2


@pytest.mark.parametrize(
    "params",
    [
        {"ds": [], "t_max": 4, "trials": 5},
        {"ds": [33], "t_max": 4, "trials": 5},
        {"ds": [32], "t_max": 65, "trials": 5},
        {"ds": [32], "t_max": 4, "trials": 0},
        {"ds": [32], "t_max": True, "trials": 5},
    ],
)
def test_out_of_range_parameters_are_refused_before_queueing(session: Session, params: dict) -> None:
    with pytest.raises(LabParametersRejected):
        request_lab_run(session, **params)
    assert session.scalar(select(func.count()).select_from(LabRun)) == 0
