"""The connection mode fan-out and sending need."""

from __future__ import annotations

from typing import Any

from psycopg import Connection


def require_autocommit(connection: Connection[Any]) -> None:
    # In an open transaction, connection.transaction() only makes savepoints: batches
    # would not commit one by one, and their row locks would be held to the very end.
    if not connection.autocommit:
        raise ValueError("fan-out and sending need an autocommit connection")
