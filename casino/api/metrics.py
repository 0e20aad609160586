"""Prometheus metrics of one app: HTTP traffic per endpoint and the game's own counts.

Each app has its own registry, so apps built in one process (tests) do not share
counters. Under gunicorn each worker counts its own requests; when
``PROMETHEUS_MULTIPROC_DIR`` is set (before the workers start, as prometheus_client
requires), /metrics aggregates every worker's files instead.
"""

from __future__ import annotations

import os
import time

from flask import Flask, Response, g, request
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
)
from prometheus_client.multiprocess import MultiProcessCollector

# Seconds; an in-process command takes a few milliseconds, so resolution sits there.
LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)


class Metrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        self.requests = Counter(
            "casino_http_requests",
            "HTTP requests answered, by route template, method and status",
            ["endpoint", "method", "status"],
            registry=self.registry,
        )
        self.latency = Histogram(
            "casino_http_request_duration_seconds",
            "Time to answer a request, by route template and method",
            ["endpoint", "method"],
            buckets=LATENCY_BUCKETS,
            registry=self.registry,
        )
        self.rounds_opened = Counter(
            "casino_rounds_opened", "Rounds opened", registry=self.registry
        )
        self.wagers_placed = Counter(
            "casino_wagers_placed", "Seat wagers placed", registry=self.registry
        )
        self.rounds_dealt = Counter(
            "casino_rounds_dealt", "Rounds dealt and settled", registry=self.registry
        )
        self.rounds_voided = Counter(
            "casino_rounds_voided", "Rounds voided or reversed", registry=self.registry
        )
        self.replays = Counter(
            "casino_idempotent_replays",
            "Requests answered from a stored idempotent answer",
            registry=self.registry,
        )

    def exposition(self) -> bytes:
        directory = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
        if directory:
            merged = CollectorRegistry()
            MultiProcessCollector(merged, path=directory)  # type: ignore[no-untyped-call]
            return bytes(generate_latest(merged))
        return bytes(generate_latest(self.registry))

    def install(self, app: Flask) -> None:
        app.before_request(_start_timer)

        @app.after_request
        def observe(response: Response) -> Response:
            started = g.get("started")
            rule = request.url_rule
            endpoint = rule.rule if rule is not None else "unmatched"
            self.requests.labels(endpoint, request.method, str(response.status_code)).inc()
            if started is not None:
                self.latency.labels(endpoint, request.method).observe(time.perf_counter() - started)
            return response

    def response(self) -> Response:
        return Response(self.exposition(), content_type=CONTENT_TYPE_LATEST)


def _start_timer() -> None:
    g.started = time.perf_counter()
