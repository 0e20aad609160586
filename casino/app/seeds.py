"""The seed vault: live shoes' server seeds, kept outside the event log.

A seed is written in the same transaction as its shoe's commitment and read only to
deal; it enters the log (``ShoeClosed``) only once its shoe is closed.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

import psycopg

from casino.app.unit import Command

Connect = Callable[[], AbstractContextManager[psycopg.Connection[Any]]]


def keep_seed(command: Command, shoe_id: str, server_seed: bytes) -> None:
    command.execute(
        "INSERT INTO shoe_secrets (shoe_id, server_seed) VALUES (%s, %s)", (shoe_id, server_seed)
    )


def seed_of(connect: Connect, shoe_id: str) -> bytes:
    with connect() as connection:
        row = connection.execute(
            "SELECT server_seed FROM shoe_secrets WHERE shoe_id = %s", (shoe_id,)
        ).fetchone()
    if row is None:
        raise LookupError(f"no seed kept for shoe {shoe_id}")
    return bytes(row[0])
