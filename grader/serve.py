"""`grader serve`: the embedded default — web app, a real Celery worker process and the sweeper, on SQLite."""

from __future__ import annotations

import ctypes
import os
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Mapping
from types import FrameType

from flask import Flask

from grader import create_app, startup_objects
from grader.config import SHARED_WITH_WORKER
from grader.demo import COURSE_CODE, DEMO_LOGINS, seed_demo
from grader.exiting import exit_without_freeing
from grader.extensions import get_db
from grader.grading import sweeper
from grader.migrate import upgrade

# Linux's prctl(PR_SET_PDEATHSIG): a child asks for a signal when the thread that started it dies. Resolved here,
# not in the child, where only async-signal-safe work belongs between fork and exec.
_PRCTL = ctypes.CDLL(None, use_errno=True).prctl if sys.platform == "linux" else None
_PR_SET_PDEATHSIG = 1

WORKER_STOP_SECONDS = 10
WATCH_SECONDS = 1.0
MAX_RESTART_PAUSE_SECONDS = 30.0


def worker_command(queue: str, concurrency: int = 2) -> list[str]:
    """The Celery worker command line, run with this interpreter so it uses the same environment."""
    return [
        sys.executable,
        "-m",
        "celery",
        "-A",
        "grader.worker",
        "worker",
        "--loglevel",
        "INFO",
        "--concurrency",
        str(concurrency),
        "--queues",
        queue,
    ]


def worker_environment(app: Flask) -> dict[str, str]:
    """The current environment plus the settings the app resolved, so the worker agrees with the web app."""
    env = dict(os.environ)
    for name in SHARED_WITH_WORKER:
        env[name] = str(app.config[name])
    return env


def terminate_with_parent() -> None:
    """In a child between fork and exec: have it sent SIGTERM when its parent dies, even by SIGKILL (Linux)."""
    if _PRCTL is not None:
        _PRCTL(_PR_SET_PDEATHSIG, signal.SIGTERM)


def start_worker(app: Flask) -> subprocess.Popen[bytes]:
    """Start ``celery -A grader.worker worker`` as a child process that stops (warm) if `grader serve` is killed."""
    # Without this, a `grader serve` killed outright left its worker running, and the next one started another.
    return subprocess.Popen(
        worker_command(app.config["GRADER_QUEUE"]), env=worker_environment(app), preexec_fn=terminate_with_parent
    )


def stop_worker(worker: subprocess.Popen[bytes]) -> None:
    """Warm shutdown (SIGTERM lets it finish or return its tasks), then kill if it does not exit."""
    if worker.poll() is None:
        worker.terminate()
        try:
            worker.wait(WORKER_STOP_SECONDS)
        except subprocess.TimeoutExpired:
            worker.kill()
            worker.wait()


class SupervisedWorker:
    """The worker child of `grader serve`, started again whenever it exits while the server runs.

    A worker that died (killed, out of memory, a broker fault Celery calls unrecoverable) would otherwise leave the
    web app accepting answers that nobody grades until someone restarted everything; its rows are re-sent by the
    sweeper once it is back.
    """

    def __init__(self, app: Flask, stop: threading.Event) -> None:
        self._app = app
        self._stop = stop
        self._lock = threading.Lock()  # a restart and the final stop never overlap
        self.process = start_worker(app)
        self.restarts = 0

    def watch(self) -> None:
        """Check the worker every WATCH_SECONDS and restart it if it exited; waits longer after each quick death
        (up to MAX_RESTART_PAUSE_SECONDS), so a worker that cannot start does not spin."""
        pause = WATCH_SECONDS
        while not self._stop.wait(pause):
            with self._lock:
                if self._stop.is_set():
                    return
                status = self.process.poll()
                if status is None:
                    pause = WATCH_SECONDS
                    continue
                print(
                    f"grader serve: the grading worker exited (status {status}); starting it again",
                    file=sys.stderr,
                    flush=True,
                )
                self.process = start_worker(self._app)
                self.restarts += 1
            pause = min(max(pause * 2, WATCH_SECONDS), MAX_RESTART_PAUSE_SECONDS)

    def stop(self) -> None:
        """Stop watching, then stop the worker as ``stop_worker`` does."""
        self._stop.set()
        with self._lock:
            stop_worker(self.process)


def prepare(app: Flask) -> None:
    """Bring the schema up to date and make sure the demo course exists."""
    upgrade(app.config["DATABASE_URL"])
    with app.app_context(), get_db(app).session() as session:
        seed_demo(session)


def banner(host: str, port: int) -> str:
    """What `grader serve` prints: the URL and the demo logins."""
    lines = [f"Grader running at http://{host}:{port}/", f"Demo course {COURSE_CODE!r}; logins (username / password):"]
    lines += [f"  {login.role:<8} {login.username:<10} {login.password}" for login in DEMO_LOGINS]
    return "\n".join(lines)


def serve(host: str = "127.0.0.1", port: int = 5000, config: Mapping[str, str] | None = None) -> int:
    """Run everything until interrupted; returns the exit status."""
    app = create_app(config)
    if app.config["GRADER_ENV"] == "production":
        print(
            "grader serve is the embedded development server; in production run gunicorn, "
            "celery -A grader.worker worker and grader sweeper",
            file=sys.stderr,
        )
        return 2
    if not port_is_free(host, port):
        print(f"port {port} on {host} is in use; choose another with --port", file=sys.stderr)
        return 1
    prepare(app)
    stop = threading.Event()
    worker = SupervisedWorker(app, stop)
    threading.Thread(target=worker.watch, name="worker-supervisor", daemon=True).start()
    sweeping = threading.Thread(target=sweeper.run_forever, args=(app, stop), name="sweeper", daemon=True)
    sweeping.start()

    def on_term(_signum: int, _frame: FrameType | None) -> None:
        """Turn SIGTERM into the same clean shutdown as Ctrl-C."""
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, on_term)
    # Ctrl-C must stop us even if we were started with SIGINT ignored (a shell's background job): the worker,
    # which installs its own handler, would otherwise stop while the web app went on serving without it.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    startup_objects.set_aside()
    print(banner(host, port), flush=True)
    try:
        app.run(host=host, port=port, threaded=True, use_reloader=False)
    except KeyboardInterrupt:
        pass
    finally:
        # A second Ctrl-C or SIGTERM (a process-group kill, `timeout` passing one on) must not cut the worker's
        # shutdown short: that left the worker running without its parent.
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        worker.stop()  # also sets ``stop``, which ends the sweeper
        get_db(app).dispose()  # closed here, not by the collector at exit (SQLite folds its WAL in on close)
        exit_without_freeing()
    return 0


def port_is_free(host: str, port: int) -> bool:
    """True if a server could listen on ``host:port`` now (checked before anything starts or is printed)."""
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as werkzeug's server binds
        try:
            probe.bind((host, port))
        except OSError:
            return False
    return True
