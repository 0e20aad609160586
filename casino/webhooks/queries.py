"""What the API shows of deliveries: a subscription's, by status; dead letters; lag.

Lists page like the event feed: in the order deliveries were made (by id), ``after`` the
last id seen, answering ``next_after`` to pass on.
"""

from __future__ import annotations

from typing import Any

from psycopg import Connection

from casino.domain.errors import InvalidCommand
from casino.webhooks.subscriptions import get_subscription

STATUSES = ("pending", "delivered", "dead")
MAX_PAGE = 1000

_COLUMNS = (
    "id, subscription_id, position, generation, stream_id, event_type, status, attempts,"
    " next_attempt_at, last_attempt_at, last_status_code, last_error, delivered_at, created_at"
)
_LAG = """
SELECT (SELECT coalesce(max(position), 0) FROM events),
       (SELECT count(*) FROM webhook_deliveries
         WHERE subscription_id = %(id)s AND status = 'pending'),
       (SELECT count(*) FROM webhook_deliveries
         WHERE subscription_id = %(id)s AND status = 'dead'),
       oldest.position, oldest.recorded_at,
       extract(epoch FROM clock_timestamp() - oldest.recorded_at)::float8
  FROM (SELECT 1) AS one
  LEFT JOIN LATERAL (
        SELECT e.position, e.recorded_at FROM webhook_deliveries d
          JOIN events e ON e.position = d.position
         WHERE d.subscription_id = %(id)s AND d.status = 'pending'
         ORDER BY d.position LIMIT 1) AS oldest ON true
"""


def deliveries(
    connection: Connection[Any],
    subscription_id: str,
    status: str | None = None,
    after: int = 0,
    limit: int = 100,
) -> dict[str, Any]:
    """A page of the subscription's deliveries (of one ``status``, when given)."""
    get_subscription(connection, subscription_id)  # NotFound first
    if status is not None and status not in STATUSES:
        raise InvalidCommand(
            "invalid_status", f"status must be one of {', '.join(STATUSES)}", "status"
        )
    _check_page(after, limit)
    status_clause = "" if status is None else " AND status = %(status)s"
    rows = connection.execute(
        f"SELECT {_COLUMNS} FROM webhook_deliveries WHERE subscription_id = %(id)s"
        f"{status_clause} AND id > %(after)s ORDER BY id LIMIT %(limit)s",
        {"id": subscription_id, "status": status, "after": after, "limit": limit},
    ).fetchall()
    return _page(rows, after)


def dead_letters(
    connection: Connection[Any],
    subscription_id: str | None = None,
    after: int = 0,
    limit: int = 100,
) -> dict[str, Any]:
    """Dead deliveries: of one subscription, or of all."""
    if subscription_id is not None:
        return deliveries(connection, subscription_id, "dead", after, limit)
    _check_page(after, limit)
    rows = connection.execute(
        f"SELECT {_COLUMNS} FROM webhook_deliveries WHERE status = 'dead' AND id > %s"
        " ORDER BY id LIMIT %s",
        (after, limit),
    ).fetchall()
    return _page(rows, after)


def lag(connection: Connection[Any], subscription_id: str) -> dict[str, Any]:
    """How far behind the subscription is: in fan-out (positions of the log not yet
    enqueued; positions may have gaps, so an upper bound of events) and in sending."""
    subscription = get_subscription(connection, subscription_id)
    row = connection.execute(_LAG, {"id": subscription_id}).fetchone()
    assert row is not None
    head, pending, dead, oldest_position, oldest_recorded_at, oldest_age = row
    return {
        "subscription_id": subscription_id,
        "active": subscription["active"],
        "last_position": subscription["last_position"],
        "head_position": head,
        "positions_behind": max(0, head - subscription["last_position"]),
        "pending": pending,
        "dead": dead,
        "oldest_pending_position": oldest_position,
        "oldest_pending_recorded_at": _iso(oldest_recorded_at),
        "oldest_pending_age_seconds": oldest_age,
    }


def _check_page(after: int, limit: int) -> None:
    if isinstance(after, bool) or not isinstance(after, int) or after < 0:
        raise InvalidCommand("invalid_cursor", "after must be an integer of at least 0", "after")
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_PAGE:
        raise InvalidCommand("invalid_limit", f"limit must be between 1 and {MAX_PAGE}", "limit")


def _page(rows: list[tuple[Any, ...]], after: int) -> dict[str, Any]:
    items = [_delivery(row) for row in rows]
    return {"deliveries": items, "next_after": items[-1]["id"] if items else after}


def _delivery(row: tuple[Any, ...]) -> dict[str, Any]:
    status = row[6]
    return {
        "id": row[0],
        "subscription_id": row[1],
        "position": row[2],
        "generation": row[3],
        "stream_id": row[4],
        "event_type": row[5],
        "status": status,
        "attempts": row[7],
        "next_attempt_at": _iso(row[8]) if status == "pending" else None,
        "last_attempt_at": _iso(row[9]),
        "last_status_code": row[10],
        "last_error": row[11],
        "delivered_at": _iso(row[12]),
        "created_at": _iso(row[13]),
    }


def _iso(moment: Any) -> str | None:
    return None if moment is None else str(moment.isoformat())
