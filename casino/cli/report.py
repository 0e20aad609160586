"""``casino report settlement``: a settlement report for casino finance, made here (not
by the workers) and kept with the others; the document goes to a file or stdout."""

from __future__ import annotations

import argparse
import getpass
import sys
import uuid
from pathlib import Path

from casino.bootstrap import open_database
from casino.cli.args import Parser, UsageError
from casino.config import Settings
from casino.domain.errors import DomainError
from casino.reports.documents import FORMATS
from casino.reports.make import SettlementRequest, make_settlement_report
from casino.reports.store import report_content

_OPTIONS = {"table_id": "--table", "from": "--from", "to": "--to", "format": "--format"}


def add_parser(commands: argparse._SubParsersAction[Parser]) -> None:
    report = commands.add_parser("report", help="reports for casino finance")
    kinds = report.add_subparsers(dest="report_kind", required=True)
    settlement = kinds.add_parser(
        "settlement",
        help="handle, payouts, win and hold against the theoretical, per gaming day, table "
        "and paytable",
    )
    settlement.add_argument(
        "--from", dest="from_text", required=True, metavar="WHEN",
        help="a gaming day (YYYY-MM-DD, from its start) or an ISO date and time",
    )  # fmt: skip
    settlement.add_argument(
        "--to", dest="to_text", required=True, metavar="WHEN",
        help="a gaming day (YYYY-MM-DD, to its end) or an ISO date and time (exclusive)",
    )  # fmt: skip
    settlement.add_argument("--table", metavar="TABLE_ID", help="one table only")
    settlement.add_argument("--format", choices=FORMATS, default="json")
    settlement.add_argument(
        "--output", "-o", metavar="FILE", help="write the document here (default: stdout)"
    )
    settlement.set_defaults(run=run_settlement)


def run_settlement(args: argparse.Namespace) -> int:
    settings = Settings.from_environment()
    request = SettlementRequest(args.from_text, args.to_text, args.table, args.format)
    try:
        request.check(settings.gaming_day)
    except DomainError as error:
        raise UsageError(f"{_OPTIONS.get(error.field or '', '--from')}: {error.message}") from None
    if args.format == "pdf" and args.output is None and sys.stdout.isatty():
        raise UsageError("--format pdf: give --output FILE (a PDF is not for the terminal)")
    database = open_database(settings, pool_size=1)
    try:
        with database.pool.connection() as connection:
            report_id = uuid.uuid4().hex
            stored = make_settlement_report(
                connection, request, settings.gaming_day, report_id, f"cli:{getpass.getuser()}"
            )
            content = report_content(connection, report_id) or b""
    finally:
        database.close()
    if args.output is None:
        sys.stdout.buffer.write(content)
        sys.stdout.buffer.flush()
    else:
        Path(args.output).write_bytes(content)
    made = stored.made
    assert made is not None
    print(f"report {report_id}: {made.size} bytes, sha256 {made.sha256}", file=sys.stderr)
    return 0
