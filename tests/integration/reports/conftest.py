"""Reports on a database of the test's own (tests/integration/app/conftest.py), filled
with a stretch of play on the test's clock."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from psycopg import Connection
from psycopg_pool import ConnectionPool

from casino.app.service import Casino
from casino.eventstore.postgres import PostgresEventStore
from tests.integration.app.conftest import fresh_casino
from tests.integration.reports.day_of_play import Clock, Played, play

__all__ = ["fresh_casino"]

Pool = ConnectionPool[Connection[Any]]
PlayedOn = tuple[Played, Pool]


@pytest.fixture
def play_rounds_on_a_clock(fresh_casino: tuple[Casino, Pool]) -> Callable[[int], PlayedOn]:
    """Play ``rounds`` rounds (day_of_play.play) on the fresh database, on a test clock."""

    def played(rounds: int) -> PlayedOn:
        _, pool = fresh_casino
        clock = Clock()
        return play(
            Casino(PostgresEventStore(pool), pool.connection, clock=clock), clock, rounds
        ), pool

    return played
