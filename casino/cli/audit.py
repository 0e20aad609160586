"""``casino audit``: the RNG audit (exit 1 when any check fails) and the raw-output export.

The audit modules are imported when a command runs: they pull in scipy, which would
otherwise slow the start of every ``casino`` command by most of a second.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING

import psycopg

from casino.audit import SIGNIFICANCE
from casino.bootstrap import resolve_database_url
from casino.cli.args import Parser, UsageError
from casino.config import Settings

if TYPE_CHECKING:
    from casino.audit.rng import RngAudit


def add_parser(commands: argparse._SubParsersAction[Parser]) -> None:
    audit = commands.add_parser("audit", help="audits of the shoes' RNG")
    audit_commands = audit.add_subparsers(dest="audit_command", required=True)
    rng = audit_commands.add_parser(
        "rng", help="verify every closed shoe and test the shuffle statistically across shoes"
    )
    rng.add_argument(
        "--significance",
        type=float,
        default=SIGNIFICANCE,
        help="each test fails below this p-value (default %(default)s)",
    )
    rng.add_argument("--json", action="store_true", help="print JSON")
    rng.set_defaults(run=run_rng)
    export = audit_commands.add_parser(
        "export-rng",
        help="write closed shoes' raw RNG words (32-bit big-endian) for NIST SP 800-22 or"
        " Dieharder",
    )
    export.add_argument("--out", required=True, type=Path, metavar="FILE", help="binary output")
    export.add_argument(
        "--words-per-shoe",
        type=int,
        metavar="N",
        help="the first N words of each shoe's stream (default: the words its shuffle consumed)",
    )
    export.set_defaults(run=run_export)


def run_rng(args: argparse.Namespace) -> int:
    from casino.audit.rng import audit_rng  # noqa: PLC0415 (scipy: see the module's note)

    if not 0 < args.significance < 1:
        raise UsageError(f"--significance: between 0 and 1, got {args.significance}")
    url = resolve_database_url(Settings.from_environment())
    with psycopg.connect(url, autocommit=True) as connection:
        audit = audit_rng(connection, args.significance)
    if args.json:
        print(json.dumps(audit.as_json()))
    else:
        _print_audit(audit)
    return 0 if audit.ok else 1


def _print_audit(audit: RngAudit) -> None:
    print(f"RNG audit: {'ok' if audit.ok else 'FAILED'} (significance {audit.significance:g})")
    print(
        f"  shoes: {audit.shoes_closed} closed, {audit.shoes_verified} verified,"
        f" {audit.shoes_failed} failed, {audit.shoes_open} still open; {audit.hands} hands"
    )
    for failure in audit.failures:
        where = "" if failure.first_mismatch is None else f" at position {failure.first_mismatch}"
        print(f"  - shoe {failure.shoe_id}: {', '.join(p.reason for p in failure.problems)}{where}")
    for test in audit.tests:
        if test.p_value is None:
            print(f"  {test.name:<30} {test.status.value:<17} {test.note}")
            continue
        degrees = "" if test.degrees_of_freedom is None else f" df {test.degrees_of_freedom}"
        figures = f"statistic {test.statistic:.4g}{degrees} p {test.p_value:.4g}"
        print(f"  {test.name:<30} {test.status.value:<17} {figures}")
        sizes = ", ".join(f"{what} {count}" for what, count in test.sample_size.items())
        print(f"  {'':<30} {test.binning}; {sizes}")


def run_export(args: argparse.Namespace) -> int:
    from casino.audit.export import export_rng  # noqa: PLC0415 (as above)

    if args.words_per_shoe is not None and args.words_per_shoe < 1:
        raise UsageError(f"--words-per-shoe: at least 1, got {args.words_per_shoe}")
    url = resolve_database_url(Settings.from_environment())
    with psycopg.connect(url, autocommit=True) as connection:
        summary = export_rng(connection, args.out, args.words_per_shoe)
    which = (
        "the words each shuffle consumed"
        if summary.words_per_shoe is None
        else f"the first {summary.words_per_shoe} words of each stream"
    )
    print(f"wrote {summary.words} words ({summary.bytes} bytes) of {summary.shoes} shoes")
    print(f"  to {args.out}")
    print(f"  {which}; 32-bit big-endian, no header; sha256 {summary.sha256}")
    if summary.skipped:
        print(f"  skipped {summary.skipped} shoe(s) whose output cannot be re-derived")
    return 0
