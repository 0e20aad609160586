"""Command answers go out as they are; under CASINO_CHECK_ANSWERS each is checked
against the schema that documents it, so an answer and its docs cannot drift apart."""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from flask import Flask
from marshmallow import Schema, fields

from casino.api import idempotency
from casino.api.spec import Blueprint, create_api
from casino.app.commands import CommandResult


class AnswerSchema(Schema):
    round_id = fields.String(required=True)
    version = fields.Integer(required=True)


def app_answering(body: dict[str, Any], *, check: bool) -> Flask:
    app = Flask(__name__)
    app.config["TESTING"] = True
    app.config[idempotency.CHECK_ANSWERS] = check
    blueprint = Blueprint("answers", __name__)

    @blueprint.route("/answer", methods=["POST"])
    @blueprint.response(201, AnswerSchema)
    def answer() -> Any:
        return idempotency.answer(CommandResult(body, 201), version_tag=True)

    create_api(app).register_blueprint(blueprint)
    return app


def test_an_answer_goes_out_as_it_is_with_its_status_and_etag() -> None:
    body = {"round_id": "r-1", "version": 3}
    response = app_answering(body, check=True).test_client().post("/answer")
    assert response.status_code == 201
    assert orjson.loads(response.data) == body
    assert response.headers["ETag"] == '"3"'
    assert response.mimetype == "application/json"


def test_an_answer_its_schema_would_change_is_caught_when_checking() -> None:
    body = {"round_id": "r-1", "version": 3, "server_seed": "secret"}
    with pytest.raises(AssertionError, match="not what its schema gives"):
        app_answering(body, check=True).test_client().post("/answer")
    unchecked = app_answering(body, check=False).test_client().post("/answer")
    assert orjson.loads(unchecked.data) == body  # unchecked, sent as it is
