"""POST /v1/tables (admin) and GET /v1/tables/{table_id}."""

from __future__ import annotations

from typing import Any

from casino.api import idempotency
from casino.api.auth import ALL_ROLES, allow, require_table_read
from casino.api.context import current_actor, queries, services
from casino.api.fields import path_id
from casino.api.spec import Blueprint, problems
from casino.api.tables.schemas import OpenTableSchema, TableSchema
from casino.app.actors import Role
from casino.domain.tables import OpenTable

blp = Blueprint("tables", __name__, url_prefix="/v1/tables",
                description="Tables: seats, paytables, limits and shuffle policy")  # fmt: skip


@blp.route("", methods=["POST"])
@allow({Role.ADMIN})
@problems(409)
@blp.doc(parameters=[idempotency.HEADER_PARAMETER])
@blp.arguments(OpenTableSchema())
@blp.response(201, TableSchema)
def open_table(command: OpenTable) -> Any:
    """Open a table (admin)"""
    result = services().casino.open_table(command, current_actor(), idempotency.from_request())
    return idempotency.answer(result)


@blp.route("/<id:table_id>")
@allow(ALL_ROLES)
@problems(404, 422)
@blp.response(200, TableSchema)
def get_table(table_id: str) -> Any:
    """A table's configuration and current shoe and round"""
    require_table_read(path_id(table_id, "table_id"))
    with queries() as read:
        return read.table(table_id)
