"""An in-memory ``EventStore`` for unit tests, with the Postgres store's semantics.

Same unit of work, same validation and hashes, same errors, same order of checks
(idempotency key first, then each append's version), positions in commit order.
Event data is kept as canonical JSON and parsed on every read, so callers never share
mutable state with the log, and numbers come back as they do from Postgres.
Read-model statements cannot run here; they are kept, in commit order, in ``statements``
for tests that want to look at them.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

from casino.eventstore.canonical import ZERO_HASH, canonical_json, parse_json
from casino.eventstore.model import (
    ConcurrencyError,
    IdempotencyConflict,
    IdempotencyRecord,
    IdempotentReplay,
    NewEvent,
    RecordedEvent,
    StreamTail,
)
from casino.eventstore.unit_of_work import ChainedEvent, Params, UnitOfWork
from casino.eventstore.upcasting import UpcasterRegistry


@dataclass(frozen=True, slots=True)
class _Stored:
    position: int
    recorded_at: datetime
    event: ChainedEvent


def _json_copy(record: IdempotencyRecord, **changes: Any) -> IdempotencyRecord:
    # As through jsonb: an independent copy, numbers as Postgres gives them back.
    response = parse_json(canonical_json(record.response))
    return replace(record, response=response, **changes)


class InMemoryEventStore:
    """The ``EventStore`` in a Python list; thread-safe."""

    def __init__(self, *, upcasters: UpcasterRegistry | None = None) -> None:
        self._upcasters = upcasters or UpcasterRegistry()
        self._lock = threading.Lock()
        self._log: list[_Stored] = []
        self._streams: dict[str, list[_Stored]] = {}
        self._idempotency: dict[tuple[str, str], IdempotencyRecord] = {}
        self.statements: list[tuple[str, Params]] = []

    @contextmanager
    def transaction(self) -> Iterator[UnitOfWork]:
        """Collect a command's writes; commit them all when the block ends."""
        uow = UnitOfWork()
        yield uow
        recorded = self._commit(uow)
        uow.committed(lambda: recorded)

    def append(
        self,
        stream_id: str,
        expected_version: int,
        events: Sequence[NewEvent],
        metadata: Mapping[str, Any] | None = None,
        idempotency: IdempotencyRecord | None = None,
    ) -> list[RecordedEvent]:
        """Append to one stream (and save ``idempotency``) in one transaction."""
        with self.transaction() as uow:
            uow.append(stream_id, expected_version, events, metadata)
            if idempotency is not None:
                uow.save_idempotency(idempotency)
        return uow.recorded

    def _commit(self, uow: UnitOfWork) -> list[RecordedEvent]:
        with self._lock:
            record = uow.idempotency
            if record is not None:
                existing = self._idempotency.get((record.scope, record.key))
                if existing is not None and existing.fingerprint != record.fingerprint:
                    raise IdempotencyConflict(record.scope, record.key)
                if existing is not None:
                    raise IdempotentReplay(_json_copy(existing))
            for stream_id, expected in uow.read_only_expectations().items():
                actual = len(self._streams.get(stream_id, []))
                if actual != expected:
                    raise ConcurrencyError(stream_id, expected, actual)
            previous: dict[str, str] = {}
            for stream_id, expected in uow.first_expected_versions().items():
                stream = self._streams.get(stream_id, [])
                if len(stream) != expected:
                    raise ConcurrencyError(stream_id, expected, len(stream))
                previous[stream_id] = stream[-1].event.hash if stream else ZERO_HASH
            # Nothing can fail from here on: the commit is all or nothing.
            now = datetime.now(UTC)
            stored = []
            for batch in uow.chain(previous):
                for event in batch:
                    entry = _Stored(len(self._log) + 1, now, event)
                    self._log.append(entry)
                    self._streams.setdefault(event.stream_id, []).append(entry)
                    stored.append(entry)
            if record is not None:
                self._idempotency[(record.scope, record.key)] = _json_copy(record, created_at=now)
            self.statements.extend(uow.statements)
        return [self._recorded(entry) for entry in stored]

    def read_stream(self, stream_id: str, after_version: int = 0) -> list[RecordedEvent]:
        """The stream's events after ``after_version``, in version order."""
        with self._lock:
            entries = self._streams.get(stream_id, [])[max(after_version, 0) :]
        return [self._recorded(entry) for entry in entries]

    def read_latest(
        self, stream_ids: Sequence[str], types: Sequence[str] | None = None
    ) -> dict[str, StreamTail]:
        tails: dict[str, StreamTail] = {}
        for stream_id in stream_ids:
            events = self.read_stream(stream_id)
            if types is None:
                latest = events[-1:]
            else:
                by_type = {e.type: e for e in events if e.type in types}
                latest = sorted(by_type.values(), key=lambda e: e.version)
            tails[stream_id] = StreamTail(len(events), latest)
        return tails

    def stream_version(self, stream_id: str) -> int:
        """The stream's current version; 0 when it has no events."""
        with self._lock:
            return len(self._streams.get(stream_id, []))

    def read_all(self, after_position: int = 0, limit: int = 1000) -> list[RecordedEvent]:
        """Up to ``limit`` events of the global log after ``after_position``, in order."""
        if limit < 1:
            raise ValueError("limit must be at least 1")
        with self._lock:
            entries = self._log[max(after_position, 0) : max(after_position, 0) + limit]
        return [self._recorded(entry) for entry in entries]

    def find_idempotent(self, scope: str, key: str) -> IdempotencyRecord | None:
        """The stored answer for an idempotency key, if a command saved one."""
        with self._lock:
            record = self._idempotency.get((scope, key))
        return None if record is None else _json_copy(record)

    def _recorded(self, entry: _Stored) -> RecordedEvent:
        event = entry.event
        return self._upcasters.apply(
            RecordedEvent(
                position=entry.position,
                stream_id=event.stream_id,
                version=event.version,
                type=event.type,
                schema_version=event.schema_version,
                data=parse_json(event.data_json),
                metadata=parse_json(event.metadata_json),
                recorded_at=entry.recorded_at,
                previous_hash=event.previous_hash,
                hash=event.hash,
            )
        )
