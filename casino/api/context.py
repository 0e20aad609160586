"""What a request handler reaches through the app: the services and the caller.

Kept in ``app.extensions`` (not module globals) so several apps, each on its own
services, can live in one process, as they do in tests.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

import redis
from flask import current_app, g

from casino.app.actors import Actor
from casino.app.queries import Queries
from casino.bootstrap import Services

if TYPE_CHECKING:
    from casino.api.auth import Authenticator
    from casino.api.metrics import Metrics

EXTENSION = "casino"


@dataclass(frozen=True)
class ApiState:
    services: Services
    authenticator: Authenticator
    metrics: Metrics
    redis: redis.Redis
    # A streamed export holds a pooled connection while its client reads: at most these
    # many at once per process, so exports never starve the commands of connections.
    export_slots: threading.BoundedSemaphore


def state() -> ApiState:
    return cast(ApiState, current_app.extensions[EXTENSION])


def services() -> Services:
    return state().services


def current_actor() -> Actor:
    """The authenticated caller; every /v1 view runs after ``auth.authenticate``."""
    return cast(Actor, g.actor)


@contextmanager
def queries() -> Iterator[Queries]:
    with services().pool.connection() as connection:
        yield Queries(connection)
