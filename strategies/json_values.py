"""Plain JSON values and byte-level malformed-JSON mutations of any document.

``json_values()`` draws plain JSON (what every encoder of ``reference.canonical``
accepts). ``malformed_json(document)`` draws one ``MalformedJson``: the
document's compact bytes broken by exactly one class of spec 01 §5 / decision
D-01-3 (the strict decoder boundary). Every class must be refused with
``serialization`` by ``loads_strict`` (and so by every document decoder).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Final

from hypothesis import strategies as st

from reference.canonical import MAX_JSON_DEPTH, JsonValue
from reference.ints import U64_MAX
from strategies._reuse import reusable
from strategies.cases import JsonPath, MalformedJson, get_at, iter_paths, replaced

__all__ = [
    "MALFORMED_CLASSES",
    "compact_bytes",
    "json_scalars",
    "json_values",
    "malformed_json",
]

_I64_MIN: Final = -(2**63)
_SENTINEL: Final = "__vnext_conformance_malformed_sentinel__"

#: Every malformed class, with the rule that refuses it (spec 01 §5, decision D-01-3).
MALFORMED_CLASSES: Final = {
    "duplicate_key": "01 §5 / D-01-3: an object may not repeat a key",
    "negative_zero": "01 §5 / D-01-3: the integer -0 is refused",
    "integer_out_of_range": "01 §5: integers outside [-2^63, 2^64-1] are refused",
    "non_finite": "01 §5: NaN and Infinity are not JSON",
    "lone_surrogate": "01 §5: a string may not hold a lone UTF-16 surrogate",
    "invalid_utf8": "01 §5: input must be valid UTF-8",
    "raw_control_character": "01 §5: control characters inside strings must be escaped",
    "byte_order_mark": "01 §5 / D-01-3: a leading byte-order mark is refused",
    "trailing_data": "01 §5: nothing but whitespace may follow the value",
    "truncated": "01 §5: the value must be complete",
    "deep_nesting": "01 §5 / D-01-4: nesting depth 128 or more is refused",
    "oversize": "01 §5 / D-01-4: input over the boundary's byte cap is refused before parsing",
}


def json_scalars(*, floats: bool = False) -> st.SearchStrategy[JsonValue]:
    """null, booleans, u64/i64 integers, short strings and (optionally) finite floats."""
    options: list[st.SearchStrategy[Any]] = [
        st.none(),
        st.booleans(),
        st.integers(_I64_MIN, U64_MAX),
        st.text(max_size=8),
    ]
    if floats:
        options.append(st.floats(allow_nan=False, allow_infinity=False))
    return st.one_of(options)


def json_values(*, floats: bool = False, max_leaves: int = 12) -> st.SearchStrategy[JsonValue]:
    """Plain JSON values (objects, arrays, scalars), small and readable."""
    return st.recursive(
        json_scalars(floats=floats),
        lambda children: st.one_of(
            st.lists(children, max_size=4),
            st.dictionaries(st.text(max_size=6), children, max_size=4),
        ),
        max_leaves=max_leaves,
    )


def compact_bytes(document: JsonValue) -> bytes:
    """Compact JSON bytes in the document's own key order (not the canonical form)."""
    return json.dumps(document, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode("utf-8")


def _with_raw(document: JsonValue, path: JsonPath, raw: str) -> bytes:
    """Compact bytes with the value at ``path`` replaced by the raw JSON text ``raw``."""
    marked = replaced(document, path, _SENTINEL)
    text = json.dumps(marked, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    quoted = json.dumps(_SENTINEL)
    if text.count(quoted) != 1:
        raise ValueError("document already holds the malformed-JSON sentinel")
    return text.replace(quoted, raw).encode("utf-8")


def _value_paths(document: JsonValue) -> list[JsonPath]:
    return [path for path, _ in iter_paths(document)]


def _object_paths(document: JsonValue) -> list[JsonPath]:
    return [path for path, value in iter_paths(document) if isinstance(value, dict) and value]


def _dump(value: JsonValue) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


@reusable
@st.composite
def _duplicate_key(draw: st.DrawFn, document: JsonValue) -> bytes:
    objects = _object_paths(document)
    if not objects:
        body = _dump(document)
        return ('{"k":' + body + ',"k":' + body + "}").encode("utf-8")
    path = draw(st.sampled_from(objects))
    target: dict[str, Any] = get_at(document, path)
    key = draw(st.sampled_from(sorted(target)))
    again = draw(st.sampled_from([target[key], None, 0]))
    members = [f"{_dump(k)}:{_dump(v)}" for k, v in target.items()]
    members.insert(draw(st.integers(0, len(members))), f"{_dump(key)}:{_dump(again)}")
    return _with_raw(document, path, "{" + ",".join(members) + "}")


@reusable
@st.composite
def _at_value(draw: st.DrawFn, document: JsonValue, raw: st.SearchStrategy[str]) -> bytes:
    path = draw(st.sampled_from(_value_paths(document)))
    return _with_raw(document, path, draw(raw))


def _surrogate_strings() -> st.SearchStrategy[str]:
    # The escape ends the string, so a high surrogate is never followed by its low half.
    return st.tuples(st.text(alphabet="abc", max_size=3), st.integers(0xD800, 0xDFFF)).map(
        lambda pair: '"' + pair[0] + f"\\u{pair[1]:04x}" + '"'
    )


def _control_strings() -> st.SearchStrategy[str]:
    return st.tuples(st.text(alphabet="abc", max_size=3), st.integers(0, 0x1F)).map(
        lambda pair: '"' + pair[0] + chr(pair[1]) + '"'
    )


@reusable
@st.composite
def _insert_bytes(draw: st.DrawFn, data: bytes) -> bytes:
    position = draw(st.integers(0, len(data)))
    bad = draw(st.sampled_from((b"\xff", b"\xfe", b"\xc0\xaf", b"\x80", b"\xed\xa0\x80", b"\xe2\x82")))
    return data[:position] + bad + data[position:]


@reusable
@st.composite
def _trailing(draw: st.DrawFn, data: bytes) -> bytes:
    space = draw(st.sampled_from((b"", b" ", b"\n")))
    junk = draw(st.sampled_from([b"x", b"0", b"{}", b"[]", b",", b"]", b"}", b'"t"', b"null"]))
    return data + space + junk


def malformed_json(
    document: JsonValue, *, max_bytes: int | None = None, klass: str | None = None
) -> st.SearchStrategy[MalformedJson]:
    """One malformed-JSON class applied to ``document`` (``oversize`` needs the boundary's ``max_bytes``,
    ``truncated`` a container document). ``klass`` forces one class (it must apply)."""
    data = compact_bytes(document)
    makers: dict[str, Callable[[], st.SearchStrategy[bytes]]] = {
        "duplicate_key": lambda: _duplicate_key(document),
        "negative_zero": lambda: _at_value(document, st.sampled_from(("-0", "-0 "))),
        "integer_out_of_range": lambda: _at_value(
            document,
            st.one_of(st.integers(U64_MAX + 1, U64_MAX + 1000), st.integers(_I64_MIN - 1000, _I64_MIN - 1)).map(str),
        ),
        "non_finite": lambda: _at_value(document, st.sampled_from(("NaN", "Infinity", "-Infinity"))),
        "lone_surrogate": lambda: _at_value(document, _surrogate_strings()),
        "invalid_utf8": lambda: _insert_bytes(data),
        "raw_control_character": lambda: _at_value(document, _control_strings()),
        "byte_order_mark": lambda: st.just(b"\xef\xbb\xbf" + data),
        "trailing_data": lambda: _trailing(data),
        "deep_nesting": lambda: _at_value(
            document, st.integers(MAX_JSON_DEPTH, MAX_JSON_DEPTH + 32).map(lambda n: "[" * n + "]" * n)
        ),
    }
    if isinstance(document, dict | list) and len(data) > 1:
        makers["truncated"] = lambda: st.integers(1, len(data) - 1).map(lambda cut: data[:cut])
    if max_bytes is not None:
        makers["oversize"] = lambda: st.just(data + b" " * max(1, max_bytes - len(data) + 1))

    def build(klass: str) -> st.SearchStrategy[MalformedJson]:
        return makers[klass]().map(lambda raw: MalformedJson(klass, MALFORMED_CLASSES[klass], raw, document))

    if klass is not None:
        if klass not in makers:
            raise ValueError(f"malformed class {klass!r} does not apply to this document")
        return build(klass)
    return st.sampled_from(sorted(makers)).flatmap(build)
