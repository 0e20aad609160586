"""Rounds: the commands (open, wager, deal, void) and the answers, down to each tile."""

from __future__ import annotations

from typing import Any

import marshmallow as ma

from casino.api.fields import (
    ResponseSchema,
    StrictSchema,
    TileSchema,
    amount,
    choice,
    identifier,
    text,
)
from casino.api.shoes.schemas import ShoeSchema
from casino.domain.rounds import SeatWager
from casino.domain.shoes import MAX_CLIENT_SEED
from casino.game.deal import MAX_SEATS

ROUND_STATUSES = ["betting", "settled", "voided", "reversed"]
SINGLE_WAGER_FIELDS = ("seat", "player_id", "main", "doubles")


# --- requests ---------------------------------------------------------------------------


class OpenRoundSchema(StrictSchema):
    client_seed = text(
        "the table system's entropy for a new shoe (a live cut-card shoe keeps its own)",
        MAX_CLIENT_SEED,
        load_default="",
    )


class SeatWagerSchema(StrictSchema):
    seat = choice("seat number (at most the table's seats)", 1, MAX_SEATS, required=True)
    player_id = identifier("the player who stakes", example="P1", required=True)
    main = amount("main wager", required=True)
    doubles = amount(
        "Doubles side wager, only beside a main wager; 0 or absent: none", minimum=0, load_default=0
    )

    @ma.post_load
    def wager(self, data: dict[str, Any], **_: Any) -> SeatWager:
        return SeatWager(**data)


class PlaceWagersSchema(StrictSchema):
    """One seat's wager (``seat``, ``player_id``, ``main``, ``doubles``), or a batch of
    seats under ``wagers``: one or the other, not both."""

    seat = choice("one seat's wager: seat number", 1, MAX_SEATS)
    player_id = identifier("one seat's wager: the player who stakes", example="P1")
    main = amount("one seat's wager: main wager")
    doubles = amount(
        "one seat's wager: Doubles side wager, only beside a main wager; 0 or absent: none",
        minimum=0,
    )
    wagers = ma.fields.List(
        ma.fields.Nested(SeatWagerSchema),
        validate=ma.validate.Length(min=1, max=MAX_SEATS),
        metadata={"description": "a batch of seats' wagers, placed together or not at all"},
    )

    @ma.validates_schema
    def one_form(self, data: dict[str, Any], **_: Any) -> None:
        single = [name for name in SINGLE_WAGER_FIELDS if name in data]
        if "wagers" in data:
            if single:
                raise ma.ValidationError(
                    "give either wagers or one seat's fields, not both", single[0]
                )
            return
        missing = {
            name: ["Missing data for required field."]
            for name in ("seat", "player_id", "main")
            if name not in data
        }
        if missing:
            raise ma.ValidationError(missing)

    @ma.post_load
    def seat_wagers(self, data: dict[str, Any], **_: Any) -> list[SeatWager]:
        if "wagers" in data:
            return list(data["wagers"])
        return [SeatWager(**data)]


class VoidRoundSchema(StrictSchema):
    reason = text("why the round is voided (kept in the log)", 200, min_length=1, required=True)


class NoBodySchema(StrictSchema):
    """No fields: an empty body, or none."""


class RoundListArgsSchema(ma.Schema):
    table_id = identifier("rounds of this table")
    player_id = identifier("rounds in which this player had a seat", example="P1")
    opened_from = ma.fields.AwareDateTime(
        data_key="from", metadata={"description": "opened at or after (RFC 3339)"}
    )
    opened_to = ma.fields.AwareDateTime(
        data_key="to", metadata={"description": "opened before (RFC 3339)"}
    )
    limit = ma.fields.Integer(validate=ma.validate.Range(min=1, max=500), load_default=50)
    cursor = text("next_cursor of the previous page", 200)


# --- answers ----------------------------------------------------------------------------


class ShoeCommitmentSchema(ResponseSchema):
    shoe_id = ma.fields.String()
    algorithm = ma.fields.String()
    commitment = ma.fields.String(metadata={"description": "SHA-256 of the server seed (hex)"})
    client_seed = ma.fields.String()
    nonce = ma.fields.Integer()


class RoundOpenedSchema(ResponseSchema):
    round_id = ma.fields.String()
    table_id = ma.fields.String()
    round_number = ma.fields.Integer()
    status = ma.fields.String(metadata={"enum": ROUND_STATUSES})
    currency = ma.fields.String()
    main_paytable = ma.fields.Integer()
    doubles_paytable = ma.fields.Integer()
    opened_at = ma.fields.String(metadata={"format": "date-time"})
    shoe = ma.fields.Nested(ShoeCommitmentSchema)
    version = ma.fields.Integer(metadata={"description": "the round's version (its ETag)"})


class WagerSchema(ResponseSchema):
    seat = ma.fields.Integer()
    player_id = ma.fields.String()
    main = ma.fields.Integer()
    doubles = ma.fields.Integer()


class PlayerBalanceSchema(ResponseSchema):
    player_id = ma.fields.String()
    balance = ma.fields.Integer()


class WagersPlacedSchema(ResponseSchema):
    round_id = ma.fields.String()
    status = ma.fields.String(metadata={"enum": ROUND_STATUSES})
    version = ma.fields.Integer()
    wagers = ma.fields.List(
        ma.fields.Nested(WagerSchema),
        metadata={"description": "every wager of the round so far, by seat"},
    )
    balances = ma.fields.List(
        ma.fields.Nested(PlayerBalanceSchema),
        metadata={"description": "balances after this request's stakes"},
    )


class MainResultSchema(ResponseSchema):
    stake = ma.fields.Integer()
    odds_to_one = ma.fields.Integer(allow_none=True)
    payout = ma.fields.Integer(
        allow_none=True,
        metadata={"description": "returned to the player, stake included; null before the deal"},
    )
    result = ma.fields.String(allow_none=True, metadata={"enum": ["win", "lose", None]})


class DoublesResultSchema(MainResultSchema):
    event = ma.fields.String(allow_none=True, metadata={"example": "two_doubles"})


class HandSchema(ResponseSchema):
    seat = ma.fields.Integer()
    player_id = ma.fields.String()
    tiles = ma.fields.List(
        ma.fields.Nested(TileSchema),
        allow_none=True,
        metadata={"description": "the three hand tiles in deal order, with shoe positions"},
    )
    connector = ma.fields.Nested(TileSchema, allow_none=True)
    tile_scores = ma.fields.List(ma.fields.Integer(), allow_none=True)
    connector_bonus = ma.fields.Integer(allow_none=True)
    total = ma.fields.Integer(allow_none=True)
    main = ma.fields.Nested(MainResultSchema)
    doubles = ma.fields.Nested(DoublesResultSchema, allow_none=True)


class DealtShoeSchema(ShoeCommitmentSchema):
    closed = ma.fields.Boolean()
    server_seed = ma.fields.String(
        allow_none=True,
        metadata={"description": "revealed when this deal closed the shoe; null while it is live"},
    )


class RoundDealtSchema(ResponseSchema):
    round_id = ma.fields.String()
    table_id = ma.fields.String()
    status = ma.fields.String(metadata={"enum": ROUND_STATUSES})
    version = ma.fields.Integer()
    main_paytable = ma.fields.Integer()
    doubles_paytable = ma.fields.Integer()
    handle = ma.fields.Integer(metadata={"description": "total staked"})
    payouts = ma.fields.Integer(metadata={"description": "total returned to players"})
    hands = ma.fields.List(ma.fields.Nested(HandSchema))
    balances = ma.fields.List(ma.fields.Nested(PlayerBalanceSchema))
    shoe = ma.fields.Nested(DealtShoeSchema)


class MovementSchema(ResponseSchema):
    player_id = ma.fields.String()
    movement = ma.fields.String(metadata={"example": "StakeRefunded"})
    amount = ma.fields.Integer()
    balance = ma.fields.Integer()


class RoundVoidedSchema(ResponseSchema):
    round_id = ma.fields.String()
    status = ma.fields.String(metadata={"enum": ROUND_STATUSES})
    version = ma.fields.Integer()
    actor = ma.fields.String(allow_none=True)
    reason = ma.fields.String(allow_none=True)
    movements = ma.fields.List(ma.fields.Nested(MovementSchema))


class RoundPlayerSchema(ResponseSchema):
    player_id = ma.fields.String()
    staked = ma.fields.Integer()
    paid = ma.fields.Integer()
    balance_before = ma.fields.Integer()
    balance_after = ma.fields.Integer()


class RoundEventSchema(ResponseSchema):
    position = ma.fields.Integer(metadata={"description": "position in the global log"})
    version = ma.fields.Integer()
    type = ma.fields.String()
    recorded_at = ma.fields.String()
    previous_hash = ma.fields.String()
    hash = ma.fields.String()


class RoundHistorySchema(ResponseSchema):
    round_id = ma.fields.String()
    table_id = ma.fields.String()
    round_number = ma.fields.Integer()
    status = ma.fields.String(metadata={"enum": ROUND_STATUSES})
    shoe_id = ma.fields.String()
    commitment = ma.fields.String()
    currency = ma.fields.String()
    seats = ma.fields.Integer()
    main_paytable = ma.fields.Integer()
    doubles_paytable = ma.fields.Integer()
    opened_at = ma.fields.String(metadata={"format": "date-time"})
    closed_at = ma.fields.String(allow_none=True, metadata={"format": "date-time"})
    handle = ma.fields.Integer()
    payouts = ma.fields.Integer()
    version = ma.fields.Integer()
    hands = ma.fields.List(ma.fields.Nested(HandSchema))
    players = ma.fields.List(
        ma.fields.Nested(RoundPlayerSchema),
        metadata={"description": "each player's stake, pay and balance before and after"},
    )
    shoe = ma.fields.Nested(ShoeSchema)
    events = ma.fields.List(
        ma.fields.Nested(RoundEventSchema),
        metadata={"description": "the round's events with their log positions and hash chain"},
    )


class RoundRowSchema(ResponseSchema):
    round_id = ma.fields.String()
    table_id = ma.fields.String()
    round_number = ma.fields.Integer()
    status = ma.fields.String(metadata={"enum": ROUND_STATUSES})
    shoe_id = ma.fields.String()
    currency = ma.fields.String()
    opened_at = ma.fields.String(metadata={"format": "date-time"})
    closed_at = ma.fields.String(allow_none=True, metadata={"format": "date-time"})
    wagers = ma.fields.Integer(metadata={"description": "seats wagered"})
    handle = ma.fields.Integer()
    payouts = ma.fields.Integer()


class RoundPageSchema(ResponseSchema):
    rounds = ma.fields.List(ma.fields.Nested(RoundRowSchema))
    next_cursor = ma.fields.String(
        allow_none=True,
        metadata={"description": "pass as cursor for the next page; null on the last"},
    )


# --- the verification bundle (format: casino.audit.bundle.format) -----------------------


class BundleEventSchema(ResponseSchema):
    stream_id = ma.fields.String()
    version = ma.fields.Integer(metadata={"description": "version within its stream, from 1"})
    position = ma.fields.Integer(metadata={"description": "position in the global log"})
    type = ma.fields.String(metadata={"example": "HandsDealt"})
    schema_version = ma.fields.Integer()
    data = ma.fields.Dict(keys=ma.fields.String(), metadata={"description": "as hashed"})
    metadata = ma.fields.Dict(keys=ma.fields.String(), metadata={"description": "as hashed"})
    recorded_at = ma.fields.String(metadata={"format": "date-time"})
    previous_hash = ma.fields.String(
        metadata={"description": "hash of the stream's previous event (zeros for version 1)"}
    )
    hash = ma.fields.String()


class HashChainSchema(ResponseSchema):
    name = ma.fields.String(metadata={"example": "sha256-rfc8785-chain/v1"})
    covers = ma.fields.List(ma.fields.String(), metadata={"description": "the hashed members"})
    genesis_previous_hash = ma.fields.String()
    description = ma.fields.String()


class BundleRoundSchema(ResponseSchema):
    round_id = ma.fields.String()
    table_id = ma.fields.String()
    stream_id = ma.fields.String()
    events = ma.fields.List(ma.fields.Nested(BundleEventSchema))


class BundleShoeSchema(ShoeCommitmentSchema):
    stream_id = ma.fields.String()
    status = ma.fields.String(metadata={"enum": ["live", "closed"]})
    server_seed = ma.fields.String(
        allow_none=True,
        metadata={"description": "revealed once the shoe is closed (hex); null while it is live"},
    )
    tiles_dealt = ma.fields.Integer()
    events = ma.fields.List(
        ma.fields.Nested(BundleEventSchema),
        metadata={"description": "every event of the shoe's stream from version 1"},
    )


class BundleSeatSchema(ResponseSchema):
    seat = ma.fields.Integer()
    tiles = ma.fields.List(ma.fields.Nested(TileSchema))
    connector = ma.fields.Nested(TileSchema)


class BundleCheckpointSchema(ResponseSchema):
    position = ma.fields.Integer()
    event_count = ma.fields.Integer()
    hash = ma.fields.String()
    created_at = ma.fields.String(allow_none=True, metadata={"format": "date-time"})


class VerificationBundleSchema(ResponseSchema):
    format = ma.fields.String(metadata={"example": "casino-dominoes/round-verification"})
    format_version = ma.fields.Integer()
    hash_chain = ma.fields.Nested(HashChainSchema)
    round = ma.fields.Nested(BundleRoundSchema)
    shoe = ma.fields.Nested(BundleShoeSchema)
    dealt = ma.fields.List(
        ma.fields.Nested(BundleSeatSchema),
        metadata={"description": "each seat's tiles in deal order with shoe positions"},
    )
    checkpoint = ma.fields.Nested(
        BundleCheckpointSchema,
        allow_none=True,
        metadata={"description": "the latest log checkpoint at or after the round's last event"},
    )
