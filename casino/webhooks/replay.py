"""Replay: deliver a subscription's events again, from a position on.

A replay rewinds the subscription's checkpoint to the position and starts a new
generation; fan-out then enqueues every matching event after it again (as rows of the new
generation, which the unique key allows) and the sender delivers them in order, like new
ones. It reuses the fan-out's batches, so a replay of the whole log is as safe as
following it, and it costs the request nothing.

Deliveries of the earlier generation that are still pending are left alone: they may
reach the receiver as well as their replayed copies (at least once, same ``webhook-id``).
"""

from __future__ import annotations

from typing import Any

from psycopg import Connection

from casino.domain.errors import InvalidCommand, RuleViolation
from casino.webhooks.subscriptions import not_found


def replay(connection: Connection[Any], subscription_id: str, from_position: int) -> dict[str, Any]:
    """Re-enqueue the subscription's events after ``from_position`` as a new generation."""
    if isinstance(from_position, bool) or not isinstance(from_position, int) or from_position < 0:
        raise InvalidCommand(
            "invalid_position", "from_position must be an integer of at least 0", "from_position"
        )
    with connection.transaction():
        # Waits for a fan-out batch in progress, so the rewind lands between batches.
        row = connection.execute(
            "SELECT active, last_position, generation FROM webhook_subscriptions"
            " WHERE id = %s FOR UPDATE",
            (subscription_id,),
        ).fetchone()
        if row is None:
            raise not_found(subscription_id)
        active, last_position, generation = row
        if not active:
            raise RuleViolation(
                "subscription_inactive",
                "an inactive subscription is not replayed",
                "subscription_id",
            )
        connection.execute(
            "UPDATE webhook_subscriptions SET last_position = %s, generation = %s WHERE id = %s",
            (min(from_position, last_position), generation + 1, subscription_id),
        )
    return {
        "subscription_id": subscription_id,
        "generation": generation + 1,
        "from_position": from_position,
        # Events in (from_position, rewound_from] are enqueued again; later ones were
        # not enqueued yet and will be, once.
        "rewound_from": last_position,
    }
