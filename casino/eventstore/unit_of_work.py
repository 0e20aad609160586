"""The unit of work: everything one command writes, committed together or not at all.

A ``UnitOfWork`` only collects: appends to any number of streams, the versions of the
streams a command only read (checked as its appends are), read-model statements and at
most one idempotency record. Nothing reaches the database until the ``with``
block ends without an exception; then the store writes it all in one transaction.
Collecting first keeps domain code free of I/O, lets the Postgres store send the whole
command in a single round trip, and means an exception inside the block leaves no trace.

Both stores share this class, so they validate and hash identically.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple, TypeAlias

from casino.eventstore.canonical import canonical_json, chain_hashes
from casino.eventstore.model import ConcurrencyError, IdempotencyRecord, NewEvent, RecordedEvent

# Parameters of a read-model statement, as the database driver takes them.
Params: TypeAlias = Sequence[Any] | Mapping[str, Any] | None


class PlanEachRun(str):
    """SQL text to plan every time it runs, never from a prepared statement: a join of a
    few given rows to a table that grows. A prepared statement soon runs on one generic
    plan, and one made while the table was small (a hash join over a sequential scan)
    kept scanning it whole as it grew: a deal's update of rm_seats went from a fraction
    of a millisecond to several, seen with auto_explain on a fresh database."""


# The unit's own records are named tuples, immutable as frozen dataclasses are, and made
# five times faster: a frozen dataclass sets each field through object.__setattr__
# (a typical command: 613K instructions of client work, 576K with these; callgrind).


class PreparedEvent(NamedTuple):
    """A new event with its data already in canonical JSON."""

    type: str
    schema_version: int
    data_json: bytes


class PendingAppend(NamedTuple):
    stream_id: str
    expected_version: int
    events: tuple[PreparedEvent, ...]
    metadata_json: bytes


class ChainedEvent(NamedTuple):
    """A pending event with its version and place in the hash chain fixed."""

    stream_id: str
    version: int
    type: str
    schema_version: int
    data_json: bytes
    metadata_json: bytes
    previous_hash: str
    hash: str


def _prepare(event: NewEvent) -> PreparedEvent:
    if not isinstance(event, NewEvent):
        raise TypeError(f"expected a NewEvent, got {type(event).__name__}")
    # Exact types: the hash spells the type as a JSON string and the schema version as
    # a number, and so must the log (a 5 or a True would be stored as text that no
    # longer hashes to the chain).
    if type(event.type) is not str or not event.type:
        raise ValueError(f"an event's type is a non-empty string, not {event.type!r}")
    if type(event.schema_version) is not int or event.schema_version < 1:
        raise ValueError(f"schema versions are integers from 1, not {event.schema_version!r}")
    return PreparedEvent(event.type, event.schema_version, canonical_json(event.data))


class UnitOfWork:
    """Collects one command's writes; the store commits them when the block ends."""

    def __init__(self) -> None:
        self.appends: list[PendingAppend] = []
        self.expected: dict[str, int] = {}
        self.statements: list[tuple[str, Params]] = []
        self.idempotency: IdempotencyRecord | None = None
        self.idempotency_response_json = b""
        self._next_version: dict[str, int] = {}
        self._first_appended: dict[str, int] = {}
        self._recorded: list[RecordedEvent] | None = None
        self._record: Callable[[], list[RecordedEvent]] | None = None

    def append(
        self,
        stream_id: str,
        expected_version: int,
        events: Sequence[NewEvent],
        metadata: Mapping[str, Any] | None = None,
    ) -> None:
        """Append ``events`` to ``stream_id``, which must then be at ``expected_version``
        (0: the stream must not exist yet). ``metadata`` (actor, causation, ...) is stored
        with, and hashed into, every one of these events. An empty list writes nothing.
        """
        if not isinstance(stream_id, str) or not stream_id:
            raise ValueError("a stream id is a non-empty string")
        if isinstance(expected_version, bool) or expected_version < 0:
            raise ValueError(f"expected_version must be >= 0, not {expected_version!r}")
        prepared = tuple([_prepare(event) for event in events])
        metadata_json = canonical_json(metadata or {})
        if not prepared:
            return
        # A second append to the same stream in this unit must continue the first.
        pending = self._next_version.get(stream_id)
        if pending is not None and pending != expected_version:
            raise ConcurrencyError(stream_id, expected_version, pending)
        if pending is None:
            known = self.expected.get(stream_id, expected_version)
            if known != expected_version:
                raise ValueError(
                    f"{stream_id} is expected at version {known}, not {expected_version}"
                )
            self._first_appended[stream_id] = expected_version
        self._next_version[stream_id] = expected_version + len(prepared)
        self.appends.append(PendingAppend(stream_id, expected_version, prepared, metadata_json))

    def expect(self, stream_id: str, version: int) -> None:
        """Commit only if ``stream_id`` is still at ``version`` (0: it has no events): a
        stream the command read and decided on without appending to it. Checked with the
        appends, under the same lock; a stream appended to is checked by its append, so
        it must expect the version its first append continues."""
        if not isinstance(stream_id, str) or not stream_id:
            raise ValueError("a stream id is a non-empty string")
        if isinstance(version, bool) or version < 0:
            raise ValueError(f"a stream's version is >= 0, not {version!r}")
        known = self.expected.get(stream_id, self._first_appended.get(stream_id, version))
        if known != version:
            raise ValueError(f"{stream_id} is expected at version {known}, not {version}")
        self.expected[stream_id] = version

    def read_only_expectations(self) -> dict[str, int]:
        """The expected versions of the streams this unit does not append to."""
        return {s: v for s, v in self.expected.items() if s not in self._first_appended}

    def execute(self, sql: str, params: Params = None) -> None:
        """Run a read-model write (INSERT/UPDATE/DELETE on read-model tables) in the same
        transaction, before the events are inserted. Results are not returned: decisions
        come from streams, not from read models."""
        self.statements.append((sql, params))

    def save_idempotency(self, record: IdempotencyRecord) -> None:
        """Store the command's answer under its idempotency key, with its events."""
        if self.idempotency is not None:
            raise ValueError("a unit of work saves at most one idempotency record")
        self.idempotency_response_json = canonical_json(record.response)  # refuses non-JSON
        self.idempotency = record

    @property
    def recorded(self) -> list[RecordedEvent]:
        """The events as recorded (with positions), once the block has committed."""
        if self._recorded is None:
            if self._record is None:
                raise RuntimeError("the unit of work has not been committed")
            self._recorded = self._record()
        return list(self._recorded)

    @property
    def is_empty(self) -> bool:
        return not (self.appends or self.expected or self.statements or self.idempotency)

    def first_expected_versions(self) -> dict[str, int]:
        """Each appended stream's expected version at the start of this unit."""
        return dict(self._first_appended)

    def chain(self, previous_hashes: Mapping[str, str]) -> list[list[ChainedEvent]]:
        """Versions and hashes of every pending event, per append, given the hash of each
        stream's event at its first expected version."""
        last_hash = dict(previous_hashes)
        chained: list[list[ChainedEvent]] = []
        for pending in self.appends:
            stream_id, metadata_json = pending.stream_id, pending.metadata_json
            hashes = chain_hashes(
                stream_id,
                pending.expected_version,
                pending.events,
                metadata_json,
                last_hash[stream_id],
            )
            previous = [last_hash[stream_id], *hashes]
            version = pending.expected_version
            chained.append(
                [
                    ChainedEvent(
                        stream_id,
                        version + offset,
                        event.type,
                        event.schema_version,
                        event.data_json,
                        metadata_json,
                        previous[offset - 1],
                        previous[offset],
                    )
                    for offset, event in enumerate(pending.events, start=1)
                ]
            )
            last_hash[stream_id] = hashes[-1]
        return chained

    def committed(self, record: Callable[[], list[RecordedEvent]]) -> None:
        """Called by the store once the transaction has committed, with how to build the
        recorded events: built only if asked for, since most commands never look (and
        rebuilding them parses every event's JSON again)."""
        self._record = record
