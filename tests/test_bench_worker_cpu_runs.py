"""bench/bench_worker_cpu.py measures both systems' workers: each grades every job it queued, with real Celery
workers, and the ratio line is printed.

Only that it runs and measures what it says; its figures are benchmarks (bench/README.md), not test assertions.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import BACKENDS
from tests.support import PG_ADMIN_URL, own_redis_url

pytestmark = [
    pytest.mark.skipif("postgresql" not in BACKENDS, reason="the benchmark runs on PostgreSQL and Redis"),
    pytest.mark.integration,
]
ROOT = Path(__file__).resolve().parents[1]
FIGURE = r"(\d+\.\d\d)"


def test_the_worker_cpu_benchmark_measures_both_workers() -> None:
    run = subprocess.run(
        [
            sys.executable,
            "bench/bench_worker_cpu.py",
            *("--rounds", "1", "--jobs", "100"),
            *("--admin-url", PG_ADMIN_URL, "--redis-url", own_redis_url()),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    for system in ("grader", "required floor"):
        line = re.search(rf"^  {system} +median +main +{FIGURE} +pool +{FIGURE}", run.stdout, re.MULTILINE)
        assert line is not None, run.stdout
        assert float(line.group(1)) > 0 and float(line.group(2)) > 0
    assert re.search(r"grader over floor: main ×\d+\.\d\d +pool ×\d+\.\d\d", run.stdout), run.stdout
