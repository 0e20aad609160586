"""The Celery application: Redis broker, beat schedule.

The broker is ``REDIS_URL`` (set by ``casino up`` and by deployments). Without it, a
worker or beat process starts the embedded Redis when it starts, never at import time;
a client sets its broker with ``use_broker``.
"""

from __future__ import annotations

import os
from typing import Any

from celery import Celery
from celery.signals import beat_init, celeryd_init

from casino.bootstrap import resolve_redis_url
from casino.config import Settings
from workers import schedule

app = Celery("casino", include=["workers.tasks", "workers.webhooks"])
app.conf.update(
    task_acks_late=True,  # a task whose worker dies is delivered again
    task_reject_on_worker_lost=True,
    worker_prefetch_multiplier=1,
    task_serializer="json",
    result_serializer="json",
    accept_content=["json"],
    result_expires=3600,
    beat_schedule=schedule.BEAT_SCHEDULE,
    timezone="UTC",
    broker_connection_retry_on_startup=True,
    task_track_started=True,
    task_default_queue=os.environ.get("CASINO_TASK_QUEUE", "casino"),
    # An unacknowledged task (its worker died) is delivered again after this long. Tasks
    # are idempotent (a rerun records nothing twice), so a short timeout is safe.
    broker_transport_options={
        "visibility_timeout": float(os.environ.get("CASINO_TASK_VISIBILITY_SECONDS", "600")),
        # Sweep for such tasks this often (kombu's default sweeps only every ~100 s).
        "unacked_restore_interval": int(os.environ.get("CASINO_TASK_RESTORE_SECONDS", "10")),
        "unacked_restore_throttle": 1,
    },
)


def use_broker(url: str) -> None:
    app.conf.broker_url = url
    app.conf.result_backend = url


if os.environ.get("REDIS_URL"):
    use_broker(os.environ["REDIS_URL"])


@celeryd_init.connect  # type: ignore[untyped-decorator]
@beat_init.connect  # type: ignore[untyped-decorator]
def _embedded_broker(**_: Any) -> None:
    if not app.conf.broker_url:
        use_broker(resolve_redis_url(Settings.from_environment()))
