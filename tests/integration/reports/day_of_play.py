"""A generated stretch of play across three gaming days: tables in two currencies, a
paytable changed mid-day, random wagers, rounds voided before the deal and a settled
round reversed by an admin. The clock is the test's, so each round's gaming day is
known."""

from __future__ import annotations

import random
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta

from casino.app.actors import Actor, Role
from casino.app.service import Casino
from casino.domain.rounds import SeatWager
from casino.domain.tables import OpenTable

ADMIN = Actor(Role.ADMIN, "finance-test-admin")
# 2026-11-20 04:00 in Malta (UTC+1): gaming day 2026-11-19 when days start at 06:00.
START = datetime(2026, 11, 20, 3, 0, tzinfo=UTC)
STEP = timedelta(minutes=23)


@dataclass
class Clock:
    now: datetime = START

    def __call__(self) -> datetime:
        return self.now

    def tick(self, by: timedelta = timedelta(seconds=5)) -> None:
        self.now += by


@dataclass(frozen=True)
class Played:
    tables: list[str]
    settled: list[str]
    voided: list[str]
    reversed: list[str]


def _table(table_id: str, currency: str, main: int, doubles: int, cut: int | None) -> OpenTable:
    return OpenTable(table_id=table_id, name=f"Table {table_id}", currency=currency, seats=7,
                     main_paytable=main, doubles_paytable=doubles, main_min=100,
                     main_max=50_000, doubles_min=100, doubles_max=5_000, cut_card=cut)  # fmt: skip


def play(casino: Casino, clock: Clock, rounds: int = 90, seed: int = 2026) -> Played:
    chance = random.Random(seed)
    layout = [_table("fin-eur-1", "EUR", 1, 2, None), _table("fin-eur-2", "EUR", 3, 1, 40),
              _table("fin-usd-1", "USD", 5, 4, None)]  # fmt: skip
    for table in layout:
        casino.open_table(table, ADMIN)
    players = {c: [f"fin-{c.lower()}-{n}" for n in range(5)] for c in ("EUR", "USD")}
    for currency, names in players.items():
        for name in names:
            casino.move_funds(name, currency, 50_000_000, "cage", True, ADMIN)
    settled: list[str] = []
    voided: list[str] = []
    for number in range(rounds):
        if number == rounds // 2:  # the first table's paytables change mid-stretch
            casino.reconfigure_table(replace(layout[0], main_paytable=2, doubles_paytable=3), ADMIN)
        table = layout[number % len(layout)]
        dealer = Actor(Role.TABLE, "dealer", frozenset({table.table_id}))
        round_id = casino.open_round(table.table_id, f"client-{number}", dealer).body["round_id"]
        seated = chance.sample(players[table.currency], chance.randint(1, 5))
        wagers = [
            SeatWager(seat, player, chance.randrange(100, 50_001, 25),
                      chance.choice((0, 0, 100, 250, 5_000)))
            for seat, player in enumerate(seated, start=1)
        ]  # fmt: skip
        clock.tick()
        casino.place_wagers(round_id, wagers, dealer)
        clock.tick()
        if number % 11 == 7:
            casino.void_round(round_id, "table malfunction: tiles dropped", dealer)
            voided.append(round_id)
        else:
            casino.deal(round_id, dealer)
            settled.append(round_id)
        clock.tick(STEP)
    reversed_rounds = [settled[3], settled[-4]]
    for round_id in reversed_rounds:
        casino.void_round(round_id, "dealer misread the connector; hand replayed", ADMIN)
    return Played([t.table_id for t in layout], settled, voided, reversed_rounds)
