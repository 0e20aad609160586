"""Report documents kept in Postgres: the request written when it is asked for, the
document by the worker that made it (a redelivered task finds it there, and the first
document made for a request is the one kept), both read back by the API."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import psycopg
from psycopg.types.json import Jsonb

from casino.reports.documents import Document


@dataclass(frozen=True)
class ReportRequest:
    report_id: str
    kind: str
    format: str
    parameters: dict[str, Any]
    period_start: datetime
    period_end: datetime
    requested_by: str
    requested_at: datetime


@dataclass(frozen=True)
class MadeDocument:
    made_at: datetime
    software_version: str
    media_type: str
    file_name: str
    sha256: str
    size: int


@dataclass(frozen=True)
class StoredReport:
    request: ReportRequest
    made: MadeDocument | None  # None: not made yet

    def summary(self) -> dict[str, Any]:
        r, m = self.request, self.made
        return {
            "report_id": r.report_id, "kind": r.kind, "format": r.format,
            "parameters": r.parameters,
            "period": {"start": r.period_start.isoformat(), "end": r.period_end.isoformat()},
            "requested_by": r.requested_by, "requested_at": r.requested_at.isoformat(),
            "made_at": None if m is None else m.made_at.isoformat(),
            "software_version": None if m is None else m.software_version,
            "media_type": None if m is None else m.media_type,
            "file_name": None if m is None else m.file_name,
            "sha256": None if m is None else m.sha256,
            "size": None if m is None else m.size,
        }  # fmt: skip


def made_document(made_at: datetime, software_version: str, document: Document) -> MadeDocument:
    return MadeDocument(
        made_at, software_version, document.media_type, document.file_name,
        hashlib.sha256(document.content).hexdigest(), len(document.content),
    )  # fmt: skip


_REQUEST = ("report_id, kind, format, parameters, period_start, period_end, requested_by, "
            "requested_at")  # fmt: skip
_MADE = "made_at, software_version, media_type, file_name, sha256, size"


def save_request(connection: psycopg.Connection[Any], request: ReportRequest) -> None:
    """Record a request (once: the worker may have recorded it first)."""
    r = request
    connection.execute(
        f"INSERT INTO report_documents ({_REQUEST}) VALUES (%s, %s, %s, %s, %s, %s, %s, %s)"
        " ON CONFLICT (report_id) DO NOTHING",
        (r.report_id, r.kind, r.format, Jsonb(r.parameters), r.period_start, r.period_end,
         r.requested_by, r.requested_at),
    )  # fmt: skip


def save_document(
    connection: psycopg.Connection[Any], report_id: str, made: MadeDocument, content: bytes
) -> None:
    """Keep a request's document; the first one kept stays."""
    connection.execute(
        f"UPDATE report_documents SET ({_MADE}, content) = (%s, %s, %s, %s, %s, %s, %s)"
        " WHERE report_id = %s AND content IS NULL",
        (made.made_at, made.software_version, made.media_type, made.file_name, made.sha256,
         made.size, content, report_id),
    )  # fmt: skip


def stored_report(connection: psycopg.Connection[Any], report_id: str) -> StoredReport | None:
    row = connection.execute(
        f"SELECT {_REQUEST}, {_MADE} FROM report_documents WHERE report_id = %s", (report_id,)
    ).fetchone()
    return None if row is None else _stored(row)


def recent_reports(connection: psycopg.Connection[Any], limit: int) -> list[StoredReport]:
    rows = connection.execute(
        f"SELECT {_REQUEST}, {_MADE} FROM report_documents"
        " ORDER BY requested_at DESC, report_id LIMIT %s",
        (limit,),
    ).fetchall()
    return [_stored(row) for row in rows]


def report_content(connection: psycopg.Connection[Any], report_id: str) -> bytes | None:
    row = connection.execute(
        "SELECT content FROM report_documents WHERE report_id = %s", (report_id,)
    ).fetchone()
    return None if row is None or row[0] is None else bytes(row[0])


def _stored(row: tuple[Any, ...]) -> StoredReport:
    request = ReportRequest(*row[:8])
    return StoredReport(request, None if row[8] is None else MadeDocument(*row[8:]))
