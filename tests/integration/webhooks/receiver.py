"""A real HTTP receiver on loopback: verifies every signature with the standardwebhooks
package, records what it was sent, and fails on purpose as its test tells it to."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from standardwebhooks import Webhook, WebhookVerificationError


@dataclass(frozen=True)
class Request:
    at: float  # time.monotonic() on arrival
    webhook_id: str
    event: dict[str, Any]  # the verified body
    status: int  # what the receiver answered

    @property
    def accepted(self) -> bool:
        return 200 <= self.status < 300


# Decides the answer to the n-th request (from 0), given its event.
Answer = Callable[[int, dict[str, Any]], int]


def fail_first(count: int, status: int = 503) -> Answer:
    return lambda n, event: status if n < count else 200


def fail_for(seconds: float, status: int = 503) -> Answer:
    """An outage of ``seconds`` from the first request on."""
    started: list[float] = []

    def answer(n: int, event: dict[str, Any]) -> int:
        if not started:
            started.append(time.monotonic())
        return status if time.monotonic() < started[0] + seconds else 200

    return answer


def always(status: int) -> Answer:
    return lambda n, event: status


def refuse_positions(positions: set[int], status: int = 500) -> Answer:
    return lambda n, event: status if event["position"] in positions else 200


class Receiver:
    def __init__(self, answer: Answer) -> None:
        self.answer = answer
        self.secret: str | None = None  # set once the subscription exists
        self.requests: list[Request] = []
        self.forgeries: list[str] = []  # requests whose signature did not verify
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/hooks"

    def accepted(self) -> list[Request]:
        with self._lock:
            return [r for r in self.requests if r.accepted]

    def by_stream(self) -> dict[str, list[int]]:
        """The versions accepted per stream, in the order they arrived."""
        streams: dict[str, list[int]] = {}
        for request in self.accepted():
            streams.setdefault(request.event["stream_id"], []).append(request.event["version"])
        return streams

    def attempts_of(self, webhook_id: str) -> list[Request]:
        with self._lock:
            return [r for r in self.requests if r.webhook_id == webhook_id]

    def _receive(self, raw: bytes, headers: dict[str, str]) -> int:
        try:
            assert self.secret is not None, "a request before the subscription existed"
            event = Webhook(self.secret).verify(raw, headers)
        except (WebhookVerificationError, AssertionError, ValueError) as error:
            with self._lock:
                self.forgeries.append(f"{error}: {headers}")
            return 401
        with self._lock:
            status = self.answer(len(self.requests), event)
            self.requests.append(Request(time.monotonic(), headers["webhook-id"], event, status))
        return status

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                status = receiver._receive(raw, {k.lower(): v for k, v in self.headers.items()})
                content = json.dumps({"status": status}).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(content)))
                self.end_headers()
                self.wfile.write(content)

            def log_message(self, format: str, *args: Any) -> None:
                pass  # quiet: the test reads self.requests

        return Handler

    @contextmanager
    def running(self) -> Iterator[Receiver]:
        self._thread.start()
        try:
            yield self
        finally:
            self._server.shutdown()
            self._server.server_close()
