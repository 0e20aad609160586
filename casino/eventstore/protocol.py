"""The event store as the domain sees it.

The domain depends on this protocol only; the composition root picks the Postgres store
(``postgres.PostgresEventStore``) or, in unit tests, the in-memory one. Both share
``UnitOfWork``, the plain-Python collector of one command's writes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager
from typing import Any, Protocol

from casino.eventstore.model import IdempotencyRecord, NewEvent, RecordedEvent, StreamTail
from casino.eventstore.unit_of_work import UnitOfWork


class EventStore(Protocol):
    def transaction(self) -> AbstractContextManager[UnitOfWork]:
        """A unit of work: ``with store.transaction() as uow: uow.append(...); ...``.

        Everything collected is committed in one transaction when the block ends without
        an exception, and ``uow.recorded`` then holds the recorded events. Raises
        ``ConcurrencyError``, ``IdempotencyConflict`` or ``IdempotentReplay`` at the end
        of the block when the commit is refused; nothing is written then.
        """
        ...

    def append(
        self,
        stream_id: str,
        expected_version: int,
        events: Sequence[NewEvent],
        metadata: Mapping[str, Any] | None = None,
        idempotency: IdempotencyRecord | None = None,
    ) -> list[RecordedEvent]:
        """A unit of work with one append (and optionally its idempotency record)."""
        ...

    def read_stream(self, stream_id: str, after_version: int = 0) -> list[RecordedEvent]:
        """The stream's events after ``after_version``, in version order, upcast."""
        ...

    def read_latest(
        self, stream_ids: Sequence[str], types: Sequence[str] | None = None
    ) -> dict[str, StreamTail]:
        """For each stream (in one round trip): its head version, and its latest event of
        each of ``types`` (or, with None, its last event), upcast, in version order."""
        ...

    def stream_version(self, stream_id: str) -> int:
        """The stream's current version; 0 when it has no events."""
        ...

    def read_all(self, after_position: int = 0, limit: int = 1000) -> list[RecordedEvent]:
        """The global log after ``after_position``, in position order, upcast."""
        ...

    def find_idempotent(self, scope: str, key: str) -> IdempotencyRecord | None:
        """The stored answer for an idempotency key, if a command saved one."""
        ...
