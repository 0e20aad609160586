"""Reconciliation of a log of N events: time, and peak memory at two log sizes.

Each size gets a fresh database filled by a loader process (the synthesised log of
bench/rebuild.py, its read models made live); then a separate, fresh process runs the
whole reconciliation and reports its time and peak memory, so the figure is the
reconciliation's own. Peak memory must not grow with the log: every check streams.
Baseline, measured in the same run: reading every event of the log in order.

    .venv/bin/python bench/reconcile.py [--events 1000000]
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

import psycopg

sys.path.insert(0, str(Path(__file__).resolve().parent))

from rebuild import read_all, synthesise, write
from support import fresh_database

from casino.db.connection import create_pool
from casino.eventstore.postgres import PostgresEventStore
from casino.readmodels.rebuild import rebuild
from casino.reconcile.run import reconcile


def load(url: str, events: int) -> None:
    log = synthesise(events)
    write(url, log)
    del log
    with psycopg.connect(url, autocommit=True) as conn:
        rebuild(conn, replace=True)


def measure(url: str) -> dict[str, float]:
    start = time.perf_counter()
    count = read_all(url)
    baseline = time.perf_counter() - start
    pool = create_pool(url, max_size=2)
    start = time.perf_counter()
    with pool.connection() as conn:
        outcome = reconcile(conn, PostgresEventStore(pool))
    seconds = time.perf_counter() - start
    pool.close()
    return {
        "events": count,
        "baseline_seconds": baseline,
        "seconds": seconds,
        "clean": outcome.clean,
        "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def child(*arguments: str) -> str:
    result = subprocess.run(
        [sys.executable, __file__, *arguments], check=True, capture_output=True, text=True
    )
    return result.stdout.strip().splitlines()[-1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--load", nargs=2, metavar=("URL", "EVENTS"), help=argparse.SUPPRESS)
    parser.add_argument("--measure", metavar="URL", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.load:
        load(args.load[0], int(args.load[1]))
        print("loaded")
        return
    if args.measure:
        print(json.dumps(measure(args.measure)))
        return
    for size in (args.events // 4, args.events):
        with fresh_database() as url:
            child("--load", url, str(size))
            figures = json.loads(child("--measure", url))
        print(
            f"{figures['events']:>9,} events: reconciliation {figures['seconds']:6.1f} s"
            f" ({figures['events'] / figures['seconds']:,.0f} events/s), peak memory"
            f" {figures['peak_mib']:,.0f} MiB, clean={figures['clean']};"
            f" baseline, reading the log: {figures['baseline_seconds']:.1f} s"
        )


if __name__ == "__main__":
    main()
