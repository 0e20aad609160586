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


def test_a_transaction_left_open_is_committed_or_rolled_back_before_the_connection_returns(
    fresh_database_url: str,
) -> None:
    # As psycopg's own loan does: the block's end commits what it left open, an error
    # rolls it back, and either way the connection goes back idle.
    with create_pool(fresh_database_url, min_size=1, max_size=1) as pool:
        with pool.connection() as conn:
            conn.execute("CREATE TABLE pool_notes (note text)")
        with pool.connection() as conn:
            conn.execute("BEGIN")
            conn.execute("INSERT INTO pool_notes VALUES ('kept')")
        with pytest.raises(ZeroDivisionError), pool.connection() as conn:
            conn.execute("BEGIN")
            conn.execute("INSERT INTO pool_notes VALUES ('dropped')")
            _ = 1 / 0
        with pytest.raises(psycopg.errors.UniqueViolation), pool.connection() as conn:
            with conn.transaction():
                conn.execute("CREATE UNIQUE INDEX ON pool_notes (note)")
            conn.execute("BEGIN")
            conn.execute("INSERT INTO pool_notes VALUES ('also dropped')")
            conn.execute("INSERT INTO pool_notes VALUES ('kept')")
        with pool.connection() as conn:
            assert conn.info.transaction_status == psycopg.pq.TransactionStatus.IDLE
            notes = conn.execute("SELECT note FROM pool_notes ORDER BY note").fetchall()
        with psycopg.connect(fresh_database_url) as other:
            seen = other.execute("SELECT note FROM pool_notes ORDER BY note").fetchall()
    assert notes == seen == [("kept",)]


def test_the_blocks_own_error_is_raised_when_the_rollback_after_it_fails(
    fresh_database_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    # The server ends the connection mid-transaction; the block then fails on its own.
    # Its error, not the failed rollback's, reaches the caller, and the pool goes on.
    with create_pool(fresh_database_url, min_size=1, max_size=1) as pool:
        with pytest.raises(ValueError, match="the block's own"), pool.connection() as conn:
            conn.execute("BEGIN")
            with psycopg.connect(fresh_database_url, autocommit=True) as other:
                other.execute("SELECT pg_terminate_backend(%s)", (conn.info.backend_pid,))
            raise ValueError("the block's own")
        assert "error ignored in rollback" in caplog.text
        with pool.connection() as conn:
            assert conn.execute("SELECT 1").fetchall() == [(1,)]
