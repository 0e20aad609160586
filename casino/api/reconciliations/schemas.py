"""Reconciliation runs: requested, then read back from the log."""

from __future__ import annotations

import marshmallow as ma

from casino.api.fields import ResponseSchema, StrictSchema

STATUSES = ["queued", "running", "completed", "failed"]


class RequestReconciliationSchema(StrictSchema):
    stuck_minutes = ma.fields.Float(
        load_default=None,
        allow_none=True,
        validate=ma.validate.Range(min=0, max=60 * 24 * 365),
        metadata={"description": "report rounds open longer than this (default 30)"},
    )


class ListArgsSchema(ma.Schema):
    limit = ma.fields.Integer(validate=ma.validate.Range(min=1, max=100), load_default=20)


class CheckSchema(ResponseSchema):
    name = ma.fields.String()
    ok = ma.fields.Boolean()
    examined = ma.fields.Integer()
    findings = ma.fields.Integer()


class FindingSchema(ResponseSchema):
    check = ma.fields.String()
    subject = ma.fields.String()
    expected = ma.fields.Raw()
    found = ma.fields.Raw()


class RunSchema(ResponseSchema):
    run_id = ma.fields.String()
    status = ma.fields.String(metadata={"enum": STATUSES})
    clean = ma.fields.Boolean(allow_none=True)
    started_at = ma.fields.String(allow_none=True)
    finished_at = ma.fields.String(allow_none=True)
    checks = ma.fields.List(ma.fields.Nested(CheckSchema))
    findings = ma.fields.List(ma.fields.Nested(FindingSchema))


class RunListSchema(ResponseSchema):
    runs = ma.fields.List(ma.fields.Nested(RunSchema))
