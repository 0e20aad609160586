from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from casino.eventstore.canonical import ZERO_HASH, event_hash
from casino.eventstore.model import ConcurrencyError, IdempotencyRecord, NewEvent
from casino.eventstore.unit_of_work import UnitOfWork


def test_appends_to_one_stream_must_follow_each_other() -> None:
    uow = UnitOfWork()
    uow.append("s", 2, [NewEvent("A", {}), NewEvent("B", {})])
    with pytest.raises(ConcurrencyError) as refused:
        uow.append("s", 3, [NewEvent("C", {})])
    assert (refused.value.expected, refused.value.actual) == (3, 4)
    uow.append("s", 4, [NewEvent("C", {})])
    assert uow.first_expected_versions() == {"s": 2}


def test_the_chain_continues_across_appends_and_restarts_per_stream() -> None:
    uow = UnitOfWork()
    uow.append("s", 0, [NewEvent("A", {"n": 1})], {"actor": "x"})
    uow.append("t", 5, [NewEvent("B", {})])
    uow.append("s", 1, [NewEvent("C", {"n": 2})], {"actor": "y"})
    s_first, t_first, s_second = (batch[0] for batch in uow.chain({"s": ZERO_HASH, "t": "e" * 64}))
    assert (s_first.version, t_first.version, s_second.version) == (1, 6, 2)
    assert s_second.previous_hash == s_first.hash
    assert t_first.previous_hash == "e" * 64
    assert s_second.hash == event_hash(
        stream_id="s",
        version=2,
        event_type="C",
        schema_version=1,
        data={"n": 2},
        metadata={"actor": "y"},
        previous_hash=s_first.hash,
    )


@pytest.mark.parametrize(
    ("stream_id", "expected_version", "events"),
    [
        ("", 0, [NewEvent("A", {})]),
        ("s", -1, [NewEvent("A", {})]),
        ("s", 0, [NewEvent("", {})]),
        ("s", 0, [NewEvent("A", {}, schema_version=0)]),
        ("s", 0, [NewEvent(5, {})]),  # type: ignore[arg-type]  # hashed as 5, stored as "5"
        ("s", 0, [NewEvent(True, {})]),  # type: ignore[arg-type]
        ("s", 0, [NewEvent("A", {}, schema_version=True)]),
        ("s", 0, [NewEvent("A", {}, schema_version=Decimal(2))]),  # type: ignore[arg-type]
        ("s", 0, [NewEvent("A", {"at": object()})]),
        ("s", 0, [{"type": "A"}]),
    ],
)
def test_bad_appends_are_refused_at_once(
    stream_id: str, expected_version: int, events: list[Any]
) -> None:
    with pytest.raises((ValueError, TypeError)):
        UnitOfWork().append(stream_id, expected_version, events)


def test_an_empty_append_is_nothing() -> None:
    uow = UnitOfWork()
    uow.append("s", 7, [])
    assert uow.is_empty


def test_one_idempotency_record_per_unit() -> None:
    uow = UnitOfWork()
    record = IdempotencyRecord("cmd", "k", "f", {"ok": True}, 200)
    uow.save_idempotency(record)
    with pytest.raises(ValueError):
        uow.save_idempotency(record)
    with pytest.raises(ValueError):
        UnitOfWork().save_idempotency(IdempotencyRecord("cmd", "k", "f", {"x": {1}}, 200))


def test_recorded_is_only_there_after_the_commit() -> None:
    with pytest.raises(RuntimeError):
        _ = UnitOfWork().recorded
