"""RNG audit runs: requested, then read back from the log."""

from __future__ import annotations

import marshmallow as ma

from casino.api.fields import ResponseSchema, StrictSchema

STATUSES = ["queued", "running", "completed", "failed"]


class RequestAuditSchema(StrictSchema):
    significance = ma.fields.Float(
        load_default=None,
        allow_none=True,
        validate=ma.validate.Range(min=1e-9, max=0.5),
        metadata={"description": "the significance level of every test (default 0.001)"},
    )


class ListArgsSchema(ma.Schema):
    limit = ma.fields.Integer(validate=ma.validate.Range(min=1, max=100), load_default=20)


class AuditRunSchema(ResponseSchema):
    run_id = ma.fields.String()
    status = ma.fields.String(metadata={"enum": STATUSES})
    ok = ma.fields.Boolean(allow_none=True)
    significance = ma.fields.Float(allow_none=True)
    started_at = ma.fields.String(allow_none=True)
    finished_at = ma.fields.String(allow_none=True)
    shoes = ma.fields.Dict(
        allow_none=True, metadata={"description": "closed, open, verified, failed"}
    )
    hands = ma.fields.Integer(allow_none=True)
    batch_shoes = ma.fields.Integer(allow_none=True)
    failures = ma.fields.List(ma.fields.Dict(), metadata={"description": "failing shoes"})
    tests = ma.fields.List(
        ma.fields.Dict(), metadata={"description": "each test: statistic, p-value, status"}
    )


class AuditListSchema(ResponseSchema):
    runs = ma.fields.List(ma.fields.Nested(AuditRunSchema))
