"""``casino shoe verify``: re-derive a shoe from its revealed seed, or check a round's
verification bundle offline (``--bundle``), for auditors."""

from __future__ import annotations

import argparse
import json

from casino.cli.args import Parser, UsageError
from casino.cli.bundle import run_bundle
from casino.game.shoe import ALGORITHM, commitment_of, parse_server_seed, shuffle
from casino.game.tiles import face_index_of_tile, face_text, set_of_tile

_HEX_DIGITS = frozenset("0123456789abcdef")


def add_parser(commands: argparse._SubParsersAction[Parser]) -> None:
    shoe = commands.add_parser("shoe", help="shoe tools for auditors")
    shoe_commands = shoe.add_subparsers(dest="shoe_command", required=True)
    verify = shoe_commands.add_parser(
        "verify",
        help=f"re-derive a shoe's commitment and deal order ({ALGORITHM}), or check a "
        "round's verification bundle",
    )
    verify.add_argument(
        "--bundle",
        metavar="FILE",
        help="check a round's verification bundle offline ('-': standard input) instead",
    )
    verify.add_argument("--server-seed", metavar="HEX", help="64 hex digits")
    verify.add_argument("--client-seed", metavar="S", help="may be empty")
    verify.add_argument("--nonce", metavar="N", help="the shoe's sequence number")
    verify.add_argument("--commitment", metavar="HEX", help="the commitment published before play")
    verify.add_argument("--json", action="store_true", help="print JSON")
    verify.set_defaults(run=run_verify)


def _parse_nonce(text: str) -> int:
    if not text.isascii() or not text.isdigit():
        raise UsageError(f"--nonce: a non-negative integer, got {text!r}")
    return int(text)


def _parse_commitment(text: str) -> str:
    lowered = text.strip().lower()
    if len(lowered) != 64 or not set(lowered) <= _HEX_DIGITS:
        raise UsageError("--commitment: a commitment is 64 hex digits (a SHA-256)")
    return lowered


def run_verify(args: argparse.Namespace) -> int:
    seed_flags = (args.server_seed, args.client_seed, args.nonce, args.commitment)
    if args.bundle is not None:
        if any(flag is not None for flag in seed_flags):
            raise UsageError("--bundle: give the bundle alone (it holds the seeds)")
        return run_bundle(args.bundle, args.json)
    if any(flag is None for flag in seed_flags[:3]):
        raise UsageError("give --server-seed, --client-seed and --nonce, or --bundle FILE")
    try:
        seed = parse_server_seed(args.server_seed)
    except ValueError as error:
        raise UsageError(f"--server-seed: {error}") from None
    nonce = _parse_nonce(args.nonce)
    expected = None if args.commitment is None else _parse_commitment(args.commitment)
    commitment = commitment_of(seed)
    order = shuffle(seed, args.client_seed, nonce)
    if args.json:
        result: dict[str, object] = {"commitment": commitment, "order": list(order)}
        if expected is not None:
            result["matches"] = commitment == expected
        print(json.dumps(result))
    else:
        print(f"algorithm:   {ALGORITHM}")
        print(f"client seed: {args.client_seed!r}")
        print(f"nonce:       {nonce}")
        print(f"commitment:  {commitment}")
        if expected is not None:
            verdict = "MATCHES" if commitment == expected else "DOES NOT MATCH"
            print(f"given:       {expected} ({verdict})")
        print()
        print(f"{'position':>8} {'tile':>5} {'face':>5} {'set':>4}")
        for position, tile in enumerate(order):
            face = face_text(face_index_of_tile(tile))
            print(f"{position:>8} {tile:>5} {face:>5} {set_of_tile(tile):>4}")
    if expected is not None and commitment != expected:
        return 1
    return 0
