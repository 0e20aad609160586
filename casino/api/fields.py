"""Field types shared by the request and response schemas.

Requests are checked here before the domain sees them (which checks again, and alone
knows the table's own limits): identifiers, ISO currencies, integer amounts in minor
units (floats, strings, booleans, negatives and huge values refused) and plain text
without control characters (Postgres cannot store NUL in text or JSON).
"""

from __future__ import annotations

import re
from typing import Any

import marshmallow as ma
from marshmallow import validate
from werkzeug.routing import BaseConverter

from casino.domain import validation
from casino.domain.validation import MAX_AMOUNT

IDENTIFIER_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$"
CURRENCY_PATTERN = r"^[A-Z]{3}$"
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


class FullMatch(validate.Validator):
    """A pattern the whole value must match (``Regexp`` lets a trailing newline past
    ``$``). apispec documents it from ``regex``, as it does ``Regexp``."""

    def __init__(self, pattern: str, error: str) -> None:
        self.regex = re.compile(pattern)
        self.error = self.message = error

    def __call__(self, value: str) -> str:
        if self.regex.fullmatch(value) is None:
            raise ma.ValidationError(self.message)
        return value


def _no_control_characters(value: str) -> None:
    if _CONTROL.search(value):
        raise ma.ValidationError("Must not contain control characters.")


def identifier(description: str, example: str = "T1", **kwargs: Any) -> ma.fields.String:
    return ma.fields.String(
        validate=FullMatch(
            IDENTIFIER_PATTERN,
            error="Must be 1-64 letters, digits and _ . : - (starting with a letter or digit).",
        ),
        metadata={"description": description, "example": example},
        **kwargs,
    )


def currency(**kwargs: Any) -> ma.fields.String:
    return ma.fields.String(
        validate=FullMatch(CURRENCY_PATTERN, error="Must be an ISO 4217 code."),
        metadata={"description": "ISO 4217 currency code", "example": "EUR"},
        **kwargs,
    )


def amount(description: str, minimum: int = 1, **kwargs: Any) -> ma.fields.Integer:
    return ma.fields.Integer(
        strict=True,
        validate=validate.Range(min=minimum, max=MAX_AMOUNT),
        metadata={"description": f"{description}, an integer in minor units"},
        **kwargs,
    )


def choice(description: str, low: int, high: int, **kwargs: Any) -> ma.fields.Integer:
    return ma.fields.Integer(
        strict=True,
        validate=validate.Range(min=low, max=high),
        metadata={"description": description},
        **kwargs,
    )


def text(description: str, max_length: int, min_length: int = 0, **kwargs: Any) -> ma.fields.String:
    return ma.fields.String(
        validate=[validate.Length(min=min_length, max=max_length), _no_control_characters],
        metadata={"description": description},
        **kwargs,
    )


class StrictSchema(ma.Schema):
    """A request body: unknown fields are refused (and documented as refused)."""

    class Meta:
        unknown = ma.RAISE


class ResponseSchema(ma.Schema):
    """An answer: every declared field is always present (null where so declared)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for field in self.fields.values():
            field.required = True


class TileSchema(ResponseSchema):
    id = ma.fields.Integer(metadata={"description": "physical tile, 0-55 in the shoe"})
    face = ma.fields.String(metadata={"example": "6-6"})
    position = ma.fields.Integer(metadata={"description": "position in the shoe's deal order"})


class IdentifierConverter(BaseConverter):
    """A path segment naming a table, round, shoe or player.

    It matches any segment; the view checks it, so a malformed id is a 422 naming the
    parameter rather than an anonymous 404.
    """


def identifier_parameter(converter: BaseConverter) -> dict[str, Any]:
    """How an ``<id:...>`` path parameter appears in the OpenAPI document."""
    return {"type": "string", "pattern": IDENTIFIER_PATTERN}


def path_id(value: str, name: str) -> str:
    """A path identifier, checked by the domain's own rule (422 naming ``name``)."""
    return validation.identifier(value, name)
