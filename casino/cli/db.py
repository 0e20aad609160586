"""``casino db``: migrations, and rebuilding the read models from the log."""

from __future__ import annotations

import argparse
import json

import psycopg

from casino.app.upcasters import UPCASTERS
from casino.bootstrap import resolve_database_url
from casino.cli.args import Parser
from casino.config import Settings
from casino.db.migrations import status, upgrade
from casino.readmodels.rebuild import rebuild


def add_parser(commands: argparse._SubParsersAction[Parser]) -> None:
    db = commands.add_parser("db", help="the database: migrations and read models")
    db_commands = db.add_subparsers(dest="db_command", required=True)
    db_commands.add_parser(
        "upgrade", help="apply pending migrations (sql/NNNN_*.sql)"
    ).set_defaults(run=run_upgrade)
    db_commands.add_parser("status", help="list applied and pending migrations").set_defaults(
        run=run_status
    )
    rebuild_parser = db_commands.add_parser(
        "rebuild", help="replay the log into every read model and compare with the live ones"
    )
    rebuild_parser.add_argument(
        "--replace", action="store_true", help="make the rebuilt read models live"
    )
    rebuild_parser.add_argument("--json", action="store_true", help="print JSON")
    rebuild_parser.set_defaults(run=run_rebuild)


def run_upgrade(args: argparse.Namespace) -> int:
    applied = upgrade(resolve_database_url(Settings.from_environment()))
    for migration in applied:
        print(f"applied {migration.version:04d}_{migration.name}")
    if not applied:
        print("up to date")
    return 0


def run_status(args: argparse.Namespace) -> int:
    report = status(resolve_database_url(Settings.from_environment()))
    for done in report.applied:
        print(f"applied  {done.version:04d}_{done.name}  {done.applied_at.isoformat()}")
    for pending in report.pending:
        print(f"pending  {pending.version:04d}_{pending.name}")
    for modified in report.modified:
        print(f"MODIFIED {modified.version:04d}_{modified.name} (changed since it was applied)")
    return 1 if report.modified else 0


def run_rebuild(args: argparse.Namespace) -> int:
    url = resolve_database_url(Settings.from_environment())
    with psycopg.connect(url, autocommit=True) as connection:
        report = rebuild(connection, replace=args.replace, upcasters=UPCASTERS)
    if args.json:
        print(
            json.dumps(
                {
                    "events": report.events,
                    "equal": report.equal,
                    "replaced": report.replaced,
                    "tables": [
                        {
                            "table": t.table,
                            "live_rows": t.live_rows,
                            "rebuilt_rows": t.rebuilt_rows,
                            "differing_rows": t.differing_rows,
                            "equal": t.equal,
                        }
                        for t in report.tables
                    ],
                }
            )
        )
    else:
        print(f"replayed {report.events} events")
        for t in report.tables:
            verdict = "equal" if t.equal else f"DIFFERS ({t.differing_rows} rows)"
            print(f"  {t.table:<18} live {t.live_rows:>9}  rebuilt {t.rebuilt_rows:>9}  {verdict}")
        if report.replaced:
            print("the rebuilt read models are now live; run `casino db rebuild` to compare")
    return 0 if report.equal or report.replaced else 1
