"""``casino shoe verify --bundle FILE``: check a round's verification bundle offline.

Exit status: 0 every check passed, 1 a check failed (a live shoe's bundle too: its
seed is not revealed yet), 2 the file cannot be read or is not JSON.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from casino.audit.bundle.checks import verify_bundle
from casino.audit.bundle.report import BundleReport, Status
from casino.cli.args import UsageError
from casino.eventstore.canonical import parse_json

_MARKS = {Status.PASS: "PASS", Status.FAIL: "FAIL", Status.SKIPPED: "skip"}


def run_bundle(path: str, as_json: bool) -> int:
    report = verify_bundle(_read(path))
    print(json.dumps(report.as_json(), indent=2) if as_json else _text(report))
    return 0 if report.verified else 1


def _read(path: str) -> Any:
    """The bundle's JSON, parsed so that its numbers re-hash exactly as recorded."""
    try:
        raw = sys.stdin.buffer.read() if path == "-" else Path(path).read_bytes()
    except OSError as error:
        raise UsageError(f"--bundle: cannot read {path}: {error.strerror}") from None
    try:
        return parse_json(raw)
    except (ValueError, UnicodeDecodeError, RecursionError) as error:
        raise UsageError(f"--bundle: {path} is not JSON: {error}") from None


def _text(report: BundleReport) -> str:
    lines = [f"verification bundle of round {report.round_id}, shoe {report.shoe_id}"]
    checkpoint = report.checkpoint
    if checkpoint is not None:
        lines.append(
            f"checkpoint: log position {checkpoint.position} ({checkpoint.event_count} events),"
            f" hash {checkpoint.hash} (context: compare it with a checkpoint you kept)"
        )
    lines.append("")
    width = max(len(check.name) for check in report.checks)
    lines += [
        f"{_MARKS[check.status]}  {check.name:<{width}}  {check.detail}" for check in report.checks
    ]
    lines.append("")
    failed = report.failed
    if failed:
        names = ", ".join(check.name for check in failed)
        lines.append(f"NOT VERIFIED: {len(failed)} check(s) failed: {names}")
    else:
        lines.append("VERIFIED: every check passed")
    return "\n".join(lines)
