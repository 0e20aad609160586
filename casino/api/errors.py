"""Every error the API answers, as an RFC 9457 problem: the one place errors meet HTTP.

A problem carries a stable ``code`` (also the last part of its ``type`` URI), a
``title`` fixed per code, the ``status``, a ``detail`` for this occurrence, the
``field`` it is about (a JSON path like ``wagers[0].main``, or a header name) and, for
a body that fails validation, ``errors`` per field.

Domain errors map by kind: invalid 422, not found 404, conflict 409, forbidden 403; a
stale If-Match is 412. A key reused for another request is 422, as the IETF
Idempotency-Key draft says. Bad input of any kind is a 4xx; a 500 is only ever a bug
(or the database gone: 503), logged here with its traceback and answered without it.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

import marshmallow as ma
import orjson
import psycopg
from flask import Flask, Response, current_app, request
from psycopg_pool import PoolTimeout
from werkzeug.exceptions import HTTPException

from casino.app.service import VersionMismatch
from casino.domain.errors import DomainError, ErrorKind

PROBLEM_MEDIA_TYPE = "application/problem+json"
TYPE_PREFIX = "urn:casino:problem:"

STATUS_BY_KIND = {
    ErrorKind.INVALID: 422,
    ErrorKind.NOT_FOUND: 404,
    ErrorKind.CONFLICT: 409,
    ErrorKind.FORBIDDEN: 403,
}
STATUS_BY_CODE = {"idempotency_key_reused": 422, "version_mismatch": 412}

log = logging.getLogger("casino.api")


class FieldErrorSchema(ma.Schema):
    field = ma.fields.String(required=True, metadata={"example": "wagers[0].main"})
    messages = ma.fields.List(ma.fields.String(), required=True)


class ProblemSchema(ma.Schema):
    """RFC 9457 problem details, with this API's ``code`` and ``field`` extensions."""

    type = ma.fields.String(
        required=True, metadata={"description": f"{TYPE_PREFIX}<code>: stable per code"}
    )
    title = ma.fields.String(required=True)
    status = ma.fields.Integer(required=True)
    detail = ma.fields.String(required=True)
    code = ma.fields.String(required=True, metadata={"example": "insufficient_funds"})
    field = ma.fields.String(
        allow_none=True, metadata={"description": "the offending field or header, if one"}
    )
    errors = ma.fields.List(ma.fields.Nested(FieldErrorSchema))
    instance = ma.fields.String(metadata={"description": "the request path"})


class ApiError(Exception):
    """An error found by the HTTP edge itself (credentials, headers, content type)."""

    def __init__(
        self,
        status: int,
        code: str,
        detail: str,
        field: str | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(detail)
        self.status = status
        self.code = code
        self.detail = detail
        self.field = field
        self.headers = dict(headers or {})


def problem(
    status: int,
    code: str,
    detail: str,
    field: str | None = None,
    errors: list[dict[str, Any]] | None = None,
    headers: Mapping[str, str] | None = None,
) -> Response:
    body: dict[str, Any] = {
        "type": TYPE_PREFIX + code,
        "title": code.replace("_", " ").capitalize(),
        "status": status,
        "detail": detail,
        "code": code,
        "field": field,
        "instance": request.path,
    }
    if errors is not None:
        body["errors"] = errors
    return current_app.response_class(
        orjson.dumps(body), status=status, mimetype=PROBLEM_MEDIA_TYPE, headers=headers
    )


def field_errors(messages: Any, path: str = "") -> list[dict[str, Any]]:
    """marshmallow's nested messages as a flat list of ``{field, messages}``, where a
    field is a path like ``wagers[0].main`` (schema-level errors name their parent)."""
    if isinstance(messages, dict):
        found: list[dict[str, Any]] = []
        for key, value in messages.items():
            if key == "_schema":
                child = path
            elif isinstance(key, int):
                child = f"{path}[{key}]"
            else:
                child = f"{path}.{key}" if path else str(key)
            found += field_errors(value, child)
        return found
    texts = messages if isinstance(messages, list) else [messages]
    return [{"field": path or "body", "messages": [str(m) for m in texts]}]


def _validation_problem(messages: Any) -> Response:
    # webargs nests messages under their location (json, query, headers): not a field.
    if isinstance(messages, dict) and set(messages) <= {"json", "query", "querystring", "headers"}:
        messages = {k: v for location in messages.values() for k, v in _items(location)}
    errors = field_errors(messages)
    first = errors[0]
    detail = f"{first['field']}: {' '.join(first['messages'])}"
    return problem(422, "validation_failed", detail, first["field"], errors)


def _items(location: Any) -> list[tuple[Any, Any]]:
    return list(location.items()) if isinstance(location, dict) else [("_schema", location)]


def handle_http_exception(error: HTTPException) -> Response:
    status = error.code or 500
    data = getattr(error, "data", None) or {}
    if status == 422 and "messages" in data:
        return _validation_problem(data["messages"])
    if status == 400 and "messages" in data:  # webargs: the body is not JSON
        return problem(400, "malformed_json", "the request body is not valid JSON", "body")
    headers = {}
    if status == 405:
        headers = {k: v for k, v in error.get_headers() if k == "Allow"}
    if status >= 500:
        log.error("HTTP %s on %s %s: %s", status, request.method, request.path, error)
    code = {
        404: "not_found",
        405: "method_not_allowed",
        413: "body_too_large",
    }.get(status, _snake(error.name))
    detail = {
        404: f"no resource at {request.path}",
        405: f"{request.method} is not allowed on {request.path}",
    }.get(status, error.description or error.name)
    return problem(status, code, detail, headers=headers)


def _snake(name: str) -> str:
    return name.lower().replace(" ", "_").replace("-", "_").replace("'", "")


def handle_domain_error(error: DomainError) -> Response:
    status = STATUS_BY_CODE.get(error.code, STATUS_BY_KIND[error.kind])
    if isinstance(error, VersionMismatch):
        status = 412
    field = error.field
    if field is None and error.kind is ErrorKind.FORBIDDEN:
        field = "Authorization"  # the key is what lacks the right
    return problem(status, error.code, error.message, field)


def handle_api_error(error: ApiError) -> Response:
    return problem(error.status, error.code, error.detail, error.field, headers=error.headers)


def handle_marshmallow_error(error: ma.ValidationError) -> Response:
    return _validation_problem(error.messages)


def handle_unavailable(error: Exception) -> Response:
    log.warning("database unavailable on %s %s: %r", request.method, request.path, error)
    return problem(
        503,
        "unavailable",
        "the service cannot reach its database right now: retry shortly",
        headers={"Retry-After": "1"},
    )


def handle_unexpected(error: Exception) -> Response:
    log.exception("unhandled error on %s %s", request.method, request.path)
    return problem(500, "internal_error", "an internal error occurred; it has been logged")


def register(app: Flask) -> None:
    app.register_error_handler(HTTPException, handle_http_exception)
    app.register_error_handler(DomainError, handle_domain_error)
    app.register_error_handler(ApiError, handle_api_error)
    app.register_error_handler(ma.ValidationError, handle_marshmallow_error)
    app.register_error_handler(PoolTimeout, handle_unavailable)
    app.register_error_handler(psycopg.OperationalError, handle_unavailable)
    app.register_error_handler(Exception, handle_unexpected)
