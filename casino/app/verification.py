"""The verification bundle of one round, read from the log itself (not the read models).

Events are read as raw rows and parsed the way the chain audit parses them, so ``data``
and ``metadata`` re-serialise to exactly the canonical bytes that were hashed (an
upcaster, if one is ever registered, must not change what the bundle proves). Both
streams are read in one statement, so at one moment: a deal is never in the round's
stream and missing from the shoe's.

The summary fields and the server seed are derived from the events by
``casino.audit.bundle.assemble``: the seed only from ``ShoeClosed``, so while the shoe
is live it cannot reach the bundle (invariant 7).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import psycopg

from casino.audit.bundle.assemble import assemble_bundle
from casino.audit.bundle.format import BundleCheckpoint, BundleEvent
from casino.domain.errors import NotFound
from casino.domain.streams import round_stream, shoe_stream
from casino.eventstore.canonical import parse_json

_SHOE_OF_ROUND = (
    "SELECT data->>'shoe_id' FROM events"
    " WHERE stream_id = %s AND version = 1 AND type = 'RoundOpened'"
)
_EVENTS = (
    "SELECT position, stream_id, version, type, schema_version, data::text, metadata::text,"
    " recorded_at, previous_hash, hash FROM events"
    " WHERE stream_id = ANY(%s) ORDER BY stream_id, version"
)
_CHECKPOINT = (
    "SELECT position, event_count, hash, created_at FROM log_checkpoints"
    " WHERE position >= %s ORDER BY position DESC LIMIT 1"
)


def round_bundle(connection: psycopg.Connection[Any], round_id: str) -> dict[str, Any]:
    """The bundle of ``round_id`` as JSON; ``NotFound`` when there is no such round."""
    row = connection.execute(_SHOE_OF_ROUND, (round_stream(round_id),)).fetchone()
    if row is None:
        raise NotFound("round_not_found", f"no round {round_id}", "round_id")
    shoe_id = row[0]
    round_stream_id, shoe_stream_id = round_stream(round_id), shoe_stream(shoe_id)
    rows = connection.execute(_EVENTS, ([round_stream_id, shoe_stream_id],)).fetchall()
    round_events = [_event(r) for r in rows if r[1] == round_stream_id]
    shoe_events = [_event(r) for r in rows if r[1] == shoe_stream_id]
    found = connection.execute(_CHECKPOINT, (round_events[-1].position,)).fetchone()
    checkpoint = (
        None if found is None else BundleCheckpoint(found[0], found[1], found[2], _iso(found[3]))
    )
    return assemble_bundle(
        round_id, round_stream_id, round_events, shoe_id, shoe_stream_id, shoe_events, checkpoint
    ).as_json()


def _iso(moment: datetime | None) -> str | None:
    return None if moment is None else moment.astimezone(UTC).isoformat(timespec="microseconds")


def _event(row: tuple[Any, ...]) -> BundleEvent:
    position, stream_id, version, event_type, schema_version, data, metadata = row[:7]
    return BundleEvent(
        stream_id=stream_id,
        version=version,
        position=position,
        type=event_type,
        schema_version=schema_version,
        data=parse_json(data),
        metadata=parse_json(metadata),
        recorded_at=_iso(row[7]) or "",
        previous_hash=row[8],
        hash=row[9],
    )
