"""Typed wire decoding helpers and the shared schema primitives."""

from __future__ import annotations

import re
from typing import Any

import jsonschema
import pytest
from hypothesis import given
from hypothesis import strategies as st

import schemas
from reference import ids
from reference.errors import InvalidIdentity, Serialization
from reference.wire import WireObject, decode_with, read_enum, read_tagged, read_uint

CTX = "decode test"


def test_wire_object_requires_every_field_and_rejects_unknown() -> None:
    obj = WireObject({"a": 1, "b": None}, ("a", "b"), type_name="T", context=CTX)
    assert obj.u64("a") == 1
    assert obj.optional("b", lambda raw, context, path: raw) is None
    with pytest.raises(Serialization, match="missing field `b`"):
        WireObject({"a": 1}, ("a", "b"), type_name="T", context=CTX)  # omitted Option key
    with pytest.raises(Serialization, match="unknown field `c`"):
        WireObject({"a": 1, "b": 2, "c": 3}, ("a", "b"), type_name="T", context=CTX)
    assert WireObject({"a": 1, "c": 3}, ("a",), type_name="T", context=CTX, lenient=True).u16("a") == 1
    with pytest.raises(Serialization):
        WireObject([1], ("a",), type_name="T", context=CTX)


def test_wire_object_optional_keys_may_be_absent() -> None:
    obj = WireObject({"a": [1, 2], "o": None}, ("a",), ("o", "p"), type_name="T", context=CTX)
    assert obj.uints("a", 8) == (1, 2)
    assert "o" in obj and not obj.has("o") and "p" not in obj and obj.get("p") is None
    assert obj.optional("p", lambda raw, context, path: raw) is None
    assert obj.items("a", lambda raw, context, path: (raw, path)) == ((1, "$.a[0]"), (2, "$.a[1]"))
    with pytest.raises(Serialization, match="unknown field `q`"):
        WireObject({"a": [], "q": 1}, ("a",), ("o",), type_name="T", context=CTX)
    with pytest.raises(Serialization, match="missing field `a`"):
        WireObject({"o": 1}, ("a",), ("o",), type_name="T", context=CTX)
    with pytest.raises(Serialization, match=r"\$\.a\[1\]"):
        obj.uints("a", 1)


@pytest.mark.parametrize(("raw", "bits"), [(True, 64), (1.0, 64), (-1, 64), (2**64, 64), (65536, 16), ("1", 32)])
def test_read_uint_rejects(raw: Any, bits: int) -> None:
    with pytest.raises(Serialization):
        read_uint(raw, bits=bits, context=CTX, path="$.x")


def test_enums() -> None:
    assert read_enum("f32", ("f32", "u8"), context=CTX, path="$") == "f32"
    with pytest.raises(Serialization):
        read_enum("F32", ("f32",), context=CTX, path="$")
    assert read_tagged({"strided": {"byte_strides": [4]}}, ("strided", "contiguous"), context=CTX, path="$") == (
        "strided",
        {"byte_strides": [4]},
    )
    assert read_tagged("contiguous", ("strided", "contiguous"), context=CTX, path="$") == ("contiguous", None)
    for bad in ({"a": 1, "b": 2}, {"nope": 1}, 3, "nope"):
        with pytest.raises(Serialization):
            read_tagged(bad, ("a", "b"), context=CTX, path="$")


def test_identity_fields_and_constructor_errors_become_serialization() -> None:
    obj = WireObject({"id": "a b"}, ("id",), type_name="T", context=CTX)
    with pytest.raises(Serialization, match="invalid identity"):
        obj.identity("id", ids.NodeId)

    def boom() -> None:
        raise InvalidIdentity(identity_kind="node", value="x", reason="r")

    with pytest.raises(Serialization) as info:
        decode_with(boom, context=CTX, path="$.id")
    assert info.value.context == CTX


@given(st.text(max_size=170))
def test_identity_schema_agrees_with_the_rule(value: str) -> None:
    schema_ok = True
    try:
        jsonschema.validate(value, schemas.load("common.json")["$defs"]["identity"])
    except jsonschema.ValidationError:
        schema_ok = False
    rule_ok = value.isascii() and re.fullmatch(r"[A-Za-z0-9._:/-]{1,160}", value) is not None
    assert schema_ok == rule_ok


def test_every_schema_document_is_valid_2020_12() -> None:
    assert {"common.json", "error.json"} <= set(schemas.names())
    for name in schemas.names():
        doc = schemas.load(name)
        assert doc["$schema"] == "https://json-schema.org/draft/2020-12/schema"
        assert doc["$id"] == schemas.SCHEMA_URN_PREFIX + name
        schemas.validator(name)  # check_schema runs here


def test_u64_bounds_in_schema() -> None:
    u64 = {"$ref": "urn:vnext-conformance:schema:common.json#/$defs/u64"}
    validator = jsonschema.Draft202012Validator(u64, registry=schemas.registry())
    assert validator.is_valid(2**64 - 1)
    assert not validator.is_valid(2**64)
    assert not validator.is_valid(-1)
