"""gunicorn's threaded worker, with kept-alive connections spread over the workers.

Table systems hold one kept-alive connection each, for hours. With the stock worker,
whichever worker wakes first accepts a new connection, and a burst of them often lands
on one worker: measured with 2 workers x 2 threads and 4 tables (``bench/http_load.py``),
a run with all four on one worker played 118 rounds/s on one core, a run with two on
each 184 rounds/s on both. Here a worker that already holds a connection per thread
stops accepting for ``BACK_OFF_SECONDS``, so that a sibling with a free thread takes
the next connection; if none has (every worker is as full), the connection is accepted
after that pause, as before. The price: while every worker is full, a new connection
(a reconnecting client, a health check) waits those 10 ms once.
"""

from __future__ import annotations

import time
from typing import Any

from gunicorn.workers.gthread import ThreadWorker

BACK_OFF_SECONDS = 0.01
# Right after a back-off, a connection still waiting is one no sibling had room for: the
# first accepted within this time is taken however full the worker is.
GRACE_SECONDS = 0.005


# What this relies on of the stock worker (gunicorn 25.3 to 27): checked at import, so
# that another gunicorn fails at start-up, not by silently accepting as before.
_MISSING = [
    name
    for name in ("accept", "set_accept_enabled", "wait_for_and_dispatch_events")
    if not callable(getattr(ThreadWorker, name, None))
]
if _MISSING:
    raise ImportError(f"gunicorn's ThreadWorker has no {', '.join(_MISSING)}")


class BalancedThreadWorker(ThreadWorker):  # type: ignore[misc]  # gunicorn has no types
    """``gthread``, but full workers let a sibling with room accept first."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._back_off_until = 0.0
        self._accept_anyway_until = 0.0
        super().__init__(*args, **kwargs)

    def accept(self, listener: Any) -> None:
        now = time.monotonic()
        if self.nr_conns >= self.cfg.threads and now >= self._accept_anyway_until:
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
