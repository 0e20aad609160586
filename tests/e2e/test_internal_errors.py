"""A genuine bug is a 500 problem that says nothing of its cause; a database that
cannot be reached is a 503. Both are provoked in an app of the test's own (the real
app over the session's database, with one extra failing route)."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask
from psycopg_pool import PoolTimeout

from casino.api import create_app
from casino.bootstrap import bootstrap
from casino.config import Settings
from tests.e2e.client import PROBLEM, Server

pytestmark = pytest.mark.e2e

SECRET_DETAIL = "password=hunter2 in a stack trace"


def _bug() -> str:
    raise RuntimeError(SECRET_DETAIL)


def _pool_exhausted() -> str:
    raise PoolTimeout("couldn't get a connection after 30.00 sec")


@pytest.fixture
def app(server: Server, redis_url: str, tmp_path: Path) -> Iterator[Flask]:
    settings = Settings(server.database_url, redis_url, tmp_path, pool_size=2, task_queue="unused")
    services = bootstrap(settings, migrate=False)
    app = create_app(services)
    app.add_url_rule("/bug", view_func=_bug)
    app.add_url_rule("/exhausted", view_func=_pool_exhausted)
    yield app
    services.close()


def test_an_unexpected_error_is_a_500_problem_without_internals(
    app: Flask, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.ERROR, logger="casino.api"):
        response = app.test_client().get("/bug")
    assert response.status_code == 500
    assert response.content_type == PROBLEM
    assert response.json is not None and response.json["code"] == "internal_error"
    assert SECRET_DETAIL not in response.get_data(as_text=True)
    assert SECRET_DETAIL in caplog.text  # logged, with its traceback, for the operator


def test_a_database_out_of_reach_is_a_503_problem(app: Flask) -> None:
    response = app.test_client().get("/exhausted")
    assert response.status_code == 503
    assert response.content_type == PROBLEM
    assert response.headers["Retry-After"] == "1"
