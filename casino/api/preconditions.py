"""ETag and If-Match on rounds: the round's stream version is its entity tag.

A client that read a round (ETag ``"7"``) may send ``If-Match: "7"`` with a command on
it; the command is then decided against version 7 only, and refused with 412 if the
round has moved on, instead of being decided again on the newer state.
"""

from __future__ import annotations

import re
from typing import Any

from flask import request

from casino.api.errors import ApiError

HEADER = "If-Match"
_TAG = re.compile(r'(?:W/)?"?([0-9]{1,9})"?')

HEADER_PARAMETER: dict[str, Any] = {
    "in": "header",
    "name": HEADER,
    "required": False,
    "description": "The round version this command was decided on, as the ETag of GET "
    '/v1/rounds/{round_id} gave it (e.g. "7"); a round that has moved on answers 412.',
    "schema": {"type": "string", "maxLength": 20},
}
ETAG_HEADER: dict[str, Any] = {
    "description": "The round's version, for If-Match",
    "schema": {"type": "string"},
}


def entity_tag(version: int) -> str:
    return f'"{version}"'


def expected_version() -> int | None:
    value = request.headers.get(HEADER)
    if value is None or value.strip() == "*":
        return None
    match = _TAG.fullmatch(value.strip())
    if match is None:
        raise ApiError(
            400,
            "invalid_if_match",
            f'{HEADER} must be one entity tag this API gave, like "7"',
            HEADER,
        )
    return int(match.group(1))
