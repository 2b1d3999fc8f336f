"""Canonical and direct byte forms (spec 01 §3)."""

from __future__ import annotations

import hashlib
import json
import random
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reference.canonical import (
    canonical_bytes,
    canonical_json,
    direct_bytes,
    fingerprint,
    format_float,
    is_canonical_sha256,
    loads_strict,
    sha256_hex,
)
from reference.errors import Serialization

# --- reference encoder from spec 01 §3.3 (stdlib json; exact for float-free values)


def stdlib_canonical(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True, allow_nan=False).encode()


def stdlib_direct(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()


# Unicode text without surrogates, rich in C0 controls, escapes and non-ASCII.
text = st.text(
    alphabet=st.one_of(
        st.characters(codec="utf-8"),
        st.sampled_from(['"', "\\", "/", "\b", "\f", "\n", "\r", "\t", "\x00", "\x1f", "\x7f", "\u2028", "é", "😀"]),
    ),
    max_size=12,
)
integers = st.one_of(st.integers(min_value=-(2**63), max_value=2**64 - 1), st.sampled_from([0, 2**64 - 1, -(2**63)]))
scalars = st.one_of(st.none(), st.booleans(), integers, text)
json_values = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=5), st.dictionaries(text, inner, max_size=5)),
    max_leaves=40,
)


def shuffled(value: Any, rng: random.Random) -> Any:
    if isinstance(value, dict):
        items = [(k, shuffled(v, rng)) for k, v in value.items()]
        rng.shuffle(items)
        return dict(items)
    if isinstance(value, list):
        return [shuffled(v, rng) for v in value]
    return value


def test_worked_example_bytes_and_hash() -> None:
    v = {"b": {"y": "é\u0001", "x": [3, {"d": 1, "c": None}]}, "a": 1}
    expected = b'{"a":1,"b":{"x":[3,{"c":null,"d":1}],"y":"\xc3\xa9\\u0001"}}'
    assert canonical_bytes(v) == expected
    assert len(expected) == 53
    assert (
        bytes.fromhex(
            "7b226122 3a312c22 62223a7b 2278223a 5b332c7b 2263223a 6e756c6c 2c226422 3a317d5d 2c227922 3a22c3a9"
            " 5c753030 3031227d 7d".replace(" ", "")
        )
        == expected
    )
    assert fingerprint(v) == "1b83ef86003256dfd1b8bd4e33161bc817cd772c70ce93357be279cae49684ba"


def test_escaping_stress_vector() -> None:
    v = {"k": '"\\/\b\f\n\r\t\u0000\u001f\u007f\u00e9\u2028\U0001f600', "A": [], "_": {}}
    expected = bytes.fromhex(
        "7b2241223a5b5d2c225f223a7b7d2c226b223a225c225c5c2f5c625c665c"
        "6e5c725c745c75303030305c75303031667fc3a9e280a8f09f988022 7d".replace(" ", "")
    )
    out = canonical_bytes(v)
    assert out == expected
    assert len(out) == 59
    assert sha256_hex(out) == "09aa58a6decc2416731a55b0735be6bd861beb307614c64b8c76c850a53fb8bf"


def test_integer_like_keys_sort_as_strings_in_canonical_mode_only() -> None:
    direct = {"1": 3, "2": 2, "10": 1}
    assert direct_bytes(direct) == b'{"1":3,"2":2,"10":1}'
    assert canonical_bytes(direct) == b'{"1":3,"10":1,"2":2}'


def test_u64_and_i64_extremes_are_exact() -> None:
    assert canonical_bytes([2**64 - 1, -(2**63), 0]) == b"[18446744073709551615,-9223372036854775808,0]"


def test_layout_class_fingerprints() -> None:
    assert fingerprint("contiguous") == "2ee77f83e72ffcea31cc6ac29a81070a45403f9fe3e3d76aa284ffc351ead457"
    assert fingerprint("opaque_bytes_v1") == "309780bb231c537e8511cd06c6de0030f971c09499f8c0504e3bdee811fad897"


@given(json_values)
def test_canonical_equals_serde_settings_of_spec(value: Any) -> None:
    assert canonical_bytes(value) == stdlib_canonical(value)
    assert direct_bytes(value) == stdlib_direct(value)


@given(json_values, st.randoms(use_true_random=False))
def test_canonical_is_independent_of_insertion_order(value: Any, rng: random.Random) -> None:
    assert canonical_bytes(shuffled(value, rng)) == canonical_bytes(value)


@given(json_values)
def test_canonical_is_idempotent_and_round_trips(value: Any) -> None:
    out = canonical_bytes(value)
    decoded = loads_strict(out, context="test")
    assert decoded == value
    assert canonical_bytes(decoded) == out
    assert canonical_bytes(canonical_json(value)) == out


@given(json_values)
def test_canonical_and_direct_differ_only_in_key_order(value: Any) -> None:
    direct = direct_bytes(value)
    assert len(direct) == len(canonical_bytes(value))
    assert direct_bytes(canonical_json(value)) == canonical_bytes(value)
    assert json.loads(direct) == json.loads(canonical_bytes(value))


@pytest.mark.parametrize(
    "bad",
    [
        float("nan"),
        float("inf"),
        [float("-inf")],
        {"a": float("nan")},
        "\ud800",
        {"\udfff": 1},
        {1: "x"},
        {None: 1},
        2**64,
        -(2**63) - 1,
        {1, 2},
        (1, 2),
        b"bytes",
        object(),
    ],
)
def test_encoder_rejects_values_serde_would_never_write(bad: Any) -> None:
    with pytest.raises(Serialization):
        canonical_bytes(bad)
    with pytest.raises(Serialization):
        direct_bytes(bad)


# --- floats: serde_json's ryu formatting (spec 01 §3.2)

FLOAT_VECTORS = [
    (1.0, "1.0"),
    (100.0, "100.0"),
    (1e15, "1000000000000000.0"),
    (123456.789, "123456.789"),
    (0.00001, "0.00001"),
    (0.000123, "0.000123"),
    (1e16, "1e16"),
    (1e20, "1e20"),
    (1.5e-7, "1.5e-7"),
    (5e-324, "5e-324"),
    (1.7976931348623157e308, "1.7976931348623157e308"),
    (-0.0, "-0.0"),
    (0.0, "0.0"),
    (-2.5, "-2.5"),
    (0.1, "0.1"),
]


@pytest.mark.parametrize(("value", "text"), FLOAT_VECTORS)
def test_float_vectors(value: float, text: str) -> None:
    assert format_float(value) == text
    assert canonical_bytes({"x": value}) == b'{"x":' + text.encode() + b"}"


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_float_text_round_trips_exactly(value: float) -> None:
    text = format_float(value)
    assert float(text) == value
    assert "+" not in text
    assert ("e" in text) or ("." in text)


def test_float_holding_value_keeps_canonical_order() -> None:
    value = {"b": 1.5, "a": [1e16, {"z": 0.5, "y": True}]}
    assert canonical_bytes(value) == b'{"a":[1e16,{"y":true,"z":0.5}],"b":1.5}'
    assert direct_bytes(value) == b'{"b":1.5,"a":[1e16,{"z":0.5,"y":true}]}'


# --- sha256 format


@given(st.binary(max_size=64))
def test_fingerprint_format(data: bytes) -> None:
    digest = sha256_hex(data)
    assert digest == hashlib.sha256(data).hexdigest()
    assert is_canonical_sha256(digest)


@pytest.mark.parametrize(
    "bad",
    ["A" * 64, "a" * 63, "a" * 65, "g" * 64, "a" * 63 + "\n", "a" * 63 + "é", "", "٣" * 64, None, 7, "a" * 63 + " "],
)
def test_is_canonical_sha256_rejects(bad: Any) -> None:
    assert not is_canonical_sha256(bad)


@given(st.text(alphabet="0123456789abcdef", min_size=64, max_size=64))
def test_is_canonical_sha256_accepts_any_lowercase_hex(value: str) -> None:
    assert is_canonical_sha256(value)


@given(json_values)
def test_trusted_fast_path_is_byte_identical_for_float_free_values(value: Any) -> None:
    assert canonical_bytes(value, trusted=True) == canonical_bytes(value)
    assert direct_bytes(value, trusted=True) == direct_bytes(value)
    assert fingerprint(value, trusted=True) == fingerprint(value)


@pytest.mark.parametrize("bad", [{1: "x"}, "\ud800", 2**64, {1, 2}, b"x", object()])
def test_trusted_fast_path_still_refuses_non_json(bad: Any) -> None:
    with pytest.raises(Serialization):
        canonical_bytes(bad, trusted=True)
