from __future__ import annotations

import threading

import pytest

from casino.domain.errors import InvalidCommand
from casino.webhooks.fanout import fanout
from casino.webhooks.subscriptions import (
    create_subscription,
    deactivate_subscription,
    list_subscriptions,
)
from tests.integration.webhooks.scene import Fresh, Pool, expected, log, play, scalar

pytestmark = pytest.mark.integration
URL = "https://tables.example.com/hooks"


def enqueued(pool: Pool, subscription_id: str) -> list[int]:
    with pool.connection() as connection:
        rows = connection.execute(
            "SELECT position FROM webhook_deliveries WHERE subscription_id = %s ORDER BY position",
            (subscription_id,),
        ).fetchall()
    return [row[0] for row in rows]


def test_each_matching_event_is_enqueued_once_and_the_checkpoint_follows_the_log(
    fresh_casino: Fresh,
) -> None:
    casino, pool = fresh_casino
    play(casino, rounds=2)
    filters = [
        ((), ()),
        ((), ("T1",)),
        (("RoundSettled", "FundsDeposited"), ()),
        (("WagerPlaced", "StakeDebited", "TilesDealt", "FundsDeposited"), ("T2",)),
    ]
    with pool.connection() as connection:
        made = [create_subscription(connection, URL, t, tb, from_position=0) for t, tb in filters]
        first = fanout(connection, batch_size=7)  # many batches, and a partial last one
        again = fanout(connection, batch_size=7)
    events = log(pool)
    assert first.deliveries == sum(len(expected(events, t, tb)) for t, tb in filters)
    assert again.deliveries == 0
    for subscription, (types, tables) in zip(made, filters, strict=True):
        assert enqueued(pool, subscription["id"]) == [
            e.position for e in expected(events, types, tables)
        ], (types, tables)
        checkpoint = "SELECT last_position FROM webhook_subscriptions WHERE id = %s"
        assert scalar(pool, checkpoint, subscription["id"]) == events[-1].position
    # The table filter reaches events of other streams through their round or shoe.
    t2_types = {e.type for e in expected(events, filters[3][0], ("T2",))}
    assert t2_types == {"WagerPlaced", "StakeDebited", "TilesDealt"}


def test_a_new_subscription_gets_only_what_is_appended_after_it(fresh_casino: Fresh) -> None:
    casino, pool = fresh_casino
    play(casino, rounds=1)
    head = log(pool)[-1].position
    with pool.connection() as connection:
        subscription = create_subscription(connection, URL)
        assert subscription["last_position"] == head
        play(casino, ("T1",), rounds=1, new=False)
        fanout(connection)
    assert enqueued(pool, subscription["id"]) == [
        e.position for e in expected(log(pool), after=head)
    ]


def test_concurrent_fanouts_share_the_work_and_lose_or_double_nothing(fresh_casino: Fresh) -> None:
    casino, pool = fresh_casino
    play(casino, rounds=2)
    with pool.connection() as connection:
        made = [create_subscription(connection, URL, from_position=0) for _ in range(3)]
    errors: list[BaseException] = []

    def work() -> None:
        try:
            with pool.connection() as connection:
                fanout(connection, batch_size=1, max_batches=10_000)
        except BaseException as error:
            errors.append(error)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    everything = [e.position for e in log(pool)]
    for subscription in made:
        assert enqueued(pool, subscription["id"]) == everything


def test_an_inactive_subscription_is_not_fanned_out(fresh_casino: Fresh) -> None:
    casino, pool = fresh_casino
    play(casino, rounds=1)
    with pool.connection() as connection:
        kept = create_subscription(connection, URL, from_position=0)
        dropped = create_subscription(connection, URL, from_position=0)
        assert deactivate_subscription(connection, dropped["id"])["active"] is False
        assert deactivate_subscription(connection, dropped["id"])["active"] is False  # again
        report = fanout(connection)
        listed = {s["id"]: s for s in list_subscriptions(connection)}
    assert report.subscriptions == 1
    assert enqueued(pool, dropped["id"]) == []
    assert len(enqueued(pool, kept["id"])) == len(log(pool))
    assert "secret" not in listed[kept["id"]] and listed[dropped["id"]]["deactivated_at"]


def test_tables_and_positions_are_checked_against_the_log(fresh_casino: Fresh) -> None:
    casino, pool = fresh_casino
    play(casino, ("T1",), rounds=1)
    head = log(pool)[-1].position
    with pool.connection() as connection:
        with pytest.raises(InvalidCommand) as unknown:
            create_subscription(connection, URL, tables=["T1", "T9"])
        assert (unknown.value.code, unknown.value.field) == ("unknown_table", "tables[1]")
        with pytest.raises(InvalidCommand) as beyond:
            create_subscription(connection, URL, from_position=head + 1)
        assert beyond.value.field == "from_position"
        made = create_subscription(connection, URL, ["RoundSettled"], ["T1", "T1"])
    assert (made["tables"], made["event_types"]) == (["T1"], ["RoundSettled"])
