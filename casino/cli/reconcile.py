"""``casino reconcile``: cross-check the whole log and the money; exit 1 on any finding."""

from __future__ import annotations

import argparse
import json
from datetime import timedelta

from casino.bootstrap import open_database
from casino.cli.args import Parser
from casino.reconcile.run import DEFAULT_STUCK_AGE, reconcile


def add_parser(commands: argparse._SubParsersAction[Parser]) -> None:
    parser = commands.add_parser(
        "reconcile", help="replay the log, check the ledger, wagers, payouts and hash chains"
    )
    parser.add_argument(
        "--stuck-minutes",
        type=float,
        default=DEFAULT_STUCK_AGE.total_seconds() / 60,
        help="a round still open after this long is reported (default %(default)s)",
    )
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    database = open_database(pool_size=2)
    try:
        with database.pool.connection() as connection:
            outcome = reconcile(connection, database.store, timedelta(minutes=args.stuck_minutes))
    finally:
        database.close()
    summary = outcome.as_json()
    if args.json:
        print(json.dumps(summary, default=str))
    else:
        print(f"reconciliation {outcome.run_id}: {'clean' if outcome.clean else 'FINDINGS'}")
        for check in summary["checks"]:
            verdict = "ok" if check["ok"] else f"{check['findings']} finding(s)"
            print(f"  {check['name']:<13} examined {check['examined']:>9}  {verdict}")
        for finding in summary["findings"]:
            print(f"  - {finding['check']}: {finding['subject']}")
            print(f"      expected {finding['expected']}")
            print(f"      found    {finding['found']}")
    return 0 if outcome.clean else 1
