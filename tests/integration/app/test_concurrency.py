from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest
from psycopg import Connection
from psycopg_pool import ConnectionPool

from casino.app.actors import Actor, Role
from casino.app.queries import Queries
from casino.app.service import Casino
from casino.domain.errors import RuleViolation
from casino.domain.rounds import SeatWager

pytestmark = pytest.mark.integration


def race(*actions: Callable[[], Any]) -> list[Any]:
    """Run the actions at once (released together by a barrier); results or exceptions."""
    barrier = threading.Barrier(len(actions))
    results: list[Any] = [None] * len(actions)

    def run(index: int, action: Callable[[], Any]) -> None:
        barrier.wait()
        try:
            results[index] = action()
        except Exception as error:  # the test inspects what each racer met
            results[index] = error

    threads = [threading.Thread(target=run, args=(i, a)) for i, a in enumerate(actions)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


def test_concurrent_wagers_all_land_once_and_racing_deals_settle_once(
    casino: Casino,
    pool: ConnectionPool[Connection[Any]],
    new_table: Callable[..., str],
    funded_player: Callable[..., str],
) -> None:
    table_id = new_table()
    key = Actor(Role.TABLE, "dealer", frozenset({table_id}))
    shared = funded_player(7 * 1_000)  # exactly enough for seven 1,000 wagers
    round_id = casino.open_round(table_id, "", key).body["round_id"]

    # Seven seats wagered at once by one player, plus a second racer for every seat.
    attempts = [
        (lambda seat=seat: casino.place_wagers(round_id, [SeatWager(seat, shared, 1_000)], key))
        for seat in range(1, 8)
    ] * 2
    results = race(*attempts)
    landed = [r for r in results if not isinstance(r, Exception)]
    refused = [r for r in results if isinstance(r, Exception)]
    assert len(landed) == 7
    assert all(isinstance(r, RuleViolation) and r.code == "seat_taken" for r in refused), refused

    deals = race(*[lambda: casino.deal(round_id, key) for _ in range(4)])
    winners = [d for d in deals if not isinstance(d, Exception)]
    assert len(winners) == 1
    assert all(
        isinstance(d, RuleViolation) and d.code == "betting_closed"
        for d in deals
        if d not in winners
    )

    with pool.connection() as conn:
        types = [
            row[0]
            for row in conn.execute(
                "SELECT type FROM events WHERE stream_id = %s ORDER BY version",
                (f"round-{round_id}",),
            )
        ]
        assert types.count("WagerPlaced") == 7
        assert types.count("RoundSettled") == 1
        paid = sum(h["main"]["payout"] for h in winners[0].body["hands"])
        balance = Queries(conn).player(shared)["balances"][0]["balance"]
        assert balance == paid
        debits = conn.execute(
            "SELECT count(*), sum(amount) FROM events e, LATERAL (SELECT (data->>'amount')::bigint"
            " AS amount) a WHERE stream_id = %s AND type = 'StakeDebited'",
            (f"account-EUR-{shared}",),
        ).fetchone()
        assert debits == (7, 7_000)
        versions = [
            r[0]
            for r in conn.execute(
                "SELECT version FROM events WHERE stream_id = %s ORDER BY version",
                (f"account-EUR-{shared}",),
            )
        ]
        assert versions == list(range(1, len(versions) + 1))


def test_concurrent_wagers_never_overdraw_a_balance(
    casino: Casino,
    pool: ConnectionPool[Connection[Any]],
    new_table: Callable[..., str],
    funded_player: Callable[..., str],
) -> None:
    table_id = new_table()
    key = Actor(Role.TABLE, "dealer", frozenset({table_id}))
    player = funded_player(3_500)
    round_id = casino.open_round(table_id, "", key).body["round_id"]
    results = race(
        *[
            (lambda seat=seat: casino.place_wagers(round_id, [SeatWager(seat, player, 1_000)], key))
            for seat in range(1, 8)
        ]
    )
    landed = [r for r in results if not isinstance(r, Exception)]
    assert len(landed) == 3
    assert all(
        isinstance(r, RuleViolation) and r.code == "insufficient_funds"
        for r in results
        if isinstance(r, Exception)
    )
    with pool.connection() as conn:
        assert Queries(conn).player(player)["balances"][0]["balance"] == 500
