"""Paytables with their exact figures: fractions as text, and the same as floats."""

from __future__ import annotations

import marshmallow as ma

from casino.api.fields import ResponseSchema


class ExactSchema(ResponseSchema):
    fraction = ma.fields.String(
        metadata={"description": "exact, as numerator/denominator", "example": "5023/5360"}
    )
    value = ma.fields.Float(metadata={"description": "the fraction as a float"})


class OutcomeSchema(ResponseSchema):
    outcome = ma.fields.String(
        metadata={"description": "main: the point total; Doubles: the event", "example": "25"}
    )
    odds_to_one = ma.fields.Integer(
        allow_none=True, metadata={"description": "pays X to 1; null: the wager loses"}
    )
    probability = ma.fields.Nested(ExactSchema)


class PaytableSchema(ResponseSchema):
    kind = ma.fields.String(metadata={"enum": ["main", "doubles"]})
    number = ma.fields.Integer()
    rtp = ma.fields.Nested(
        ExactSchema, metadata={"description": "expected return per unit staked, stake included"}
    )
    house_edge = ma.fields.Nested(ExactSchema)
    variance = ma.fields.Nested(
        ExactSchema, metadata={"description": "of the player's net result per unit staked"}
    )
    outcomes = ma.fields.List(ma.fields.Nested(OutcomeSchema))


class PaytablesSchema(ResponseSchema):
    tiles_in_shoe = ma.fields.Integer(metadata={"description": "odds are for a fresh shoe"})
    main = ma.fields.List(ma.fields.Nested(PaytableSchema))
    doubles = ma.fields.List(ma.fields.Nested(PaytableSchema))
