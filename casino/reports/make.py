"""Making a settlement report: read, lay out, render in the asked format and keep."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import psycopg

from casino.domain import validation
from casino.domain.errors import InvalidCommand
from casino.domain.gaming_day import GamingDayRule, Period, resolve_period
from casino.reports.documents import FORMATS, render
from casino.reports.settlement import settlement_report, software_version
from casino.reports.store import (
    ReportRequest,
    StoredReport,
    made_document,
    save_document,
    save_request,
    stored_report,
)

KIND = "settlement"


@dataclass(frozen=True)
class SettlementRequest:
    from_text: str
    to_text: str
    table_id: str | None
    format: str

    def check(self, rule: GamingDayRule) -> Period:
        """The request's period; InvalidCommand names the field that is wrong."""
        if self.format not in FORMATS:
            raise InvalidCommand("invalid_format", f"format: one of {', '.join(FORMATS)}", "format")
        if self.table_id is not None:
            validation.identifier(self.table_id, "table_id")
        return resolve_period(self.from_text, self.to_text, rule)

    def parameters(self) -> dict[str, Any]:
        return {"from": self.from_text, "to": self.to_text, "table_id": self.table_id,
                "format": self.format}  # fmt: skip


def record_request(
    connection: psycopg.Connection[Any],
    request: SettlementRequest,
    rule: GamingDayRule,
    report_id: str,
    requested_by: str,
    fingerprint: str | None = None,
) -> StoredReport:
    """Check and record a request (once), with the gaming-day rule in force when it was
    asked (and the fingerprint of the HTTP request, for an idempotent retry); the answer
    says what is known of it so far."""
    period = request.check(rule)
    parameters = request.parameters() | {
        "gaming_day": {"start_hour": rule.start_hour, "time_zone": rule.time_zone},
        "request_fingerprint": fingerprint,
    }
    save_request(
        connection,
        ReportRequest(report_id, KIND, request.format, parameters, period.start, period.end,
                      requested_by, datetime.now(UTC)),
    )  # fmt: skip
    kept = stored_report(connection, report_id)
    assert kept is not None
    return kept


def make_settlement_report(
    connection: psycopg.Connection[Any],
    request: SettlementRequest,
    rule: GamingDayRule,
    report_id: str,
    requested_by: str,
) -> StoredReport:
    """Make and keep the report's document, for the request as it was recorded (by the
    API, which may run under another configuration than this worker): its period and
    gaming-day rule. A report already made is answered as it was made (a redelivered
    task, or a twin that finished first)."""
    kept = record_request(connection, request, rule, report_id, requested_by)
    if kept.made is not None:
        return kept
    asked = kept.request
    day = asked.parameters["gaming_day"]
    asked_rule = GamingDayRule(day["start_hour"], day["time_zone"])
    period = Period(asked.period_start, asked.period_end, asked.parameters["from"],
                    asked.parameters["to"])  # fmt: skip
    now = datetime.now(UTC)
    report = settlement_report(
        connection, period, asked_rule, asked.parameters["table_id"], report_id, now
    )
    document = render(report, asked.format)
    save_document(connection, report_id, made_document(now, software_version(), document),
                  document.content)  # fmt: skip
    made = stored_report(connection, report_id)
    assert made is not None
    return made
