"""bench/bench_worker_cpu.py measures both systems' workers: each grades every job it queued, with real Celery
workers, and the ratio line is printed.

Only that it runs and measures what it says; its figures are benchmarks (bench/README.md), not test assertions.
"""

from __future__ import annotations

import re

import pytest

from tests.bench_scripts import FIGURE, run_on_test_servers
from tests.conftest import BACKENDS

pytestmark = [
    pytest.mark.skipif("postgresql" not in BACKENDS, reason="the benchmark runs on PostgreSQL and Redis"),
    pytest.mark.integration,
]


def test_the_worker_cpu_benchmark_measures_both_workers() -> None:
    stdout = run_on_test_servers("bench_worker_cpu.py", "--rounds", "1", "--jobs", "100")
    for system in ("grader", "required floor"):
        line = re.search(rf"^  {system} +median +main +{FIGURE} +pool +{FIGURE}", stdout, re.MULTILINE)
        assert line is not None, stdout
        assert float(line.group(1)) > 0 and float(line.group(2)) > 0
    assert re.search(r"grader over floor: main ×\d+\.\d\d +pool ×\d+\.\d\d", stdout), stdout
