"""Running a benchmark script on the tests' PostgreSQL server and Redis database, as the bench tests do."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.support import PG_ADMIN_URL, own_redis_url

ROOT = Path(__file__).resolve().parents[1]
FIGURE = r"(\d+\.\d\d)"  # a figure as the benchmarks print it


def run_on_test_servers(script: str, *args: str) -> str:
    """The output of ``bench/<script>`` run with ``args`` against the tests' servers; fails the test if it fails."""
    run = subprocess.run(
        [sys.executable, f"bench/{script}", *args, "--admin-url", PG_ADMIN_URL, "--redis-url", own_redis_url()],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    return run.stdout
