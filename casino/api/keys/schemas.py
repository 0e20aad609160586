"""API keys: made by an admin, shown once."""

from __future__ import annotations

import marshmallow as ma

from casino.api.fields import ResponseSchema, StrictSchema, identifier, text
from casino.app.actors import Role

ROLES = [role.value for role in Role]


class CreateKeySchema(StrictSchema):
    role = ma.fields.String(
        required=True,
        validate=ma.validate.OneOf(ROLES),
        metadata={"description": "what the key may do"},
    )
    tables = ma.fields.List(
        identifier("a table this key operates"),
        load_default=list,
        validate=ma.validate.Length(max=100),
        metadata={"description": "a table key's tables (required for it, refused for others)"},
    )
    label = text("who or what holds the key", 200, load_default="")


class IssuedKeySchema(ResponseSchema):
    key_id = ma.fields.String(metadata={"description": "names the key in logs and events"})
    key = ma.fields.String(metadata={"description": "the key itself: shown only this once"})
    role = ma.fields.String(metadata={"enum": ROLES})
    tables = ma.fields.List(ma.fields.String())
    label = ma.fields.String()
