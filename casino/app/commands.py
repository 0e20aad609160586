"""Idempotency and the result of a command as the application returns it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


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
