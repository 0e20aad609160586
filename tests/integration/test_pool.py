"""The connection pool heals a connection whose prepared statements a schema change made
stale, instead of failing every later use of it."""

from __future__ import annotations

import psycopg
import pytest

from casino.db.connection import create_pool

pytestmark = pytest.mark.integration


def test_a_pooled_connection_recovers_from_a_changed_result_type(
    fresh_database_url: str,
) -> None:
    query = "SELECT width FROM pool_widths"
    with create_pool(fresh_database_url, min_size=1, max_size=1) as pool:
        with pool.connection() as conn:
            conn.execute("CREATE TABLE pool_widths (width integer)")
            conn.execute("INSERT INTO pool_widths VALUES (7)")
            assert conn.execute(query, prepare=True).fetchall() == [(7,)]
            pid = conn.info.backend_pid
        with psycopg.connect(fresh_database_url, autocommit=True) as other:
            other.execute("ALTER TABLE pool_widths ALTER COLUMN width TYPE bigint")

        with (
            pytest.raises(psycopg.errors.FeatureNotSupported) as refused,
            pool.connection() as conn,
        ):
            conn.execute(query, prepare=True)
        assert "cached plan must not change result type" in str(refused.value)

        for _ in range(3):  # healed for good, not just once
            with pool.connection() as conn:
                assert conn.execute(query, prepare=True).fetchall() == [(7,)]
                assert conn.info.backend_pid == pid
