"""API keys: made once, shown once, stored hashed, each with a role (and tables, for a
table key).

A key reads ``ck_<key id>_<secret>``; the key id names it in logs and metadata without
revealing it.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Sequence
from dataclasses import dataclass

from casino.app.actors import Actor, Role
from casino.app.seeds import Connect
from casino.domain import validation
from casino.domain.errors import InvalidCommand

PREFIX = "ck"


@dataclass(frozen=True)
class IssuedKey:
    key_id: str
    secret: str  # the whole key, shown once
    role: Role
    tables: tuple[str, ...]


def _hash(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


class KeyStore:
    def __init__(self, connect: Connect) -> None:
        self.connect = connect

    def create(self, role: Role, tables: Sequence[str] = (), label: str = "") -> IssuedKey:
        if role is Role.TABLE and not tables:
            raise InvalidCommand("tables_required", "a table key names its tables", "tables")
        if role is not Role.TABLE and tables:
            raise InvalidCommand("tables_not_allowed", "only a table key has tables", "tables")
        for index, table_id in enumerate(tables):
            validation.identifier(table_id, f"tables[{index}]")
        validation.text(label, "label", required=False)
        key_id = secrets.token_hex(6)
        key = f"{PREFIX}_{key_id}_{secrets.token_urlsafe(32)}"
        with self.connect() as connection:
            connection.execute(
                "INSERT INTO api_keys (key_id, key_hash, role, tables, label)"
                " VALUES (%s, %s, %s, %s, %s)",
                (key_id, _hash(key), role.value, list(tables), label),
            )
        return IssuedKey(key_id, key, role, tuple(tables))

    def authenticate(self, key: str) -> Actor | None:
        """The actor a presented key stands for, or None (unknown, malformed, revoked)."""
        parts = key.split("_")
        if len(parts) < 3 or parts[0] != PREFIX:
            return None
        with self.connect() as connection:
            row = connection.execute(
                "SELECT key_hash, role, tables FROM api_keys"
                " WHERE key_id = %s AND revoked_at IS NULL",
                (parts[1],),
            ).fetchone()
        if row is None or not hmac.compare_digest(row[0], _hash(key)):
            return None
        return Actor(Role(row[1]), parts[1], frozenset(row[2]))

    def any_admin(self) -> bool:
        with self.connect() as connection:
            row = connection.execute(
                "SELECT EXISTS (SELECT 1 FROM api_keys WHERE role = 'admin' AND revoked_at IS NULL)"
            ).fetchone()
        return bool(row and row[0])

    def revoke(self, key_id: str) -> bool:
        with self.connect() as connection:
            cursor = connection.execute(
                "UPDATE api_keys SET revoked_at = now() WHERE key_id = %s AND revoked_at IS NULL",
                (key_id,),
            )
            return cursor.rowcount == 1
