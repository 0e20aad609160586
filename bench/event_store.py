"""Appends per second of a typical command, against a raw INSERT on the same database.

A typical command is one unit of work: three events appended to a stream (hash chain
computed) plus its idempotency record, committed once. The baseline is the cheapest
durable write there is: a single-row INSERT into a plain table, autocommit, prepared.
Both run in the same process, on the same fresh database, alternating in short rounds
so that a noisy machine hits both alike; with 1 and with 8 concurrent writers (threads,
each with its own pooled connection). Goal: the command reaches at least 50% of the
baseline at 1 writer.

    .venv/bin/python bench/event_store.py [--seconds 3]

Uses DATABASE_URL when set, otherwise an embedded Postgres in a temporary folder.
"""

from __future__ import annotations

import argparse
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import psycopg
from psycopg import Connection

sys.path.insert(0, str(Path(__file__).resolve().parent))

from support import fresh_database

from casino.db.connection import create_pool
from casino.eventstore import IdempotencyRecord, NewEvent
from casino.eventstore.postgres import PostgresEventStore

GOAL = 0.5
ROUNDS = 6  # alternations of baseline and command per figure, against drift


@contextmanager
def bench_database() -> Iterator[str]:
    """A fresh, migrated database with the baseline's plain table, dropped afterwards."""
    with fresh_database() as url:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(
                "CREATE TABLE bench_baseline ("
                " id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, payload text NOT NULL)"
            )
        yield url


def run_writers(steps: list[Callable[[], None]], seconds: float) -> int:
    """Operations done by one thread per step function until ``seconds`` have passed."""
    for step in steps:  # warm up: prepared statements, plans, cached stream heads
        for _ in range(20):
            step()
    counts = [0] * len(steps)
    start = threading.Barrier(len(steps) + 1)
    deadline = 0.0

    def loop(i: int) -> None:
        start.wait()
        step, done = steps[i], 0
        while time.perf_counter() < deadline:
            step()
            done += 1
        counts[i] = done

    threads = [threading.Thread(target=loop, args=(i,)) for i in range(len(steps))]
    for thread in threads:
        thread.start()
    deadline = time.perf_counter() + seconds
    start.wait()
    for thread in threads:
        thread.join()
    return sum(counts)


def baseline_step(conn: Connection[Any]) -> Callable[[], None]:
    payload = "x" * 120

    def step() -> None:
        conn.execute("INSERT INTO bench_baseline (payload) VALUES (%s)", (payload,), prepare=True)

    return step


def command_step(store: PostgresEventStore, writer: int) -> Callable[[], None]:
    stream = f"round-{uuid.uuid4()}"
    version = 0

    def step() -> None:
        nonlocal version
        events = [
            NewEvent("WagerPlaced", {"round": stream, "seat": seat, "stake": 2500})
            for seat in (1, 2, 3)
        ]
        record = IdempotencyRecord("wagers", uuid.uuid4().hex, "fingerprint", {"ok": 3}, 201)
        with store.transaction() as uow:
            uow.append(stream, version, events, {"actor": f"table-{writer}"})
            uow.save_idempotency(record)
        version += 3

    return step


def measure(url: str, writers: int, seconds: float) -> tuple[float, float]:
    """(baseline INSERTs per second, commands per second) with ``writers`` writers."""
    baseline = command = 0
    with ExitStack() as stack:
        connections = [
            stack.enter_context(psycopg.connect(url, autocommit=True)) for _ in range(writers)
        ]
        pool = stack.enter_context(create_pool(url, min_size=writers, max_size=writers))
        store = PostgresEventStore(pool)
        baseline_steps = [baseline_step(conn) for conn in connections]
        command_steps = [command_step(store, writer) for writer in range(writers)]
        for _ in range(ROUNDS):
            baseline += run_writers(baseline_steps, seconds / ROUNDS)
            command += run_writers(command_steps, seconds / ROUNDS)
    return baseline / seconds, command / seconds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="per figure (default 3)")
    args = parser.parse_args(argv)
    with bench_database() as url:
        with psycopg.connect(url) as conn:
            version = conn.info.server_version
        print(f"Postgres {version // 10000}.{version % 10000}, {args.seconds:g} s per figure")
        print(f"{'writers':>8} {'raw INSERT/s':>13} {'command/s':>10} {'events/s':>9} {'ratio':>6}")
        ratios = {}
        for writers in (1, 8):
            baseline, command = measure(url, writers, args.seconds)
            ratios[writers] = command / baseline
            print(
                f"{writers:>8} {baseline:>13,.0f} {command:>10,.0f} {3 * command:>9,.0f}"
                f" {ratios[writers]:>6.0%}"
            )
    verdict = "met" if ratios[1] >= GOAL else "missed"
    print(f"goal: command >= {GOAL:.0%} of the baseline at 1 writer: {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
