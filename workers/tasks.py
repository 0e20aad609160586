"""The tasks. Each opens the database once per worker process, on first use."""

from __future__ import annotations

import contextlib
from datetime import timedelta
from functools import cache
from typing import Any

from celery import Task

from casino.audit import SIGNIFICANCE
from casino.audit.record import record_audit, recorded_audit
from casino.audit.rng import audit_rng as run_rng_audit
from casino.bootstrap import Database, open_database
from casino.config import Settings
from casino.eventstore.model import ConcurrencyError
from casino.reconcile.queries import recorded_run
from casino.reconcile.run import DEFAULT_STUCK_AGE
from casino.reconcile.run import reconcile as run_reconciliation
from casino.reports.make import SettlementRequest, make_settlement_report
from workers.app import app


@cache
def database() -> Database:
    return open_database(pool_size=4)


@app.task(name="workers.tasks.reconcile", bind=True)  # type: ignore[untyped-decorator]
def reconcile(task: Task, stuck_minutes: float | None = None) -> dict[str, Any]:
    """Reconcile the whole log; the outcome is appended to the log and returned.

    The run is named by the task id, which a redelivered task keeps: a run that already
    recorded its outcome (its worker died after committing) is answered from the log.
    """
    age = DEFAULT_STUCK_AGE if stuck_minutes is None else timedelta(minutes=stuck_minutes)
    db = database()
    run_id = str(task.request.id)
    with db.pool.connection() as connection:
        recorded = recorded_run(connection, run_id)
        if recorded is None:
            with contextlib.suppress(ConcurrencyError):  # a twin delivery recorded it first
                run_reconciliation(connection, db.store, age, run_id=run_id)
            recorded = recorded_run(connection, run_id)
    assert recorded is not None
    recorded.pop("findings")  # the summary: the findings stay in the log
    return recorded


@app.task(name="workers.tasks.audit_rng", bind=True)  # type: ignore[untyped-decorator]
def audit_rng(task: Task, significance: float | None = None) -> dict[str, Any]:
    """Audit every closed shoe; the report is appended to the log once per run (a
    redelivered task keeps its id, and finds its report already recorded)."""
    db = database()
    run_id = str(task.request.id)
    with db.pool.connection() as connection:
        recorded = recorded_audit(connection, run_id)
        if recorded is not None:
            return recorded
        report = run_rng_audit(connection, significance or SIGNIFICANCE).as_json()
    with contextlib.suppress(ConcurrencyError):  # a twin delivery recorded it first
        record_audit(db.store, run_id, report)
    with db.pool.connection() as connection:
        stored = recorded_audit(connection, run_id)
    assert stored is not None
    return stored


@app.task(name="workers.tasks.settlement_report", bind=True)  # type: ignore[untyped-decorator]
def settlement_report(
    task: Task,
    from_text: str,
    to_text: str,
    table_id: str | None,
    format_name: str,
    requested_by: str,
) -> dict[str, Any]:
    """Make a settlement report and keep its document under the task's id (a redelivered
    task finds it kept, and makes nothing twice)."""
    request = SettlementRequest(from_text, to_text, table_id, format_name)
    rule = Settings.from_environment().gaming_day
    with database().pool.connection() as connection:
        stored = make_settlement_report(
            connection, request, rule, str(task.request.id), requested_by
        )
    return stored.summary()
