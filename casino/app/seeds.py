"""The seed vault: live shoes' server seeds, kept outside the event log.

A seed is written in the same transaction as its shoe's commitment and read only to
deal; it enters the log (``ShoeClosed``) only once its shoe is closed. Each process keeps
the seeds of the shoes it has dealt from in memory (the deal needs the seed every round),
each only once the vault holds it: remembered after its shoe's commit, or as read; it is
forgotten when this process closes the shoe (a shoe closed elsewhere leaves its seed, by
then public, until it is pushed out). A deal checks the seed against the shoe's
commitment before it shuffles (``Casino.deal``).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
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


class SeedVault:
    """The vault, with the live seeds this process has used kept in memory (bounded,
    least recently used first out); thread-safe."""

    def __init__(self, connect: Connect, size: int = 1024) -> None:
        self._connect = connect
        self._size = size
        self._seeds: OrderedDict[str, bytes] = OrderedDict()
        self._lock = threading.Lock()

    def keep(self, command: Command, shoe_id: str, server_seed: bytes) -> None:
        """Write the seed with the command; remember it once the command has committed."""
        seed = bytes(server_seed)
        keep_seed(command, shoe_id, seed)
        command.after_commit(lambda: self._remember(shoe_id, seed))

    def seed_of(self, shoe_id: str, *, from_vault: bool = False) -> bytes:
        """The shoe's seed; with ``from_vault``, read from the vault whatever is kept."""
        with self._lock:
            seed = None if from_vault else self._seeds.get(shoe_id)
            if seed is not None:
                self._seeds.move_to_end(shoe_id)
                return seed
        seed = seed_of(self._connect, shoe_id)
        self._remember(shoe_id, seed)
        return seed

    def closed(self, command: Command, shoe_id: str) -> None:
        """Forget the seed once the command closing its shoe has committed."""
        command.after_commit(lambda: self._forget(shoe_id))

    def _remember(self, shoe_id: str, seed: bytes) -> None:
        with self._lock:
            self._seeds[shoe_id] = seed
            self._seeds.move_to_end(shoe_id)
            while len(self._seeds) > self._size:
                self._seeds.popitem(last=False)

    def _forget(self, shoe_id: str) -> None:
        with self._lock:
            self._seeds.pop(shoe_id, None)
