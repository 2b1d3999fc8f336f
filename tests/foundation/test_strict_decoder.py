"""The strict decoder for untrusted wire text: every malformed class is ``Serialization``."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reference.canonical import MAX_JSON_DEPTH, Shadowed, canonical_bytes, loads_last_wins, loads_strict
from reference.errors import Serialization, VNextError

CTX = "decode test wire"


def reject(data: bytes | str, **kwargs: Any) -> Serialization:
    with pytest.raises(Serialization) as info:
        loads_strict(data, context=CTX, **kwargs)
    assert info.value.context == CTX
    assert info.value.kind == "serialization"
    return info.value


MALFORMED = [
    ("duplicate key", b'{"payload":1,"payload":2}'),
    ("nested duplicate key", b'{"a":{"b":1,"c":2,"b":3}}'),
    ("minus zero", b'{"a":-0}'),
    ("minus zero in array", b"[1,-0]"),
    ("above u64", b"[18446744073709551616]"),
    ("below i64", b"[-9223372036854775809]"),
    ("NaN", b"[NaN]"),
    ("Infinity", b"[Infinity]"),
    ("-Infinity", b"[-Infinity]"),
    ("float overflow", b"[1e400]"),
    ("lone high surrogate", b'["\\ud800"]'),
    ("lone low surrogate key", b'{"\\udc00":1}'),
    ("reversed pair", b'["\\udc00\\ud800"]'),
    ("invalid utf-8", b'["\xff"]'),
    ("overlong utf-8", b'["\xc0\xaf"]'),
    ("bom", b'\xef\xbb\xbf{"a":1}'),
    ("trailing value", b'{"a":1}{"b":2}'),
    ("trailing garbage", b"[1] x"),
    ("truncated", b'{"payload":{"schema":'),
    ("empty", b""),
    ("only whitespace", b"   "),
    ("raw control char in string", b'["a\x01b"]'),
    ("single quotes", b"{'a':1}"),
    ("trailing comma", b"[1,2,]"),
    ("comment", b"[1/*x*/]"),
    ("leading zero", b"[01]"),
    ("plus sign", b"[+1]"),
    ("hex number", b"[0x10]"),
    ("unterminated string", b'["abc'),
]


@pytest.mark.parametrize(("name", "data"), MALFORMED)
def test_malformed_classes_are_serialization(name: str, data: bytes) -> None:
    reject(data)


_REPEATED = b'{"a":{"b":1,"c":2,"b":3},"a":{"d":4}}'


@pytest.mark.parametrize(
    ("name", "data"), [(name, data) for name, data in MALFORMED if "duplicate" not in name], ids=lambda x: str(x)[:30]
)
def test_the_last_wins_reading_refuses_every_other_malformed_class(name: str, data: bytes) -> None:
    for wire in (data, data.replace(b"[", b'{"k":0,"k":[', 1).replace(b"]", b"]}", 1) if b"[" in data else data):
        with pytest.raises(Serialization) as info:
            loads_last_wins(wire, context=CTX)
        assert info.value.context == CTX


def test_the_last_wins_reading_keeps_the_last_value_and_reports_the_earlier_ones() -> None:
    shadowed: Shadowed = {}
    value = loads_last_wins(_REPEATED, context=CTX, shadowed=shadowed)
    assert value == {"a": {"d": 4}}
    assert sorted(earlier for found in shadowed.values() for earlier in found) == [("a", {"b": 3, "c": 2}), ("b", 1)]
    assert [key for key, _ in shadowed[id(value)]] == ["a"]  # keyed by the object that kept the last value


@given(
    st.recursive(
        st.none() | st.booleans() | st.integers(-(2**63), 2**64 - 1) | st.text(),
        lambda inner: st.lists(inner) | st.dictionaries(st.text(), inner),
        max_leaves=20,
    )
)
def test_the_last_wins_reading_of_a_wire_without_repeats_is_the_strict_reading(value: Any) -> None:
    data = canonical_bytes(value)
    shadowed: Shadowed = {}
    assert loads_last_wins(data, context=CTX, shadowed=shadowed) == loads_strict(data, context=CTX) == value
    assert shadowed == {}


def test_accepts_u64_max_and_i64_min_exactly() -> None:
    assert loads_strict(b"[18446744073709551615,-9223372036854775808]", context=CTX) == [2**64 - 1, -(2**63)]


def test_escaped_surrogate_pair_is_one_character() -> None:
    assert loads_strict(b'["\\ud83d\\ude00"]', context=CTX) == ["\U0001f600"]


def test_escaped_identity_is_unescaped() -> None:
    assert loads_strict(b'"node\\u002ea"', context=CTX) == "node.a"


def test_literal_backslash_u_text_is_not_a_surrogate() -> None:
    assert loads_strict(b'["\\\\ud800"]', context=CTX) == ["\\ud800"]


def test_depth_limit_is_serde_json_s() -> None:
    ok = b"[" * (MAX_JSON_DEPTH - 1) + b"]" * (MAX_JSON_DEPTH - 1)
    assert loads_strict(ok, context=CTX) is not None
    reject(b"[" * MAX_JSON_DEPTH + b"]" * MAX_JSON_DEPTH)
    reject(b'{"a":' * MAX_JSON_DEPTH + b"1" + b"}" * MAX_JSON_DEPTH)


def test_brackets_inside_strings_do_not_count_as_depth() -> None:
    assert loads_strict(b'["' + b"[" * 1000 + b'"]', context=CTX) == ["[" * 1000]


def test_size_limit_is_inclusive_and_checked_first() -> None:
    doc = b'{"a":"' + b"x" * 100 + b'"}'
    assert loads_strict(doc, context=CTX, max_bytes=len(doc)) == {"a": "x" * 100}
    err = reject(doc, max_bytes=len(doc) - 1)
    assert str(len(doc)) in err.message_text
    # Over the limit and malformed: the size check wins.
    err = reject(b"\xff" * 20, max_bytes=10)
    assert "exceeds" in err.message_text


def test_floats_can_be_refused() -> None:
    assert loads_strict(b"[1.5]", context=CTX) == [1.5]
    reject(b"[1.5]", allow_floats=False)


@pytest.mark.parametrize(
    ("data", "why"),
    [
        (b"[" * 2_000_000, "recursion limit"),
        (b"{" * 1_000_000 + b"}" * 1_000_000, "recursion limit"),
        (b'"' + b'\\"' * 1_000_000, ""),
        (b'["' + b"a" * 4_000_000, ""),
        (b"[" + b"1," * 1_000_000 + b"1", ""),
    ],
)
def test_hostile_inputs_are_refused_before_the_parser_recurses(data: bytes, why: str) -> None:
    """Deep inputs are refused by the structural pre-scan (no parser recursion); the rest by the parser."""
    with pytest.raises(Serialization) as info:
        loads_strict(data, context=CTX)
    assert why in info.value.message_text


def test_big_valid_document_parses() -> None:
    doc = {"rows": [{"id": f"row.{i}", "bytes": i * 64, "tags": ["a", "b"]} for i in range(20_000)]}
    data = canonical_bytes(doc)
    assert loads_strict(data, context=CTX, max_bytes=len(data)) == doc


@given(st.binary(max_size=200))
def test_arbitrary_bytes_never_escape_as_non_contract_errors(data: bytes) -> None:
    try:
        loads_strict(data, context=CTX)
    except VNextError as exc:
        assert exc.kind == "serialization"


@given(st.text(max_size=200))
def test_arbitrary_text_never_escapes_as_non_contract_errors(data: str) -> None:
    try:
        loads_strict(data, context=CTX)
    except VNextError as exc:
        assert exc.kind == "serialization"
