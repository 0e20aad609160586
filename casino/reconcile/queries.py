"""Reconciliation runs as recorded in the log."""

from __future__ import annotations

from typing import Any

import psycopg

_RUN = """
SELECT type, data FROM events WHERE stream_id = %s ORDER BY version
"""
_RECENT = """
SELECT data FROM events WHERE type = 'ReconciliationCompleted'
 ORDER BY position DESC LIMIT %s
"""


def recorded_run(connection: psycopg.Connection[Any], run_id: str) -> dict[str, Any] | None:
    """A completed run's summary with all its findings, or None if it has not completed."""
    rows = connection.execute(_RUN, (f"reconciliation-{run_id}",)).fetchall()
    completed = [data for kind, data in rows if kind == "ReconciliationCompleted"]
    if not completed:
        return None
    findings = [f for kind, data in rows if kind == "DiscrepanciesFound" for f in data["findings"]]
    return {**completed[0], "findings": findings}


def recent_runs(connection: psycopg.Connection[Any], limit: int) -> list[dict[str, Any]]:
    return [row[0] for row in connection.execute(_RECENT, (limit,))]
