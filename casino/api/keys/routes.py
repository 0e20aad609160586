"""POST /v1/keys: an admin makes a key; the secret is in this answer and nowhere else.

Not idempotent by design: a replay would have to keep the secret to show it again.
"""

from __future__ import annotations

from typing import Any

from casino.api.auth import allow
from casino.api.context import services
from casino.api.keys.schemas import CreateKeySchema, IssuedKeySchema
from casino.api.spec import Blueprint, problems
from casino.app.actors import Role

blp = Blueprint("keys", __name__, url_prefix="/v1/keys", description="API keys")


@blp.route("", methods=["POST"])
@allow({Role.ADMIN})
@problems()
@blp.arguments(CreateKeySchema())
@blp.response(201, IssuedKeySchema)
def create_key(args: dict[str, Any]) -> Any:
    """Create an API key (admin)"""
    issued = services().keys.create(Role(args["role"]), args["tables"], args["label"])
    return {
        "key_id": issued.key_id,
        "key": issued.secret,
        "role": issued.role.value,
        "tables": list(issued.tables),
        "label": args["label"],
    }
