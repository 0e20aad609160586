"""Webhook subscriptions and their deliveries."""

from __future__ import annotations

import marshmallow as ma

from casino.api.fields import ResponseSchema, StrictSchema, identifier

STATUSES = ["pending", "delivered", "dead"]
MAX_PAGE = 500


class SubscribeSchema(StrictSchema):
    url = ma.fields.String(
        required=True,
        validate=ma.validate.Length(min=1, max=2000),
        metadata={"description": "http(s) address the events are POSTed to"},
    )
    event_types = ma.fields.List(
        ma.fields.String(validate=ma.validate.Length(min=1, max=100)),
        load_default=list,
        validate=ma.validate.Length(max=100),
        metadata={"description": "event types to deliver (empty: all)"},
    )
    tables = ma.fields.List(
        identifier("a table whose events are delivered"),
        load_default=list,
        validate=ma.validate.Length(max=100),
        metadata={"description": "tables to deliver the events of (empty: all)"},
    )
    from_position = ma.fields.Integer(
        strict=True,
        load_default=None,
        allow_none=True,
        validate=ma.validate.Range(min=0),
        metadata={"description": "deliver events after this log position (default: from now)"},
    )


class ReplaySchema(StrictSchema):
    from_position = ma.fields.Integer(
        strict=True, required=True, validate=ma.validate.Range(min=0, max=2**62)
    )


class DeliveryArgsSchema(ma.Schema):
    status = ma.fields.String(load_default=None, validate=ma.validate.OneOf(STATUSES))
    after = ma.fields.Integer(load_default=0, validate=ma.validate.Range(min=0, max=2**62))
    limit = ma.fields.Integer(load_default=100, validate=ma.validate.Range(min=1, max=MAX_PAGE))


class PageArgsSchema(ma.Schema):
    after = ma.fields.Integer(load_default=0, validate=ma.validate.Range(min=0, max=2**62))
    limit = ma.fields.Integer(load_default=100, validate=ma.validate.Range(min=1, max=MAX_PAGE))


class SubscriptionSchema(ResponseSchema):
    id = ma.fields.String()
    url = ma.fields.String()
    event_types = ma.fields.List(ma.fields.String())
    tables = ma.fields.List(ma.fields.String())
    active = ma.fields.Boolean()
    created_at = ma.fields.String()
    deactivated_at = ma.fields.String(allow_none=True)
    last_position = ma.fields.Integer()
    generation = ma.fields.Integer()


class NewSubscriptionSchema(SubscriptionSchema):
    secret = ma.fields.String(metadata={"description": "the signing secret: shown only once"})


class SubscriptionListSchema(ResponseSchema):
    subscriptions = ma.fields.List(ma.fields.Nested(SubscriptionSchema))


class LagSchema(ResponseSchema):
    subscription_id = ma.fields.String()
    active = ma.fields.Boolean()
    last_position = ma.fields.Integer()
    head_position = ma.fields.Integer()
    positions_behind = ma.fields.Integer()
    pending = ma.fields.Integer()
    dead = ma.fields.Integer()
    oldest_pending_position = ma.fields.Integer(allow_none=True)
    oldest_pending_recorded_at = ma.fields.String(allow_none=True)
    oldest_pending_age_seconds = ma.fields.Float(allow_none=True)


class DeliverySchema(ResponseSchema):
    id = ma.fields.Integer()
    subscription_id = ma.fields.String()
    position = ma.fields.Integer()
    generation = ma.fields.Integer()
    stream_id = ma.fields.String()
    event_type = ma.fields.String()
    status = ma.fields.String(metadata={"enum": STATUSES})
    attempts = ma.fields.Integer()
    next_attempt_at = ma.fields.String(allow_none=True)
    last_attempt_at = ma.fields.String(allow_none=True)
    last_status_code = ma.fields.Integer(allow_none=True)
    last_error = ma.fields.String(allow_none=True)
    delivered_at = ma.fields.String(allow_none=True)
    created_at = ma.fields.String(allow_none=True)


class DeliveryPageSchema(ResponseSchema):
    deliveries = ma.fields.List(ma.fields.Nested(DeliverySchema))
    next_after = ma.fields.Integer()


class ReplayedSchema(ResponseSchema):
    subscription_id = ma.fields.String()
    generation = ma.fields.Integer()
    from_position = ma.fields.Integer()
    rewound_from = ma.fields.Integer()
