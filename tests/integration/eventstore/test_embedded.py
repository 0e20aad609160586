"""The embedded Postgres the service falls back on when DATABASE_URL is unset."""

from __future__ import annotations

from pathlib import Path

import psycopg
import pytest

from casino.db.connection import with_database
from casino.db.embedded import database_url, embedded_postgres
from casino.db.migrations import status, upgrade

pytestmark = pytest.mark.integration


def test_an_embedded_server_runs_in_its_folder_and_takes_the_migrations(tmp_path: Path) -> None:
    data = tmp_path / "pgdata"
    with embedded_postgres(data) as url:
        assert (data / "PG_VERSION").exists()
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("CREATE DATABASE casino")
        casino = with_database(url, "casino")
        upgrade(casino)
        assert status(casino).pending == []
    assert not data.exists()  # stopped and removed with the block
    with pytest.raises(psycopg.OperationalError):
        psycopg.connect(url, connect_timeout=2)


def test_database_url_prefers_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DATABASE_URL", "postgresql://somewhere/else")
    assert database_url(tmp_path / "unused") == "postgresql://somewhere/else"
    assert not (tmp_path / "unused").exists()
