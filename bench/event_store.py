"""Appends per second of a typical command, against a raw INSERT on the same database.

A typical command is one unit of work: three events appended to a stream (hash chain
computed) plus its idempotency record, committed once. The baseline is the cheapest
durable write there is: a single-row INSERT into a plain table, autocommit, prepared.
Both run in the same process, on the same database (fresh at the start), alternating in
short rounds so that a noisy machine hits both alike (the ratio's spread over the rounds
is printed too: how far one figure can be trusted); with 1 and with 8 concurrent writers
(threads, each with its own pooled connection). Goal: the command reaches at least 50% of the
baseline at 1 writer.

Beside them, in the same rounds: the rows a command writes (its idempotency record and
three events), written by hand in one statement, with no hash chain, no check of the
stream's head and no unit of work. About the most a command writing those rows could
reach; the distance from it to the command is the command's own work.

At 1 writer it also splits each operation's time into the writer's own CPU time, the
database backend's CPU time (read from /proc, when the server runs on this machine) and
the rest: waiting for the disk's flush and for each side to be woken. Both pay the same
flush; what separates them is the work around it.

The whole measurement repeats ``--repeat`` times (default 3), on the one database, which
grows: every run's figures are printed, the goal is judged on the median of the runs'
1-writer ratios (one run moves by a few points on a noisy machine), and the time split
covers all runs together.

    .venv/bin/python bench/event_store.py [--seconds 3] [--repeat 3]

Uses DATABASE_URL when set, otherwise an embedded Postgres in a temporary folder.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg
from psycopg import Connection
from psycopg_pool import ConnectionPool

sys.path.insert(0, str(Path(__file__).resolve().parent))

from support import fresh_database

from casino.db.connection import create_pool
from casino.eventstore import IdempotencyRecord, NewEvent
from casino.eventstore.batch import run_batch
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


@dataclass
class Tally:
    """Operations done, the writer threads' CPU time, the backends' CPU time (None when
    it cannot be read), and the wall time they took."""

    operations: int = 0
    writer_cpu: float = 0.0
    database_cpu: float | None = 0.0
    seconds: float = 0.0

    def add(self, other: Tally) -> None:
        self.operations += other.operations
        self.writer_cpu += other.writer_cpu
        if self.database_cpu is not None and other.database_cpu is not None:
            self.database_cpu += other.database_cpu
        else:
            self.database_cpu = None
        self.seconds += other.seconds


def on_this_machine(conn: Connection[Any]) -> bool:
    """Whether ``conn`` reaches its server over a Unix socket or the loopback: only then
    are its backends' pids this machine's processes."""
    host = conn.info.host
    return host.startswith("/") or host in ("localhost", "::1") or host.startswith("127.")


def backend_cpu(pids: list[int]) -> float | None:
    """CPU seconds the Postgres backends ``pids`` of a server on this machine have used,
    or None when one cannot be read as such (gone, or not a postgres process)."""
    if not pids:
        return None
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/comm") as comm, open(f"/proc/{pid}/schedstat") as stat:
                if comm.read().strip() != "postgres":
                    return None
                total += int(stat.read().split()[0])  # nanoseconds on a CPU
        except OSError:
            return None
    return total / 1e9


def run_writers(steps: list[Callable[[], None]], seconds: float, backends: list[int]) -> Tally:
    """What one thread per step function did until ``seconds`` had passed."""
    for step in steps:  # warm up: prepared statements, plans, cached stream heads
        for _ in range(20):
            step()
    counts = [0] * len(steps)
    cpu = [0.0] * len(steps)
    start = threading.Barrier(len(steps) + 1)
    deadline = 0.0

    def loop(i: int) -> None:
        start.wait()
        step, done, began = steps[i], 0, time.thread_time()
        while time.perf_counter() < deadline:
            step()
            done += 1
        counts[i], cpu[i] = done, time.thread_time() - began

    threads = [threading.Thread(target=loop, args=(i,)) for i in range(len(steps))]
    for thread in threads:
        thread.start()
    database_before = backend_cpu(backends)
    began = time.perf_counter()
    deadline = began + seconds
    start.wait()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - began
    database_after = backend_cpu(backends)
    database = (
        None
        if database_before is None or database_after is None
        else database_after - database_before
    )
    return Tally(sum(counts), sum(cpu), database, elapsed)


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
        # A random key, as clients send; made without a UUID object (the command is
        # handed its key: making one is not its work).
        record = IdempotencyRecord("wagers", os.urandom(16).hex(), "fingerprint", {"ok": 3}, 201)
        with store.transaction() as uow:
            uow.append(stream, version, events, {"actor": f"table-{writer}"})
            uow.save_idempotency(record)
        version += 3

    return step


# The rows a command writes, written by hand: its idempotency record and its three
# events in one statement (a data-modifying WITH, its own transaction), with fixed
# hashes, no check of the stream's head and no unit of work. Not a way to write the
# log (it skips what makes the log trustworthy), but about the most any command writing
# these rows could reach here: how much of the distance to the raw INSERT is the rows
# themselves, and how much the command's own work.
_ROWS = (
    "WITH record AS (INSERT INTO idempotency_keys (scope, key, fingerprint, response, status)"
    " VALUES ($1, $2, $3, $4::jsonb, $5))"
    " INSERT INTO events (stream_id, version, type, schema_version, data, metadata,"
    " previous_hash, hash) VALUES "
    + ", ".join(
        "(" + ", ".join(f"${5 + 8 * row + column}" for column in range(1, 9)) + ")"
        for row in range(3)
    )
)


def rows_step(conn: Connection[Any], writer: int) -> Callable[[], None]:
    stream = f"rows-{uuid.uuid4()}"
    version = 0
    digest = "ab" * 32
    metadata = f'{{"actor":"table-{writer}"}}'

    def step() -> None:
        nonlocal version
        values: list[Any] = []
        for seat in (1, 2, 3):
            data = f'{{"round":"{stream}","seat":{seat},"stake":2500}}'
            values += [stream, version + seat, "WagerPlaced", 1, data, metadata, digest, digest]
        record = ["wagers", os.urandom(16).hex(), "fingerprint", '{"ok":3}', 201]
        run_batch(conn, [(_ROWS, record + values)], 0)
        version += 3

    return step


def pooled_backends(pool: ConnectionPool[Connection[Any]], size: int) -> list[int]:
    """The backend pids of all ``size`` connections of ``pool``."""
    connections = [pool.getconn() for _ in range(size)]
    try:
        return [conn.info.backend_pid for conn in connections]
    finally:
        for conn in connections:
            pool.putconn(conn)


def rate(tally: Tally) -> float:
    return tally.operations / tally.seconds


def measure(url: str, writers: int, seconds: float) -> tuple[Tally, Tally, Tally, list[float]]:
    """(baseline INSERTs, the same rows by hand, commands, the command's ratio to the
    baseline in each round) with ``writers`` writers."""
    baseline, rows, command, ratios = Tally(), Tally(), Tally(), []
    with ExitStack() as stack:
        connections = [
            stack.enter_context(psycopg.connect(url, autocommit=True)) for _ in range(writers)
        ]
        by_hand = [
            stack.enter_context(psycopg.connect(url, autocommit=True)) for _ in range(writers)
        ]
        pool = stack.enter_context(create_pool(url, min_size=writers, max_size=writers))
        store = PostgresEventStore(pool)
        baseline_steps = [baseline_step(conn) for conn in connections]
        command_steps = [command_step(store, writer) for writer in range(writers)]
        rows_steps = [rows_step(conn, writer) for writer, conn in enumerate(by_hand)]
        local = on_this_machine(connections[0])  # else a pid may name any local process
        baseline_backends = [conn.info.backend_pid for conn in connections] if local else []
        command_backends = pooled_backends(pool, writers) if local else []
        rows_backends = [conn.info.backend_pid for conn in by_hand] if local else []
        for round_number in range(ROUNDS):
            # The command and the rows by hand take turns following the baseline.
            inserts = run_writers(baseline_steps, seconds / ROUNDS, baseline_backends)
            if round_number % 2:
                rows.add(run_writers(rows_steps, seconds / ROUNDS, rows_backends))
            commands = run_writers(command_steps, seconds / ROUNDS, command_backends)
            if not round_number % 2:
                rows.add(run_writers(rows_steps, seconds / ROUNDS, rows_backends))
            baseline.add(inserts)
            command.add(commands)
            ratios.append(rate(commands) / rate(inserts))
    return baseline, rows, command, ratios


def split(name: str, tally: Tally) -> str:
    """One operation's time at 1 writer, in microseconds: the writer's CPU, the
    database's CPU, and the rest."""
    per = 1e6 / tally.operations
    wall, writer = tally.seconds * per, tally.writer_cpu * per
    if tally.database_cpu is None:
        return f"{name:>12} {wall:>6.0f} {writer:>7.0f}        -        -"
    database = tally.database_cpu * per
    rest = wall - writer - database
    return f"{name:>12} {wall:>6.0f} {writer:>7.0f} {database:>8.0f} {rest:>8.0f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="per figure (default 3)")
    parser.add_argument(
        "--repeat", type=int, default=3,
        help="whole runs (default 3): one run's ratio moves by a few points on a noisy "
        "machine, so the verdict is on the median, with every run's ratio beside it",
    )  # fmt: skip
    args = parser.parse_args(argv)
    if args.repeat < 1 or args.seconds <= 0:
        parser.error("--repeat must be at least 1 and --seconds more than 0")
    with bench_database() as url:
        with psycopg.connect(url) as conn:
            version = conn.info.server_version
        print(
            f"Postgres {version // 10000}.{version % 10000}, {args.seconds:g} s per figure,"
            f" {args.repeat} run(s)"
        )
        print(
            f"{'run':>3} {'writers':>8} {'raw INSERT/s':>13} {'rows by hand/s':>14}"
            f" {'command/s':>10} {'events/s':>9} {'ratio':>6}  {'ratio by round (min-max)':>24}"
        )
        ratios: dict[int, list[float]] = {1: [], 8: []}
        at_one = (Tally(), Tally(), Tally())  # all runs' raw INSERTs, rows by hand, commands
        for run in range(1, args.repeat + 1):
            for writers, runs in ratios.items():
                baseline, rows, command, by_round = measure(url, writers, args.seconds)
                inserts, by_hand, commands = rate(baseline), rate(rows), rate(command)
                runs.append(commands / inserts)
                print(
                    f"{run:>3} {writers:>8} {inserts:>13,.0f}"
                    f" {by_hand:>8,.0f} ({by_hand / inserts:>3.0%})"
                    f" {commands:>10,.0f} {3 * commands:>9,.0f} {commands / inserts:>6.0%}"
                    f"  {min(by_round):>17.0%} - {max(by_round):.0%}"
                )
                if writers == 1:
                    for total, tally in zip(at_one, (baseline, rows, command), strict=True):
                        total.add(tally)
    for writers, runs in ratios.items():
        print(f"{writers} writer(s): ratio {summary(runs)}")
    print("one operation at 1 writer over all runs, in us (the rest: the disk's flush, wake-ups):")
    print(f"{'':>12} {'time':>6} {'writer':>7} {'database':>8} {'the rest':>8}")
    for name, tally in zip(("raw INSERT", "rows by hand", "command"), at_one, strict=True):
        print(split(name, tally))
    median = statistics.median(ratios[1])
    verdict = "met" if median >= GOAL else "missed"
    reached = sum(ratio >= GOAL for ratio in ratios[1])
    print(
        f"goal: command >= {GOAL:.0%} of the baseline at 1 writer: {verdict}"
        f" (median {median:.0%}; {reached} of {args.repeat} run(s) at or above)"
    )
    return 0


def summary(ratios: list[float]) -> str:
    """The median of the runs' ratios, and each run's."""
    each = ", ".join(f"{ratio:.0%}" for ratio in ratios)
    return f"median {statistics.median(ratios):.0%} (runs: {each})"


if __name__ == "__main__":
    sys.exit(main())
