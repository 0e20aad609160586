"""The append-only, hash-chained event log (generic: knows nothing of the game).

Import the concrete stores from their modules (``postgres``, ``memory``); the domain
needs only what is re-exported here.
"""

from casino.eventstore.model import (
    ConcurrencyError,
    EventStoreError,
    IdempotencyConflict,
    IdempotencyRecord,
    IdempotentReplay,
    JSONObject,
    NewEvent,
    RecordedEvent,
)
from casino.eventstore.protocol import EventStore
from casino.eventstore.unit_of_work import UnitOfWork
from casino.eventstore.upcasting import UpcasterRegistry

__all__ = [
    "ConcurrencyError",
    "EventStore",
    "EventStoreError",
    "IdempotencyConflict",
    "IdempotencyRecord",
    "IdempotentReplay",
    "JSONObject",
    "NewEvent",
    "RecordedEvent",
    "UnitOfWork",
    "UpcasterRegistry",
]
