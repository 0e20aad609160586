from __future__ import annotations

from datetime import UTC, datetime

import pytest

from casino.eventstore.canonical import ZERO_HASH
from casino.eventstore.model import JSONObject, RecordedEvent
from casino.eventstore.upcasting import UpcasterRegistry


def registry() -> UpcasterRegistry:
    upcasters = UpcasterRegistry()

    @upcasters.register("WagerPlaced", 1)
    def amount_to_minor_units(data: JSONObject) -> JSONObject:
        return {**{k: v for k, v in data.items() if k != "amount"}, "stake": data["amount"]}

    upcasters.add("WagerPlaced", 2, lambda data: {**data, "kind": data.get("kind", "main")})
    return upcasters


def recorded(schema_version: int, data: JSONObject) -> RecordedEvent:
    return RecordedEvent(
        1, "s", 1, "WagerPlaced", schema_version, data, {}, datetime.now(UTC), ZERO_HASH, "a" * 64
    )


def test_old_events_are_lifted_step_by_step_to_the_latest_schema() -> None:
    upcasters = registry()
    assert upcasters.latest_version("WagerPlaced") == 3
    assert upcasters.upcast("WagerPlaced", 1, {"amount": 5}) == (3, {"stake": 5, "kind": "main"})
    assert upcasters.upcast("WagerPlaced", 2, {"stake": 5, "kind": "doubles"}) == (
        3,
        {"stake": 5, "kind": "doubles"},
    )


def test_latest_events_and_other_types_pass_untouched() -> None:
    upcasters = registry()
    latest = recorded(3, {"stake": 1, "kind": "main"})
    assert upcasters.apply(latest) is latest
    assert upcasters.upcast("RoundOpened", 1, {"x": 1}) == (1, {"x": 1})
    assert upcasters.latest_version("RoundOpened") == 1


def test_applying_keeps_the_hash_of_the_event_as_written() -> None:
    event = recorded(1, {"amount": 7})
    lifted = registry().apply(event)
    assert (lifted.schema_version, lifted.data) == (3, {"stake": 7, "kind": "main"})
    assert (lifted.hash, lifted.previous_hash) == (event.hash, event.previous_hash)


def test_one_upcaster_per_step() -> None:
    upcasters = registry()
    with pytest.raises(ValueError):
        upcasters.add("WagerPlaced", 1, lambda data: data)
    with pytest.raises(ValueError):
        upcasters.add("WagerPlaced", 0, lambda data: data)
