"""Hand histories: the last rounds of a seat or a player, and streamed exports."""

from __future__ import annotations

from typing import Any

import marshmallow as ma
from marshmallow import validate

from casino.api.fields import ResponseSchema, identifier
from casino.api.rounds.schemas import RoundHistorySchema
from casino.app.hand_histories.formats import ExportFormat
from casino.app.hand_histories.recall import MAX_ROUNDS

DEFAULT_ROUNDS = 10


class LastRoundsArgsSchema(ma.Schema):
    n = ma.fields.Integer(
        validate=validate.Range(min=1, max=MAX_ROUNDS),
        load_default=DEFAULT_ROUNDS,
        metadata={"description": "how many of the latest played rounds"},
    )


class PlayerLastRoundsArgsSchema(LastRoundsArgsSchema):
    table_id = identifier("only rounds at this table (a table key must name one of its own)")


class ExportArgsSchema(ma.Schema):
    player_id = identifier("export this player's seats (give this or table_id)", example="P1")
    table_id = identifier("export this table's rounds (give this or player_id)")
    opened_from = ma.fields.AwareDateTime(
        data_key="from",
        required=True,
        metadata={"description": "rounds opened at or after (RFC 3339)"},
    )
    opened_to = ma.fields.AwareDateTime(
        data_key="to",
        required=True,
        metadata={"description": "rounds opened before (RFC 3339); later than from"},
    )
    format = ma.fields.Enum(
        ExportFormat,
        by_value=True,
        required=True,
        metadata={"description": "csv (text/csv) or jsonl (application/x-ndjson)"},
    )


def _rounds() -> ma.fields.List[Any]:
    return ma.fields.List(
        ma.fields.Nested(RoundHistorySchema),
        metadata={"description": "oldest first, each as GET /v1/rounds/{round_id} answers"},
    )


class PlayerRoundsSchema(ResponseSchema):
    player_id = ma.fields.String()
    rounds = _rounds()


class SeatRoundsSchema(ResponseSchema):
    table_id = ma.fields.String()
    seat = ma.fields.Integer()
    rounds = _rounds()
