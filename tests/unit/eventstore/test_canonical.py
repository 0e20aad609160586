from __future__ import annotations

import enum
import hashlib
import json
import uuid
from collections import OrderedDict, defaultdict
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any, NamedTuple

import orjson
import pytest
import rfc8785
from hypothesis import given
from hypothesis import strategies as st

from casino.eventstore.canonical import (
    ZERO_HASH,
    canonical_json,
    chain_hashes,
    event_hash,
    parse_json,
    parse_json_fast,
)

json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**53) + 1, max_value=2**53 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text()
)
json_values = st.recursive(
    json_scalars,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=20,
)
json_objects = st.dictionaries(st.text(max_size=8), json_values, max_size=5)


# Anything at all: surrogates, floats, huge integers, non-string keys, non-JSON types.
wild_text = st.text(alphabet=st.characters(codec=None, categories=None), max_size=6)
wild_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**60), max_value=2**60)
    | st.floats()
    | wild_text
    | st.sets(st.integers(), max_size=2),
    lambda children: (
        st.lists(children, max_size=3)
        | st.tuples(children, children)
        | st.dictionaries(wild_text | st.integers(), children, max_size=3)
    ),
    max_leaves=12,
)


def outcome(encode: Callable[[Any], bytes], value: Any) -> bytes | str:
    try:
        return encode(value)
    except ValueError:
        return "refused"


@given(st.dictionaries(wild_text, wild_values, max_size=4))
def test_canonical_json_equals_the_rfc8785_package(value: dict[str, Any]) -> None:
    assert outcome(canonical_json, value) == outcome(rfc8785.dumps, value)


# What events are made of: ASCII text (every control character included), integers up to
# 2**53, booleans, null, lists and objects. canonical_json takes orjson's text for these
# unless it could differ; this checks that it never does.
ascii_text = st.text(alphabet=st.characters(max_codepoint=127), max_size=8)
event_like = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**53) + 1, max_value=2**53 - 1)
    | st.integers(min_value=-(2**63), max_value=2**63 - 1)
    | ascii_text
    | st.sampled_from([0.5, 1.0, -0.0, 1e16, 1e-7, float("nan"), float("inf"), 2.0**60]),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(ascii_text, children, max_size=4)
    ),
    max_leaves=16,
)


@given(st.dictionaries(ascii_text, event_like, max_size=5))
def test_the_fast_path_equals_the_rfc8785_package(value: dict[str, Any]) -> None:
    assert outcome(canonical_json, value) == outcome(rfc8785.dumps, value)


def test_every_ascii_character_is_escaped_as_rfc8785_escapes_it() -> None:
    text = "".join(map(chr, range(128)))
    assert canonical_json({text: [text]}) == rfc8785.dumps({text: [text]})


def whole_object_hash(**fields: Any) -> str:
    return hashlib.sha256(rfc8785.dumps(fields)).hexdigest()


@given(
    stream=st.text(min_size=1),
    version=st.integers(min_value=1, max_value=2**31 - 1),
    event_type=st.text(min_size=1),
    schema_version=st.integers(min_value=1, max_value=100),
    data=json_objects,
    metadata=json_objects,
    previous=st.sampled_from([ZERO_HASH, "ab" * 32]),
)
def test_the_assembled_hash_is_the_hash_of_the_whole_canonical_object(
    stream: str,
    version: int,
    event_type: str,
    schema_version: int,
    data: dict[str, Any],
    metadata: dict[str, Any],
    previous: str,
) -> None:
    expected = whole_object_hash(
        stream=stream,
        version=version,
        type=event_type,
        schema_version=schema_version,
        data=data,
        metadata=metadata,
        previous_hash=previous,
    )
    assert (
        event_hash(
            stream_id=stream,
            version=version,
            event_type=event_type,
            schema_version=schema_version,
            data=data,
            metadata=metadata,
            previous_hash=previous,
        )
        == expected
    )


@given(
    stream=st.text(min_size=1),
    after=st.integers(min_value=0, max_value=2**31 - 100),
    events=st.lists(
        st.tuples(st.text(min_size=1), st.integers(min_value=1, max_value=100), json_objects),
        min_size=1,
        max_size=5,
    ),
    metadata=json_objects,
    previous=st.one_of(st.sampled_from([ZERO_HASH, "ab" * 32]), st.text()),
)
def test_a_run_of_events_is_hashed_as_each_linked_onto_the_one_before(
    stream: str,
    after: int,
    events: list[tuple[str, int, dict[str, Any]]],
    metadata: dict[str, Any],
    previous: str,
) -> None:
    expected = []
    link = previous
    for offset, (event_type, schema_version, data) in enumerate(events, start=1):
        link = whole_object_hash(
            stream=stream,
            version=after + offset,
            type=event_type,
            schema_version=schema_version,
            data=data,
            metadata=metadata,
            previous_hash=link,
        )
        expected.append(link)
    run = [(event_type, version, canonical_json(data)) for event_type, version, data in events]
    assert chain_hashes(stream, after, run, canonical_json(metadata), previous) == expected


def test_a_known_vector() -> None:
    # Pinned, with its canonical text written out by hand, so that a change of encoding
    # can never pass unnoticed: every stored chain would stop verifying.
    canonical = (
        '{"data":{"seats":[1,2],"stake":2500,"table":"t-7"},"metadata":{"actor":"table:t-7"},'
        f'"previous_hash":"{ZERO_HASH}","schema_version":1,"stream":"round-1",'
        '"type":"RoundOpened","version":1}'
    )
    digest = event_hash(
        stream_id="round-1",
        version=1,
        event_type="RoundOpened",
        schema_version=1,
        data={"table": "t-7", "stake": 2500, "seats": [1, 2]},
        metadata={"actor": "table:t-7"},
        previous_hash=ZERO_HASH,
    )
    assert digest == hashlib.sha256(canonical.encode()).hexdigest()
    assert digest == "90ed06fbc88510f6c75e1e0ecbef53fc01b5b4602e2048c567e1ff3ed141f821"


def test_every_field_is_bound_by_the_hash() -> None:
    base: dict[str, Any] = {
        "stream_id": "s",
        "version": 1,
        "event_type": "T",
        "schema_version": 1,
        "data": {"a": 1},
        "metadata": {"m": 1},
        "previous_hash": ZERO_HASH,
    }
    changes: dict[str, Any] = {
        "stream_id": "s2",
        "version": 2,
        "event_type": "U",
        "schema_version": 2,
        "data": {"a": 2},
        "metadata": {"m": 2},
        "previous_hash": "1" * 64,
    }
    original = event_hash(**base)
    for field, value in changes.items():
        assert event_hash(**{**base, field: value}) != original, field


class Colour(enum.Enum):
    RED = 1


@pytest.mark.parametrize(
    "value",
    [{"when": object()}, {"n": float("nan")}, {"n": 2**53}, {1: "int key"}, {"s": {1, 2}}],
)
def test_non_json_values_are_refused(value: dict[Any, Any]) -> None:
    with pytest.raises(ValueError):
        canonical_json(value)


@pytest.mark.parametrize(
    "odd",
    [
        uuid.UUID(int=5),
        Colour.RED,
        orjson.Fragment(b'{"z":1,"a":2}'),
        datetime(2026, 1, 1, tzinfo=UTC),
        float("inf"),
    ],
)
@pytest.mark.parametrize("beside", [{}, {"b": None}, {"b": "null"}, {"b": [1, "x"]}])
def test_what_orjson_writes_but_json_is_not_is_refused_whatever_is_beside_it(
    odd: Any, beside: dict[str, Any]
) -> None:
    # orjson writes these (or a null for them); RFC 8785 has no JSON for them.
    value = {"a": odd, **beside}
    assert outcome(canonical_json, value) == outcome(rfc8785.dumps, value) == "refused"


@pytest.mark.parametrize(
    "odd", [uuid.UUID(int=5), Colour.RED, orjson.Fragment(b"1"), float("nan"), b"bytes"]
)
def test_what_json_is_not_is_refused_however_deep_it_lies(odd: Any) -> None:
    for value in ({"a": [1, {"b": odd}]}, {"a": (odd,)}, {"a": {"b": {"c": [[odd]]}}}):
        assert outcome(canonical_json, value) == outcome(rfc8785.dumps, value) == "refused"


class Size(enum.IntEnum):
    BIG = 7


class Suit(enum.StrEnum):
    SPADES = "spades"


class Name(str):
    pass


class Count(int):
    pass


class Pair(NamedTuple):
    left: int
    right: str


@pytest.mark.parametrize(
    "value",
    [
        {"a": Size.BIG, "b": [Suit.SPADES]},
        {"a": Name("x"), "b": {"c": Count(3)}},
        {Name("key"): 1, "other": OrderedDict(z=1, a=2)},
        {"a": defaultdict(list, {"b": [1]})},
        {"a": Pair(1, "x"), "b": [1.5, -0.0, 1e21]},
    ],
)
def test_subclasses_of_json_types_are_written_as_the_package_writes_them(value: Any) -> None:
    assert outcome(canonical_json, value) == outcome(rfc8785.dumps, value) != "refused"


def test_tuples_are_arrays() -> None:
    assert canonical_json({"a": (1, ("x", None))}) == b'{"a":[1,["x",null]]}'


@given(json_objects)
def test_parsing_canonical_json_gives_back_the_same_canonical_json(value: dict[str, Any]) -> None:
    assert canonical_json(parse_json(canonical_json(value))) == canonical_json(value)


def test_huge_numbers_spelled_as_integers_read_back_as_the_floats_they_were() -> None:
    # Postgres prints the float 1e300 as a 301-digit integer.
    spelled = '{"n": 1' + "0" * 300 + "}"
    assert canonical_json(parse_json(spelled)) == canonical_json({"n": 1e300})


@given(
    st.recursive(
        st.none()
        | st.booleans()
        | st.integers()
        | st.text()
        | st.floats(allow_nan=False, allow_infinity=False),
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
        max_leaves=20,
    )
)
def test_the_fast_parser_reads_what_the_exact_one_reads(value: object) -> None:
    text = json.dumps({"v": value})
    assert parse_json_fast(text) == parse_json(text)
    assert parse_json_fast(text.encode()) == parse_json(text)


@pytest.mark.parametrize(
    ("number", "read_as"),
    [
        (10**15 - 1, 10**15 - 1),  # 15 digits: an exact integer, read by orjson
        (2**53 + 1, float(2**53 + 1)),  # 16 digits, beyond 2**53: as the exact parser reads
        (-(2**63) - 1, float(-(2**63) - 1)),  # beyond 64 bits, where orjson gives up
    ],
)
def test_the_fast_parser_reads_long_numbers_as_the_exact_one_does(
    number: int, read_as: float
) -> None:
    text = '{"n": ' + str(number) + ', "s": "a1b2"}'
    assert parse_json_fast(text) == parse_json(text)
    read = parse_json_fast(text.encode())["n"]
    assert read == read_as and type(read) is type(read_as)


def test_a_run_of_sixteen_digits_in_a_string_only_takes_the_exact_parser() -> None:
    text = '{"seed": "12345678901234567890", "n": 7}'
    assert parse_json_fast(text) == {"seed": "12345678901234567890", "n": 7}
    assert parse_json_fast(text) == parse_json(text)
