"""Bearer API keys: who is calling, and whether their role may use the endpoint.

Each view declares the roles it admits (``allow``); ``authenticate`` runs before the
view (and so before its body is parsed): no key is 401, a role not admitted is 403.
Table scope (a table key operates only its own tables) is checked where the table is
known: by the command handlers for commands, by ``require_table_read`` for reads.

A key's actor is cached in-process for a few seconds so a busy table costs one indexed
lookup per key per interval, not one per request; a revoked key therefore stops
working within ``ttl`` seconds.
"""

from __future__ import annotations

import hashlib
import re
import threading
import time
from collections.abc import Callable, Collection
from typing import Any, TypeVar

from flask import current_app, g, request

from casino.api.context import current_actor, state
from casino.api.errors import ApiError
from casino.app.actors import Actor, Role
from casino.app.keys import KeyStore

View = TypeVar("View", bound=Callable[..., Any])

ALL_ROLES = frozenset(Role)
READERS = ALL_ROLES
OPERATORS = frozenset({Role.ADMIN, Role.TABLE})
OVERSEERS = frozenset({Role.ADMIN, Role.AUDITOR})

# Keys are short printable tokens; anything else is refused before it reaches the database.
_PLAUSIBLE_KEY = re.compile(r"[\x21-\x7e]{1,256}")
_CHALLENGE = 'Bearer realm="casino"'


class Authenticator:
    def __init__(self, keys: KeyStore, ttl: float = 5.0, max_entries: int = 10_000) -> None:
        self.keys = keys
        self.ttl = ttl
        self.max_entries = max_entries
        self._cache: dict[str, tuple[Actor, float]] = {}
        self._lock = threading.Lock()

    def actor_for(self, key: str) -> Actor | None:
        # The cache is keyed by a digest so the process does not hold keys in clear.
        digest = hashlib.sha256(key.encode()).hexdigest()
        now = time.monotonic()
        cached = self._cache.get(digest)
        if cached is not None and cached[1] > now:
            return cached[0]
        actor = self.keys.authenticate(key)
        if actor is not None:
            with self._lock:
                if len(self._cache) >= self.max_entries:
                    self._cache.clear()
                self._cache[digest] = (actor, now + self.ttl)
        return actor


def allow(roles: Collection[Role]) -> Callable[[View], View]:
    """Declare the roles a view admits (read by ``authenticate``)."""

    def mark(view: View) -> View:
        view.allowed_roles = frozenset(roles)  # type: ignore[attr-defined]
        return view

    return mark


def _presented_key() -> str:
    header = request.headers.get("Authorization")
    if header is None:
        raise ApiError(
            401,
            "unauthenticated",
            "an API key is required: Authorization: Bearer <key>",
            "Authorization",
            {"WWW-Authenticate": _CHALLENGE},
        )
    scheme, _, key = header.partition(" ")
    key = key.strip()
    if scheme.lower() != "bearer" or not _PLAUSIBLE_KEY.fullmatch(key):
        raise ApiError(
            401,
            "invalid_authorization",
            "the Authorization header must read: Bearer <key>",
            "Authorization",
            {"WWW-Authenticate": _CHALLENGE + ', error="invalid_request"'},
        )
    return key


def authenticate() -> None:
    """``before_request`` of every /v1 blueprint: identify the caller, check the role."""
    view = current_app.view_functions.get(request.endpoint or "")
    if view is None:  # no route matched: let the 404 / 405 through
        return
    actor = state().authenticator.actor_for(_presented_key())
    if actor is None:
        raise ApiError(
            401,
            "invalid_api_key",
            "the API key is unknown or revoked",
            "Authorization",
            {"WWW-Authenticate": _CHALLENGE + ', error="invalid_token"'},
        )
    g.actor = actor
    roles: frozenset[Role] = getattr(view, "allowed_roles", frozenset())
    if actor.role not in roles:
        allowed = ", ".join(sorted(r.value for r in roles)) or "no key"
        raise ApiError(
            403,
            "role_forbidden",
            f"a {actor.role.value} key may not {request.method} {request.path} ({allowed} only)",
            "Authorization",
        )


def require_table_read(table_id: str) -> None:
    """A table key reads only what belongs to its tables; admin and auditor read all."""
    actor = current_actor()
    if actor.role is Role.TABLE and table_id not in actor.tables:
        raise ApiError(
            403, "table_forbidden", f"this key may not read table {table_id}", "table_id"
        )
