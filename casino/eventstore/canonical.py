"""Canonical JSON (RFC 8785) and the per-stream hash chain.

An event's hash is the lowercase hex SHA-256 of the canonical JSON of::

    {"data": ..., "metadata": ..., "previous_hash": ..., "schema_version": ...,
     "stream": ..., "type": ..., "version": ...}

``previous_hash`` is the hash of the stream's previous event, or ``ZERO_HASH`` for its
first. ``recorded_at`` and ``position`` are assigned by the database and are not part of
the chain; the global log is bound by checkpoints instead (see ``verify``).

Canonical JSON serialises an object member by member in a fixed key order, so the hash
input can be assembled from the already-canonical bytes of ``data`` and ``metadata``:
each event's data is serialised once, and an append's metadata once for all its events.
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Iterable, Mapping
from json.encoder import encode_basestring
from typing import Any

import orjson
import rfc8785

ZERO_HASH = "0" * 64

# Largest integer JSON (an IEEE double) holds exactly; RFC 8785 refuses larger ones.
_SAFE_INTEGER = 2**53 - 1


class _NeedsFullCanonicalizer(Exception):
    pass


def _encode_common(value: Any, out: list[str]) -> None:
    """The canonical text of the JSON that events are made of: objects with ASCII keys,
    arrays, strings, safe integers, booleans and null. Anything else (floats, non-ASCII
    keys, errors) is left to the rfc8785 package, the reference this must equal."""
    if isinstance(value, str):
        out.append(encode_basestring(value))  # escapes exactly what RFC 8785 escapes
    elif value is None:
        out.append("null")
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif isinstance(value, int) and -_SAFE_INTEGER <= value <= _SAFE_INTEGER:
        out.append(int.__repr__(value))
    elif isinstance(value, dict):
        separator = "{"
        # For ASCII keys, code point order is RFC 8785's UTF-16 code unit order.
        if not all(isinstance(key, str) and key.isascii() for key in value):
            raise _NeedsFullCanonicalizer
        for key in sorted(value):
            out.append(separator)
            out.append(encode_basestring(key))
            out.append(":")
            _encode_common(value[key], out)
            separator = ","
        out.append("}" if value else "{}")
    elif isinstance(value, list | tuple):
        separator = "["
        for item in value:
            out.append(separator)
            _encode_common(item, out)
            separator = ","
        out.append("]" if value else "[]")
    else:
        raise _NeedsFullCanonicalizer


# orjson writes what RFC 8785 writes for objects with ASCII keys, strings, integers up
# to 2**53 - 1 (STRICT_INTEGER refuses larger ones), booleans and null, escapes included.
# It may differ for a float (RFC 8785's number form), for anything not ASCII (the key
# order of RFC 8785 is by UTF-16 code units), and for what it writes but JSON has not (a
# UUID, an enum member, NaN as null). So only ASCII text of values that are all exactly
# of those JSON types (no float among them, see below) is kept; anything else, and
# whatever orjson refuses (a datetime, a dataclass, a subclass of a JSON type, a non-str
# key), goes the careful way, which refuses what RFC 8785 refuses.
_ORJSON_OPTIONS = (
    orjson.OPT_SORT_KEYS
    | orjson.OPT_STRICT_INTEGER
    | orjson.OPT_PASSTHROUGH_DATACLASS
    | orjson.OPT_PASSTHROUGH_DATETIME
    | orjson.OPT_PASSTHROUGH_SUBCLASS
)
_PLAIN_SCALARS = frozenset({str, int, bool, type(None)})


def _json_values_only(value: Any) -> bool:
    # orjson also writes a UUID, an enum member, a Fragment or a subclass of a JSON type,
    # and writes NaN or an infinity as null: only values of exactly the JSON types, and
    # no float (RFC 8785 writes numbers its own way), may keep its text. Exact type
    # checks: a fifth of what a second encoding cost.
    kind = type(value)
    if kind in _PLAIN_SCALARS:
        return True
    if kind is dict:
        value = value.values()
    elif kind is not list and kind is not tuple:
        return False
    for item in value:  # a loop, not all(): half the time on a deal's nested hands
        if type(item) not in _PLAIN_SCALARS and not _json_values_only(item):
            return False
    return True


def canonical_json(value: Mapping[str, Any]) -> bytes:
    """The RFC 8785 bytes of a JSON object.

    Raises ``ValueError`` (``rfc8785.CanonicalizationError``) for anything that is not
    JSON: a datetime, a UUID, an enum member (one that is an int or a str is written as
    its value, as the package does), a set, a non-str key, NaN, an integer beyond
    +/-(2**53 - 1).
    """
    if type(value) is not dict:  # orjson takes a dict, not any mapping
        value = dict(value)
    try:
        text = orjson.dumps(value, option=_ORJSON_OPTIONS)
    except TypeError:
        pass
    else:
        if text.isascii() and _json_values_only(value):
            return text
    out: list[str] = []
    try:
        # Three times faster than the package on typical event data, and equal to it
        # (tests/unit/eventstore/test_canonical.py checks that on generated values).
        _encode_common(value, out)
    except _NeedsFullCanonicalizer:
        return rfc8785.dumps(value)
    try:
        return "".join(out).encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: let the package refuse it
        return rfc8785.dumps(value)


def _parse_int(text: str) -> int | float:
    # The database keeps numbers as exact decimals: a float such as 1e300 comes back
    # spelled as an integer. Reading it as a float again gives the same canonical form.
    number = int(text)
    return number if -_SAFE_INTEGER <= number <= _SAFE_INTEGER else float(text)


_DECODER = json.JSONDecoder(parse_int=_parse_int)


def parse_json(text: str | bytes) -> Any:
    """Parse JSON so that numbers re-serialise to the canonical form they were hashed in."""
    return _DECODER.decode(text if isinstance(text, str) else text.decode())


# A run of 16 digits, found by turning every digit into "0" and looking for 16 zeros:
# a C-speed translate and substring search, eight times faster than a regular
# expression on event data (which is mostly short numbers).
_DIGITS_AS_ZEROS = bytes.maketrans(b"123456789", b"000000000")
_SIXTEEN_DIGITS = b"0" * 16


def parse_json_fast(text: str | bytes) -> Any:
    """``parse_json``, by orjson whenever no number can lie beyond 2**53: with at most 15
    digits in a row, every integer is exact and both parsers agree."""
    raw = text.encode() if isinstance(text, str) else text
    if _SIXTEEN_DIGITS in raw.translate(_DIGITS_AS_ZEROS):
        return parse_json(raw)
    return orjson.loads(raw)


@functools.lru_cache(maxsize=4096)
def _json_string(text: str) -> bytes:
    # Stream ids and event types repeat endlessly: escape each once.
    return rfc8785.dumps(text)


def _json_hex(text: str) -> bytes:
    # Hashes are ASCII letters and digits, which JSON never escapes.
    if text.isascii() and text.isalnum():
        return b'"' + text.encode("ascii") + b'"'
    return rfc8785.dumps(text)


# The hashed object, members in RFC 8785 order (by UTF-16 code units; here plain ASCII
# order), from the canonical JSON of its values. The integers are versions, far inside
# the range where JSON and Python agree.
_ENVELOPE = (
    b'{"data":%b,"metadata":%b,"previous_hash":%b,"schema_version":%d,"stream":%b,'
    b'"type":%b,"version":%d}'
)


def chain_hash(
    *,
    stream_id: str,
    version: int,
    event_type: str,
    schema_version: int,
    data_json: bytes,
    metadata_json: bytes,
    previous_hash: str,
) -> str:
    """The event hash, from ``data`` and ``metadata`` already in canonical JSON."""
    [digest] = chain_hashes(
        stream_id,
        version - 1,
        [(event_type, schema_version, data_json)],
        metadata_json,
        previous_hash,
    )
    return digest


def chain_hashes(
    stream_id: str,
    after_version: int,
    events: Iterable[tuple[str, int, bytes]],
    metadata_json: bytes,
    previous_hash: str,
) -> list[str]:
    """The hashes of consecutive events of one stream, the first at ``after_version + 1``
    and linked onto ``previous_hash``, each given as (type, schema version, canonical
    JSON of its data), all with the same metadata. One pass, each event's hash text
    made once (a command's events are hashed here: it is on every command's path)."""
    stream = _json_string(stream_id)
    previous = _json_hex(previous_hash)
    version = after_version
    hashes = []
    for event_type, schema_version, data_json in events:
        version += 1
        digest = hashlib.sha256(
            _ENVELOPE
            % (
                data_json,
                metadata_json,
                previous,
                schema_version,
                stream,
                _json_string(event_type),
                version,
            )
        ).hexdigest()
        hashes.append(digest)
        previous = b'"' + digest.encode() + b'"'  # hex: nothing to escape
    return hashes


def event_hash(
    *,
    stream_id: str,
    version: int,
    event_type: str,
    schema_version: int,
    data: Mapping[str, Any],
    metadata: Mapping[str, Any],
    previous_hash: str,
) -> str:
    """The event hash, from Python values."""
    return chain_hash(
        stream_id=stream_id,
        version=version,
        event_type=event_type,
        schema_version=schema_version,
        data_json=canonical_json(data),
        metadata_json=canonical_json(metadata),
        previous_hash=previous_hash,
    )
