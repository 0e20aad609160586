"""Webhook subscriptions: created by an admin, with a secret shown once; deactivated.

A new subscription receives the events appended after it was created, unless it names
an earlier ``from_position`` (0: the whole log). Deactivating one stops its fan-out and
its sending; what is still pending stays listed. Its secret is never read back out.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from typing import Any
from urllib.parse import urlsplit

from psycopg import Connection

from casino.domain import validation
from casino.domain.errors import InvalidCommand, NotFound
from casino.domain.streams import table_stream
from casino.webhooks.matching import KNOWN_EVENT_TYPES
from casino.webhooks.message import new_secret

URL_MAX_LENGTH = 2000

_COLUMNS = (
    "id, url, event_types, tables, active, created_at, deactivated_at, last_position, generation"
)
_HEAD = "SELECT coalesce(max(position), 0) FROM events"


def validate_url(url: object) -> str:
    if not isinstance(url, str) or not 0 < len(url) <= URL_MAX_LENGTH:
        raise InvalidCommand("invalid_url", f"url must be 1-{URL_MAX_LENGTH} characters", "url")
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError on a malformed port
    except ValueError:
        raise InvalidCommand("invalid_url", "url is not a valid URL", "url") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise InvalidCommand("invalid_url", "url must be an absolute http(s) URL", "url")
    if parts.username is not None or parts.password is not None:
        # The request is authenticated by its signature; a password here would be stored
        # and logged in clear with the URL.
        raise InvalidCommand("invalid_url", "url must not carry credentials", "url")
    if parts.fragment or any(c.isspace() for c in url):
        raise InvalidCommand("invalid_url", "url must have no fragment and no spaces", "url")
    return url


def validate_event_types(event_types: Sequence[str]) -> list[str]:
    for index, event_type in enumerate(event_types):
        if event_type not in KNOWN_EVENT_TYPES:
            raise InvalidCommand(
                "unknown_event_type",
                f"{event_type!r} is not an event type of this service",
                f"event_types[{index}]",
            )
    return sorted(set(event_types))


def validate_tables(connection: Connection[Any], tables: Sequence[str]) -> list[str]:
    for index, table_id in enumerate(tables):
        validation.identifier(table_id, f"tables[{index}]")
    streams = [table_stream(t) for t in tables]
    rows = connection.execute(
        "SELECT stream_id FROM events WHERE stream_id = ANY(%s) AND version = 1", (streams,)
    ).fetchall()
    found = {row[0] for row in rows}
    for index, (table_id, stream) in enumerate(zip(tables, streams, strict=True)):
        if stream not in found:
            raise InvalidCommand("unknown_table", f"no table {table_id!r}", f"tables[{index}]")
    return sorted(set(tables))


def create_subscription(
    connection: Connection[Any],
    url: str,
    event_types: Sequence[str] = (),
    tables: Sequence[str] = (),
    from_position: int | None = None,
) -> dict[str, Any]:
    """Make a subscription; the answer carries its ``secret``, shown this once."""
    url = validate_url(url)
    types = validate_event_types(event_types)
    table_ids = validate_tables(connection, tables)
    head_row = connection.execute(_HEAD).fetchone()
    head = int(head_row[0]) if head_row else 0
    if from_position is None:
        from_position = head
    elif isinstance(from_position, bool) or not isinstance(from_position, int):
        raise InvalidCommand(
            "invalid_position", "from_position must be an integer", "from_position"
        )
    elif not 0 <= from_position <= head:
        raise InvalidCommand(
            "invalid_position", f"from_position must be between 0 and {head}", "from_position"
        )
    subscription_id = f"sub_{secrets.token_hex(8)}"
    secret = new_secret()
    row = connection.execute(
        "INSERT INTO webhook_subscriptions (id, url, event_types, tables, secret, last_position)"
        f" VALUES (%s, %s, %s, %s, %s, %s) RETURNING {_COLUMNS}",
        (subscription_id, url, types, table_ids, secret, from_position),
    ).fetchone()
    assert row is not None
    return {**_subscription(row), "secret": secret}


def list_subscriptions(
    connection: Connection[Any], active_only: bool = False
) -> list[dict[str, Any]]:
    where = " WHERE active" if active_only else ""
    rows = connection.execute(
        f"SELECT {_COLUMNS} FROM webhook_subscriptions{where} ORDER BY created_at, id"
    ).fetchall()
    return [_subscription(row) for row in rows]


def get_subscription(connection: Connection[Any], subscription_id: str) -> dict[str, Any]:
    row = connection.execute(
        f"SELECT {_COLUMNS} FROM webhook_subscriptions WHERE id = %s", (subscription_id,)
    ).fetchone()
    if row is None:
        raise not_found(subscription_id)
    return _subscription(row)


def deactivate_subscription(connection: Connection[Any], subscription_id: str) -> dict[str, Any]:
    """Stop fanning out and sending to a subscription (again: no change, no error)."""
    # Waits for a fan-out batch holding the row: none starts on it afterwards.
    connection.execute(
        "UPDATE webhook_subscriptions SET active = false, deactivated_at = now()"
        " WHERE id = %s AND active",
        (subscription_id,),
    )
    return get_subscription(connection, subscription_id)


def not_found(subscription_id: str) -> NotFound:
    return NotFound(
        "subscription_not_found", f"no webhook subscription {subscription_id!r}", "subscription_id"
    )


def _subscription(row: tuple[Any, ...]) -> dict[str, Any]:
    return {
        "id": row[0],
        "url": row[1],
        "event_types": list(row[2]),
        "tables": list(row[3]),
        "active": row[4],
        "created_at": row[5].isoformat(),
        "deactivated_at": row[6].isoformat() if row[6] else None,
        "last_position": row[7],
        "generation": row[8],
    }
