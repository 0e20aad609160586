"""``casino odds``: exact odds of every paytable, for a fresh or a depleted shoe."""

from __future__ import annotations

import argparse
import json
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from casino.cli.args import Parser, UsageError
from casino.game.odds import FRESH_SHOE, BetOdds, OddsReport, odds_report, shoe_without_faces
from casino.game.paytables import DOUBLES_PAYTABLES, MAIN_PAYTABLES, Paytable
from casino.game.tiles import parse_face


def add_parser(commands: argparse._SubParsersAction[Parser]) -> None:
    parser = commands.add_parser("odds", help="exact odds, return and house edge of every paytable")
    parser.add_argument("--json", action="store_true", help="print JSON instead of tables")
    parser.add_argument(
        "--removed",
        metavar="FACES",
        help="faces gone from a fresh shoe, comma separated, e.g. 6-6,3-6,2-3 (each at most twice)",
    )
    parser.set_defaults(run=run)


def parse_removed(text: str) -> list[int]:
    items = text.split(",")
    if any(not item.strip() for item in items):
        raise UsageError(f"--removed: malformed list {text!r} (expected faces like 6-6,3-6)")
    try:
        return [parse_face(item) for item in items]
    except ValueError as error:
        raise UsageError(f"--removed: {error}") from None


def run(args: argparse.Namespace) -> int:
    counts = FRESH_SHOE
    if args.removed is not None:
        try:
            counts = shoe_without_faces(parse_removed(args.removed))
        except ValueError as error:
            raise UsageError(f"--removed: {error}") from None
    report = odds_report(counts)
    if args.json:
        print(json.dumps(report.as_json(), indent=2))
    else:
        print(render(report))
    return 0


def _percent(value: Fraction) -> str:
    return f"{float(value) * 100:9.5f}%"


def _one_in(value: Fraction) -> str:
    return f"1 in {float(1 / value):,.1f}" if value else "never"


def render(report: OddsReport) -> str:
    lines = [f"Exact odds for the next hand from a shoe of {report.tiles_in_shoe} tiles", ""]
    lines += _section("Main wager: point total", "total", report.main, MAIN_PAYTABLES)
    lines.append("")
    lines += _section("Doubles side wager: event", "event", report.doubles, DOUBLES_PAYTABLES)
    return "\n".join(lines)


def _section(
    title: str,
    label: str,
    odds: Mapping[int, BetOdds[Any]],
    paytables: Mapping[int, Paytable[Any]],
) -> list[str]:
    numbers = list(paytables)
    width = 15
    lines = [
        f"{title}, probability, pays (X to 1) by paytable",
        f"{label:>{width}} {'probability':>12} {'odds':>16}"
        + "".join(f"{'PT' + str(n):>7}" for n in numbers),
    ]
    for outcome, probability in odds[numbers[0]].probabilities.items():
        pays = "".join(f"{paytables[n].odds_for(outcome) or 'lose'!s:>7}" for n in numbers)
        lines.append(
            f"{outcome!s:>{width}} {_percent(probability):>12} {_one_in(probability):>16}{pays}"
        )
    rtp = "".join(f"{float(odds[n].rtp) * 100:>6.2f}%" for n in numbers)
    edge = "".join(f"{float(odds[n].house_edge) * 100:>6.2f}%" for n in numbers)
    lines.append(f"{'return (RTP)':<{width + 30}}{rtp}")
    lines.append(f"{'house edge':<{width + 30}}{edge}")
    return lines
