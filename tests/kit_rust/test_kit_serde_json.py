"""``reference.canonical`` against serde_json itself, and the nesting-depth decision (R-2).

Generated values go to ``vnext-kit serde-json`` as flat token lists (floats as their bit
patterns, so no parser sits between the draw and the Rust value). It answers the bytes
``serde_json::to_vec`` writes for the value (serde_json's map keeps keys in byte order, which
is upstream's ``canonical_json`` + ``to_vec``) and the kit's ``canonical_bytes``. Both must
equal the reference's canonical bytes, byte for byte.

Depth (docs/decisions/18-rust-kit.md, R-2): serde_json's reader refuses nesting of 128 or
more, its writer does not; the kit's writers refuse what no contract decoder can read back.
"""

from __future__ import annotations

import base64
import json
import math
import struct
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reference.canonical import MAX_JSON_DEPTH, canonical_bytes, loads_strict
from reference.errors import Serialization

from .kit import LineProcess

I64_MIN, U64_MAX = -(2**63), 2**64 - 1

#: Characters whose UTF-16 order differs from their UTF-8 (code point) order, and friends.
TRICKY = ["a", "A", "_", "0", "1", "2", "é", "\x00", "\x1f", "\x7f", "\u2028", "\ud7ff", "\ue000", "\uffff"]
TRICKY += ["\U00010000", "\U0001f600", "\U0010ffff", '"', "\\", "/"]


def _float_of_bits(bits: int) -> float:
    value: float = struct.unpack("<d", struct.pack("<Q", bits))[0]
    return value


def floats() -> st.SearchStrategy[float]:
    """Finite f64 over the whole range: any bit pattern, plus the formatting boundaries."""
    any_bits = st.integers(0, U64_MAX).map(_float_of_bits).filter(math.isfinite)
    edges = st.sampled_from(
        [
            *(0.0, -0.0, 5e-324, -5e-324, 2.2250738585072014e-308, 1.7976931348623157e308),
            *(1e16, 1e15, 1e-5, 1e-7, 123456789012345680.0, 0.1, 1.0 / 3.0, 2.0**53 + 2, 4.35, 1e21, 1e22, 1.5e300),
        ]
    )
    decimal = st.floats(allow_nan=False, allow_infinity=False)
    return st.one_of(any_bits, edges, decimal)


def texts() -> st.SearchStrategy[str]:
    """Any Unicode text without lone surrogates (control characters and non-BMP included)."""
    chars = st.one_of(st.characters(codec="utf-8"), st.sampled_from(TRICKY))
    return st.text(chars, max_size=12)


def keys() -> st.SearchStrategy[str]:
    return st.one_of(st.text(st.sampled_from(TRICKY), max_size=4), texts())


def scalars() -> st.SearchStrategy[Any]:
    return st.one_of(st.none(), st.booleans(), st.integers(I64_MIN, U64_MAX), floats(), texts())


def json_trees(max_leaves: int = 30) -> st.SearchStrategy[Any]:
    return st.recursive(
        scalars(),
        lambda children: st.one_of(st.lists(children, max_size=5), st.dictionaries(keys(), children, max_size=5)),
        max_leaves=max_leaves,
    )


@st.composite
def deep_values(draw: st.DrawFn, min_depth: int = 100, max_depth: int = MAX_JSON_DEPTH - 1) -> Any:
    """A chain of arrays/objects ``min_depth..max_depth`` deep around a small tree."""
    value = draw(json_trees(max_leaves=6))
    depth = draw(st.integers(min_depth, max_depth))
    arrays = draw(st.lists(st.booleans(), min_size=depth, max_size=depth))
    key = draw(st.sampled_from(TRICKY))
    for is_array in arrays[_depth(value) :]:
        value = [value] if is_array else {key: value}
    return value


def _depth(value: Any) -> int:
    if isinstance(value, list):
        return 1 + max((_depth(v) for v in value), default=0)
    if isinstance(value, dict):
        return 1 + max((_depth(v) for v in value.values()), default=0)
    return 0


def tokens(value: Any) -> list[list[Any]]:
    """The preorder token list of ``vnext-kit serde-json`` (iterative: any depth)."""
    out: list[list[Any]] = []
    stack: list[Any] = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, tuple):  # a pending object key
            out.append(["k", item[0]])
        elif item is None:
            out.append(["n"])
        elif isinstance(item, bool):
            out.append(["b", item])
        elif isinstance(item, int):
            out.append(["i", item])
        elif isinstance(item, float):
            out.append(["f", struct.pack(">d", item).hex()])
        elif isinstance(item, str):
            out.append(["s", item])
        elif isinstance(item, list):
            out.append(["a", len(item)])
            stack.extend(reversed(item))
        else:
            out.append(["o", len(item)])
            for key, child in reversed(list(item.items())):
                stack.append(child)
                stack.append((key,))
    return out


def write(serde_json_writer: LineProcess, value: Any) -> dict[str, Any]:
    return serde_json_writer.ask(json.dumps(tokens(value), ensure_ascii=True).encode())


def assert_same_bytes(serde_json_writer: LineProcess, value: Any) -> None:
    answer = write(serde_json_writer, value)
    serde = base64.b64decode(answer["serde_json_base64"])
    reference = canonical_bytes(value)
    assert reference == serde, f"reference {reference!r} != serde_json {serde!r}"
    assert base64.b64decode(answer["kit_base64"]) == serde


@given(json_trees())
def test_reference_canonical_bytes_are_serde_json_s(serde_json_writer: LineProcess, value: Any) -> None:
    assert_same_bytes(serde_json_writer, value)


@given(floats())
def test_every_float_is_formatted_like_serde_json(serde_json_writer: LineProcess, value: float) -> None:
    assert_same_bytes(serde_json_writer, [value, {"k": -value}])


@given(st.dictionaries(keys(), st.integers(0, 3), min_size=2, max_size=8))
def test_keys_sort_by_utf8_bytes(serde_json_writer: LineProcess, value: dict[str, int]) -> None:
    assert_same_bytes(serde_json_writer, value)


@given(deep_values())
def test_deep_values_below_the_limit_are_written_alike(serde_json_writer: LineProcess, value: Any) -> None:
    assert_same_bytes(serde_json_writer, value)


def test_utf16_and_utf8_orders_differ_on_the_tricky_keys(serde_json_writer: LineProcess) -> None:
    """Non-vacuity: U+FFFF sorts before U+1F600 by bytes, after it by UTF-16 code units."""
    assert sorted(["\uffff", "\U0001f600"]) == ["\uffff", "\U0001f600"]
    assert sorted(["\uffff", "\U0001f600"], key=lambda k: k.encode("utf-16-be")) == ["\U0001f600", "\uffff"]
    assert_same_bytes(serde_json_writer, {"\U0001f600": 1, "\uffff": 2})


def nested(depth: int, leaf: Any) -> Any:
    value = leaf
    for i in range(depth):
        value = [value] if i % 2 else {"k": value}
    return value


@pytest.mark.parametrize("leaf", [1, 1.5], ids=["float-free", "with-float"])
@pytest.mark.parametrize("depth", [1, 126, 127, 128, 129, 254, 255, 256, 1000])
def test_depth_decision(serde_json_writer: LineProcess, depth: int, leaf: Any) -> None:
    """R-2: the kit writes exactly what serde_json's reader (and ``loads_strict``) can read back.

    serde_json's writer writes every depth; below 128 the kit and the reference write its
    bytes and the strict reader returns the value; at 128 or more the kit refuses and the
    bytes serde_json writes are unreadable by every contract decoder.
    """
    value = nested(depth, leaf)
    answer = write(serde_json_writer, value)
    serde = base64.b64decode(answer["serde_json_base64"])
    assert serde.count(b"[") + serde.count(b"{") == depth
    if depth < MAX_JSON_DEPTH:
        kit = base64.b64decode(answer["kit_base64"])
        assert kit == serde == canonical_bytes(value)
        assert loads_strict(kit, context="t") == value
    else:
        assert "kit_base64" not in answer
        error = answer["kit_error"]
        assert (error["kind"], error["context"]) == ("serialization", "canonical json")
        assert "recursion limit" in error["message"]
        with pytest.raises(Serialization):
            loads_strict(serde, context="t")


@pytest.mark.parametrize("leaf", [1, 1.5], ids=["float-free", "with-float"])
def test_reference_refuses_to_encode_what_no_decoder_reads(leaf: Any) -> None:
    with pytest.raises(Serialization):
        canonical_bytes(nested(MAX_JSON_DEPTH, leaf))


def test_non_finite_floats_have_no_json_form(serde_json_writer: LineProcess) -> None:
    for bits in (0x7FF0000000000000, 0xFFF0000000000000, 0x7FF8000000000001):
        line = json.dumps([["f", f"{bits:016x}"]]).encode()
        assert "non-finite" in serde_json_writer.ask(line)["error"]
        with pytest.raises(Serialization):
            canonical_bytes(_float_of_bits(bits))
