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

from casino.config import default_web_workers

# gunicorn's threaded worker, but kept-alive connections spread over the workers (a
# table system holds one for hours): see casino/api/balanced_worker.py.
worker_class = "casino.api.balanced_worker.BalancedThreadWorker"
# Two workers per core, two threads each: the worker spreads table systems one per
# worker first, so few connections do not share an interpreter lock, and a slow request
# (an export) still leaves a thread free. More threads only contend (for the GIL, and for
# the log's append lock). Measured by bench/http_load.py on 2 cores: at 16 clients,
# 2 workers x 2 threads 162 rounds/s (p99 deal 96 ms), 4 x 4 121-153 (p99 deal 143-181
# ms); at 4 clients, 4 x 2 median 167 rounds/s against 2 x 2's 160 (six alternating
# runs). At most 4 by default: each worker keeps a pool of CASINO_DB_POOL_SIZE
# connections, and a Postgres allows 100 by default. WEB_CONCURRENCY or --workers
# overrides the worker count.
workers = int(os.environ.get("WEB_CONCURRENCY") or default_web_workers())
threads = 2
limit_request_line = 0


def child_exit(server: Any, worker: Any) -> None:
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        multiprocess.mark_process_dead(worker.pid)  # type: ignore[no-untyped-call]
