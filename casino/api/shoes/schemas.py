"""Shoes: the commitment while live; the server seed and its verification once closed."""

from __future__ import annotations

import marshmallow as ma

from casino.api.fields import ResponseSchema, TileSchema


class ShoeSchema(ResponseSchema):
    shoe_id = ma.fields.String()
    table_id = ma.fields.String()
    algorithm = ma.fields.String(metadata={"example": "casino-dominoes/shoe/v1"})
    commitment = ma.fields.String(metadata={"description": "SHA-256 of the server seed (hex)"})
    client_seed = ma.fields.String()
    nonce = ma.fields.Integer()
    opened_at = ma.fields.String(metadata={"format": "date-time"})
    tiles_dealt = ma.fields.Integer()
    dealt = ma.fields.List(
        ma.fields.Nested(TileSchema),
        metadata={"description": "every tile dealt so far, in deal order"},
    )
    status = ma.fields.String(metadata={"enum": ["live", "closed"]})
    closed_at = ma.fields.String(allow_none=True, metadata={"format": "date-time"})
    server_seed = ma.fields.String(
        allow_none=True,
        metadata={"description": "revealed once the shoe is closed (hex); null while it is live"},
    )


class VerificationSchema(ResponseSchema):
    commitment_matches = ma.fields.Boolean()
    deal_matches = ma.fields.Boolean()
    first_mismatch = ma.fields.Integer(allow_none=True)
    verified = ma.fields.Boolean()


class VerifiedShoeSchema(ShoeSchema):
    verification = ma.fields.Nested(
        VerificationSchema,
        allow_none=True,
        metadata={"description": "the shoe re-derived from its revealed seed; null while live"},
    )
