"""The webhook tasks: fan the log out to subscriptions, and send what is due.

Both are idempotent and safe to run on many workers at once (row locks with SKIP LOCKED
share the work; see casino/webhooks). Beat runs them every few seconds; a run that finds
nothing to do costs a query or two. Each run is bounded, so a backlog is worked off over
consecutive runs instead of by one task that outlives the broker's visibility timeout.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from casino.app.upcasters import UPCASTERS
from casino.webhooks import fanout as fanning
from casino.webhooks.policy import DeliveryPolicy
from casino.webhooks.sender import Sender
from workers.app import app
from workers.tasks import database


@cache
def sender() -> Sender:
    # Settings are read once per worker process, like the database's.
    return Sender(DeliveryPolicy.from_environment(), UPCASTERS)


@app.task(name="workers.webhooks.fanout")  # type: ignore[untyped-decorator]
def fanout(batch_size: int = 500, max_batches: int = 20) -> dict[str, int]:
    """Enqueue new events for every active subscription, up to a bounded amount."""
    with database().pool.connection() as connection:
        return fanning.fanout(connection, batch_size, max_batches).as_json()


@app.task(name="workers.webhooks.send_due")  # type: ignore[untyped-decorator]
def send_due(max_seconds: float = 20.0) -> dict[str, Any]:
    """Post the due deliveries, round after round, for at most about ``max_seconds``
    (plus one round's post timeout)."""
    with database().pool.connection() as connection:
        return sender().send_due(connection, max_seconds).as_json()
