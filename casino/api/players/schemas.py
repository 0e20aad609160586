"""Player funds: deposits and withdrawals, and the balances (credit meters)."""

from __future__ import annotations

import marshmallow as ma

from casino.api.fields import ResponseSchema, StrictSchema, amount, currency, text


class MoveFundsSchema(StrictSchema):
    currency = currency(required=True)
    amount = amount("the amount to move", required=True)
    reference = text("the cashier's reference for this movement", 200, load_default="")


class PostingSchema(ResponseSchema):
    account = ma.fields.String(metadata={"example": "player:P1"})
    amount = ma.fields.Integer(metadata={"description": "positive: into the account"})


class FundsMovedSchema(ResponseSchema):
    player_id = ma.fields.String()
    currency = ma.fields.String()
    movement = ma.fields.String(metadata={"enum": ["FundsDeposited", "FundsWithdrawn"]})
    amount = ma.fields.Integer()
    balance = ma.fields.Integer(metadata={"description": "the balance after the movement"})
    version = ma.fields.Integer(metadata={"description": "the account stream's version"})
    postings = ma.fields.List(ma.fields.Nested(PostingSchema))


class BalanceSchema(ResponseSchema):
    currency = ma.fields.String()
    balance = ma.fields.Integer()
    version = ma.fields.Integer()


class PlayerSchema(ResponseSchema):
    player_id = ma.fields.String()
    balances = ma.fields.List(ma.fields.Nested(BalanceSchema))
