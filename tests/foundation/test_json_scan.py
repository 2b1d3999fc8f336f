"""The structural scan of untrusted JSON: depth and root members agree with a parser, whatever the chunking."""

from __future__ import annotations

import json
import tracemalloc
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reference.json_scan import ScanError, max_depth, root_members

leaf = st.one_of(st.none(), st.booleans(), st.integers(), st.text(alphabet='ab"\\[]{},: \n\u00e9'))
values = st.recursive(
    leaf, lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=6), inner, max_size=4))
)
chunks = st.sampled_from([1, 2, 3, 7, 64, 1 << 20])


def depth(value: Any) -> int:
    if isinstance(value, list):
        return 1 + max((depth(item) for item in value), default=0)
    if isinstance(value, dict):
        return 1 + max((depth(item) for item in value.values()), default=0)
    return 0


@given(value=values, chunk=chunks, indent=st.sampled_from([None, 1]), ascii_only=st.booleans())
def test_depth_equals_the_parsed_nesting(value: Any, chunk: int, indent: int | None, ascii_only: bool) -> None:
    text = json.dumps(value, indent=indent, ensure_ascii=ascii_only).encode()
    assert max_depth(text, chunk_bytes=chunk) == depth(value)


@given(
    members=st.dictionaries(st.text(max_size=6), values, max_size=5), chunk=chunks, indent=st.sampled_from([None, 2])
)
def test_root_members_are_the_parsed_members(members: dict[str, Any], chunk: int, indent: int | None) -> None:
    text = json.dumps(members, indent=indent).encode()
    found = root_members(text, max_members=10, chunk_bytes=chunk)
    assert [json.loads(member.key) for member in found] == list(members)
    for member in found:
        value = json.loads(text[member.start : member.end])
        assert value == members[json.loads(member.key)]
        assert member.depth == depth(value)


@pytest.mark.parametrize(
    "text",
    [b"", b"[]", b"1", b"{", b'{"a"}', b'{"a":}', b"{:1}", b'{"a":1,}', b'{"a":1}x', b'{"a":1}}', b'{"a":1 "b":2}'],
)
def test_what_is_not_an_object_of_members_is_refused(text: bytes) -> None:
    with pytest.raises(ScanError):
        root_members(text, max_members=8)


def test_too_many_members_are_refused_early() -> None:
    text = b"{" + b",".join(b'"k%d":1' % i for i in range(100)) + b"}"
    with pytest.raises(ScanError):
        root_members(text, max_members=8)


def test_memory_stays_bounded_per_input_byte() -> None:
    """A 32 MiB input costs the scan less than one byte of memory per input byte: the passes are chunked."""
    data = b"[" * (32 * 1024 * 1024)
    tracemalloc.start()
    try:
        assert max_depth(data, limit=None) == len(data)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 32 * 1024 * 1024
