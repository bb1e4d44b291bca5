"""The long-running processes set the objects they made at start aside from garbage collection (``gc.freeze``) once
the app is loaded: a full collection walked every one of them, 75-100 ms a time, paid by whichever request or
grade crossed the threshold (and every large page or file). Checked in the real processes: a gunicorn web worker
of our class, and the Celery worker's module as its pool processes inherit it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from grader import gunicorn_worker
from tests.support import wait_for

MANY = 50_000  # the app, its routes, models and the engine's catalogue: well over this many objects


def _env(data_dir: Path) -> dict[str, str]:
    return {"GRADER_ENV": "testing", "SECRET_KEY": "s" * 40, "GRADER_DATA_DIR": str(data_dir), "PATH": "/usr/bin:/bin"}


def test_a_web_worker_sets_them_aside_once_the_app_is_loaded(tmp_path: Path) -> None:
    """gunicorn's hook after a worker's start (``post_worker_init``, after ``load_wsgi``) finds them set aside."""
    report = tmp_path / "frozen.txt"
    config = tmp_path / "gunicorn_conf.py"
    config.write_text(
        "import gc\n\n\ndef post_worker_init(worker):\n"
        f"    open({str(report)!r}, 'w').write(str(gc.get_freeze_count()))\n"
    )
    command = gunicorn_worker.command("127.0.0.2:0", workers=1, threads=2)
    command[-1:-1] = ["--config", str(config)]
    with (tmp_path / "gunicorn.log").open("wb") as log:
        process = subprocess.Popen(command, env=_env(tmp_path), stdout=log, stderr=subprocess.STDOUT)
        try:
            frozen = wait_for(lambda: report.exists() and report.read_text(), f"a gunicorn worker ({log.name})")
        finally:
            process.terminate()
            process.wait(timeout=30)
    assert int(frozen) > MANY


def test_the_grading_worker_sets_them_aside_before_its_pool_forks(tmp_path: Path) -> None:
    """``celery -A grader.worker`` imports the module, which builds the app and sets its objects aside, before the
    prefork pool starts its processes."""
    code = "import gc, grader.worker; print(gc.get_freeze_count())"
    done = subprocess.run(
        [sys.executable, "-c", code], env=_env(tmp_path), capture_output=True, text=True, timeout=120, check=True
    )
    assert int(done.stdout.split()[-1]) > MANY
