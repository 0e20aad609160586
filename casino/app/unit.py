"""One command's work: the streams it loaded (at which versions) and what it appends.

Streams are read before anything is written (from the process's stream cache when it
holds them, see ``stream_cache``); the decisions are then committed in one event-store
transaction together with their read-model changes and the request's idempotency record.
Every stream loaded is checked against the version it was decided at (or the version the
client pinned): an appended one by its append, one only read by ``UnitOfWork.expect``.
A decision taken on stale state is refused as a whole.

A client's pinned version (If-Match) is checked against state read from the log, never
against cached state: a cached stream may be old, and a pin that happened to equal its
version would then let a decision on old state through. Such a command starts again
reading the log (``StaleCache``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
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

log = logging.getLogger(__name__)


class StaleCache(Exception):
    """The command used cached state where only the log's will do: decide it again, with
    every stream read from the log."""


class Command:
    def __init__(
        self,
        store: EventStore,
        actor: str,
        name: str,
        at: datetime,
        streams: StreamCache | None = None,
        *,
        fresh: bool = False,
    ) -> None:
        """``fresh``: read every stream from the log (the cache is still kept up to date)."""
        self.store = store
        self.streams = streams if streams is not None else StreamCache(0)
        self.fresh = fresh
        self.at = at
        self.metadata: dict[str, Any] = {"actor": actor, "command": name, "at": self.at.isoformat()}
        self.loaded: dict[str, int] = {}
        self.cached: set[str] = set()  # streams whose state came from the cache
        self.pinned: set[str] = set()
        self.appends: list[tuple[str, list[DomainEvent]]] = []
        self.sql: list[tuple[str, Sequence[Any]]] = []
        self._after_commit: list[Callable[[], None]] = []

    def load(self, stream_id: str, expected_version: int | None = None) -> list[DomainEvent]:
        """The stream's events. With ``expected_version`` (a client's If-Match), the append
        is checked against that version instead of the one read."""
        use_cache = not self.fresh and expected_version is None
        entry = self.streams.get(stream_id, WHOLE) if use_cache else None
        if entry is None:
            recorded = self.store.read_stream(stream_id)
            events = tuple((r.version, decode(r.type, r.data)) for r in recorded)
            entry = CachedStream(WHOLE, recorded[-1].version if recorded else 0, events)
            self.streams.put(stream_id, entry)
            self._loaded(stream_id, entry.version, cached=False)
        else:
            self._loaded(stream_id, entry.version, cached=True)
        if expected_version is not None:
            self.pin(stream_id, expected_version)
        return [event for _, event in entry.events]

    def pin(self, stream_id: str, expected_version: int) -> None:
        """Check the append against the client's version (If-Match), not the one read."""
        if stream_id in self.cached:
            raise StaleCache(stream_id)
        self.pinned.add(stream_id)
        self.loaded[stream_id] = expected_version

    def load_latest(
        self, stream_ids: Sequence[str], types: Sequence[str] | None = None
    ) -> dict[str, list[DomainEvent]]:
        """For each stream (in at most one round trip), its latest event of each of
        ``types`` (or its last event), for state that those determine; appends are checked
        against each stream's head version."""
        view = latest_view(types)
        found: dict[str, CachedStream] = {}
        missing: list[str] = []
        for stream_id in stream_ids:
            entry = None if self.fresh else self.streams.get(stream_id, view)
            if entry is None:
                missing.append(stream_id)
            else:
                found[stream_id] = entry
                self._loaded(stream_id, entry.version, cached=True)
        if missing:
            for stream_id, tail in self.store.read_latest(missing, types).items():
                events = tuple((e.version, decode(e.type, e.data)) for e in tail.events)
                found[stream_id] = CachedStream(view, tail.version, events)
                self.streams.put(stream_id, found[stream_id])
                self._loaded(stream_id, tail.version, cached=False)
        return {stream: [event for _, event in found[stream].events] for stream in stream_ids}

    def _loaded(self, stream_id: str, version: int, *, cached: bool) -> None:
        if cached:
            if stream_id in self.pinned:
                raise StaleCache(stream_id)
            self.cached.add(stream_id)
        if stream_id in self.pinned:
            return  # checked against the client's version
        # A stream is decided on at one version: one loaded again at another (from the
        # cache and then the log, or under two views) would be checked at the last only.
        known = self.loaded.get(stream_id)
        if known is not None and known != version and not self.fresh:
            raise StaleCache(stream_id)
        self.loaded[stream_id] = version

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

    def after_commit(self, action: Callable[[], None]) -> None:
        """Run ``action`` once this command has committed (never if it does not)."""
        self._after_commit.append(action)

    def forget(self, *, stale: bool = False) -> None:
        """Drop every stream this command loaded from the cache, so that the next attempt
        reads the log; ``stale``: its decision was refused as taken on old state, so the
        streams it took from the cache are read from the log for a while."""
        self.streams.forget(self.loaded)
        if stale:
            self.streams.distrust(self.cached)

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
        # the log would give them (decoded from the JSON stored; new events are written
        # at their type's current schema version, which no upcaster changes), not as
        # decided. The cache never fails a command that has committed.
        for pending in uow.appends:
            try:
                kept = [decode(e.type, parse_json_fast(e.data_json)) for e in pending.events]
            except Exception:
                log.exception("stream %s: not kept in the stream cache", pending.stream_id)
                self.streams.forget([pending.stream_id])
                continue
            self.streams.appended(pending.stream_id, pending.expected_version, kept)
        self.streams.trusted(self.cached)
        actions, self._after_commit = self._after_commit, []
        for action in actions:  # each once; like the cache, never failing the command
            try:
                action()
            except Exception:
                log.exception("%s: an action after its commit failed", self.metadata["command"])
