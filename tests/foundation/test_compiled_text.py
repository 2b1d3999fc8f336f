"""The compiled reading of JSON text (``reference/_jsonscan.c``) answers exactly as the Python reading.

``loads_strict`` takes a text the compiled facts and a fast parser show plainly acceptable, and leaves every
other text to the full decoder; ``max_depth`` and ``root_members`` take the compiled pass where it decides
and the chunked passes otherwise. Each test sends the same text down both roads (the compiled module switched
off for the second) and requires the same value, with the same types, or the same refusal.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reference import canonical, json_scan
from reference.canonical import MAX_JSON_DEPTH, loads_strict
from reference.errors import Serialization
from reference.json_scan import CHUNK_BYTES, ScanError, max_depth, root_members
from strategies.json_values import compact_bytes, json_values, malformed_json

_BYTES_OF_INTEREST = b'{}[],:"\\-0 1.eE\n\ttrue'
#: Pieces of text: the bytes of interest, and runs the compiled passes skip at once (string interiors,
#: whitespace runs of eight bytes and more).
_PIECES = [bytes([b]) for b in _BYTES_OF_INTEREST] + [b" " * 8, b" " * 9, b"\n" + b" " * 15, b"x" * 17, b"\\" * 3]


@contextmanager
def _python_only() -> Iterator[None]:
    saved = canonical._COMPILED, json_scan._COMPILED
    canonical._COMPILED = json_scan._COMPILED = None
    try:
        yield
    finally:
        canonical._COMPILED, json_scan._COMPILED = saved


def _typed(value: Any) -> Any:
    """``value`` with every scalar tagged by its type (``1``, ``1.0`` and ``True`` differ)."""
    if isinstance(value, dict):
        return {key: _typed(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_typed(item) for item in value]
    return (type(value).__name__, repr(value))


def _outcome(read: Callable[[], Any]) -> Any:
    try:
        return ("value", _typed(read()))
    except Serialization as error:
        return ("refused", error.to_dict())
    except ScanError as error:
        return ("scan error", str(error))


def _both(read: Callable[[], Any]) -> tuple[Any, Any]:
    compiled = _outcome(read)
    with _python_only():
        python = _outcome(read)
    return compiled, python


def test_the_compiled_reading_is_built() -> None:
    assert canonical._COMPILED is not None and json_scan._COMPILED is not None


_texts = st.one_of(
    json_values(floats=True).map(compact_bytes),
    json_values(floats=True).map(lambda value: json.dumps(value, indent=1).encode()),
    json_values().flatmap(lambda value: malformed_json(value).map(lambda bad: bad.data)),
    st.binary(max_size=40),
    st.lists(st.sampled_from(_PIECES), max_size=30).map(b"".join),
)
_edge_texts = [
    b"-0", b"[-0]", b"[-0.0]", b"[-0e1]", b'{"a":-0}', b'"-0"', b"18446744073709551615", b"18446744073709551616",
    b"-9223372036854775809", b'{"a":1,"a":1}', b'{"a":{"b":1,"b":2}}', b'{"a:b":1}', b'{"a":"x:y"}',
    b'["\\ud800"]', b'"\\ud83d\\ude00"', b"\xef\xbb\xbf{}", b"1e400", b"NaN", b"[1,]", b" {} ", b'"\\\\"',
    b'"a\\"b"', b"[" * 127 + b"]" * 127, b"[" * 128 + b"]" * 128, b'{"\\\\":"\\\\\\""}',
]  # fmt: skip


@given(_texts)
def test_loads_strict_gives_the_full_decoders_answer(text: bytes) -> None:
    compiled, python = _both(lambda: loads_strict(text, context="test"))
    assert compiled == python


@pytest.mark.parametrize("text", _edge_texts)
def test_loads_strict_edges(text: bytes) -> None:
    compiled, python = _both(lambda: loads_strict(text, context="test"))
    assert compiled == python


@pytest.mark.parametrize("allow_floats", [True, False])
@pytest.mark.parametrize("text", [b"[1.5]", b"[1e2]", b"[18446744073709551616]"])
def test_floats_are_left_to_the_full_decoder(text: bytes, allow_floats: bool) -> None:
    compiled, python = _both(lambda: loads_strict(text, context="test", allow_floats=allow_floats))
    assert compiled == python


@given(_texts, st.sampled_from([None, 3, MAX_JSON_DEPTH]))
def test_max_depth_is_the_chunked_passes_figure(text: bytes, limit: int | None) -> None:
    compiled = max_depth(text, limit=limit)
    chunked = max_depth(text, limit=limit, chunk_bytes=CHUNK_BYTES + 1)
    if limit is None or chunked < limit:
        assert compiled == chunked
    else:  # past the limit the figure is where the chunked pass stopped: the compiled pass defers to it
        assert compiled >= limit


@pytest.mark.parametrize(
    "text",
    [b'\\ "[[["', b"\\" + b" " * 9 + b'"[[["', b'"' + b"x" * 20 + b'\\"[[["', b'"' + b"x" * 20 + b'\\\\"[[["',
     b"[" + b" " * 17 + b"[" + b"\t" * 9 + b"]]", b'["' + b" " * 16 + b'"," [[ "]', b'"a\\nb" [[[]]]'],
)  # fmt: skip
def test_max_depth_edges_around_skipped_runs(text: bytes) -> None:
    assert max_depth(text, limit=None) == max_depth(text, limit=None, chunk_bytes=CHUNK_BYTES + 1)


_objects = st.one_of(
    st.dictionaries(st.text(alphabet='ab"\\:,{}[]', max_size=5), json_values(floats=True), max_size=6).map(
        compact_bytes
    ),
    st.dictionaries(st.text(max_size=4), json_values(), max_size=4).map(lambda v: json.dumps(v, indent=2).encode()),
    st.lists(st.sampled_from(_PIECES), max_size=30).map(lambda p: b"{" + b"".join(p)),
)


@given(_objects, st.sampled_from([1, 3, 8]))
def test_root_members_are_the_chunked_passes_members(text: bytes, max_members: int) -> None:
    compiled, python = _both(lambda: root_members(text, max_members=max_members))
    assert compiled == python


@pytest.mark.parametrize(
    "text",
    [b"", b"[]", b"1", b"{", b'{"a"}', b'{"a":}', b"{:1}", b'{"a":1,}', b'{"a":1}x', b'{"a":1}}', b'{"a":1 "b":2}',
     b'{"a":1}]', b' {"a":[1,{"b":2}],"c":"}"} ', b'{"a\\"":1}', b"{}", b"{ }"],
)  # fmt: skip
def test_root_member_edges(text: bytes) -> None:
    compiled, python = _both(lambda: root_members(text, max_members=8))
    assert compiled == python
