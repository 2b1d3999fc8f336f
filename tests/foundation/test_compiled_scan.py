"""The compiled plain-JSON check (``reference/_jsonscan.c``) decides exactly as ``canonical._scan``.

``canonical._holds_float`` asks the compiled check first and lets ``_scan`` word every refusal, so the
two must agree on every value: accepted with or without a float, or refused. The values below mix
every JSON type with what a JSON value must not hold (tuples, sets, bytes, enums, subclasses of the
JSON types, non-finite floats, integers just outside [-2^63, 2^64 - 1], non-string keys) and nest
around the 128-level limit.
"""

from __future__ import annotations

import enum
import math
from collections import OrderedDict
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reference import canonical
from reference.canonical import MAX_JSON_DEPTH, canonical_bytes, direct_bytes, fingerprint
from reference.errors import Serialization


class _Colour(enum.Enum):
    RED = "red"


class _Level(enum.IntEnum):
    ONE = 1


class _Name(enum.StrEnum):
    A = "a"


class _Text(str):
    pass


class _Number(int):
    pass


class _Mapping(dict):  # type: ignore[type-arg]
    pass


class _Sequence(list):  # type: ignore[type-arg]
    pass


_EDGE_INTS = (-(2**63) - 1, -(2**63), -1, 0, 2**63 - 1, 2**63, 2**64 - 1, 2**64, 10**30, -(10**30))
_FOREIGN = (
    (1,), frozenset({1}), {1}, b"x", 1j, _Colour.RED, _Level.ONE, _Name.A, _Text("t"), _Number(3), object(),
)  # fmt: skip

_leaves = st.one_of(
    st.none(),
    st.booleans(),
    st.text(max_size=4),
    st.integers(min_value=-(2**65), max_value=2**65),
    st.sampled_from(_EDGE_INTS),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(_FOREIGN),
)


def _containers(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    keys = st.one_of(st.text(max_size=3), st.sampled_from([1, None, _Text("k"), (1,)]))
    return st.one_of(
        st.lists(children, max_size=4),
        st.dictionaries(st.text(max_size=3), children, max_size=4),
        st.dictionaries(keys, children, max_size=3),
        st.lists(children, max_size=3).map(tuple),
        st.lists(children, max_size=3).map(_Sequence),
        st.dictionaries(st.text(max_size=3), children, max_size=3).map(_Mapping),
        st.dictionaries(st.text(max_size=3), children, max_size=3).map(OrderedDict),
    )


_values = st.recursive(_leaves, _containers, max_leaves=25)


def _python_verdict(value: Any) -> int:
    try:
        return int(canonical._scan(value, "test"))
    except Serialization:
        return -1


def _nested(depth: int, leaf: Any, as_dict: bool) -> Any:
    """``leaf`` inside ``depth`` containers (the outermost at nesting 1)."""
    value = leaf
    for _ in range(depth):
        value = {"k": value} if as_dict else [value]
    return value


def test_the_compiled_check_is_built() -> None:
    assert canonical._COMPILED is not None, (
        "reference/_jsonscan.c was not compiled: install a C compiler and the Python headers, then reinstall"
    )


@given(_values)
def test_compiled_and_python_checks_agree(value: Any) -> None:
    assert canonical._COMPILED is not None
    assert canonical._COMPILED.scan(value) == _python_verdict(value)


@pytest.mark.parametrize("as_dict", [True, False])
@pytest.mark.parametrize("depth", [1, MAX_JSON_DEPTH - 2, MAX_JSON_DEPTH - 1, MAX_JSON_DEPTH, MAX_JSON_DEPTH + 5])
@pytest.mark.parametrize("leaf", [1, 1.5, "x", (1,), math.nan, 2**64])
def test_both_checks_agree_around_the_depth_limit(depth: int, leaf: Any, as_dict: bool) -> None:
    assert canonical._COMPILED is not None
    value = _nested(depth, leaf, as_dict)
    assert canonical._COMPILED.scan(value) == _python_verdict(value)
    refused_leaf = leaf in ((1,), 2**64) or (isinstance(leaf, float) and math.isnan(leaf))
    assert (_python_verdict(value) == -1) == (depth >= MAX_JSON_DEPTH or refused_leaf)


@given(_values)
def test_encoders_give_the_same_bytes_or_refusal_with_and_without_the_compiled_check(value: Any) -> None:
    def outcomes() -> list[Any]:
        found: list[Any] = []
        for encode in (canonical_bytes, direct_bytes, fingerprint):
            try:
                found.append(encode(value))
            except Serialization as error:
                found.append(error.to_dict())
        return found

    compiled = outcomes()
    saved = canonical._COMPILED
    canonical._COMPILED = None
    try:
        assert outcomes() == compiled
    finally:
        canonical._COMPILED = saved
