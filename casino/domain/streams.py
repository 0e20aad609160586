"""Stream ids: one stream per table, shoe, round and player account (per currency)."""

from __future__ import annotations


def table_stream(table_id: str) -> str:
    return f"table-{table_id}"


def shoe_stream(shoe_id: str) -> str:
    return f"shoe-{shoe_id}"


def round_stream(round_id: str) -> str:
    return f"round-{round_id}"


def account_stream(player_id: str, currency: str) -> str:
    return f"account-{currency}-{player_id}"
