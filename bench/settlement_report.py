"""A settlement report over N settled rounds (default 1,000,000).

The rounds' read model is filled as the projection fills it: a few thousand rounds are
dealt from real shoes, settled by the game core and projected by the live projection
(RoundOpened, WagerPlaced, RoundSettled); their rows are then repeated in SQL under new
round ids, spread over two weeks of gaming days at 20 tables. One round in a hundred is
reversed by an admin and one in two hundred voided before the deal.

Measured in the same run:
- baseline: the least a report must do, one pass summing handle and payouts;
- the report in JSON, CSV and PDF (reading, laying out and rendering).

Goal: under 10 seconds for the report over 1,000,000 settled rounds.

    .venv/bin/python bench/settlement_report.py [--rounds 1000000]
"""

from __future__ import annotations

import argparse
import random
import secrets
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import psycopg
from psycopg import sql

sys.path.insert(0, str(Path(__file__).resolve().parent))

from support import fresh_database

from casino.domain.events import RoundOpened, RoundSettled, WagerPlaced, encode
from casino.domain.gaming_day import GamingDayRule, resolve_period
from casino.domain.rounds import settle_seat
from casino.game.deal import deal_round
from casino.game.shoe import shuffle
from casino.readmodels.apply_memory import MemoryReadModels
from casino.readmodels.changes import TABLE_COLUMNS
from casino.readmodels.projection import Fact, project
from casino.reports.documents import render
from casino.reports.settlement import settlement_report

GOAL_SECONDS = 10.0
SAMPLES = 4_000
TABLES = 20
START = datetime(2026, 11, 1, 6, 0, tzinfo=UTC)
SPAN = timedelta(days=14)
RULE = GamingDayRule(6, "UTC")


def sample_rows(count: int, chance: random.Random) -> list[dict[str, Any]]:
    """Rounds dealt from real shoes, settled and projected as in play."""
    models = MemoryReadModels()
    for number in range(count):
        table = number % TABLES
        opened = RoundOpened(
            round_id=f"sample-{number}", table_id=f"bench-table-{table:02d}",
            round_number=number, shoe_id=f"shoe-{number}", commitment="0" * 64, currency="EUR",
            seats=7, main_paytable=1 + table % 5, doubles_paytable=1 + table % 4, main_min=100,
            main_max=100_000, doubles_min=100, doubles_max=10_000,
        )  # fmt: skip
        seats = sorted(chance.sample(range(1, 8), chance.randint(1, 7)))
        wagers = [
            WagerPlaced(opened.round_id, seat, f"player-{chance.randrange(500)}",
                        chance.randrange(100, 20_001, 50), chance.choice((0, 0, 100, 500)))
            for seat in seats
        ]  # fmt: skip
        order = shuffle(secrets.token_bytes(32), "bench", number)
        dealt = [
            {"seat": d.seat, "hand": list(d.hand), "connector": d.connector}
            for d in deal_round(order, 0, seats)
        ]
        results = [settle_seat(w, d, opened) for w, d in zip(wagers, dealt, strict=True)]
        settled = RoundSettled(
            opened.round_id, results, sum(r["main_stake"] + r["doubles_stake"] for r in results),
            sum(r["main_payout"] + r["doubles_payout"] for r in results),
        )  # fmt: skip
        for version, event in enumerate([opened, *wagers, settled], start=1):
            fact = Fact(f"round-{opened.round_id}", version, event.TYPE, encode(event), START)
            models.apply(project(fact))
    return list(models.tables["rm_rounds"].values())


def fill(url: str, rounds: int) -> None:
    columns = TABLE_COLUMNS["rm_rounds"]
    samples = sample_rows(SAMPLES, random.Random(7))
    step = SPAN / rounds
    with psycopg.connect(url, autocommit=True) as connection:
        connection.execute("CREATE TABLE bench_samples (LIKE rm_rounds)")
        copy_sql = sql.SQL("COPY bench_samples ({}) FROM STDIN").format(
            sql.SQL(", ").join(map(sql.Identifier, columns))
        )
        with connection.cursor() as cursor, cursor.copy(copy_sql) as copy:
            for row in samples:
                copy.write_row([row[c] for c in columns])
        connection.execute("ALTER TABLE bench_samples ADD COLUMN sample serial")
        chosen: dict[str, sql.Composable] = {c: sql.Identifier("s", c) for c in columns}
        chosen |= {
            "round_id": sql.SQL("'bench-' || g"),
            "round_number": sql.SQL("g"),
            "opened_at": sql.SQL("{start} + (g * {step}) - interval '30 seconds'").format(
                start=sql.Literal(START), step=sql.Literal(step)),
            "closed_at": sql.SQL("{start} + (g * {step})").format(
                start=sql.Literal(START), step=sql.Literal(step)),
        }  # fmt: skip
        connection.execute(
            sql.SQL(
                "INSERT INTO rm_rounds ({cols}) SELECT {values} FROM generate_series(1, {n}) g"
                " JOIN bench_samples s ON s.sample = 1 + g % {samples}"
            ).format(
                cols=sql.SQL(", ").join(map(sql.Identifier, columns)),
                values=sql.SQL(", ").join(chosen[c] for c in columns),
                n=sql.Literal(rounds),
                samples=sql.Literal(SAMPLES),
            )
        )
        connection.execute(
            "UPDATE rm_rounds SET status = 'reversed', adjusted_at = closed_at + interval '1 hour',"
            " adjusted_by = 'admin:ops', adjustment_reason = 'dealer error', refunded = handle,"
            " reclaimed = payouts WHERE round_number % 100 = 0"
        )
        # Voided before the deal: a copy of one round in 200, never settled.
        voided: dict[str, sql.Composable] = {c: sql.Identifier(c) for c in columns}
        voided |= {
            "round_id": sql.SQL("round_id || '-void'"),
            "status": sql.Literal("voided"),
            "adjusted_at": sql.Identifier("closed_at"),
            "adjusted_by": sql.Literal("table:dealer"),
            "adjustment_reason": sql.Literal("tiles dropped"),
            "refunded": sql.Identifier("handle"),
            "reclaimed": sql.Literal(0),
            "payouts": sql.Literal(0),
            "main_payouts": sql.Literal(0),
            "doubles_payouts": sql.Literal(0),
            "totals": sql.SQL("NULL"),
        }
        connection.execute(
            sql.SQL("INSERT INTO rm_rounds ({cols}) SELECT {values} FROM rm_rounds"
                    " WHERE round_number % 200 = 1").format(
                cols=sql.SQL(", ").join(map(sql.Identifier, columns)),
                values=sql.SQL(", ").join(voided[c] for c in columns),
            )
        )  # fmt: skip
        connection.execute("DROP TABLE bench_samples")
        connection.execute("VACUUM ANALYZE rm_rounds")


def timed(action: Any) -> tuple[float, Any]:
    started = time.perf_counter()
    result = action()
    return time.perf_counter() - started, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=1_000_000)
    args = parser.parse_args()
    with fresh_database() as url:
        seconds, _ = timed(lambda: fill(url, args.rounds))
        print(f"filled {args.rounds:,} settled rounds in {seconds:.1f} s")
        period = resolve_period("2026-11-01", "2026-11-15", RULE)
        with psycopg.connect(url, autocommit=True) as connection:
            baseline, row = timed(lambda: connection.execute(
                "SELECT count(*), sum(handle), sum(payouts) FROM rm_rounds"
                " WHERE status IN ('settled', 'reversed') AND closed_at >= %s AND closed_at < %s",
                (period.start, period.end),
            ).fetchone())  # fmt: skip
            print(f"baseline (one summing pass): {baseline:.2f} s for {row[0]:,} rounds")
            for format_name in ("json", "csv", "pdf"):
                seconds, document = timed(lambda f=format_name: render(
                    settlement_report(connection, period, RULE, None, "b" * 32), f
                ))  # fmt: skip
                verdict = "met" if seconds < GOAL_SECONDS else "MISSED"
                print(f"report as {format_name}: {seconds:.2f} s ({len(document.content):,} bytes)"
                      f"; goal < {GOAL_SECONDS:.0f} s: {verdict}")  # fmt: skip
            report = settlement_report(connection, period, RULE, None, "b" * 32)
            totals = report["currencies"][0]["totals"]
            print(f"rounds {totals['rounds']:,}, handle {totals['handle']:,}, hold "
                  f"{totals['hold_pct']} % against {totals['theoretical_hold_pct']} %, z "
                  f"{totals['z_score']}, corrections {totals['corrections']:,}")  # fmt: skip


if __name__ == "__main__":
    main()
