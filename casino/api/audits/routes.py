"""RNG audits on demand: POST queues a run on the workers; GET reads its report, which
the run appends to the log (admin and auditor keys)."""

from __future__ import annotations

import uuid
from typing import Any

from casino.api.audits.schemas import (
    AuditListSchema,
    AuditRunSchema,
    ListArgsSchema,
    RequestAuditSchema,
)
from casino.api.auth import OVERSEERS, allow
from casino.api.context import services
from casino.api.jobs import job_status
from casino.api.spec import Blueprint, problems
from casino.audit.record import recent_audits, recorded_audit
from casino.domain import validation
from casino.domain.errors import NotFound

TASK = "workers.tasks.audit_rng"
EMPTY: dict[str, Any] = {
    "ok": None, "significance": None, "started_at": None, "finished_at": None,
    "shoes": None, "hands": None, "batch_shoes": None, "failures": [], "tests": [],
}  # fmt: skip

blp = Blueprint("audits", __name__, url_prefix="/v1/audits/rng", description="Audits of the RNG")


@blp.route("", methods=["POST"])
@allow(OVERSEERS)
@problems(422)
@blp.arguments(RequestAuditSchema())
@blp.response(202, AuditRunSchema)
def request_audit(args: dict[str, Any]) -> Any:
    """Queue an RNG audit"""
    run_id = uuid.uuid4().hex
    services().jobs.submit(TASK, run_id, significance=args["significance"])
    return {**EMPTY, "run_id": run_id, "status": "queued"}


@blp.route("/<string:run_id>")
@allow(OVERSEERS)
@problems(404)
@blp.response(200, AuditRunSchema)
def get_audit(run_id: str) -> Any:
    """An audit's report: every shoe that failed, and every test with its p-value"""
    validation.identifier(run_id, "run_id")
    with services().pool.connection() as connection:
        report = recorded_audit(connection, run_id)
    if report is not None:
        return {**report, "status": "completed"}
    state = job_status(run_id)
    if state is None:
        raise NotFound("run_not_found", f"no RNG audit run {run_id}", "run_id")
    return {**EMPTY, "run_id": run_id, "status": state}


@blp.route("")
@allow(OVERSEERS)
@problems(422)
@blp.arguments(ListArgsSchema(), location="query")
@blp.response(200, AuditListSchema)
def list_audits(args: dict[str, Any]) -> Any:
    """The latest audits, newest first"""
    with services().pool.connection() as connection:
        return {
            "runs": [{**r, "status": "completed"} for r in recent_audits(connection, args["limit"])]
        }
