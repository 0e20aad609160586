"""Settlement reports: requested, made by the workers, then fetched as documents."""

from __future__ import annotations

import marshmallow as ma

from casino.api.fields import ResponseSchema, StrictSchema
from casino.reports.documents import FORMATS

STATUSES = ["queued", "running", "completed", "failed"]


class RequestSettlementReportSchema(StrictSchema):
    from_ = ma.fields.String(
        required=True,
        data_key="from",
        validate=ma.validate.Length(min=1, max=40),
        metadata={
            "description": "a gaming day (YYYY-MM-DD: from its start) or a date and time "
            "(ISO 8601; without an offset, the casino's time zone)",
            "example": "2026-11-21",
        },
    )
    to = ma.fields.String(
        required=True,
        validate=ma.validate.Length(min=1, max=40),
        metadata={
            "description": "a gaming day (YYYY-MM-DD: up to its end, inclusive) or a date and "
            "time (exclusive)",
            "example": "2026-11-21",
        },
    )
    table_id = ma.fields.String(
        load_default=None, allow_none=True, metadata={"description": "one table only"}
    )
    format = ma.fields.String(
        load_default="json",
        validate=ma.validate.OneOf(FORMATS),
        metadata={"description": "the document's format"},
    )


class ListArgsSchema(ma.Schema):
    limit = ma.fields.Integer(validate=ma.validate.Range(min=1, max=100), load_default=20)


class PeriodSchema(ResponseSchema):
    start = ma.fields.String(metadata={"format": "date-time"})
    end = ma.fields.String(metadata={"format": "date-time", "description": "exclusive"})


class ReportSchema(ResponseSchema):
    report_id = ma.fields.String()
    kind = ma.fields.String(metadata={"enum": ["settlement"]})
    status = ma.fields.String(metadata={"enum": STATUSES})
    format = ma.fields.String(metadata={"enum": list(FORMATS)})
    parameters = ma.fields.Dict(metadata={"description": "the request, as made"})
    period = ma.fields.Nested(PeriodSchema, allow_none=True)
    requested_by = ma.fields.String(allow_none=True)
    made_at = ma.fields.String(allow_none=True, metadata={"format": "date-time"})
    software_version = ma.fields.String(allow_none=True)
    media_type = ma.fields.String(allow_none=True)
    file_name = ma.fields.String(allow_none=True)
    sha256 = ma.fields.String(allow_none=True, metadata={"description": "of the document"})
    size = ma.fields.Integer(allow_none=True, metadata={"description": "bytes"})
    document = ma.fields.String(
        allow_none=True, metadata={"description": "where to fetch the document once made"}
    )


class ReportListSchema(ResponseSchema):
    reports = ma.fields.List(ma.fields.Nested(ReportSchema))
