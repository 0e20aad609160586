"""Settlement reports for casino finance: POST asks the workers for one; GET tells its
status and, once made, its document's digest; the document itself is fetched as JSON,
CSV or PDF (admin and auditor keys)."""

from __future__ import annotations

import hashlib
import uuid
from typing import Any

from flask import Response, url_for

from casino.api import idempotency
from casino.api.auth import OVERSEERS, allow
from casino.api.context import current_actor, services
from casino.api.jobs import job_status
from casino.api.reports.schemas import (
    ListArgsSchema,
    ReportListSchema,
    ReportSchema,
    RequestSettlementReportSchema,
)
from casino.api.spec import Blueprint, problems
from casino.app.commands import key_reused
from casino.domain import validation
from casino.domain.errors import NotFound, RuleViolation
from casino.reports.make import SettlementRequest, record_request
from casino.reports.store import StoredReport, recent_reports, report_content, stored_report

TASK = "workers.tasks.settlement_report"
DOCUMENT_DESCRIPTION = "the report as JSON, CSV or PDF, as it was asked for"
# The document as each format comes: the JSON report is an object, CSV text, PDF bytes.
DOCUMENT_CONTENT = {
    "application/json": {"schema": {"type": "object"}},
    "text/csv": {"schema": {"type": "string"}},
    "application/pdf": {"schema": {"type": "string", "format": "binary"}},
}

blp = Blueprint("reports", __name__, url_prefix="/v1/reports",
                description="Settlement reports for casino finance")  # fmt: skip


@blp.route("/settlement", methods=["POST"])
@allow(OVERSEERS)
@problems(422)
@blp.arguments(RequestSettlementReportSchema())
@blp.response(202, ReportSchema)
@blp.doc(parameters=[idempotency.HEADER_PARAMETER])
def request_settlement_report(args: dict[str, Any]) -> Any:
    """Ask for a settlement report of a gaming day, a shift or any period"""
    request = SettlementRequest(args["from_"], args["to"], args["table_id"], args["format"])
    retry = idempotency.from_request()
    # With an Idempotency-Key the report's id is the key's (scoped to the API key), so a
    # retry finds the report it asked for instead of asking again.
    report_id = (
        uuid.uuid4().hex if retry is None else hashlib.sha256(retry.key.encode()).hexdigest()[:32]
    )
    fingerprint = None if retry is None else retry.fingerprint
    requested_by = current_actor().label
    with services().pool.connection() as connection:
        earlier = stored_report(connection, report_id)
        if earlier is not None:
            return _replay(earlier, fingerprint)
        stored = record_request(
            connection, request, services().settings.gaming_day, report_id, requested_by,
            fingerprint,
        )  # fmt: skip
    services().jobs.submit(
        TASK, report_id, from_text=request.from_text, to_text=request.to_text,
        table_id=request.table_id, format_name=request.format, requested_by=requested_by,
    )  # fmt: skip
    return _answer(stored, "queued")


def _replay(earlier: StoredReport, fingerprint: str | None) -> Any:
    if earlier.request.parameters.get("request_fingerprint") != fingerprint:
        raise key_reused()
    headers = {idempotency.REPLAYED_HEADER: "true"}
    return _answer(earlier, _status(earlier)), 202, headers


@blp.route("/<string:report_id>")
@allow(OVERSEERS)
@problems(404)
@blp.response(200, ReportSchema)
def get_report(report_id: str) -> Any:
    """A report's status; once made, its document's type, size and SHA-256"""
    return _answer(*_known(report_id))


@blp.route("/<string:report_id>/document")
@allow(OVERSEERS)
@problems(404, 409)
@blp.response(
    200,
    description=DOCUMENT_DESCRIPTION,
    content_type="application/octet-stream",
)
@blp.doc(responses={"200": {"description": DOCUMENT_DESCRIPTION, "content": DOCUMENT_CONTENT}})
def get_report_document(report_id: str) -> Any:
    """The report's document, as made (its SHA-256 is the ETag)"""
    stored, status = _known(report_id)
    if stored.made is None:
        raise RuleViolation(
            "report_not_ready", f"report {report_id} is {status}: not made yet", "report_id"
        )
    with services().pool.connection() as connection:
        content = report_content(connection, report_id) or b""
    response = Response(content, mimetype=stored.made.media_type)
    response.headers["Content-Disposition"] = f'attachment; filename="{stored.made.file_name}"'
    response.set_etag(stored.made.sha256)
    return response


@blp.route("")
@allow(OVERSEERS)
@problems(422)
@blp.arguments(ListArgsSchema(), location="query")
@blp.response(200, ReportListSchema)
def list_reports(args: dict[str, Any]) -> Any:
    """The latest reports asked for, newest first"""
    with services().pool.connection() as connection:
        reports = recent_reports(connection, args["limit"])
    return {"reports": [_answer(r, _status(r)) for r in reports]}


def _known(report_id: str) -> tuple[StoredReport, str]:
    validation.identifier(report_id, "report_id")
    with services().pool.connection() as connection:
        stored = stored_report(connection, report_id)
    if stored is None:
        raise NotFound("report_not_found", f"no report {report_id}", "report_id")
    return stored, _status(stored)


def _status(stored: StoredReport) -> str:
    if stored.made is not None:
        return "completed"
    return job_status(stored.request.report_id) or "queued"


def _answer(stored: StoredReport, status: str) -> dict[str, Any]:
    summary = stored.summary()
    summary.pop("requested_at")
    document = (
        None
        if stored.made is None
        else url_for("reports.get_report_document", report_id=stored.request.report_id)
    )
    return {**summary, "status": status, "document": document}
