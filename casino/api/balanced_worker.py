"""gunicorn's threaded worker, with kept-alive connections spread over the workers.

Table systems hold one kept-alive connection each, for hours. With the stock worker,
whichever worker wakes first accepts a new connection, and a burst of them often lands
on one worker: measured with 2 workers x 2 threads and 4 tables (``bench/http_load.py``),
a run with all four on one worker played 118 rounds/s on one core, a run with two on
each 184 rounds/s on both. Here every worker publishes how many connections it holds
(``worker_roster.py``), and a worker that holds more than a sibling does not accept:
it looks again every ``RECHECK_SECONDS`` while the sibling takes the connection. So
every worker serves one table system before any serves two: connections in one worker
share its interpreter lock, and the cores then sit idle more (``bench/http_load.py`` at
4 clients, six runs of 4 workers x 2 threads alternating with 2 x 2 spread two per
worker: 93-96% of the cores busy against 84-91%, median 167 rounds/s against 160).
Workers holding equally many accept at once, as gthread does. A worker counts for its
siblings from when its application is loaded until it starts to stop. Once the busier
worker has left waiting connections to a sibling for ``MAX_DEFER_SECONDS`` (the sibling
stuck, or starved of CPU), it takes every one waiting until none is. So a new
connection waits that long at worst, plus however long the busier worker's own
requests keep its main thread from looking (measured: about 0.5 s with four threads
burning CPU). A timed back-off alone (the first version here) was not enough: on a
loaded machine a sibling missed its turn and one worker took three of four connections.

And a thread stays with its connection for the next request. The stock worker hands a
kept-alive connection back to its main thread after every answer: the socket goes back
into the poller, the next request wakes the main thread, which queues it for a thread.
A table system sends its next request within a millisecond or two of an answer (open,
wagers, deal), so here the thread that answered waits up to ``LINGER_SECONDS`` for it
and serves it at once, unless another connection's request is already queued for a
thread. That saves the poller's and the thread pool's work (system calls and thread
switches) on most requests. Measured with ``bench/http_load.py`` at 4 clients, six
runs alternating with the stock behaviour: GET /healthz 18% faster (median of the
pairs), and gunicorn's CPU per round, taken relative to Postgres's in the same run
(the machine's speed drifts), 6% lower. The price: a request arriving on another
connection while every thread lingers waits up to those 2 ms, plus one request of the
lingering connection when its next one comes within them (the queue is checked before
each wait, not during it).
"""

from __future__ import annotations

import select
import threading
import time
from typing import Any

from gunicorn.workers.gthread import ThreadWorker

from casino.api.worker_roster import Deferral, WorkerRoster

# How often a worker holding more connections than a sibling looks again.
RECHECK_SECONDS = 0.005
# How long it leaves waiting connections to that sibling at most.
MAX_DEFER_SECONDS = 0.1
# How long a thread that answered waits for its connection's next request.
LINGER_SECONDS = 0.002


# What this relies on of the stock worker (gunicorn 25.3 to 27): checked at import, so
# that another gunicorn fails at start-up, not by silently accepting as before.
_MISSING = [
    name
    for name in (
        "accept",
        "set_accept_enabled",
        "wait_for_and_dispatch_events",
        "enqueue_req",
        "handle",
        "run",
    )
    if not callable(getattr(ThreadWorker, name, None))
]
if _MISSING:
    raise ImportError(f"gunicorn's ThreadWorker has no {', '.join(_MISSING)}")

# Made where the worker class is loaded: in the arbiter, before it forks the workers.
_ROSTER = WorkerRoster()


class BalancedThreadWorker(ThreadWorker):  # type: ignore[misc]  # gunicorn has no types
    """``gthread``, but a worker with a connection lets an idle sibling accept first, and
    a thread serves its connection's next request itself when it comes at once."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._held = 0
        self._deferral = Deferral(MAX_DEFER_SECONDS)
        self._back_off_until = 0.0
        self._queued = 0  # requests handed to the thread pool that no thread took yet
        self._queued_lock = threading.Lock()
        super().__init__(*args, **kwargs)
        # In the arbiter, before it forks this worker. With --reuse-port every worker
        # listens on a socket of its own: a connection left to a sibling would only wait.
        self._slot = None if self.cfg.reuse_port else _ROSTER.assign(self)

    @property
    def nr_conns(self) -> int:
        """The connections this worker holds (gthread counts them; siblings read them)."""
        return self._held

    @nr_conns.setter
    def nr_conns(self, held: int) -> None:
        self._held = held
        _ROSTER.publish(held)

    def run(self) -> None:
        # The application is loaded: from now on siblings may leave connections to it.
        if self._slot is not None:
            _ROSTER.enter(self._slot, self.nr_conns)
        try:
            super().run()
        finally:
            _ROSTER.leave()

    def enqueue_req(self, conn: Any) -> None:
        with self._queued_lock:
            self._queued += 1
        super().enqueue_req(conn)

    def handle(self, conn: Any) -> Any:
        """Serve the request, then the connection's next ones while they come at once
        and no other request waits for a thread; the last answer's outcome (keep the
        connection or not) goes back to the main thread, as the stock worker's does."""
        with self._queued_lock:
            self._queued -= 1
        kept = super().handle(conn)
        while kept is True and self.alive and not self._queued and _next_request_came(conn):
            kept = super().handle(conn)
        return kept

    def accept(self, listener: Any) -> None:
        now = time.monotonic()
        if (
            self.nr_conns  # holding none, it never holds more than a sibling
            and _ROSTER.fewest_elsewhere(below=self.nr_conns) is not None
            and self._deferral.leave_to_sibling(now)
        ):
            self._back_off_until = now + RECHECK_SECONDS
            super().set_accept_enabled(False)
            return
        super().accept(listener)

    def set_accept_enabled(self, enabled: bool) -> None:
        # The worker's loop enables accepting again whenever it has room for more
        # connections; not before it is time to look at its siblings again.
        if enabled and time.monotonic() < self._back_off_until:
            return
        super().set_accept_enabled(enabled)

    def wait_for_and_dispatch_events(self, timeout: float) -> None:
        if not self.alive:  # stopping (a signal, or --max-requests): accepting no more,
            _ROSTER.leave()  # so siblings must not leave connections to it
        remaining = self._back_off_until - time.monotonic()
        if remaining > 0:  # wake when it is time to look again, not only at an event
            timeout = min(timeout, remaining)
        elif self._deferral.running:
            if _readable(self.sockets, 0):  # a connection about to be accepted, or taken by
                timeout = min(timeout, RECHECK_SECONDS)  # a sibling unseen: look again
            else:  # a sibling took what was left, or this worker took the last one
                self._deferral.none_waiting()
        super().wait_for_and_dispatch_events(timeout)


def _next_request_came(conn: Any) -> bool:
    """Whether the connection's next request is here, or comes within the linger."""
    if conn.parser.unreader.buf.getvalue():  # read already, with the previous request
        return True
    return _readable([conn.sock], LINGER_SECONDS)


def _readable(sockets: list[Any], within_seconds: float) -> bool:
    """Whether any of ``sockets`` has something to read now, or does within the time."""
    poller = select.poll()
    for sock in sockets:
        poller.register(sock, select.POLLIN)
    return bool(poller.poll(within_seconds * 1000))
