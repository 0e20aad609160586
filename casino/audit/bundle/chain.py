"""One stream's hash chain, recomputed from a bundle's events alone.

The hash itself is the event log's own (``casino.eventstore.canonical.event_hash``), so
the bundle is checked by exactly the function that chained the events when they were
written. Like ``casino.eventstore.verify``, it reports the first bad event only: every
hash after it chains onto a value already shown to be wrong.
"""

from __future__ import annotations

from collections.abc import Sequence

from casino.audit.bundle.format import BundleEvent
from casino.eventstore.canonical import ZERO_HASH, event_hash


def chain_break(events: Sequence[BundleEvent], stream_id: str) -> str | None:
    """Why ``events`` are not the whole stream ``stream_id`` from version 1, or None."""
    if not events:
        return f"{stream_id}: no events"
    previous_hash, last_position = ZERO_HASH, 0
    for version, event in enumerate(events, start=1):
        where = f"{stream_id} version {event.version} (log position {event.position})"
        if event.stream_id != stream_id:
            return f"{where}: belongs to stream {event.stream_id!r}"
        if event.version != version:
            return f"{where}: version {version} was due: an event is missing or moved"
        if event.position <= last_position:
            return f"{where}: position out of order within the stream (after {last_position})"
        if event.previous_hash != previous_hash:
            return (
                f"{where}: previous_hash does not link to the previous event"
                f" (expected {previous_hash}, found {event.previous_hash})"
            )
        try:
            computed = event_hash(
                stream_id=event.stream_id,
                version=event.version,
                event_type=event.type,
                schema_version=event.schema_version,
                data=event.data,
                metadata=event.metadata,
                previous_hash=event.previous_hash,
            )
        except ValueError as error:  # not canonical JSON (e.g. an integer beyond 2**53)
            return f"{where}: cannot be hashed canonically: {error}"
        if computed != event.hash:
            return (
                f"{where}: hash does not match the event's content"
                f" (computed {computed}, found {event.hash})"
            )
        previous_hash, last_position = event.hash, event.position
    return None
