"""Tables: the command that opens one, and the table as the API shows it."""

from __future__ import annotations

from typing import Any

import marshmallow as ma

from casino.api.fields import (
    ResponseSchema,
    StrictSchema,
    amount,
    choice,
    currency,
    identifier,
    text,
)
from casino.domain.tables import OpenTable
from casino.game.deal import MAX_SEATS, tiles_for_round
from casino.game.paytables import DOUBLES_PAYTABLES, MAIN_PAYTABLES
from casino.game.tiles import SHOE_SIZE


class OpenTableSchema(StrictSchema):
    table_id = identifier("the new table's id", required=True)
    name = text("display name", 100, min_length=1, required=True)
    currency = currency(required=True)
    seats = choice("seats at the table", 1, MAX_SEATS, required=True)
    main_paytable = choice(
        "main wager paytable", min(MAIN_PAYTABLES), max(MAIN_PAYTABLES), required=True
    )
    doubles_paytable = choice(
        "Doubles side wager paytable", min(DOUBLES_PAYTABLES), max(DOUBLES_PAYTABLES), required=True
    )
    main_min = amount("smallest main wager", required=True)
    main_max = amount("largest main wager", required=True)
    doubles_min = amount("smallest Doubles wager", required=True)
    doubles_max = amount("largest Doubles wager", required=True)
    cut_card = ma.fields.Integer(
        strict=True,
        allow_none=True,
        load_default=None,
        validate=ma.validate.Range(min=tiles_for_round(1), max=SHOE_SIZE),
        metadata={"description": "shuffle policy: null shuffles a new shoe for every round; "
                  "a number keeps the shoe until that many tiles are dealt (at least "
                  "4 x seats)"},
    )  # fmt: skip

    @ma.post_load
    def command(self, data: dict[str, Any], **_: Any) -> OpenTable:
        return OpenTable(**data)


class LimitSchema(ResponseSchema):
    min = ma.fields.Integer()
    max = ma.fields.Integer()


class LimitsSchema(ResponseSchema):
    main = ma.fields.Nested(LimitSchema)
    doubles = ma.fields.Nested(LimitSchema)


class ShufflePolicySchema(ResponseSchema):
    kind = ma.fields.String(metadata={"enum": ["every_round", "cut_card"]})
    cut_card = ma.fields.Integer(allow_none=True)


class TableSchema(ResponseSchema):
    table_id = ma.fields.String()
    name = ma.fields.String()
    currency = ma.fields.String()
    seats = ma.fields.Integer()
    main_paytable = ma.fields.Integer()
    doubles_paytable = ma.fields.Integer()
    limits = ma.fields.Nested(LimitsSchema)
    shuffle_policy = ma.fields.Nested(ShufflePolicySchema)
    opened_at = ma.fields.String(metadata={"format": "date-time"})
    live_shoe_id = ma.fields.String(allow_none=True)
    rounds_started = ma.fields.Integer()
    current_round_id = ma.fields.String(allow_none=True)
    version = ma.fields.Integer()
