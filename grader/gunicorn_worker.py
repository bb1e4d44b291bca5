"""gunicorn's threaded worker, with waits that hold no thread, and requests gunicorn refuses answered in the API's
error envelope.

**Parked waits.** A request waiting for a grade (``GET …?wait=``, ``Prefer: wait``) is parked by the app
(``grader.api.parking``): the worker keeps the response it returned and the connection in its event loop (watched
for the client leaving); when the lot (``grader.api.parking_lot``) says the grade is in, it runs the request again
in a thread; when the time is up with the submission unchanged, it sends the kept response. A thousand waiting
clients hold a thousand sockets, not a thousand threads. A stopping worker answers its parked requests at once.

**Refusals.** A request line or headers over gunicorn's limits are answered in the API's JSON envelope
(``grader.gunicorn_refusals``).

Run gunicorn with ``--worker-class grader.gunicorn_worker.ThreadWorker`` (``command``; Dockerfile, docker-compose.yml).
"""

from __future__ import annotations

import contextlib
import io
import selectors
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterable
from concurrent import futures
from concurrent.futures import Future
from dataclasses import dataclass
from functools import partial
from typing import Any, cast

from flask import Flask
from gunicorn import util
from gunicorn.http import wsgi
from gunicorn.workers import gthread

from grader import startup_objects
from grader.api import parking
from grader.api.parking_lot import ParkingLot
from grader.grading import notify
from grader.gunicorn_refusals import refusal_response

WORKER_CONNECTIONS = 2000  # per process: parked waits are connections, kept open without a thread
LINGER_SECONDS = 2.0  # as gunicorn's close_graceful
PARKED_SHARE = 0.75  # of the connections at most this share parked, so that other clients are still accepted
# Beside its ``--threads``, a process's pool has this many more threads per request thread, and waits may hold at
# most that many at once, in their first second (``waiting.THREAD_WAIT_SECONDS``), so all ``--threads`` stay free
# for other requests however many clients wait. A grade landing within that second is answered from the worker's
# notice, where a parked wait runs through the app a second time. When waits shared the request threads (six of
# eight), the re-runs were 6.6-9.9% of the web processes' samples at 16 clients (py-spy). With one added thread per
# request thread they were still 3.0% in one run: a client keeps its connection to one process, so 16 clients split
# unevenly over two processes of eight, and the busier one parked its surplus. With two, none was sampled
# (bench/README.md, 2026-12-06). An idle thread costs its stack's memory, no CPU.
WAIT_THREADS_PER_THREAD = 2

Answer = tuple[str, list[tuple[str, str]], bytes]  # a WSGI response: status, headers, body


class _Parking(Exception):  # a signal through gunicorn's handling, not an error
    """Raised past gunicorn's request handling when the app parked the request: no response is written."""

    def __init__(self, wait: parking.ParkedWait, answer: Answer) -> None:
        super().__init__("parked")
        self.wait = wait
        self.answer = answer


@dataclass
class _Parked:
    """A parked request: its wait, gunicorn's parsed request (which the re-run serves again), and the answer it
    would have had at once."""

    wait: parking.ParkedWait
    req: Any
    answer: Answer


class ThreadWorker(gthread.ThreadWorker):  # type: ignore[misc]  # gunicorn has no type hints
    """gunicorn's gthread worker with parked waits and JSON refusals (see the module docstring).

    Threads: ``handle``/``_resume`` run in the pool; ``finish_request``, ``_park``, ``_wake`` and the poller
    callbacks on the main loop, which alone touches the poller and ``_parked``; the lot calls ``_ready`` from its
    own thread, which only queues ``_wake`` for the main loop.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._local = threading.local()  # per pool thread: the request being served, a park it asked for
        self._app: Callable[..., Iterable[bytes]] | None = None
        self._lot: ParkingLot[Any] | None = None
        self._parked: dict[Any, _Parked] = {}
        self._thread_budget = parking.ThreadBudget(0)  # set once the app's settings are known (load_wsgi)
        self._lingering: dict[Any, float] = {}  # closing connections, by when to close them anyway

    def load_wsgi(self) -> None:
        """Load the app, and call it through ``_call_app``."""
        super().load_wsgi()
        loaded: Any = self.wsgi  # type: ignore[has-type]  # set by gunicorn's untyped base class
        self._app = cast(Callable[..., Iterable[bytes]], loaded)
        self.wsgi = self._call_app
        if isinstance(self._app, Flask):
            self._lot = ParkingLot(self._app, self._ready, int(self.worker_connections * PARKED_SHARE))
            # Only with Redis: a wait in its thread then sleeps until the notice; without, it would poll the
            # database every 10-50 ms, dearer than parking it at once (one query every 50 ms for all).
            if notify.redis_url(self._app.config) is not None:
                self._add_wait_threads(self.cfg.threads * WAIT_THREADS_PER_THREAD)
        startup_objects.set_aside()

    def _add_wait_threads(self, count: int) -> None:
        """Give the pool ``count`` more threads, and let waits hold at most ``count`` threads at once (the budget)."""
        # gthread made the pool before the app was loaded; it starts its threads on first use, so none runs yet.
        made: futures.ThreadPoolExecutor = self.tpool  # type: ignore[has-type]  # set by gunicorn's untyped base
        made.shutdown(wait=False)
        self.tpool = futures.ThreadPoolExecutor(max_workers=self.cfg.threads + count)
        self._thread_budget = parking.ThreadBudget(count)

    def _call_app(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        """The app, told whether it may park this request (or that it is the re-run of a parked one); a parked
        request's response is kept (``_Parking``), to be sent as it is if nothing changes before its time is up."""
        assert self._app is not None
        resuming: _Parked | None = getattr(self._local, "resuming", None)
        if resuming is not None:
            environ[parking.RESUME_KEY] = resuming.wait
            environ["wsgi.input"] = io.BytesIO(resuming.wait.body)  # the first run read the socket's copy
        if self._lot is not None:
            environ[parking.OFFER_KEY] = self.alive and self._lot.has_room()
            environ[parking.BUDGET_KEY] = self._thread_budget
        started: list[Any] = []

        def keep_start(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
            started[:] = [status, headers]
            return start_response(status, headers, exc_info)

        result = self._app(environ, keep_start)
        wait = environ.get(parking.PARKED_KEY)
        if wait is None:
            return result
        try:
            body = b"".join(result)
        finally:
            close = getattr(result, "close", None)
            if close is not None:
                close()
        raise _Parking(wait, (started[0], started[1], body))

    def handle(self, conn: Any) -> Any:
        """gunicorn's handling of one request; a ``_Parked`` instead of its result if the app parked it."""
        self._local.parked = None
        result = super().handle(conn)
        parked, self._local.parked = self._local.parked, None
        return result if parked is None else parked

    def handle_request(self, req: Any, conn: Any) -> Any:
        """gunicorn's, remembering ``req`` for a park (``handle_error`` receives the signal)."""
        self._local.req = req
        return super().handle_request(req, conn)

    def _resume(self, conn: Any, parked: _Parked) -> Any:
        """Serve a parked request again (in a pool thread); its slot is given back unless it is parked again."""
        self._local.resuming, self._local.parked = parked, None
        again: _Parked | None = None
        try:
            conn.sock.setblocking(True)
            return self._keepalive_after(conn, self.handle_request(parked.req, conn))
        except _Parking as signal:
            again = _Parked(signal.wait, parked.req, signal.answer)
            return again
        except (OSError, StopIteration):  # the client left, or gunicorn gave up on the connection
            return False
        finally:
            self._local.resuming = None
            if again is None:
                parked.wait.slot.give_back()

    def _send_kept_answer(self, conn: Any, parked: _Parked) -> Any:
        """Send the answer the request had when it was parked (in a pool thread): its time is up and the lot saw
        its submission unchanged, so the re-run would answer the same (at most a second staler, with Redis:
        never more than its rules allowed then), for a fraction of the CPU. A thousand clients asking again
        every ten seconds cost half as much."""
        status, headers, body = parked.answer
        try:
            conn.sock.setblocking(True)
            response = wsgi.Response(parked.req, conn.sock, self.cfg)
            response.start_response(status, headers)
            if not self.alive or not self.cfg.keepalive:
                response.force_close()
            response.write(body)
            response.close()
            return self._keepalive_after(conn, not response.should_close())
        except OSError:
            return False
        finally:
            parked.wait.slot.give_back()

    def finish_request(self, conn: Any, fs: Future[Any]) -> None:
        """On the main loop: park a request the app parked; close a finished connection without blocking the
        loop; else as gunicorn does."""
        result = None if fs.cancelled() or fs.exception() is not None else fs.result()
        if isinstance(result, _Parked):
            self._park(conn, result)
        elif result is False:
            self._close_gracefully(conn)
        else:
            super().finish_request(conn, fs)

    def _close_gracefully(self, conn: Any) -> None:
        """Close as gunicorn's ``close_graceful`` does (FIN first, then drain what the client still sends until it
        closes), but on the event loop: gunicorn's lingers up to 2 s in this thread for each connection, so a
        hundred parked waits ending together stalled the loop for minutes."""
        try:
            conn.sock.shutdown(socket.SHUT_WR)
        except OSError:
            self._closed(conn)
            return
        conn.sock.setblocking(False)
        self._lingering[conn] = time.monotonic() + LINGER_SECONDS
        self.poller.register(conn.sock, selectors.EVENT_READ, partial(self._lingering_readable, conn))

    def _lingering_readable(self, conn: Any, _sock: Any) -> None:
        """Drain a closing connection; close it once the client has closed its side."""
        try:
            if conn.sock.recv(65536):
                return
        except BlockingIOError:
            return
        except OSError:
            pass
        self._closed(conn)

    def _closed(self, conn: Any) -> None:
        """Forget and close a connection."""
        if self._lingering.pop(conn, None) is not None:
            with contextlib.suppress(KeyError, ValueError):
                self.poller.unregister(conn.sock)
        self.nr_conns -= 1
        util.close(conn.sock)

    def _park(self, conn: Any, parked: _Parked) -> None:
        """Keep ``conn`` without a thread until the lot says its wait is ready (or at once if stopping)."""
        assert self._lot is not None
        self._parked[conn] = parked
        if not self.alive:
            self._wake(conn)  # the re-run is offered no park: it answers the current state
            return
        conn.sock.setblocking(False)
        self.poller.register(conn.sock, selectors.EVENT_READ, partial(self._parked_readable, conn))
        self._lot.park(conn, parked.wait)

    def _ready(self, conn: Any, changed: bool) -> None:
        """From the lot's thread: have the main loop wake ``conn``."""
        self.method_queue.defer(self._wake, conn, changed)

    def _wake(self, conn: Any, changed: bool = True) -> None:
        """Serve a parked request again in the pool (or, if its submission did not change while it waited, send the
        answer it had), unless its client left meanwhile."""
        parked = self._parked.pop(conn, None)
        if parked is None:
            return
        with contextlib.suppress(KeyError, ValueError):  # not registered if a pipelined request unregistered it
            self.poller.unregister(conn.sock)
        future = self.tpool.submit(self._resume if changed else self._send_kept_answer, conn, parked)
        future.add_done_callback(lambda done: self.method_queue.defer(self.finish_request, conn, done))

    def _parked_readable(self, conn: Any, _sock: Any) -> None:
        """A parked connection became readable: the client closed it (drop the wait), or sent its next request
        (answered after this one)."""
        try:
            peeked = conn.sock.recv(1, socket.MSG_PEEK)
        except BlockingIOError:
            return
        except OSError:
            peeked = b""
        self.poller.unregister(conn.sock)
        if peeked:
            return
        parked = self._parked.pop(conn, None)
        if parked is not None and self._lot is not None:
            self._lot.cancel(conn)
            parked.wait.slot.give_back()
        self.nr_conns -= 1
        conn.close()

    def murder_pending(self) -> None:
        """gunicorn's (on every loop); also closes connections that lingered long enough, and a stopping worker
        answers its parked requests now."""
        super().murder_pending()
        now = time.monotonic()
        for conn in [conn for conn, deadline in self._lingering.items() if deadline <= now]:
            self._closed(conn)
        if not self.alive and self._parked and self._lot is not None:
            for conn in self._lot.release_all():
                self._wake(conn)

    def handle_error(self, req: Any, client: socket.socket, addr: Any, exc: Exception) -> None:
        """Note a park; answer a too-long request line or too-large headers in our envelope; anything else as
        gunicorn does."""
        if isinstance(exc, _Parking):
            self._local.parked = _Parked(exc.wait, req, exc.answer)
            return
        response = refusal_response(exc)
        if response is None:
            super().handle_error(req, client, addr, exc)
            return
        self.log.warning("Invalid request from ip=%s: %s", (addr or ("",))[0], exc)
        try:
            util.write_nonblock(client, response)
        except OSError:
            self.log.debug("Failed to send error message.")


def command(bind: str, workers: int = 2, threads: int = 8, connections: int = WORKER_CONNECTIONS) -> list[str]:
    """The gunicorn command line of the web app with this worker class, run with this interpreter."""
    return [
        sys.executable,
        "-m",
        "gunicorn",
        "--bind",
        bind,
        "--workers",
        str(workers),
        "--threads",
        str(threads),
        "--worker-connections",
        str(connections),
        "--worker-class",
        f"{__name__}.ThreadWorker",
        "grader:create_app()",
    ]
