"""Does a flood of sign-ins with made-up names slow other users? Prints the median of ``GET /api/v1/me`` for a
signed-in user with no flood, then while N threads post made-up names to ``/login`` (issue 18 saw 7 ms → 308 ms
with 16 such loops, when each unknown name cost an argon2 hash). Asserts nothing.

    .venv/bin/python bench/bench_sign_in_flood.py --flooders 16 --seconds 10
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

import requests
from sqlalchemy import select

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script from a plain checkout

from bench.load_stack import free_port
from grader import create_app, gunicorn_worker
from grader.extensions import get_db
from grader.models import User
from grader.security import issue_token
from grader.serve import prepare

HOST = "127.0.0.3"


def _median_me(base: str, token: str, seconds: float) -> float:
    """Median milliseconds of GET /api/v1/me over ``seconds``."""
    timings, deadline = [], time.monotonic() + seconds
    while time.monotonic() < deadline:
        started = time.perf_counter()
        requests.get(f"{base}/api/v1/me", headers={"Authorization": f"Bearer {token}"}, timeout=30).raise_for_status()
        timings.append(1000 * (time.perf_counter() - started))
    return statistics.median(timings)


def _flood(base: str, stop: threading.Event, counts: list[int]) -> None:
    """Sign in with made-up names until ``stop``, from one browser-like session (its own CSRF token)."""
    with requests.Session() as browser:
        page = browser.get(f"{base}/login", timeout=30).text
        csrf = re.search(r'name="csrf-token" content="([^"]+)"', page).group(1)  # type: ignore[union-attr]
        while not stop.is_set():
            browser.post(
                f"{base}/login",
                data={"username": f"nobody-{uuid.uuid4().hex[:8]}", "password": "x", "csrf_token": csrf},
                timeout=30,
            )
            counts.append(1)


def main() -> None:
    """Start gunicorn (2 × 8 threads, our worker class) on a demo database and measure."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--flooders", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=10.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as data_dir:
        # Many addresses would each get their own budget; one address is stopped by the per-address limit, so the
        # flood comes from 127.0.0.1 with that limit out of the way via a memory store reset per window.
        env = {
            **os.environ,
            "GRADER_ENV": "testing",
            "SECRET_KEY": "s" * 40,
            "GRADER_DATA_DIR": data_dir,
            "RATELIMIT_STORAGE_URI": "memory://",
        }
        app = create_app({k: env[k] for k in ("GRADER_ENV", "SECRET_KEY", "GRADER_DATA_DIR")})
        prepare(app)
        with app.app_context(), get_db(app).session() as session:
            user = session.scalars(select(User).where(User.username == "student1")).one()
            token = issue_token(session, user, name="bench")
            session.commit()
        port = free_port(HOST)
        server = subprocess.Popen(
            gunicorn_worker.command(f"{HOST}:{port}"),
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        base = f"http://{HOST}:{port}"
        try:
            for _ in range(100):
                try:
                    requests.get(f"{base}/healthz", timeout=10)
                    break
                except requests.RequestException:
                    time.sleep(0.5)
            print(f"load average {os.getloadavg()[0]:.1f}")
            print(f"GET /api/v1/me median, quiet: {_median_me(base, token, args.seconds):.1f} ms")
            stop, counts = threading.Event(), []
            flooders = [
                threading.Thread(target=_flood, args=(base, stop, counts), daemon=True) for _ in range(args.flooders)
            ]
            for thread in flooders:
                thread.start()
            time.sleep(1)
            during = _median_me(base, token, args.seconds)
            stop.set()
            for thread in flooders:
                thread.join()
            print(
                f"GET /api/v1/me median, {args.flooders} sign-in loops with made-up names: {during:.1f} ms "
                f"({len(counts)} sign-ins answered, 401 or 429)"
            )
        finally:
            server.terminate()
            server.wait(30)


if __name__ == "__main__":
    main()
