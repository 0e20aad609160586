"""The audit of the log: per-stream hash chains, and checkpoints of the global log.

Chains catch an edited, reordered or removed event inside a stream. They cannot catch a
stream's last events cut off, nor a whole tail rewritten with fresh hashes, nor a changed
``recorded_at`` (the database sets it, after the hash is made); checkpoints do. A
checkpoint is the running hash of the global log up to a position::

    h(0) = "0" * 64
    h(i) = sha256(ascii(f"{h(i-1)} {position_i} {recorded_at_i} {hash_i}")).hexdigest()

folded over every event in position order, ``recorded_at`` in whole microseconds since
the Unix epoch. Each stored checkpoint extends the previous
one, so an auditor who kept any checkpoint (position, event count, hash) can later prove
that the log still begins with exactly what it held then.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from psycopg import Connection
from psycopg.rows import tuple_row

from casino.eventstore.canonical import ZERO_HASH, canonical_json, chain_hash, parse_json

_CHECKPOINT_LOCK = 7310293372818011003  # one checkpoint writer at a time; reserved
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_BATCH = 5000


@dataclass(frozen=True, slots=True)
class ChainBreak:
    """The first bad event of a stream."""

    stream_id: str
    version: int
    position: int
    problem: str
    expected: str
    found: str


@dataclass(frozen=True, slots=True)
class ChainReport:
    streams: int
    events: int
    breaks: list[ChainBreak]  # one per broken stream

    @property
    def ok(self) -> bool:
        return not self.breaks

    @property
    def first(self) -> ChainBreak | None:
        """The bad event earliest in the global log."""
        return min(self.breaks, key=lambda b: b.position, default=None)


def _check(row: tuple[Any, ...], version: int, position: int, last_hash: str) -> ChainBreak | None:
    """Why the event in ``row`` is not the stream's next one, or None."""
    at, stream_id, found_version, event_type, schema_version, data, metadata, previous, digest = row

    def problem(text: str, expected: object, found: object) -> ChainBreak:
        return ChainBreak(stream_id, found_version, at, text, str(expected), str(found))

    if found_version != version:
        return problem(
            "version out of sequence: an event is missing or moved", version, found_version
        )
    if at <= position:
        return problem("position out of order within the stream", f"> {position}", at)
    if previous != last_hash:
        return problem("previous_hash does not link to the previous event", last_hash, previous)
    computed = chain_hash(
        stream_id=stream_id,
        version=found_version,
        event_type=event_type,
        schema_version=schema_version,
        data_json=canonical_json(parse_json(data)),
        metadata_json=canonical_json(parse_json(metadata)),
        previous_hash=previous,
    )
    if computed != digest:
        return problem("hash does not match the event's content", computed, digest)
    return None


def verify_chains(conn: Connection[Any], stream_ids: Sequence[str] | None = None) -> ChainReport:
    """Recompute the hash chain of every stream (or of ``stream_ids``) from the raw rows."""
    sql = (
        "SELECT position, stream_id, version, type, schema_version, data::text,"
        " metadata::text, previous_hash, hash FROM events"
    )
    params: tuple[Any, ...] = ()
    if stream_ids is not None:
        sql += " WHERE stream_id = ANY(%s)"
        params = (list(stream_ids),)
    sql += " ORDER BY stream_id, version"
    breaks: list[ChainBreak] = []
    streams = events = 0
    current: str | None = None
    version = position = 0
    last_hash = ZERO_HASH
    broken = False
    with conn.transaction(), conn.cursor("verify_chains", row_factory=tuple_row) as cursor:
        cursor.itersize = _BATCH
        for row in cursor.execute(sql, params):
            events += 1
            if row[1] != current:
                current, version, position, last_hash, broken = row[1], 0, 0, ZERO_HASH, False
                streams += 1
            if broken:
                continue
            version += 1
            found = _check(row, version, position, last_hash)
            if found is not None:
                breaks.append(found)
                broken = True
            position, last_hash = row[0], row[8]
    return ChainReport(streams, events, breaks)


# -- checkpoints -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Checkpoint:
    """The log's running hash after every event up to ``position``."""

    position: int
    event_count: int
    hash: str
    previous_position: int = 0
    created_at: datetime | None = None


GENESIS = Checkpoint(position=0, event_count=0, hash=ZERO_HASH)


def fold(log_hash: str, position: int, recorded_at_us: int, event_hash: str) -> str:
    """One step of the running hash."""
    text = f"{log_hash} {position} {recorded_at_us} {event_hash}"
    return hashlib.sha256(text.encode("ascii")).hexdigest()


def microseconds(moment: datetime) -> int:
    """``moment`` in whole microseconds since the Unix epoch, as the fold takes it."""
    return (moment - _EPOCH) // timedelta(microseconds=1)


def _event_hashes(conn: Connection[Any], after: int) -> Iterator[tuple[int, int, str]]:
    """(position, recorded_at in microseconds, hash) of every event after ``after``;
    call inside a transaction."""
    with conn.cursor("log_event_hashes", row_factory=tuple_row) as cursor:
        cursor.itersize = _BATCH
        yield from cursor.execute(
            # Exact: extract() gives a numeric, and timestamps are whole microseconds.
            "SELECT position, (extract(epoch FROM recorded_at) * 1000000)::bigint, hash"
            " FROM events WHERE position > %s ORDER BY position",
            (after,),
        )


def stored_checkpoints(conn: Connection[Any]) -> list[Checkpoint]:
    rows = conn.execute(
        "SELECT position, event_count, hash, previous_position, created_at"
        " FROM log_checkpoints ORDER BY position"
    ).fetchall()
    return [Checkpoint(*row) for row in rows]


def create_checkpoint(conn: Connection[Any]) -> Checkpoint:
    """Extend the last checkpoint over every event committed since, and store it.

    Returns the new checkpoint, or the last one when no event came since. Positions are
    assigned in commit order, so everything up to the highest visible one is final.
    """
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (_CHECKPOINT_LOCK,))
        row = conn.execute(
            "SELECT position, event_count, hash, previous_position, created_at"
            " FROM log_checkpoints ORDER BY position DESC LIMIT 1"
        ).fetchone()
        last = GENESIS if row is None else Checkpoint(*row)
        running, count, position = last.hash, last.event_count, last.position
        for event_position, recorded_at, digest in _event_hashes(conn, last.position):
            running = fold(running, event_position, recorded_at, digest)
            count += 1
            position = event_position
        if position == last.position:
            return last
        created = conn.execute(
            "INSERT INTO log_checkpoints (position, previous_position, event_count, hash)"
            " VALUES (%s, %s, %s, %s) RETURNING created_at",
            (position, last.position, count, running),
        ).fetchone()
    return Checkpoint(position, count, running, last.position, created[0] if created else None)


@dataclass(frozen=True, slots=True)
class CheckpointMismatch:
    position: int
    problem: str
    expected: str  # what the log gives now
    found: str  # what the checkpoint says


@dataclass(frozen=True, slots=True)
class CheckpointReport:
    checkpoints: int
    events: int
    mismatches: list[CheckpointMismatch]

    @property
    def ok(self) -> bool:
        return not self.mismatches


def verify_checkpoints(
    conn: Connection[Any], trusted: Iterable[Checkpoint] = ()
) -> CheckpointReport:
    """Recompute the running hash from the first event and compare it with every stored
    checkpoint, and with ``trusted`` ones an auditor kept outside the database."""
    stored = stored_checkpoints(conn)
    mismatches: list[CheckpointMismatch] = []
    previous = 0
    for checkpoint in stored:
        if checkpoint.previous_position != previous:
            mismatches.append(
                CheckpointMismatch(
                    checkpoint.position,
                    "checkpoint does not extend the one before it",
                    str(previous),
                    str(checkpoint.previous_position),
                )
            )
        previous = checkpoint.position
    unique = {(c.position, c.event_count, c.hash): c for c in [*stored, *trusted]}
    targets = sorted(unique.values(), key=lambda c: c.position)
    running, count, index = ZERO_HASH, 0, 0

    def settle(before: int | None) -> None:
        # Compare every target at or below the events folded so far.
        nonlocal index
        while index < len(targets) and (before is None or targets[index].position < before):
            target = targets[index]
            if (target.hash, target.event_count) != (running, count):
                mismatches.append(
                    CheckpointMismatch(
                        target.position,
                        "the log up to this position no longer gives the checkpoint's hash",
                        f"{running} ({count} events)",
                        f"{target.hash} ({target.event_count} events)",
                    )
                )
            index += 1

    with conn.transaction():
        for position, recorded_at, digest in _event_hashes(conn, 0):
            settle(position)
            running, count = fold(running, position, recorded_at, digest), count + 1
    settle(None)
    return CheckpointReport(len(stored), count, mismatches)
