"""Fan-out: follow the log for each active subscription and enqueue its deliveries.

Per subscription and batch, one transaction: lock the subscription row (skipping it when
another worker holds it), read the events after its checkpoint, insert a delivery for
each matching one, move the checkpoint past the whole batch, commit. A worker that dies
mid-batch commits nothing of it, and the next run redoes exactly that batch: no event is
lost or enqueued twice. The log's positions appear in commit order (appends are
serialised), so "after the checkpoint" never skips an event that commits later.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from psycopg import Connection

from casino.domain.streams import round_stream, shoe_stream
from casino.webhooks.matching import EventFilter
from casino.webhooks.transactions import require_autocommit

# An event's table: its own table_id, else that of the round or shoe it names, read from
# the first event of that stream (RoundOpened, ShoeOpened) so it comes from the log
# itself. COALESCE evaluates the lookups only when needed.
_TABLE_OF_EVENT = f"""coalesce(
    e.data->>'table_id',
    (SELECT r.data->>'table_id' FROM events r
      WHERE r.stream_id = '{round_stream("")}' || (e.data->>'round_id') AND r.version = 1),
    (SELECT s.data->>'table_id' FROM events s
      WHERE s.stream_id = '{shoe_stream("")}' || (e.data->>'shoe_id') AND s.version = 1))"""
_READ = (
    "SELECT e.position, e.stream_id, e.type, {table} FROM events e"
    " WHERE e.position > %s ORDER BY e.position LIMIT %s"
)
_READ_WITH_TABLES = _READ.format(table=_TABLE_OF_EVENT)
_READ_WITHOUT_TABLES = _READ.format(table="NULL::text")
_LOCK = (
    "SELECT event_types, tables, last_position, generation FROM webhook_subscriptions"
    " WHERE id = %s AND active FOR UPDATE SKIP LOCKED"
)
_ENQUEUE = """
INSERT INTO webhook_deliveries (subscription_id, generation, position, stream_id, event_type)
SELECT %s, %s, d.position, d.stream_id, d.event_type
  FROM unnest(%s::bigint[], %s::text[], %s::text[]) AS d (position, stream_id, event_type)
"""
_ADVANCE = "UPDATE webhook_subscriptions SET last_position = %s WHERE id = %s"


@dataclass
class FanoutReport:
    subscriptions: int = 0  # fanned out by this call
    skipped: int = 0  # held by another worker
    events_read: int = 0
    deliveries: int = 0  # enqueued

    def as_json(self) -> dict[str, int]:
        return dict(vars(self))


def fanout(
    connection: Connection[Any], batch_size: int = 500, max_batches: int = 100
) -> FanoutReport:
    """Enqueue the deliveries of every active subscription, up to ``max_batches`` batches
    of ``batch_size`` events each (the rest is left for the next call)."""
    require_autocommit(connection)
    if batch_size < 1 or max_batches < 1:
        raise ValueError("batch_size and max_batches must be at least 1")
    report = FanoutReport()
    rows = connection.execute(
        "SELECT id FROM webhook_subscriptions WHERE active ORDER BY id"
    ).fetchall()
    for (subscription_id,) in rows:
        fanned = fanout_subscription(connection, subscription_id, batch_size, max_batches)
        if fanned is None:
            report.skipped += 1
            continue
        report.subscriptions += 1
        report.events_read += fanned[0]
        report.deliveries += fanned[1]
    return report


def fanout_subscription(
    connection: Connection[Any], subscription_id: str, batch_size: int, max_batches: int
) -> tuple[int, int] | None:
    """(events read, deliveries enqueued) for one subscription; None when another worker
    holds it (or it is no longer active)."""
    read = enqueued = 0
    for _ in range(max_batches):
        batch = _fanout_batch(connection, subscription_id, batch_size)
        if batch is None:
            return None if read == 0 else (read, enqueued)
        read += batch[0]
        enqueued += batch[1]
        if batch[0] < batch_size:  # caught up with the log
            break
    return read, enqueued


def _fanout_batch(
    connection: Connection[Any], subscription_id: str, batch_size: int
) -> tuple[int, int] | None:
    with connection.transaction():
        locked = connection.execute(_LOCK, (subscription_id,)).fetchone()
        if locked is None:
            return None
        event_types, tables, last_position, generation = locked
        wanted = EventFilter.of(event_types, tables)
        sql = _READ_WITH_TABLES if wanted.needs_tables else _READ_WITHOUT_TABLES
        events = connection.execute(sql, (last_position, batch_size)).fetchall()
        if not events:
            return 0, 0
        matching = [e for e in events if wanted.matches(e[2], e[3])]
        if matching:
            connection.execute(
                _ENQUEUE,
                (
                    subscription_id,
                    generation,
                    [e[0] for e in matching],
                    [e[1] for e in matching],
                    [e[2] for e in matching],
                ),
            )
        connection.execute(_ADVANCE, (events[-1][0], subscription_id))
    return len(events), len(matching)
