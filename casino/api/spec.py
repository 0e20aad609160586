"""The OpenAPI document: flask-smorest builds it from the views' own declarations.

Errors are documented as RFC 9457 problems (``application/problem+json``): every
operation lists the statuses it can answer and a default problem for the rest.
"""

from __future__ import annotations

from collections.abc import Callable
from http import HTTPStatus
from typing import Any, TypeVar, cast

import flask_smorest
from flask import Flask
from flask_smorest import Api
from flask_smorest.utils import prepare_response

from casino import __version__
from casino.api.errors import PROBLEM_MEDIA_TYPE, TYPE_PREFIX, ProblemSchema
from casino.api.fields import IdentifierConverter, identifier_parameter
from casino.api.jsonio import OrjsonParser

View = TypeVar("View", bound=Callable[..., Any])

DESCRIPTION = f"""\
The Casino Dominoes service: tables, player funds, rounds (open, wager, deal, void),
hand histories, shoes, the global event feed and paytables.

Amounts are integers in minor units. Every mutating request may carry an
`Idempotency-Key`. Errors are RFC 9457 problems whose `type` is `{TYPE_PREFIX}<code>`.
Authenticate with `Authorization: Bearer <api key>`.
"""

CONFIG = {
    "API_TITLE": "Casino Dominoes",
    "API_VERSION": __version__,
    "OPENAPI_VERSION": "3.0.3",
    "OPENAPI_URL_PREFIX": "/",
    "OPENAPI_JSON_PATH": "openapi.json",
    "OPENAPI_SWAGGER_UI_PATH": "/docs",
    "OPENAPI_SWAGGER_UI_URL": "https://cdn.jsdelivr.net/npm/swagger-ui-dist@5/",
    "API_SPEC_OPTIONS": {
        "info": {"description": DESCRIPTION},
        "security": [{"apiKey": []}],
        "components": {
            "securitySchemes": {
                "apiKey": {"type": "http", "scheme": "bearer", "bearerFormat": "API key"}
            }
        },
    },
}


class CasinoApi(Api):  # type: ignore[misc]
    ERROR_SCHEMA = ProblemSchema
    DEFAULT_ERROR_RESPONSE_NAME = "DEFAULT_ERROR"

    def _register_error_handlers(self) -> None:
        """Errors are answered by ``casino.api.errors`` alone."""

    def _register_responses(self) -> None:
        # flask-smorest's own, with the problem media type instead of application/json.
        for status in HTTPStatus:
            response: dict[str, Any] = {"description": status.phrase}
            if status >= 400:
                response["schema"] = self.ERROR_SCHEMA
            prepare_response(response, self.spec, PROBLEM_MEDIA_TYPE)
            self.spec.components.response(status.name, response, lazy=True)
        default = {"description": "A problem", "schema": self.ERROR_SCHEMA}
        prepare_response(default, self.spec, PROBLEM_MEDIA_TYPE)
        self.spec.components.response(self.DEFAULT_ERROR_RESPONSE_NAME, default, lazy=True)


def create_api(app: Flask) -> CasinoApi:
    app.config.update(CONFIG)
    app.url_map.converters["id"] = IdentifierConverter
    api = CasinoApi(app)
    api.register_converter(IdentifierConverter, identifier_parameter)
    return api


def problems(*statuses: int) -> Callable[[View], View]:
    """Document the problems a view may answer (beyond 401, 403 and the default).

    Written straight into flask-smorest's doc record rather than through
    ``alt_response``, which would wrap the view once per status on every call.
    """

    def document(view: View) -> View:
        doc = view.__dict__.setdefault("_apidoc", {})
        responses = doc.setdefault("response", {}).setdefault("responses", {})
        for status in (401, 403, *statuses):
            responses.setdefault(status, []).append(HTTPStatus(status).name)
        return view

    return document


def public(view: View) -> View:
    """Document a view that needs no key."""
    doc = view.__dict__.setdefault("_apidoc", {})
    doc.setdefault("manual_doc", {})["security"] = []
    return view


class Blueprint(flask_smorest.Blueprint):  # type: ignore[misc]
    """A resource's blueprint, parsing JSON bodies with orjson.

    flask-smorest ships no type information; these typed doors onto its decorators
    keep the views type-checked (each runs once, at import).
    """

    ARGUMENTS_PARSER = OrjsonParser()

    def route(self, rule: str, **options: Any) -> Callable[[View], View]:
        return cast(Callable[[View], View], super().route(rule, **options))

    def arguments(self, schema: Any, **options: Any) -> Callable[[View], View]:
        # Pass an instance: given a class, webargs builds a new schema on every request.
        return cast(Callable[[View], View], super().arguments(schema, **options))

    def response(self, status: int, schema: Any = None, **options: Any) -> Callable[[View], View]:
        return cast(Callable[[View], View], super().response(status, schema, **options))

    def alt_response(self, status: int, **options: Any) -> Callable[[View], View]:
        return cast(Callable[[View], View], super().alt_response(status, **options))

    def doc(self, **documentation: Any) -> Callable[[View], View]:
        return cast(Callable[[View], View], super().doc(**documentation))
