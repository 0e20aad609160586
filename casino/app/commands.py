"""Idempotency and the result of a command as the application returns it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from casino.domain.errors import RuleViolation


@dataclass(frozen=True)
class Idempotency:
    """A client's Idempotency-Key and the fingerprint of the request it came with."""

    key: str
    fingerprint: str


@dataclass(frozen=True)
class CommandResult:
    body: dict[str, Any]
    status: int = 200
    replayed: bool = False  # True: the stored answer to an earlier identical request


def key_reused() -> RuleViolation:
    """The refusal of an Idempotency-Key already used with another request."""
    return RuleViolation(
        "idempotency_key_reused",
        "this Idempotency-Key was already used for a different request",
        "Idempotency-Key",
    )
