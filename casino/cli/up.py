"""``casino up``: the whole stack on one machine, on the embedded defaults.

Starts (or joins) Postgres and Redis — the embedded ones unless ``DATABASE_URL`` /
``REDIS_URL`` are set — applies migrations, makes a first admin key if there is none,
then runs the API under gunicorn (and the Celery worker and beat, once the ``workers``
package provides them) until Ctrl-C, which stops every process it started. Data stays
in the data folder (``CASINO_DATA_DIR``, default ``./var``) for the next run.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from types import FrameType

from casino.app.actors import Role
from casino.app.keys import KeyStore
from casino.bootstrap import resolve_database_url, resolve_redis_url
from casino.cli.args import Parser
from casino.config import Settings, default_web_workers
from casino.db.connection import create_pool
from casino.db.migrations import upgrade
from casino.embedded_redis import stop_embedded_redis

STOP_TIMEOUT = 20.0


def add_parser(commands: argparse._SubParsersAction[Parser]) -> None:
    up = commands.add_parser("up", help="run the whole stack (API, workers) until Ctrl-C")
    up.add_argument("--host", default=os.environ.get("CASINO_HOST", "127.0.0.1"))
    up.add_argument("--port", type=int, default=int(os.environ.get("CASINO_PORT", "8000")))
    up.add_argument(
        "--web-workers",
        type=int,
        default=int(os.environ.get("CASINO_WEB_WORKERS") or default_web_workers()),
        help="gunicorn workers, of two threads each (default: two per core, at most 4)",
    )
    up.set_defaults(run=run_up)


def _first_admin_key(database_url: str) -> str | None:
    pool = create_pool(database_url, max_size=1, name="up")
    try:
        keys = KeyStore(pool.connection)
        if keys.any_admin():
            return None
        return keys.create(Role.ADMIN, label="first admin key, made by casino up").secret
    finally:
        pool.close()


def _processes(args: argparse.Namespace, data_dir: Path) -> list[list[str]]:
    bin_dir = os.path.dirname(sys.executable)
    commands = [
        [
            os.path.join(bin_dir, "gunicorn"),
            "--config", "python:casino.api.gunicorn_config",
            "--bind", f"{args.host}:{args.port}",
            "--workers", str(args.web_workers),
            "--access-logfile", "-",
            "casino.api.wsgi:app",
        ]
    ]  # fmt: skip
    if importlib.util.find_spec("workers.app") is not None:
        celery = os.path.join(bin_dir, "celery")
        commands.append([celery, "-A", "workers.app", "worker", "--loglevel", "INFO"])
        schedule = str(data_dir / "celerybeat-schedule")
        commands.append(
            [celery, "-A", "workers.app", "beat", "--loglevel", "INFO", "--schedule", schedule]
        )
    return commands


class _Stop(Exception):
    """Ctrl-C (SIGINT) or SIGTERM: stop the stack."""


def _stop(signum: int, frame: FrameType | None) -> None:
    raise _Stop


def run_up(args: argparse.Namespace) -> int:
    settings = Settings.from_environment()
    database_url = resolve_database_url(settings)
    redis_url = resolve_redis_url(settings)
    upgrade(database_url)
    admin_key = _first_admin_key(database_url)
    # Each gunicorn worker keeps its metrics in files here, so /metrics sums all of them.
    metrics_dir = settings.data_dir / "metrics"
    shutil.rmtree(metrics_dir, ignore_errors=True)
    metrics_dir.mkdir(parents=True)
    environment = dict(
        os.environ,
        DATABASE_URL=database_url,
        REDIS_URL=redis_url,
        PROMETHEUS_MULTIPROC_DIR=str(metrics_dir),
    )
    commands = _processes(args, settings.data_dir)
    children = [subprocess.Popen(command, env=environment) for command in commands]

    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)  # even where a shell started us with SIGINT ignored
    print(f"casino is up: http://{args.host}:{args.port}  (docs: /docs, OpenAPI: /openapi.json)")
    if admin_key:
        print(f"first admin key (shown once, keep it safe): {admin_key}")
    print("Ctrl-C stops everything; the data stays in", settings.data_dir)
    sys.stdout.flush()
    status = 0
    try:
        while True:
            exited = [i for i, child in enumerate(children) if child.poll() is not None]
            if exited:
                name = " ".join(commands[exited[0]][:2])
                print(f"{name} exited ({children[exited[0]].returncode}); stopping")
                status = 1
                break
            time.sleep(0.5)  # a supervisor's poll; Ctrl-C or SIGTERM interrupts it at once
    except _Stop:
        pass
    for child in children:
        if child.poll() is None:
            child.terminate()
    deadline = time.monotonic() + STOP_TIMEOUT
    for child in children:
        try:
            child.wait(max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            child.kill()
    if not settings.redis_url:
        stop_embedded_redis(settings.data_dir / "redis")
    print("stopped")
    return status
