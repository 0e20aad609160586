"""gunicorn's threaded worker, with kept-alive connections spread over the workers.

Table systems hold one kept-alive connection each, for hours. With the stock worker,
whichever worker wakes first accepts a new connection, and a burst of them often lands
on one worker: measured with 2 workers x 2 threads and 4 tables (``bench/http_load.py``),
a run with all four on one worker played 118 rounds/s on one core, a run with two on
each 184 rounds/s on both. Here a worker that already holds a connection stops
accepting for ``BACK_OFF_SECONDS``, so that a sibling holding none takes the next one;
if none does (every worker holds one), the connection is accepted after that pause, as
before. So every worker serves one table system before any serves two: connections in
one worker share its interpreter lock, and the cores then sit idle more
(``bench/http_load.py`` at 4 clients, six runs of 4 workers x 2 threads alternating
with 2 x 2 spread two per worker: 93-96% of the cores busy against 84-91%, median 167
rounds/s against 160). The price: while every worker holds a connection, a new one (a
reconnecting client, a health check) waits those 10 ms once.

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

BACK_OFF_SECONDS = 0.01
# Right after a back-off, a connection still waiting is one no sibling had room for: the
# first accepted within this time is taken however full the worker is.
GRACE_SECONDS = 0.005
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
    )
    if not callable(getattr(ThreadWorker, name, None))
]
if _MISSING:
    raise ImportError(f"gunicorn's ThreadWorker has no {', '.join(_MISSING)}")


class BalancedThreadWorker(ThreadWorker):  # type: ignore[misc]  # gunicorn has no types
    """``gthread``, but a worker with a connection lets an idle sibling accept first, and
    a thread serves its connection's next request itself when it comes at once."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._back_off_until = 0.0
        self._accept_anyway_until = 0.0
        self._queued = 0  # requests handed to the thread pool that no thread took yet
        self._queued_lock = threading.Lock()
        super().__init__(*args, **kwargs)

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
        if self.nr_conns >= 1 and now >= self._accept_anyway_until:
            self._back_off_until = now + BACK_OFF_SECONDS
            self._accept_anyway_until = self._back_off_until + GRACE_SECONDS
            super().set_accept_enabled(False)
            return
        self._accept_anyway_until = 0.0  # one connection per back-off
        super().accept(listener)

    def set_accept_enabled(self, enabled: bool) -> None:
        # The worker's loop enables accepting again whenever it has room for more
        # connections; not while backing off.
        if enabled and time.monotonic() < self._back_off_until:
            return
        super().set_accept_enabled(enabled)

    def wait_for_and_dispatch_events(self, timeout: float) -> None:
        # Wake when the back-off ends, not only at the next event or second.
        remaining = self._back_off_until - time.monotonic()
        if remaining > 0:
            timeout = min(timeout, remaining)
        super().wait_for_and_dispatch_events(timeout)


def _next_request_came(conn: Any) -> bool:
    """Whether the connection's next request is here, or comes within the linger."""
    if conn.parser.unreader.buf.getvalue():  # read already, with the previous request
        return True
    poller = select.poll()
    poller.register(conn.sock, select.POLLIN)
    return bool(poller.poll(LINGER_SECONDS * 1000))
