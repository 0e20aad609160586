"""A WSGI app that answers with the pid of the worker process that served it.

``PID_APP_LOAD_SECONDS`` makes a worker take that long to load it, as a real
application's imports do.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable
from typing import Any

time.sleep(float(os.environ.get("PID_APP_LOAD_SECONDS", "0")))


def app(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
    body = str(os.getpid()).encode()
    start_response("200 OK", [("Content-Type", "text/plain"), ("Content-Length", str(len(body)))])
    return [body]
