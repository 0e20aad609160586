"""One command's work: the streams it loaded (at which versions) and what it appends.

Streams are read before anything is written (from the process's stream cache when it
holds them, see ``stream_cache``); the decisions are then committed in one event-store
transaction together with their read-model changes and the request's idempotency record.
Every stream loaded is checked against the version it was decided at (or the version the
client pinned): an appended one by its append, one only read by ``UnitOfWork.expect``.
A decision taken on stale state is refused as a whole.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from casino.app.stream_cache import WHOLE, CachedStream, StreamCache, latest_view
from casino.domain.events import DomainEvent, decode, encode
from casino.eventstore.canonical import parse_json_fast
from casino.eventstore.model import IdempotencyRecord, NewEvent
from casino.eventstore.protocol import EventStore
from casino.readmodels.apply_sql import batched_statements
from casino.readmodels.changes import RowChange
from casino.readmodels.projection import Fact, project


class Command:
    def __init__(
        self,
        store: EventStore,
        actor: str,
        name: str,
        at: datetime,
        streams: StreamCache | None = None,
    ) -> None:
        self.store = store
        self.streams = streams if streams is not None else StreamCache(0)
        self.at = at
        self.metadata: dict[str, Any] = {"actor": actor, "command": name, "at": self.at.isoformat()}
        self.loaded: dict[str, int] = {}
        self.pinned: set[str] = set()
        self.appends: list[tuple[str, list[DomainEvent]]] = []
        self.sql: list[tuple[str, Sequence[Any]]] = []

    def load(self, stream_id: str, expected_version: int | None = None) -> list[DomainEvent]:
        """The stream's events. With ``expected_version`` (a client's If-Match), the append
        is checked against that version instead of the one read."""
        cached = self.streams.get(stream_id, WHOLE)
        if cached is None or expected_version not in (None, cached.version):
            recorded = self.store.read_stream(stream_id)
            events = tuple((r.version, decode(r.type, r.data)) for r in recorded)
            cached = CachedStream(WHOLE, recorded[-1].version if recorded else 0, events)
            self.streams.put(stream_id, cached)
        self.loaded[stream_id] = cached.version
        if expected_version is not None:
            self.pin(stream_id, expected_version)
        return [event for _, event in cached.events]

    def pin(self, stream_id: str, expected_version: int) -> None:
        """Check the append against the client's version (If-Match), not the one read."""
        self.pinned.add(stream_id)
        self.loaded[stream_id] = expected_version

    def load_latest(
        self, stream_ids: Sequence[str], types: Sequence[str] | None = None
    ) -> dict[str, list[DomainEvent]]:
        """For each stream (one round trip), its latest event of each of ``types`` (or its
        last event), for state that those determine; appends are checked against each
        stream's head version."""
        view = latest_view(types)
        found: dict[str, CachedStream] = {}
        missing: list[str] = []
        for stream_id in stream_ids:
            cached = self.streams.get(stream_id, view)
            if cached is None:
                missing.append(stream_id)
            else:
                found[stream_id] = cached
        if missing:
            for stream_id, tail in self.store.read_latest(missing, types).items():
                events = tuple((e.version, decode(e.type, e.data)) for e in tail.events)
                found[stream_id] = CachedStream(view, tail.version, events)
                self.streams.put(stream_id, found[stream_id])
        result: dict[str, list[DomainEvent]] = {}
        for stream_id in stream_ids:
            self.loaded[stream_id] = found[stream_id].version
            result[stream_id] = [event for _, event in found[stream_id].events]
        return result

    def is_current(self) -> bool:
        """Whether every stream read is still at the version it was read at."""
        return all(
            self.store.stream_version(stream_id) == version
            for stream_id, version in self.loaded.items()
            if stream_id not in self.pinned
        )

    def append(self, stream_id: str, events: Sequence[DomainEvent]) -> None:
        if stream_id not in self.loaded:
            self.loaded[stream_id] = self.store.stream_version(stream_id)
        self.appends.append((stream_id, list(events)))

    def execute(self, statement: str, params: Sequence[Any]) -> None:
        """A write beside the events (e.g. the seed vault), in the same transaction."""
        self.sql.append((statement, params))

    def forget(self) -> None:
        """Drop every stream this command loaded from the cache: its decision was refused
        as stale, and the next attempt must read the log."""
        self.streams.forget(self.loaded)

    def commit(self, idempotency: IdempotencyRecord | None) -> None:
        with self.store.transaction() as uow:
            for stream_id, version in self.loaded.items():
                uow.expect(stream_id, version)
            next_version = dict(self.loaded)
            changes: list[RowChange] = []
            for stream_id, events in self.appends:
                version = next_version[stream_id]
                new = [NewEvent(e.TYPE, encode(e), e.SCHEMA_VERSION) for e in events]
                uow.append(stream_id, version, new, self.metadata)
                for offset, event in enumerate(new, start=1):
                    fact = Fact(stream_id, version + offset, event.type, event.data, self.at)
                    changes.extend(project(fact))
                next_version[stream_id] = version + len(new)
            for statement, params in batched_statements(changes):
                uow.execute(statement, params)
            for sql_text, sql_params in self.sql:
                uow.execute(sql_text, sql_params)
            if idempotency is not None:
                uow.save_idempotency(idempotency)
        # Committed: the process now knows these streams' new heads. Kept as a read of
        # the log would give them (decoded from the JSON stored), not as decided.
        for pending in uow.appends:
            kept = [decode(e.type, parse_json_fast(e.data_json)) for e in pending.events]
            self.streams.appended(pending.stream_id, pending.expected_version, kept)
