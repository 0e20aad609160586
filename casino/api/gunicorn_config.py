"""gunicorn settings for the API: ``gunicorn -c python:casino.api.gunicorn_config
'casino.api.wsgi:app'``. Command-line options given beside it still win.

- Request lines: gunicorn answers a line over 8 KiB itself, with an HTML page; with
  0 it passes lines up to its hard cap of 1 MiB to the app, which answers any
  over-long parameter as a problem (invariant 8: every bad request gets one).
- Metrics: under ``PROMETHEUS_MULTIPROC_DIR`` each worker keeps its counters in files
  there; a worker's files are retired when it exits, as prometheus_client asks.
"""

from __future__ import annotations

import os
from typing import Any

from prometheus_client import multiprocess

worker_class = "gthread"
threads = 4
limit_request_line = 0


def child_exit(server: Any, worker: Any) -> None:
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        multiprocess.mark_process_dead(worker.pid)  # type: ignore[no-untyped-call]
