"""The ``casino`` console script."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from casino import __version__
from casino.cli import audit, db, export, keys, odds, reconcile, report, shoe, up, webhooks
from casino.cli.args import Parser, UsageError, fail


def build_parser() -> Parser:
    parser = Parser(prog="casino", description="Casino Dominoes backend")
    parser.add_argument("--version", action="version", version=f"casino {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=Parser)
    odds.add_parser(commands)
    shoe.add_parser(commands)
    db.add_parser(commands)
    keys.add_parser(commands)
    up.add_parser(commands)
    reconcile.add_parser(commands)
    webhooks.add_parser(commands)
    audit.add_parser(commands)
    export.add_parser(commands)
    report.add_parser(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        status: int = args.run(args)
    except UsageError as error:
        fail(str(error))
    except BrokenPipeError:  # the reader (e.g. `| head`) went away: not an error of ours
        sys.stderr.close()
        return 0
    return status


if __name__ == "__main__":
    sys.exit(main())
