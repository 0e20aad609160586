from __future__ import annotations

import pytest
from psycopg.conninfo import conninfo_to_dict

from casino.db.connection import with_database


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("postgresql://postgres@127.0.0.1:5432/postgres", "postgresql://postgres@127.0.0.1:5432/x"),
        ("postgres://u:p@h/db?sslmode=require", "postgres://u:p@h/x?sslmode=require"),
        ("postgresql://postgres:@/postgres?host=/tmp/pg", "postgresql://postgres:@/x?host=/tmp/pg"),
    ],
)
def test_with_database_changes_only_the_database_of_a_url(url: str, expected: str) -> None:
    assert with_database(url, "x") == expected


def test_with_database_changes_only_the_database_of_a_conninfo() -> None:
    changed = with_database("host=h user=u dbname=postgres", "x")
    assert conninfo_to_dict(changed) == {"host": "h", "user": "u", "dbname": "x"}
