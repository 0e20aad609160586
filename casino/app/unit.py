"""One command's work: the streams it loaded (at which versions) and what it appends.

Streams are read before anything is written; the decisions are then committed in one
event-store transaction together with their read-model changes and the request's
idempotency record. Each append is checked against the version its stream had when it
was loaded (or the version the client pinned), so a decision taken on stale state is
refused as a whole.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from casino.domain.events import DomainEvent, decode, encode
from casino.eventstore.model import IdempotencyRecord, NewEvent
from casino.eventstore.protocol import EventStore
from casino.readmodels.apply_sql import batched_statements
from casino.readmodels.changes import RowChange
from casino.readmodels.projection import Fact, project


class Command:
    def __init__(self, store: EventStore, actor: str, name: str, at: datetime) -> None:
        self.store = store
        self.at = at
        self.metadata: dict[str, Any] = {"actor": actor, "command": name, "at": self.at.isoformat()}
        self.loaded: dict[str, int] = {}
        self.pinned: set[str] = set()
        self.appends: list[tuple[str, list[DomainEvent]]] = []
        self.sql: list[tuple[str, Sequence[Any]]] = []

    def load(self, stream_id: str, expected_version: int | None = None) -> list[DomainEvent]:
        """The stream's events. With ``expected_version`` (a client's If-Match), the append
        is checked against that version instead of the one read."""
        recorded = self.store.read_stream(stream_id)
        self.loaded[stream_id] = recorded[-1].version if recorded else 0
        if expected_version is not None:
            self.pin(stream_id, expected_version)
        return [decode(r.type, r.data) for r in recorded]

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
        tails = self.store.read_latest(stream_ids, types)
        for stream_id, tail in tails.items():
            self.loaded[stream_id] = tail.version
        return {
            stream_id: [decode(e.type, e.data) for e in tail.events]
            for stream_id, tail in tails.items()
        }

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

    def commit(self, idempotency: IdempotencyRecord | None) -> None:
        with self.store.transaction() as uow:
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
