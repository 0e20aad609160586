"""The contract every EventStore keeps: run against Postgres and the in-memory store."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from psycopg import Connection
from psycopg_pool import ConnectionPool

from casino.eventstore import (
    ConcurrencyError,
    EventStore,
    IdempotencyConflict,
    IdempotencyRecord,
    IdempotentReplay,
    JSONObject,
    NewEvent,
    UpcasterRegistry,
)
from casino.eventstore.canonical import ZERO_HASH, event_hash
from casino.eventstore.memory import InMemoryEventStore
from casino.eventstore.postgres import PostgresEventStore


def upcasters() -> UpcasterRegistry:
    registry = UpcasterRegistry()
    registry.add("Renamed", 1, lambda data: {"new_name": data["old_name"]})
    return registry


@pytest.fixture(params=["memory", pytest.param("postgres", marks=pytest.mark.integration)])
def store(request: pytest.FixtureRequest) -> EventStore:
    if request.param == "memory":
        return InMemoryEventStore(upcasters=upcasters())
    pool: ConnectionPool[Connection[Any]] = request.getfixturevalue("pool")
    return PostgresEventStore(pool, upcasters=upcasters())


def new_stream() -> str:
    return f"test-{uuid.uuid4()}"


def events(*types: str) -> list[NewEvent]:
    return [NewEvent(t, {"type": t, "n": i}) for i, t in enumerate(types)]


def test_appended_events_read_back_in_order_and_chained(store: EventStore) -> None:
    stream = new_stream()
    data: JSONObject = {"text": "ünïcode ✓", "nested": {"list": [1, 2.5, None, True]}}
    recorded = store.append(stream, 0, [NewEvent("A", data), *events("B", "C")], {"actor": "t"})
    assert store.read_stream(stream) == recorded
    assert [e.version for e in recorded] == [1, 2, 3]
    assert recorded[0].data == data
    assert all(e.metadata == {"actor": "t"} for e in recorded)
    positions = [e.position for e in recorded]
    assert positions == sorted(positions) and len(set(positions)) == 3
    previous = ZERO_HASH
    for event in recorded:
        assert event.previous_hash == previous
        assert event.hash == event_hash(
            stream_id=stream,
            version=event.version,
            event_type=event.type,
            schema_version=event.schema_version,
            data=event.data,
            metadata=event.metadata,
            previous_hash=previous,
        )
        previous = event.hash


def test_any_text_goes_in_and_comes_back_as_it_was(store: EventStore) -> None:
    # The Postgres store sends stream ids as array literals and events as JSON: quotes,
    # backslashes, braces, commas, blanks and the word NULL must all arrive as they are.
    awkward = 'a "quoted", {braced} \\ back\\slashed NULL \t tab ünï ✓ '
    stream = f"{new_stream()} {awkward}"
    data: JSONObject = {awkward: [awkward, '\\"', "}", "{", ",", "NULL", ""]}
    recorded = store.append(stream, 0, [NewEvent(f"Odd {awkward}", data)], {"actor": awkward})
    assert store.read_stream(stream) == recorded
    (event,) = recorded
    assert (event.stream_id, event.type, event.data) == (stream, f"Odd {awkward}", data)
    assert event.metadata == {"actor": awkward}
    assert event.hash == event_hash(
        stream_id=stream,
        version=1,
        event_type=event.type,
        schema_version=1,
        data=data,
        metadata={"actor": awkward},
        previous_hash=ZERO_HASH,
    )


def test_versions_continue_across_appends(store: EventStore) -> None:
    stream = new_stream()
    assert store.stream_version(stream) == 0
    first = store.append(stream, 0, events("A", "B"))
    second = store.append(stream, 2, events("C"))
    assert store.stream_version(stream) == 3
    assert second[0].previous_hash == first[-1].hash
    assert [e.type for e in store.read_stream(stream, after_version=1)] == ["B", "C"]
    assert store.read_stream(stream, after_version=3) == []


@pytest.mark.parametrize("expected", [0, 1, 3])
def test_a_stale_or_future_expected_version_is_refused_and_writes_nothing(
    store: EventStore, expected: int
) -> None:
    stream = new_stream()
    store.append(stream, 0, events("A", "B"))
    with pytest.raises(ConcurrencyError) as refused:
        store.append(stream, expected, events("X"))
    assert (refused.value.stream_id, refused.value.expected, refused.value.actual) == (
        stream,
        expected,
        2,
    )
    assert [e.type for e in store.read_stream(stream)] == ["A", "B"]


def test_read_all_is_the_global_log_in_position_order(store: EventStore) -> None:
    before = store.read_all(0, limit=1_000_000)
    start = before[-1].position if before else 0
    one, two = new_stream(), new_stream()
    store.append(one, 0, events("A"))
    store.append(two, 0, events("B", "C"))
    store.append(one, 1, events("D"))
    feed = store.read_all(start)
    assert [(e.stream_id, e.type) for e in feed] == [(one, "A"), (two, "B"), (two, "C"), (one, "D")]
    assert store.read_all(start, limit=2) == feed[:2]
    assert store.read_all(feed[1].position) == feed[2:]


def test_a_unit_of_work_spans_streams_and_commits_once(store: EventStore) -> None:
    round_id, player = new_stream(), new_stream()
    store.append(player, 0, events("Deposited"))
    with store.transaction() as uow:
        uow.append(round_id, 0, events("RoundOpened", "WagerPlaced"))
        uow.append(player, 1, events("Staked"))
        uow.append(round_id, 2, events("BettingClosed"))
    assert [e.stream_id for e in uow.recorded] == [round_id, round_id, player, round_id]
    positions = [e.position for e in uow.recorded]
    assert positions == sorted(positions) and len(set(positions)) == 4
    assert store.stream_version(round_id) == 3
    assert store.stream_version(player) == 2


def test_a_unit_of_work_with_one_stale_stream_writes_nothing(store: EventStore) -> None:
    round_id, player = new_stream(), new_stream()
    store.append(player, 0, events("Deposited"))
    with pytest.raises(ConcurrencyError) as refused, store.transaction() as uow:
        uow.append(round_id, 0, events("RoundOpened"))
        uow.append(player, 0, events("Staked"))  # stale: the player is at 1
    assert refused.value.stream_id == player
    assert store.read_stream(round_id) == []
    assert store.stream_version(player) == 1


def test_a_stream_only_read_is_checked_with_the_appends(store: EventStore) -> None:
    # A decision may rest on a stream it does not append to (a table's configuration, a
    # losing player's balance): the unit commits only while that stream is unchanged.
    round_id, table, player = new_stream(), new_stream(), new_stream()
    store.append(table, 0, events("TableOpened"))
    with store.transaction() as uow:
        uow.expect(table, 1)
        uow.expect(player, 0)  # a stream with no events yet
        uow.append(round_id, 0, events("RoundOpened"))
    assert store.stream_version(round_id) == 1

    store.append(table, 1, events("TableReconfigured"))  # moves on under the reader
    with pytest.raises(ConcurrencyError) as refused, store.transaction() as uow:
        uow.expect(table, 1)
        uow.append(round_id, 1, events("WagerPlaced"))
    assert (refused.value.stream_id, refused.value.expected, refused.value.actual) == (
        table,
        1,
        2,
    )
    assert store.stream_version(round_id) == 1


def test_a_unit_that_only_reads_is_checked_all_the_same(store: EventStore) -> None:
    stream = new_stream()
    store.append(stream, 0, events("A", "B"))
    with store.transaction() as uow:
        uow.expect(stream, 2)
    assert uow.recorded == []
    with pytest.raises(ConcurrencyError), store.transaction() as uow:
        uow.expect(stream, 1)


def test_a_stream_appended_to_must_expect_the_version_its_append_continues(
    store: EventStore,
) -> None:
    stream = new_stream()
    with pytest.raises(ValueError, match="expected at version 1"), store.transaction() as uow:
        uow.expect(stream, 1)
        uow.append(stream, 0, events("A"))
    with pytest.raises(ValueError, match="expected at version 0"), store.transaction() as uow:
        uow.append(stream, 0, events("A"))
        uow.expect(stream, 1)
    assert store.stream_version(stream) == 0
    with store.transaction() as uow:
        uow.expect(stream, 0)
        uow.append(stream, 0, events("A"))
    assert store.stream_version(stream) == 1


def test_an_exception_inside_the_block_writes_nothing(store: EventStore) -> None:
    stream = new_stream()
    with pytest.raises(RuntimeError), store.transaction() as uow:
        uow.append(stream, 0, events("A"))
        raise RuntimeError("the domain changed its mind")
    assert store.stream_version(stream) == 0


def test_an_idempotent_retry_gets_the_first_answer_and_appends_nothing(
    store: EventStore,
) -> None:
    stream, key = new_stream(), str(uuid.uuid4())
    first = IdempotencyRecord("wagers", key, "body-1", {"wager": 1, "seat": [3]}, 201)
    store.append(stream, 0, events("WagerPlaced"), idempotency=first)
    found = store.find_idempotent("wagers", key)
    assert found == first and found.created_at is not None
    assert store.find_idempotent("deals", key) is None

    with pytest.raises(IdempotentReplay) as replay:
        store.append(stream, 1, events("WagerPlaced"), idempotency=first)
    assert replay.value.record == first

    other_body = IdempotencyRecord("wagers", key, "body-2", {"wager": 2}, 201)
    with pytest.raises(IdempotencyConflict):
        store.append(stream, 1, events("WagerPlaced"), idempotency=other_body)
    assert store.stream_version(stream) == 1


def test_an_idempotency_record_can_be_saved_without_events(store: EventStore) -> None:
    key = str(uuid.uuid4())
    with store.transaction() as uow:
        uow.save_idempotency(IdempotencyRecord("wagers", key, "f", {"error": "limit"}, 422))
    assert uow.recorded == []
    found = store.find_idempotent("wagers", key)
    assert found is not None and (found.status, found.response) == (422, {"error": "limit"})


def test_old_schema_versions_are_upcast_when_read(store: EventStore) -> None:
    stream = new_stream()
    [written] = store.append(stream, 0, [NewEvent("Renamed", {"old_name": "x"}, 1)])
    [read] = store.read_stream(stream)
    assert (read.schema_version, read.data) == (2, {"new_name": "x"})
    assert read == written
    assert read.hash == event_hash(
        stream_id=stream,
        version=1,
        event_type="Renamed",
        schema_version=1,
        data={"old_name": "x"},
        metadata={},
        previous_hash=ZERO_HASH,
    )


def test_callers_never_share_state_with_the_log(store: EventStore) -> None:
    stream = new_stream()
    data: JSONObject = {"items": [1]}
    [recorded] = store.append(stream, 0, [NewEvent("A", data)])
    data["items"].append(2)
    recorded.data["items"].append(3)
    assert store.read_stream(stream)[0].data == {"items": [1]}


def test_read_latest_gives_the_head_and_the_latest_event_of_each_type(store: EventStore) -> None:
    busy, quiet, missing = new_stream(), new_stream(), new_stream()
    renamed = NewEvent("Renamed", {"old_name": "x"})
    store.append(busy, 0, [*events("Opened", "Moved", "Moved"), renamed, *events("Moved")])
    store.append(busy, 5, events("Closed"))
    store.append(quiet, 0, events("Opened"))
    tails = store.read_latest([busy, quiet, missing], ["Opened", "Moved", "Renamed"])
    assert tails[busy].version == 6
    assert [(e.type, e.version) for e in tails[busy].events] == [
        ("Opened", 1),
        ("Renamed", 4),
        ("Moved", 5),
    ]
    assert tails[busy].events[1].data == {"new_name": "x"}  # upcast, as every read is
    assert (tails[quiet].version, [e.version for e in tails[quiet].events]) == (1, [1])
    assert (tails[missing].version, tails[missing].events) == (0, [])
    last = store.read_latest([busy, missing])
    assert [(e.type, e.version) for e in last[busy].events] == [("Closed", 6)]
    assert last[busy].events == store.read_stream(busy)[-1:]
    assert (last[missing].version, last[missing].events) == (0, [])
