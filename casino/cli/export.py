"""``casino export hand-histories``: a player's or a table's hand histories of a period,
streamed as CSV or JSON lines to a file or to stdout, in constant memory.

A file is written beside its final name and renamed into place once complete, so a
failed export never leaves a file that looks whole.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable
from datetime import datetime
from pathlib import Path
from typing import BinaryIO

import psycopg

from casino.app.hand_histories.export import HandHistoryExport, export_chunks
from casino.app.hand_histories.formats import ExportFormat
from casino.bootstrap import resolve_database_url
from casino.cli.args import Parser, UsageError
from casino.config import Settings
from casino.domain.errors import InvalidCommand

_OPTIONS = {"player_id": "--player", "table_id": "--table", "from": "--from", "to": "--to"}


def add_parser(commands: argparse._SubParsersAction[Parser]) -> None:
    export = commands.add_parser("export", help="stream records out of the service")
    kinds = export.add_subparsers(dest="export_command", required=True, parser_class=Parser)
    hands = kinds.add_parser(
        "hand-histories",
        help="one row per seat of each played round opened in [--from, --to)",
    )
    subject = hands.add_mutually_exclusive_group(required=True)
    subject.add_argument("--player", metavar="ID", help="this player's seats")
    subject.add_argument("--table", metavar="ID", help="this table's rounds")
    for name, meaning in (("from", "at or after"), ("to", "before")):
        hands.add_argument(
            f"--{name}",
            dest=f"opened_{name}",
            required=True,
            type=_moment,
            metavar="ISO",
            help=f"rounds opened {meaning} this time, with its zone (e.g. 2024-06-01T00:00Z)",
        )
    hands.add_argument("--format", required=True, choices=[f.value for f in ExportFormat])
    hands.add_argument("--output", type=Path, metavar="FILE", help="default: stdout")
    hands.set_defaults(run=run_hand_histories)


def _moment(text: str) -> datetime:
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an ISO 8601 time: {text!r}") from None
    if moment.utcoffset() is None:
        raise argparse.ArgumentTypeError(f"give the time zone (e.g. Z or +02:00): {text!r}")
    return moment


def run_hand_histories(args: argparse.Namespace) -> int:
    try:
        export = HandHistoryExport(
            args.opened_from, args.opened_to, args.player, args.table, ExportFormat(args.format)
        )
    except InvalidCommand as error:
        raise UsageError(f"{_OPTIONS.get(error.field or '', '')}: {error.message}") from None
    url = resolve_database_url(Settings.from_environment())
    chunks = export_chunks(lambda: psycopg.connect(url, autocommit=True), export)
    if args.output is None:
        sys.stdout.flush()
        _write(chunks, sys.stdout.buffer)
        sys.stdout.buffer.flush()
    else:
        _write_file(chunks, args.output)
    return 0


def _write(chunks: Iterable[bytes], out: BinaryIO) -> None:
    for chunk in chunks:
        out.write(chunk)


def _write_file(chunks: Iterable[bytes], path: Path) -> None:
    partial = path.with_name(path.name + ".partial")
    try:
        out = partial.open("wb")
    except OSError as error:
        raise UsageError(f"--output: cannot write {path}: {error.strerror}") from None
    try:
        with out:
            _write(chunks, out)
        partial.replace(path)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
