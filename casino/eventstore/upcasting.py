"""Event schema evolution: old events are upcast when read, never rewritten.

The log is append-only, so an event keeps the schema version it was written with.
Each upcaster lifts one event type from schema version ``n`` to ``n + 1``; reading
applies them in a row, so callers only ever see the latest schema of every type.
The hash chain stays over the bytes as written (``verify`` reads the raw rows).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from casino.eventstore.model import JSONObject, RecordedEvent

Upcaster = Callable[[JSONObject], JSONObject]


class UpcasterRegistry:
    """Upcasters by ``(event type, schema version they read)``."""

    def __init__(self) -> None:
        self._upcasters: dict[tuple[str, int], Upcaster] = {}

    def add(self, event_type: str, from_version: int, upcaster: Upcaster) -> None:
        """Register ``upcaster`` turning ``event_type`` data of ``from_version`` into
        ``from_version + 1``."""
        if from_version < 1:
            raise ValueError("schema versions start at 1")
        key = (event_type, from_version)
        if key in self._upcasters:
            raise ValueError(f"an upcaster for {event_type} v{from_version} is already registered")
        self._upcasters[key] = upcaster

    def register(self, event_type: str, from_version: int) -> Callable[[Upcaster], Upcaster]:
        """Decorator form of ``add``."""

        def decorate(upcaster: Upcaster) -> Upcaster:
            self.add(event_type, from_version, upcaster)
            return upcaster

        return decorate

    def latest_version(self, event_type: str) -> int:
        """The schema version readers of ``event_type`` see: one past its last upcaster."""
        version = 1
        while (event_type, version) in self._upcasters:
            version += 1
        return version

    def upcast(
        self, event_type: str, schema_version: int, data: JSONObject
    ) -> tuple[int, JSONObject]:
        """``(latest schema version, data in it)`` for data written at ``schema_version``."""
        while (upcaster := self._upcasters.get((event_type, schema_version))) is not None:
            data = upcaster(data)
            schema_version += 1
        return schema_version, data

    def apply(self, event: RecordedEvent) -> RecordedEvent:
        """``event`` as readers see it: its data in the latest schema of its type."""
        if (event.type, event.schema_version) not in self._upcasters:
            return event
        schema_version, data = self.upcast(event.type, event.schema_version, event.data)
        return dataclasses.replace(event, schema_version=schema_version, data=data)
