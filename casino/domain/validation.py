"""Shared checks of command fields, raising ``InvalidCommand`` that names the field."""

from __future__ import annotations

import re

from casino.domain.errors import InvalidCommand

MAX_AMOUNT = 10**12  # minor units: a payout (at most 1001x) stays below 2**53, exact in JSON
_IDENTIFIER = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$")
_CURRENCY = re.compile(r"^[A-Z]{3}$")


def identifier(value: str, field: str) -> str:
    if not isinstance(value, str) or not _IDENTIFIER.match(value):
        raise InvalidCommand(
            "invalid_identifier",
            f"{field} must be 1-64 characters: letters, digits and _ . : - "
            "(starting with a letter or digit)",
            field,
        )
    return value


def currency(value: str, field: str = "currency") -> str:
    if not isinstance(value, str) or not _CURRENCY.match(value):
        raise InvalidCommand(
            "invalid_currency", f"{field} must be an ISO 4217 code like EUR", field
        )
    return value


def amount(value: int, field: str, minimum: int = 1, maximum: int = MAX_AMOUNT) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidCommand("invalid_amount", f"{field} must be an integer in minor units", field)
    if value < minimum:
        raise InvalidCommand("amount_too_small", f"{field} must be at least {minimum}", field)
    if value > maximum:
        raise InvalidCommand("amount_too_large", f"{field} must be at most {maximum}", field)
    return value


def text(value: str, field: str, max_length: int = 200, required: bool = True) -> str:
    if not isinstance(value, str) or len(value) > max_length or (required and not value.strip()):
        need = "non-empty " if required else ""
        raise InvalidCommand(
            "invalid_text", f"{field} must be {need}text of at most {max_length} characters", field
        )
    return value
