"""The HTTP API: a Flask app over the composition root's services.

``create_app`` builds one app; each resource is a blueprint of its own
(``casino/api/<resource>/routes.py``). Requests to /v1 carry a Bearer API key; the
health probes, metrics and the OpenAPI document (/openapi.json, /docs) do not.
"""

from __future__ import annotations

import threading

import redis
from flask import Flask, request

from casino.api import errors, idempotency
from casino.api.audits.routes import blp as audits
from casino.api.auth import Authenticator, authenticate
from casino.api.context import EXTENSION, ApiState
from casino.api.events.routes import blp as events
from casino.api.hand_histories.routes import blp as hand_histories
from casino.api.health.routes import blp as health
from casino.api.jsonio import OrjsonProvider, require_json_body
from casino.api.keys.routes import blp as keys
from casino.api.metrics import Metrics
from casino.api.paytables.routes import blp as paytables
from casino.api.players.routes import blp as players
from casino.api.reconciliations.routes import blp as reconciliations
from casino.api.reports.routes import blp as reports
from casino.api.rounds.routes import blp as rounds
from casino.api.shoes.routes import blp as shoes
from casino.api.spec import create_api
from casino.api.tables.routes import blp as tables
from casino.api.webhooks.routes import blp as webhooks
from casino.bootstrap import Services, bootstrap

BLUEPRINTS = (
    tables,
    players,
    rounds,
    hand_histories,
    shoes,
    events,
    paytables,
    keys,
    reconciliations,
    audits,
    reports,
    webhooks,
    health,
)
MAX_BODY_BYTES = 64 * 1024  # the largest real body (seven seats' wagers) is under 1 KiB


def create_app(services: Services | None = None) -> Flask:
    services = services or bootstrap()
    app = Flask(__name__)
    app.json = OrjsonProvider(app)
    app.config["MAX_CONTENT_LENGTH"] = MAX_BODY_BYTES
    app.config[idempotency.CHECK_ANSWERS] = services.settings.check_answers
    metrics = Metrics()
    app.extensions[EXTENSION] = ApiState(
        services=services,
        authenticator=Authenticator(services.keys),
        metrics=metrics,
        redis=redis.Redis.from_url(
            services.redis_url, socket_timeout=1.0, socket_connect_timeout=1.0
        ),
        export_slots=threading.BoundedSemaphore(max(1, services.settings.pool_size // 4)),
    )
    errors.register(app)
    metrics.install(app)
    app.before_request(_authenticate_v1)
    app.before_request(require_json_body)
    api = create_api(app)
    for blueprint in BLUEPRINTS:
        api.register_blueprint(blueprint)
    return app


def _authenticate_v1() -> None:
    # By path, not by a marker on each view: an endpoint under /v1 that forgot to
    # declare its roles is closed to every key rather than open to all.
    if request.path.startswith("/v1/") or request.path == "/v1":
        authenticate()
