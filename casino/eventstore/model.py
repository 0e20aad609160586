"""The values the event store takes and gives, and the errors it raises.

Everything here is plain data: the domain builds ``NewEvent``s, the store hands back
``RecordedEvent``s, and a command's answer is kept as an ``IdempotencyRecord``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, TypeAlias

# A JSON object as Python sees it. Values must be JSON: str, int (within +/-2**53),
# float, bool, None, lists and str-keyed dicts of those; anything else is refused when
# it is appended, because it could not be hashed canonically (RFC 8785).
JSONObject: TypeAlias = dict[str, Any]


@dataclass(frozen=True, slots=True)
class NewEvent:
    """An event the domain decided on, not yet in the log."""

    type: str
    data: JSONObject
    schema_version: int = 1


@dataclass(frozen=True, slots=True)
class RecordedEvent:
    """An event as the log holds it.

    ``data`` and ``schema_version`` are what readers see after upcasting (the latest
    schema); ``hash`` and ``previous_hash`` are over the event as it was first written.
    """

    position: int
    stream_id: str
    version: int
    type: str
    schema_version: int
    data: JSONObject
    metadata: JSONObject
    recorded_at: datetime
    previous_hash: str
    hash: str


@dataclass(frozen=True, slots=True)
class StreamTail:
    """A stream's head version, and the latest events asked for (in version order)."""

    version: int
    events: list[RecordedEvent]


@dataclass(frozen=True, slots=True)
class IdempotencyRecord:
    """The stored answer to one command, keyed by the client's Idempotency-Key.

    ``fingerprint`` identifies the request (e.g. a hash of method, path and body): a retry
    must carry the same one. ``created_at`` is set by the store.
    """

    scope: str
    key: str
    fingerprint: str
    response: JSONObject
    status: int
    created_at: datetime | None = field(default=None, compare=False)


class EventStoreError(Exception):
    """Base class of the event store's own errors."""


class ConcurrencyError(EventStoreError):
    """The stream is not at the version the caller decided on; nothing was written."""

    def __init__(self, stream_id: str, expected: int, actual: int) -> None:
        super().__init__(f"stream {stream_id!r} is at version {actual}, not {expected}")
        self.stream_id = stream_id
        self.expected = expected
        self.actual = actual


class IdempotencyConflict(EventStoreError):
    """The key was already used for a different request; nothing was written."""

    def __init__(self, scope: str, key: str) -> None:
        super().__init__(f"idempotency key {key!r} in {scope!r} was used for another request")
        self.scope = scope
        self.key = key


class IdempotentReplay(EventStoreError):
    """The same request was already processed (typically by a concurrent racer).

    Nothing of this attempt was written; ``record`` holds the winner's stored answer,
    which the caller returns as its own.
    """

    def __init__(self, record: IdempotencyRecord) -> None:
        super().__init__(f"idempotency key {record.key!r} in {record.scope!r} already answered")
        self.record = record
