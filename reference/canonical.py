"""The two hashing byte forms, sha256 fingerprints and the strict wire decoder (spec 01 §3).

* ``canonical_bytes``: object keys sorted by UTF-8 bytes at every depth, compact,
  byte-identical to serde_json's compact writer after ``canonical_json``.
* ``direct_bytes``: the same writer in the order the value carries (the Rust
  field declaration order, which callers build their dicts in).
* ``fingerprint``: lowercase sha256 hex of canonical bytes.
* ``loads_strict``: the decoder for untrusted wire text; every rejection is
  ``Serialization``.

Values are plain JSON: dict (str keys), list, str, int, bool, None. Floats are
formatted with serde_json's ryu rules (§3.2); NaN and infinities are refused.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Callable
from types import ModuleType
from typing import Any, Final

import numpy as np
import orjson

from reference.compiled import compiled_checks
from reference.errors import Serialization, preview
from reference.ints import I64_MIN, U64_MAX
from reference.json_scan import max_depth

__all__ = [
    "I64_MIN",
    "MAX_JSON_DEPTH",
    "U64_MAX",
    "JsonValue",
    "canonical_bytes",
    "canonical_json",
    "direct_bytes",
    "fingerprint",
    "format_float",
    "is_canonical_sha256",
    "loads_if_plain",
    "loads_last_wins",
    "loads_strict",
    "sha256_hex",
]

JsonValue = Any
"""A plain JSON value: dict[str, JsonValue] | list[JsonValue] | str | int | bool | None."""

#: serde_json accepts at most 127 nested arrays/objects; 128 is rejected.
MAX_JSON_DEPTH: Final = 128

_SHA256_RE: Final = re.compile(r"[0-9a-f]{64}")


def sha256_hex(data: bytes) -> str:
    """Lowercase hex sha256 of ``data`` (64 characters, no prefix)."""
    return hashlib.sha256(data).hexdigest()


def is_canonical_sha256(value: object) -> bool:
    """True iff ``value`` is a str of exactly 64 ASCII characters in ``0-9a-f``."""
    return isinstance(value, str) and len(value) == 64 and _SHA256_RE.fullmatch(value) is not None


# --------------------------------------------------------------------------- encoding


def format_float(value: float) -> str:
    """serde_json (ryu) text of a finite f64 (spec 01 §3.2 rules 1-5, one function per rule)."""
    if not math.isfinite(value):
        raise ValueError("non-finite float has no JSON form")
    if value == 0.0:
        return _float_negative("0.0") if np.signbit(value) else "0.0"
    text = repr(abs(value))
    mantissa, _, exp_text = text.partition("e")
    exponent = int(exp_text) if exp_text else 0
    int_part, _, frac_part = mantissa.partition(".")
    if frac_part == "0":
        frac_part = ""
    digits = (int_part + frac_part).lstrip("0")
    k = exponent - len(frac_part)
    stripped = digits.rstrip("0")
    k += len(digits) - len(stripped)
    d = stripped
    kk = len(d) + k
    if k >= 0 and kk <= 16:
        out = _float_integral(d, k)
    elif 0 < kk <= 16:
        out = _float_point_inside(d, kk)
    elif -5 < kk <= 0:
        out = _float_small(d, kk)
    else:
        out = _float_exponent(d, kk)
    return _float_negative(out) if value < 0 else out


def _float_integral(d: str, k: int) -> str:
    """Rule 1 (``k >= 0`` and ``kk <= 16``): the digits, ``k`` zeros, then ``.0`` (``100.0``)."""
    return d + "0" * k + ".0"


def _float_point_inside(d: str, kk: int) -> str:
    """Rule 2 (``0 < kk <= 16``): the digits with a point after the first ``kk`` (``123456.789``)."""
    return d[:kk] + "." + d[kk:]


def _float_small(d: str, kk: int) -> str:
    """Rule 3 (``-5 < kk <= 0``): ``0.``, ``-kk`` zeros, then the digits (``0.000123``)."""
    return "0." + "0" * (-kk) + d


def _float_exponent(d: str, kk: int) -> str:
    """Rule 4 (otherwise): ``De<kk-1>`` or ``D0.Drest e<kk-1>``, no ``+`` and no padding (``1.5e-7``)."""
    return (d if len(d) == 1 else d[0] + "." + d[1:]) + "e" + str(kk - 1)


def _float_negative(text: str) -> str:
    """Rule 5: a negative value (``-0.0`` included) is its magnitude's text after a ``-``."""
    return "-" + text


def _too_deep(context: str, depth: int) -> Serialization:
    return Serialization(context, f"recursion limit exceeded: nesting depth {depth} >= {MAX_JSON_DEPTH}")


def _scan(value: JsonValue, context: str) -> bool:
    """Check ``value`` is plain JSON nested less than ``MAX_JSON_DEPTH`` deep; return True when it holds a float.

    Walks one nesting level at a time (no recursion), so deep values cannot exhaust the Python
    stack. A value nested 128 or more deep is refused as serde_json's reader refuses it: no
    contract decoder could read its bytes back (decision R-2).
    """
    has_float = False
    level: list[Any] = [value]
    nesting = 1  # the nesting depth of a container met in ``level``
    while level:
        below: list[Any] = []
        push = below.extend
        for item in level:
            t = type(item)
            if t is dict:
                if nesting >= MAX_JSON_DEPTH:
                    raise _too_deep(context, nesting)  # rule: 01.3.3/encoder_rejects_depth_128
                for key in item:
                    if type(key) is not str:
                        raise Serialization(  # rule: 01.3.3/encoder_rejects_non_string_keys
                            context, f"object key must be a string, got {type(key).__name__}"
                        )
                push(item.values())
            elif t is list:
                if nesting >= MAX_JSON_DEPTH:
                    raise _too_deep(context, nesting)  # rule: 01.3.3/encoder_rejects_depth_128
                push(item)
            elif t is str or t is bool or item is None:
                continue
            elif t is int:
                if item > U64_MAX or item < I64_MIN:
                    raise Serialization(  # rule: 01.3.3/encoder_rejects_integer_out_of_range
                        context, f"integer {preview(item)} is outside the u64/i64 range"
                    )
            elif t is float:
                if not math.isfinite(item):
                    raise Serialization(  # rule: 01.3.3/encoder_rejects_nan
                        context, "NaN and infinities have no JSON form"
                    )
                has_float = True
            else:
                raise Serialization(  # rule: 01.3.3/encoder_rejects_non_json_value
                    context, f"{t.__name__} is not a JSON value"
                )
        level = below
        nesting += 1
    return has_float


#: ``reference/_jsonscan.c`` (``reference.compiled``), or None: then every check runs in Python.
_COMPILED: ModuleType | None = compiled_checks()


def _holds_float(value: JsonValue, context: str) -> bool:
    """``_scan``'s verdict: the compiled check decides a plain value, ``_scan`` words every refusal."""
    if _COMPILED is not None:
        verdict: int = _COMPILED.scan(value)
        if verdict >= 0:
            return verdict == 1
    return _scan(value, context)


def canonical_json(value: JsonValue) -> JsonValue:
    """A copy of ``value`` with every object's keys in sorted (UTF-8 byte) order."""
    if type(value) is dict:
        return {key: canonical_json(value[key]) for key in sorted(value)}
    if type(value) is list:
        return [canonical_json(item) for item in value]
    return value


_ESCAPES: Final = {
    '"': '\\"',
    "\\": "\\\\",
    "\b": "\\b",
    "\t": "\\t",
    "\n": "\\n",
    "\f": "\\f",
    "\r": "\\r",
}


def _write_slow(value: JsonValue, sort_keys: bool, out: list[str]) -> None:
    """Pure-Python writer used only for values holding floats."""
    t = type(value)
    if t is dict:
        out.append("{")
        keys = sorted(value) if sort_keys else list(value)
        for i, key in enumerate(keys):
            if i:
                out.append(",")
            out.append(json.dumps(key, ensure_ascii=False))
            out.append(":")
            _write_slow(value[key], sort_keys, out)
        out.append("}")
    elif t is list:
        out.append("[")
        for i, item in enumerate(value):
            if i:
                out.append(",")
            _write_slow(item, sort_keys, out)
        out.append("]")
    elif t is float:
        out.append(format_float(value))
    else:
        out.append(json.dumps(value, ensure_ascii=False))


_PASSTHROUGH: Final = (
    orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_SUBCLASS
)


def _refuse(obj: Any) -> Any:
    raise TypeError(f"{type(obj).__name__} is not a JSON value")


def _encode(value: JsonValue, sort_keys: bool, context: str, trusted: bool) -> bytes:
    has_float = False if trusted else _holds_float(value, context)
    try:
        if not has_float:
            option = _PASSTHROUGH | (orjson.OPT_SORT_KEYS if sort_keys else 0)
            return orjson.dumps(value, default=_refuse, option=option)
        parts: list[str] = []
        _write_slow(value, sort_keys, parts)
        return "".join(parts).encode("utf-8")
    except (orjson.JSONEncodeError, UnicodeEncodeError, RecursionError, TypeError) as exc:
        raise Serialization(  # rule: 01.3.3/encoder_rejects_lone_surrogate, 01.3.5/fingerprint_serialization_contexts
            context, f"value has no JSON form: {exc}"
        ) from None


def canonical_bytes(value: JsonValue, *, context: str = "canonical json", trusted: bool = False) -> bytes:
    """Canonical mode: keys sorted at every depth, compact, serde_json-exact.

    ``trusted=True`` skips the plain-JSON scan; only for values produced by a
    contract type's ``to_wire()``, which never hold floats.
    """
    return _encode(value, True, context, trusted)


def direct_bytes(value: JsonValue, *, context: str = "direct json", trusted: bool = False) -> bytes:
    """Direct mode: keys in the order the value carries (Rust declaration order)."""
    return _encode(value, False, context, trusted)


def fingerprint(value: JsonValue, *, context: str = "canonical json", trusted: bool = False) -> str:
    """sha256 hex of the canonical bytes of ``value``."""
    return sha256_hex(canonical_bytes(value, context=context, trusted=trusted))


def direct_fingerprint(value: JsonValue, *, context: str = "direct json", trusted: bool = False) -> str:
    """sha256 hex of the direct bytes of ``value``."""
    return sha256_hex(direct_bytes(value, context=context, trusted=trusted))


# --------------------------------------------------------------------------- decoding

_SURROGATE_ESCAPE: Final = re.compile(r"\\u[dD][89a-fA-F]")
_BOM: Final = b"\xef\xbb\xbf"


class _Reject(Exception):
    """Internal: a hook found input serde_json would refuse (one subclass per reason)."""


class _MinusZero(_Reject):
    """The integer literal ``-0`` (a float to serde_json)."""


class _IntegerOutOfRange(_Reject):
    """An integer literal outside [-2^63, 2^64-1] (a float to serde_json)."""


class _FloatOutOfRange(_Reject):
    """A number literal beyond the finite f64 range."""


class _NonFinite(_Reject):
    """A ``NaN``, ``Infinity`` or ``-Infinity`` literal."""


class _DuplicateKey(_Reject):
    """An object repeating a key."""


def _parse_int(text: str) -> int:
    if text == "-0":
        raise _MinusZero("-0 is a float in serde_json, not an integer")
    value = int(text)
    if value > U64_MAX or value < I64_MIN:
        raise _IntegerOutOfRange(f"integer {text} is outside the u64/i64 range")
    return value


def _parse_float(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise _FloatOutOfRange(f"number {text} is out of range")
    return value


def _parse_constant(text: str) -> Any:
    raise _NonFinite(f"{text} is not JSON")


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(f"duplicate key {key!r}")
            seen.add(key)
    return out


def _has_surrogate(value: JsonValue) -> bool:
    stack: list[Any] = [value]
    while stack:
        item = stack.pop()
        t = type(item)
        if t is str:
            if _SURROGATE.search(item):
                return True
        elif t is dict:
            stack.extend(item)
            stack.extend(item.values())
        elif t is list:
            stack.extend(item)
    return False


_SURROGATE: Final = re.compile("[\ud800-\udfff]")
_DECODER: Final = json.JSONDecoder(
    parse_int=_parse_int,
    parse_float=_parse_float,
    parse_constant=_parse_constant,
    object_pairs_hook=_pairs,
    strict=True,
)


def loads_strict(
    data: bytes | bytearray | memoryview | str,
    *,
    context: str,
    max_bytes: int | None = None,
    allow_floats: bool = True,
    depth: int | None = None,
) -> JsonValue:
    """Parse untrusted JSON the way serde_json would accept it, but stricter.

    Rejected with ``Serialization(context, ...)``: input over ``max_bytes``
    (checked before parsing), invalid UTF-8, a byte-order mark, syntax errors,
    trailing data, duplicate keys, ``-0``, integers outside [-2^63, 2^64-1],
    NaN/Infinity, lone surrogates, nesting of 128 or deeper, and (when
    ``allow_floats`` is false) any float. ``depth`` is the nesting depth when the caller has
    already measured it (``reference.json_scan``); otherwise it is measured here, before parsing.
    """
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else bytes(data)
    if max_bytes is not None and len(raw) > max_bytes:
        raise Serialization(context, f"wire size {len(raw)} exceeds limit {max_bytes}")  # rule: 01.3.6/decode_size_cap
    plain = loads_if_plain(raw)
    if plain is not None:
        return plain[0]
    if raw.startswith(_BOM):
        raise Serialization(context, "a byte-order mark is not JSON")  # rule: 05.9.1/step2_not_json
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise Serialization(context, f"invalid UTF-8 at byte {exc.start}") from None  # rule: 01.3.3/decode_invalid_utf8
    if depth is None:
        depth = max_depth(raw, limit=MAX_JSON_DEPTH)
    if depth >= MAX_JSON_DEPTH:
        raise Serialization(  # rule: 01.3.3/decode_nesting_depth_128
            context, f"recursion limit exceeded: nesting depth {depth} >= {MAX_JSON_DEPTH}"
        )
    try:
        value, end = _DECODER.raw_decode(text, _skip_ws(text, 0))
    except _DuplicateKey as exc:
        raise Serialization(context, str(exc)) from None  # rule: 01.3.3/decode_duplicate_known_field
    except _MinusZero as exc:
        raise Serialization(context, str(exc)) from None  # rule: 01.3.3/decode_minus_zero_integer_field
    except _IntegerOutOfRange as exc:
        raise Serialization(context, str(exc)) from None  # rule: 01.3.3/decode_integer_out_of_range
    except _NonFinite as exc:
        raise Serialization(context, str(exc)) from None  # rule: 01.3.3/decode_nan_infinity
    except _FloatOutOfRange as exc:
        raise Serialization(context, str(exc)) from None  # rule: 05.9.1/step2_not_json
    except json.JSONDecodeError as exc:
        raise Serialization(  # rule: 05.9.1/step2_not_json, 01.3.3/decode_raw_control_in_string
            context, f"{exc.msg} at line {exc.lineno} column {exc.colno}"
        ) from None
    except (RecursionError, ValueError) as exc:
        raise Serialization(context, f"malformed JSON: {exc}") from None  # rule: 05.9.1/step2_not_json
    if _skip_ws(text, end) != len(text):
        raise Serialization(context, "trailing characters after the JSON value")  # rule: 01.3.3/decode_trailing_data
    if _SURROGATE_ESCAPE.search(text) and _has_surrogate(value):
        raise Serialization(context, "lone surrogate in a string")  # rule: 01.3.3/decode_lone_surrogate
    if not allow_floats and _holds_float(value, context):
        raise Serialization(context, "floats are not allowed in this wire")  # rule: 01.3.3/decode_floats_on_request
    return value


def loads_if_plain(raw: bytes) -> tuple[JsonValue] | None:
    """``(value,)`` when ``raw`` is plainly acceptable JSON, ``value`` being what ``loads_strict`` returns for it;
    ``None`` when the full decoder must decide (it may still accept).

    A fast parser (orjson) reads the text; the value stands when the compiled text facts show what that
    parser does not check: nesting below ``MAX_JSON_DEPTH``, no integer ``-0``, and as many object
    members in the value as colons in the text (a repeated key collapses two members into one). A float
    anywhere sends the text to the full decoder too (that parser reads an out-of-range integer as one),
    and so does every text it refuses, so every refusal is worded by the full decoder.
    """
    if _COMPILED is None:
        return None
    depth, colons, negative_zero = _COMPILED.text_facts(raw, MAX_JSON_DEPTH)
    if depth < 0 or negative_zero:
        return None
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return None
    if _COMPILED.members(value) != colons:
        return None
    return (value,)


_WS: Final = re.compile(r"[ \t\n\r]*")


def _skip_ws(text: str, pos: int) -> int:
    match = _WS.match(text, pos)
    return match.end() if match else pos


#: The earlier values of repeated keys: ``id`` of the object that kept the last value -> ``(key, earlier value)``.
Shadowed = dict[int, list[tuple[str, Any]]]


def loads_last_wins(data: bytes, *, context: str, shadowed: Shadowed | None = None) -> JsonValue:
    """``loads_strict`` where a repeated object key keeps its last value, as serde_json reads a ``Value``
    or a ``BTreeMap``; every other refusal of ``loads_strict`` stands. The earlier values of a repeated
    key go to ``shadowed`` (for decoders that must still decode or refuse them)."""
    try:
        return loads_strict(data, context=context)
    except Serialization as exc:
        if "duplicate key" not in exc.message_text:
            raise
    # loads_strict passed the BOM, UTF-8 and depth gates and found a repeated key: parse again, keeping the last.
    earlier: Shadowed = {} if shadowed is None else shadowed

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, value in items:
            if key in out:
                earlier.setdefault(id(out), []).append((key, out[key]))
            out[key] = value
        return out

    decoder = json.JSONDecoder(
        parse_int=_parse_int, parse_float=_parse_float, parse_constant=_parse_constant, object_pairs_hook=pairs
    )
    text = bytes(data).decode("utf-8")
    try:
        value, end = decoder.raw_decode(text, _skip_ws(text, 0))
    except (_Reject, ValueError, RecursionError) as exc:
        raise Serialization(context, f"malformed JSON: {exc}") from None  # rule: 05.9.1/step2_not_json
    if _skip_ws(text, end) != len(text):
        raise Serialization(context, "trailing characters after the JSON value")  # rule: 01.3.3/decode_trailing_data
    if _SURROGATE_ESCAPE.search(text) and _has_surrogate(value):
        raise Serialization(context, "lone surrogate in a string")  # rule: 01.3.3/decode_lone_surrogate
    return value


def json_loader(context: str, max_bytes: int | None = None) -> Callable[[bytes | str], JsonValue]:
    """A ``loads_strict`` bound to one decode boundary."""

    def load(data: bytes | str) -> JsonValue:
        return loads_strict(data, context=context, max_bytes=max_bytes)

    return load
