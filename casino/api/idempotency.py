"""The Idempotency-Key header (invariant 4), turned into the application's Idempotency.

The key is scoped to the API key that sent it, so two clients cannot collide on (or
read each other's answers through) the same key. The fingerprint is a SHA-256 over
the method, the path and the body in canonical form (keys sorted, no whitespace), so
a retry that re-serialises the same body still matches, and the same key sent with
another body, or to another resource, is refused by the application.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

import orjson
from flask import current_app, request
from marshmallow import Schema

from casino.api.context import current_actor
from casino.api.errors import ApiError
from casino.api.preconditions import entity_tag
from casino.app.commands import CommandResult, Idempotency

HEADER = "Idempotency-Key"
CHECK_ANSWERS = "CASINO_CHECK_ANSWERS"  # app.config: check answers against their schemas
REPLAYED_HEADER = "Idempotent-Replayed"
Headers = dict[str, str]
_KEY = re.compile(r"[\x21-\x7e]{1,200}")

HEADER_PARAMETER: dict[str, Any] = {
    "in": "header",
    "name": HEADER,
    "required": False,
    "description": "Makes the request safe to retry: a retry with the same key and body "
    "gets the original answer (with Idempotent-Replayed: true) and changes nothing; the "
    "same key with another body is refused (422). 1-200 visible ASCII characters.",
    "schema": {"type": "string", "minLength": 1, "maxLength": 200},
}


def canonical_body() -> bytes:
    raw = request.get_data(cache=True)
    if not raw.strip():
        return b""
    # The view's arguments were already parsed from this body, so it is valid JSON.
    return orjson.dumps(orjson.loads(raw), option=orjson.OPT_SORT_KEYS)


def from_request() -> Idempotency | None:
    key = request.headers.get(HEADER)
    if key is None:
        return None
    if not _KEY.fullmatch(key):
        raise ApiError(
            400, "invalid_idempotency_key", f"{HEADER} must be 1-200 visible ASCII characters",
            HEADER,
        )  # fmt: skip
    digest = hashlib.sha256()
    digest.update(f"{request.method}\n{request.path}\n".encode())
    digest.update(canonical_body())
    return Idempotency(f"{current_actor().name}/{key}", digest.hexdigest())


def answer(result: CommandResult, *, version_tag: bool = False) -> tuple[Any, int, Headers]:
    """A command's result as a view's return value: body, status and headers (the
    replay marker, and for round commands the new version as ETag).

    The body is sent as it is: a command's answer is already the JSON its response
    schema describes (and the stored answer a retry gets), so dumping it again through
    marshmallow, a tenth of a round's CPU, would change nothing. The test suites set
    ``CASINO_CHECK_ANSWERS=1``, under which every answer is checked against that schema.
    """
    headers: Headers = {}
    if result.replayed:
        headers[REPLAYED_HEADER] = "true"
    if version_tag:
        headers["ETag"] = entity_tag(result.body["version"])
    if current_app.config.get(CHECK_ANSWERS):
        _check_against_schema(result)
    return current_app.json.response(result.body), result.status, headers


def _check_against_schema(result: CommandResult) -> None:
    apidoc: dict[str, Any] = vars(current_app.view_functions[request.endpoint or ""])["_apidoc"]
    documented = apidoc["response"]["responses"].get(result.status, [])
    schemas = [doc["schema"] for doc in documented if isinstance(doc.get("schema"), Schema)]
    if not schemas:
        raise AssertionError(f"{request.endpoint}: no schema documents status {result.status}")
    for schema in schemas:
        dumped = schema.dump(result.body)
        if dumped != result.body:
            raise AssertionError(
                f"{request.endpoint}: the answer is not what its schema gives: "
                f"{result.body!r} dumps as {dumped!r}"
            )
