"""Lease, attempt and time-limit settings that cannot work together are refused at start, naming the settings."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from grader.celery_app import celery_settings
from grader.config import ConfigError, load_config
from grader.serve import worker_command

BASE = {"GRADER_ENV": "testing", "SECRET_KEY": "s" * 40}


@pytest.mark.parametrize(
    ("settings", "named"),
    [
        ({"GRADER_LEASE_SECONDS": "0"}, "GRADER_LEASE_SECONDS"),
        ({"GRADER_LEASE_SECONDS": "-5"}, "GRADER_LEASE_SECONDS"),
        ({"GRADER_MAX_ATTEMPTS": "0"}, "GRADER_MAX_ATTEMPTS"),
        ({"GRADER_MAX_ATTEMPTS": "-1"}, "GRADER_MAX_ATTEMPTS"),
        ({"GRADER_GRADE_TIME_LIMIT": "-3"}, "GRADER_GRADE_TIME_LIMIT"),
        ({"GRADER_LAB_TIME_LIMIT": "-1"}, "GRADER_LAB_TIME_LIMIT"),
        ({"GRADER_SWEEP_INTERVAL": "-1"}, "GRADER_SWEEP_INTERVAL"),
        ({"GRADER_REQUEUE_AFTER": "-1"}, "GRADER_REQUEUE_AFTER"),
        # Not renewed: a 5 s lease under 8 s grades lost healthy workers' rows and ended good answers as errors.
        (
            {
                "GRADER_LEASE_RENEW_SECONDS": "0",
                "GRADER_LEASE_SECONDS": "5",
                "GRADER_GRADE_TIME_LIMIT": "8",
                "GRADER_LAB_TIME_LIMIT": "8",
            },
            "GRADER_LEASE_SECONDS",
        ),
        ({"GRADER_LEASE_RENEW_SECONDS": "0", "GRADER_LEASE_SECONDS": "100"}, "GRADER_LAB_TIME_LIMIT"),
        ({"GRADER_LEASE_RENEW_SECONDS": "5", "GRADER_LEASE_SECONDS": "8"}, "GRADER_LEASE_RENEW_SECONDS"),
        ({"GRADER_LEASE_RENEW_SECONDS": "soon"}, "GRADER_LEASE_RENEW_SECONDS"),
        ({"GRADER_LEASE_RENEW_SECONDS": "-1"}, "GRADER_LEASE_RENEW_SECONDS"),
        # The hard limit is the soft one plus the grace: 600 s labs are killed at 610 s.
        ({"GRADER_VISIBILITY_TIMEOUT": "605"}, "GRADER_VISIBILITY_TIMEOUT"),
        ({"GRADER_VISIBILITY_TIMEOUT": "65", "GRADER_LAB_TIME_LIMIT": "30"}, "GRADER_VISIBILITY_TIMEOUT"),
        # 0 would send a waiting score task again on every sweep.
        ({"GRADER_LTI_DISPATCH_AGAIN_SECONDS": "0"}, "GRADER_LTI_DISPATCH_AGAIN_SECONDS"),
        ({"GRADER_LTI_DISPATCH_AGAIN_SECONDS": "-1"}, "GRADER_LTI_DISPATCH_AGAIN_SECONDS"),
        ({"GRADER_WORKER_BEAT_SECONDS": "0"}, "GRADER_WORKER_BEAT_SECONDS"),
        ({"GRADER_WORKER_BEAT_SECONDS": "soon"}, "GRADER_WORKER_BEAT_SECONDS"),
    ],
)
def test_settings_that_cannot_work_are_refused(settings: dict[str, str], named: str) -> None:
    with pytest.raises(ConfigError, match=named):
        load_config(environ={**BASE, **settings})


@pytest.mark.parametrize(
    "settings",
    [
        {},  # the defaults: a short lease, renewed
        {"GRADER_LEASE_SECONDS": "5", "GRADER_GRADE_TIME_LIMIT": "8"},  # renewed, so shorter than a grade is fine
        {"GRADER_LEASE_RENEW_SECONDS": "0", "GRADER_LEASE_SECONDS": "700"},  # not renewed, outlasting every job
        {"GRADER_VISIBILITY_TIMEOUT": "611"},
    ],
)
def test_settings_that_work_are_accepted(settings: dict[str, str]) -> None:
    config = load_config(environ={**BASE, **settings})
    limits = [annotation["time_limit"] for annotation in celery_settings(config)["task_annotations"].values()]
    assert config["GRADER_VISIBILITY_TIMEOUT"] > max(limits)
    renew = config["GRADER_LEASE_RENEW_SECONDS"]
    assert (0 < renew <= config["GRADER_LEASE_SECONDS"] / 2) or config["GRADER_LEASE_SECONDS"] > max(limits)


def test_the_cli_refuses_with_one_line_naming_the_setting(tmp_path: Path) -> None:
    env = {**BASE, "GRADER_DATA_DIR": str(tmp_path), "GRADER_MAX_ATTEMPTS": "0", "PATH": "/usr/bin:/bin"}
    done = subprocess.run(
        [sys.executable, "-m", "grader.cli", "sweeper"], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2
    assert "GRADER_MAX_ATTEMPTS" in done.stderr and "Traceback" not in done.stderr


def test_the_worker_refuses_with_one_line_naming_the_setting(tmp_path: Path) -> None:
    env = {**BASE, "GRADER_DATA_DIR": str(tmp_path), "GRADER_LEASE_SECONDS": "-1", "PATH": "/usr/bin:/bin"}
    done = subprocess.run(worker_command("refused"), env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode != 0
    assert "configuration refused" in done.stderr and "GRADER_LEASE_SECONDS" in done.stderr
    assert "Traceback" not in done.stderr
