"""The global event feed: every event in log order, with its hash chain."""

from __future__ import annotations

import marshmallow as ma

from casino.api.fields import ResponseSchema

MAX_POSITION = 2**63 - 1


class FeedArgsSchema(ma.Schema):
    after = ma.fields.Integer(
        validate=ma.validate.Range(min=0, max=MAX_POSITION),
        load_default=0,
        metadata={"description": "the last position already read (0: from the start)"},
    )
    limit = ma.fields.Integer(validate=ma.validate.Range(min=1, max=1000), load_default=100)


class EventSchema(ResponseSchema):
    position = ma.fields.Integer(metadata={"description": "global position; may have gaps"})
    stream_id = ma.fields.String(metadata={"example": "round-0f3c..."})
    version = ma.fields.Integer(metadata={"description": "version within its stream"})
    type = ma.fields.String(metadata={"example": "RoundSettled"})
    schema_version = ma.fields.Integer()
    data = ma.fields.Dict(keys=ma.fields.String())
    metadata = ma.fields.Dict(
        keys=ma.fields.String(),
        metadata={"description": "who issued the command (actor), which command, and when"},
    )
    recorded_at = ma.fields.DateTime()
    previous_hash = ma.fields.String(
        metadata={"description": "hash of the stream's previous event (zeros for the first)"}
    )
    hash = ma.fields.String(metadata={"description": "SHA-256 over the canonical event"})


class FeedPageSchema(ResponseSchema):
    events = ma.fields.List(ma.fields.Nested(EventSchema))
    next_after = ma.fields.Integer(
        metadata={"description": "pass as after to read on; the same as after when nothing is new"}
    )
