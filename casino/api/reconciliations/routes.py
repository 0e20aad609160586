"""Reconciliation on demand: POST queues a run on the workers; GET reads its outcome,
which the run appends to the log (admin and auditor keys)."""

from __future__ import annotations

import uuid
from typing import Any

from casino.api.auth import OVERSEERS, allow
from casino.api.context import services
from casino.api.jobs import job_status
from casino.api.reconciliations.schemas import (
    ListArgsSchema,
    RequestReconciliationSchema,
    RunListSchema,
    RunSchema,
)
from casino.api.spec import Blueprint, problems
from casino.domain import validation
from casino.domain.errors import NotFound
from casino.reconcile.queries import recent_runs, recorded_run

TASK = "workers.tasks.reconcile"

blp = Blueprint("reconciliations", __name__, url_prefix="/v1/reconciliations",
                description="Reconciliation of the log and the money")  # fmt: skip


@blp.route("", methods=["POST"])
@allow(OVERSEERS)
@problems(422)
@blp.arguments(RequestReconciliationSchema())
@blp.response(202, RunSchema)
def request_run(args: dict[str, Any]) -> Any:
    """Queue a reconciliation run"""
    run_id = uuid.uuid4().hex
    services().jobs.submit(TASK, run_id, stuck_minutes=args["stuck_minutes"])
    return _pending(run_id, "queued")


@blp.route("/<string:run_id>")
@allow(OVERSEERS)
@problems(404)
@blp.response(200, RunSchema)
def get_run(run_id: str) -> Any:
    """A run's outcome: every check and every finding, once it has completed"""
    validation.identifier(run_id, "run_id")
    with services().pool.connection() as connection:
        run = recorded_run(connection, run_id)
    if run is not None:
        return {**run, "status": "completed"}
    state = job_status(run_id)
    if state is None:
        raise NotFound("run_not_found", f"no reconciliation run {run_id}", "run_id")
    return _pending(run_id, state)


@blp.route("")
@allow(OVERSEERS)
@problems(422)
@blp.arguments(ListArgsSchema(), location="query")
@blp.response(200, RunListSchema)
def list_runs(args: dict[str, Any]) -> Any:
    """The latest completed runs, newest first (without their findings)"""
    with services().pool.connection() as connection:
        runs = recent_runs(connection, args["limit"])
    return {"runs": [{**run, "status": "completed", "findings": []} for run in runs]}


def _pending(run_id: str, status: str) -> dict[str, Any]:
    return {
        "run_id": run_id, "status": status, "clean": None, "started_at": None,
        "finished_at": None, "checks": [], "findings": [],
    }  # fmt: skip
