"""RNG audit runs in the log: each run appends its report to ``rng-audit-<run id>``."""

from __future__ import annotations

from typing import Any

import psycopg

from casino.eventstore.model import NewEvent
from casino.eventstore.protocol import EventStore

EVENT = "RngAuditCompleted"
FAILURES_KEPT = 100  # the report keeps the first failing shoes; the count has them all


def stream_of(run_id: str) -> str:
    return f"rng-audit-{run_id}"


def record_audit(store: EventStore, run_id: str, report: dict[str, Any]) -> None:
    """Append the report (raises ConcurrencyError if this run was recorded already)."""
    data = {**report, "run_id": run_id, "failures": report["failures"][:FAILURES_KEPT]}
    metadata = {"actor": "rng-audit", "at": report["finished_at"]}
    store.append(stream_of(run_id), 0, [NewEvent(EVENT, data)], metadata)


def recorded_audit(connection: psycopg.Connection[Any], run_id: str) -> dict[str, Any] | None:
    row = connection.execute(
        "SELECT data FROM events WHERE stream_id = %s AND type = %s", (stream_of(run_id), EVENT)
    ).fetchone()
    return None if row is None else dict(row[0])


def recent_audits(connection: psycopg.Connection[Any], limit: int) -> list[dict[str, Any]]:
    rows = connection.execute(
        "SELECT data FROM events WHERE type = %s ORDER BY position DESC LIMIT %s", (EVENT, limit)
    )
    return [dict(row[0]) for row in rows]
