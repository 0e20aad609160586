"""Liveness and readiness answers."""

from __future__ import annotations

import marshmallow as ma

from casino.api.fields import ResponseSchema


class HealthSchema(ResponseSchema):
    status = ma.fields.String(metadata={"example": "ok"})


class ChecksSchema(ResponseSchema):
    database = ma.fields.String(metadata={"example": "ok"})
    redis = ma.fields.String(metadata={"example": "ok"})


class ReadinessSchema(ResponseSchema):
    status = ma.fields.String(metadata={"example": "ready"})
    checks = ma.fields.Nested(ChecksSchema)
