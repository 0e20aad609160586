"""GET /v1/shoes/{shoe_id}: what a player or auditor needs to check a shoe."""

from __future__ import annotations

from typing import Any

from casino.api.auth import ALL_ROLES, allow, require_table_read
from casino.api.context import queries
from casino.api.fields import path_id
from casino.api.shoes.schemas import VerifiedShoeSchema
from casino.api.spec import Blueprint, problems

blp = Blueprint("shoes", __name__, url_prefix="/v1/shoes",
                description="Committed shoes and their verification")  # fmt: skip


@blp.route("/<id:shoe_id>")
@allow(ALL_ROLES)
@problems(404, 422)
@blp.response(200, VerifiedShoeSchema)
def get_shoe(shoe_id: str) -> Any:
    """A shoe: commitment, client seed, nonce, tiles dealt; seed and verification once closed"""
    with queries() as read:
        shoe = read.shoe(path_id(shoe_id, "shoe_id"))
    require_table_read(shoe["table_id"])
    shoe.setdefault("verification", None)
    return shoe
