"""/healthz (the process answers), /readyz (its database and broker answer), /metrics.

None needs a key: they are for load balancers, orchestrators and Prometheus, and say
nothing about the casino's data.
"""

from __future__ import annotations

from typing import Any

import redis
from flask import Response

from casino.api.context import services, state
from casino.api.errors import ApiError
from casino.api.health.schemas import HealthSchema, ReadinessSchema
from casino.api.spec import Blueprint, public

blp = Blueprint("health", __name__, description="Liveness, readiness and metrics")

CHECK_TIMEOUT = 2.0  # seconds: an orchestrator's probe should not hang


def _database_ok() -> bool:
    try:
        with services().pool.connection(timeout=CHECK_TIMEOUT) as connection:
            connection.execute("SELECT 1")
    except Exception:  # any failure means not ready; the probe must answer, not crash
        return False
    return True


def _redis_ok(client: redis.Redis) -> bool:
    try:
        return bool(client.ping())
    except (redis.RedisError, OSError):
        return False


@blp.route("/healthz")
@public
@blp.response(200, HealthSchema)
def healthz() -> Any:
    """The process is up"""
    return {"status": "ok"}


@blp.route("/readyz")
@public
@blp.alt_response(503, response="SERVICE_UNAVAILABLE")
@blp.response(200, ReadinessSchema)
def readyz() -> Any:
    """The database and Redis answer (503 problem when either does not)"""
    checks = {
        "database": "ok" if _database_ok() else "unreachable",
        "redis": "ok" if _redis_ok(state().redis) else "unreachable",
    }
    failing = [name for name, result in checks.items() if result != "ok"]
    if failing:
        raise ApiError(503, "not_ready", f"unreachable: {', '.join(failing)}",
                       headers={"Retry-After": "1"})  # fmt: skip
    return {"status": "ready", "checks": checks}


@blp.route("/metrics")
@public
@blp.response(200, content_type="text/plain", description="Prometheus text format")
def metrics() -> Response:
    """Request counts and latencies per endpoint, rounds, wagers"""
    return state().metrics.response()
