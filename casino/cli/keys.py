"""``casino keys``: make API keys (shown once) and revoke them."""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from contextlib import contextmanager

from casino.app.actors import Role
from casino.app.keys import KeyStore
from casino.bootstrap import resolve_database_url
from casino.cli.args import Parser, UsageError
from casino.config import Settings
from casino.db.connection import create_pool
from casino.db.migrations import upgrade
from casino.domain.errors import DomainError


def add_parser(commands: argparse._SubParsersAction[Parser]) -> None:
    keys = commands.add_parser("keys", help="API keys")
    key_commands = keys.add_subparsers(dest="keys_command", required=True)
    create = key_commands.add_parser("create", help="make a key and print it (shown only once)")
    create.add_argument("--role", required=True, choices=[r.value for r in Role])
    create.add_argument("--tables", default="", help="for a table key: its tables, comma separated")
    create.add_argument("--label", default="", help="who or what the key is for")
    create.set_defaults(run=run_create)
    revoke = key_commands.add_parser("revoke", help="revoke a key by its id")
    revoke.add_argument("key_id")
    revoke.set_defaults(run=run_revoke)


@contextmanager
def _key_store() -> Iterator[KeyStore]:
    url = resolve_database_url(Settings.from_environment())
    upgrade(url)
    pool = create_pool(url, max_size=1, name="keys")
    try:
        yield KeyStore(pool.connection)
    finally:
        pool.close()


def run_create(args: argparse.Namespace) -> int:
    tables = [t.strip() for t in args.tables.split(",") if t.strip()]
    with _key_store() as store:
        try:
            issued = store.create(Role(args.role), tables, args.label)
        except DomainError as error:
            raise UsageError(f"--{error.field or 'role'}: {error.message}") from None
    print(issued.secret)
    return 0


def run_revoke(args: argparse.Namespace) -> int:
    with _key_store() as store:
        revoked = store.revoke(args.key_id)
    print("revoked" if revoked else "no such live key")
    return 0 if revoked else 1
