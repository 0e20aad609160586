"""Rebuilding every read model from a log of N events (default 1,000,000).

The log is synthesised by the real domain decisions (tables, deposits, 6-seat rounds
dealt from real shoes, settlements, payouts), hash-chained as the store chains it, and
written straight into the events table with COPY. Then:

- baseline: reading every event in global order (the same server-side cursor), no work;
- rebuild with replace (the first one fills the live read models);
- rebuild with compare (replay, load, compare row for row with the live ones).

Goal: at least 50,000 events per second.

    .venv/bin/python bench/rebuild.py [--events 1000000]
"""

from __future__ import annotations

import argparse
import json
import resource
import secrets
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

import psycopg

sys.path.insert(0, str(Path(__file__).resolve().parent))

from support import fresh_database

from casino.domain import accounts, rounds, shoes, tables
from casino.domain.events import DomainEvent, RoundStarted, ShoeStarted, encode
from casino.domain.streams import (
    account_stream,
    round_stream,
    shoe_stream,
    table_stream,
)
from casino.eventstore.canonical import ZERO_HASH, canonical_json, chain_hash
from casino.game.shoe import shuffle
from casino.readmodels.rebuild import _events, rebuild

GOAL = 50_000
SEATS = 6


class SyntheticLog:
    """Events as the store would write them: versions and a true hash chain per stream."""

    def __init__(self) -> None:
        self.heads: dict[str, tuple[int, str]] = {}
        self.rows: list[tuple[object, ...]] = []
        metadata = {"actor": "bench", "at": datetime.now(UTC).isoformat()}
        self.metadata, self.metadata_json = json.dumps(metadata), canonical_json(metadata)

    def emit(self, stream: str, events: list[DomainEvent]) -> None:
        for event in events:
            version, previous = self.heads.get(stream, (0, ZERO_HASH))
            version += 1
            data = encode(event)
            digest = chain_hash(
                stream_id=stream, version=version, event_type=event.TYPE, schema_version=1,
                data_json=canonical_json(data), metadata_json=self.metadata_json,
                previous_hash=previous,
            )  # fmt: skip
            self.heads[stream] = (version, digest)
            self.rows.append(
                (stream, version, event.TYPE, 1, json.dumps(data), self.metadata, previous, digest)
            )


def synthesise(target: int) -> SyntheticLog:
    log = SyntheticLog()
    players = [f"player-{n}" for n in range(SEATS * 4)]
    balances = {}
    for player in players:
        deposit = accounts.deposit(accounts.AccountState(player, "EUR", 0), 10**12, "bench")
        log.emit(account_stream(player, "EUR"), [deposit])
        balances[player] = accounts.AccountState(player, "EUR", deposit.balance_after)
    table_ids = [f"table-{n}" for n in range(4)]
    configs = {}
    for table_id in table_ids:
        command = tables.OpenTable(table_id, table_id, "EUR", SEATS, 1, 1, 100, 10**6, 100, 10**5)
        opened = tables.decide_open_table(command, None)
        log.emit(table_stream(table_id), opened)
        configs[table_id] = opened[0]
    number = 0
    while len(log.rows) < target:
        number += 1
        table_id = table_ids[number % len(table_ids)]
        config = configs[table_id]
        seed = secrets.token_bytes(32)
        shoe_id, round_id = f"shoe-{number}", f"round-{number}"
        shoe_opened = shoes.open_shoe(shoe_id, table_id, seed, "bench", number)
        log.emit(shoe_stream(shoe_id), [shoe_opened])
        log.emit(
            table_stream(table_id), [ShoeStarted(table_id=table_id, shoe_id=shoe_id, nonce=number)]
        )
        shoe = shoes.ShoeState(opened=shoe_opened)
        round_opened = rounds.open_round(round_id, config, number, shoe)  # type: ignore[arg-type]
        log.emit(round_stream(round_id), [round_opened])
        log.emit(
            table_stream(table_id),
            [
                RoundStarted(
                    table_id=table_id, round_id=round_id, round_number=number, shoe_id=shoe_id
                )
            ],
        )
        seated = players[(number * SEATS) % len(players) :][:SEATS] or players[:SEATS]
        wagers = [rounds.SeatWager(s + 1, p, 500, 100) for s, p in enumerate(seated)]
        state = rounds.fold_round([round_opened])
        assert state is not None
        placed, debits = rounds.decide_wagers(state, wagers, balances)
        log.emit(round_stream(round_id), placed)
        for debit in debits:
            log.emit(account_stream(debit.player_id, "EUR"), [debit])
            balances[debit.player_id] = accounts.AccountState(
                debit.player_id, "EUR", debit.balance_after
            )
        state = rounds.fold_round([round_opened, *placed])
        assert state is not None
        decision = rounds.decide_deal(state, shoe, shuffle(seed, "bench", number), balances)
        log.emit(round_stream(round_id), decision.round_events)
        after = shoes.evolve_shoe(shoe, decision.tiles_dealt)
        assert after is not None
        log.emit(shoe_stream(shoe_id), [decision.tiles_dealt, shoes.close_shoe(after, seed)])
        for payout in decision.payouts:
            log.emit(account_stream(payout.player_id, "EUR"), [payout])
            balances[payout.player_id] = accounts.AccountState(
                payout.player_id, "EUR", payout.balance_after
            )
    return log


def write(url: str, log: SyntheticLog) -> None:
    with psycopg.connect(url) as conn, conn.cursor() as cursor:
        columns = "stream_id, version, type, schema_version, data, metadata, previous_hash, hash"
        with cursor.copy(f"COPY events ({columns}) FROM STDIN") as copy:
            for row in log.rows:
                copy.write_row(row)


def read_all(url: str) -> int:
    with psycopg.connect(url, autocommit=True) as conn, conn.transaction():
        return sum(1 for _ in _events(conn))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=1_000_000)
    args = parser.parse_args()
    start = time.perf_counter()
    log = synthesise(args.events)
    print(f"synthesised {len(log.rows):,} events in {time.perf_counter() - start:.1f} s")
    with fresh_database() as url:
        start = time.perf_counter()
        write(url, log)
        print(f"written with COPY in {time.perf_counter() - start:.1f} s")
        del log
        start = time.perf_counter()
        count = read_all(url)
        baseline = time.perf_counter() - start
        print(
            f"baseline, reading every event in order:  {count / baseline:>9,.0f} events/s "
            f"({baseline:.1f} s)"
        )
        with psycopg.connect(url, autocommit=True) as conn:
            start = time.perf_counter()
            rebuilt = rebuild(conn, replace=True)
            seconds = time.perf_counter() - start
            print(
                f"rebuild (replay, load, make live):  {rebuilt.events / seconds:>9,.0f} events/s"
                f" ({seconds:.1f} s)   goal >= {GOAL:,}/s"
            )
            start = time.perf_counter()
            compared = rebuild(conn)
            seconds = time.perf_counter() - start
            print(
                f"verify (replay, load, compare):     {compared.events / seconds:>9,.0f} events/s"
                f" ({seconds:.1f} s)   equal={compared.equal}"
            )
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak memory of this process: {peak:,.0f} MiB")


if __name__ == "__main__":
    main()
