"""One reconciliation run: every check, and its findings appended to the log."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import psycopg

from casino.eventstore.model import NewEvent
from casino.eventstore.protocol import EventStore
from casino.reconcile import checks
from casino.reconcile.findings import CheckResult

DEFAULT_STUCK_AGE = timedelta(minutes=30)
FINDINGS_PER_EVENT = 100  # keeps each event small; a run with more appends several


@dataclass(frozen=True)
class Reconciliation:
    run_id: str
    started_at: datetime
    finished_at: datetime
    results: list[CheckResult]

    @property
    def clean(self) -> bool:
        return all(r.ok for r in self.results)

    def as_json(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id,
            "started_at": self.started_at.isoformat(),
            "finished_at": self.finished_at.isoformat(),
            "clean": self.clean,
            "checks": [
                {"name": r.name, "ok": r.ok, "examined": r.examined, "findings": len(r.findings)}
                for r in self.results
            ],
            "findings": [f.as_json() for r in self.results for f in r.findings],
        }


def reconcile(
    connection: psycopg.Connection[Any],
    store: EventStore,
    stuck_age: timedelta = DEFAULT_STUCK_AGE,
    run_id: str | None = None,
) -> Reconciliation:
    """Run every check (``connection`` in autocommit mode) and record the outcome."""
    run_id = run_id or uuid.uuid4().hex
    started = datetime.now(UTC)
    results = [
        checks.read_models(connection),
        checks.ledger(connection),
        checks.wagers(connection),
        checks.payouts(connection),
        checks.chains(connection),
        checks.checkpoints(connection),
        checks.stuck_rounds(connection, stuck_age),
    ]
    outcome = Reconciliation(run_id, started, datetime.now(UTC), results)
    record(store, outcome)
    return outcome


def record(store: EventStore, outcome: Reconciliation) -> None:
    """Append the run's findings and its summary to ``reconciliation-<run id>``."""
    summary = outcome.as_json()
    findings = summary.pop("findings")
    events = [
        NewEvent("DiscrepanciesFound", {"run_id": outcome.run_id, "findings": chunk})
        for chunk in (
            findings[i : i + FINDINGS_PER_EVENT]
            for i in range(0, len(findings), FINDINGS_PER_EVENT)
        )
    ]
    events.append(NewEvent("ReconciliationCompleted", summary))
    metadata = {"actor": "reconciliation", "at": outcome.finished_at.isoformat()}
    store.append(f"reconciliation-{outcome.run_id}", 0, events, metadata)
