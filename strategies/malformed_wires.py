"""Malformed plan wires: every malformed-JSON class of ``strategies.json_values`` applied to a plan
wire the reference built (the strict decoder refuses each with ``Serialization``, 01 §5).

Each forgery names the catalogue rules its refusal checks where a reader that broke the rule would answer
otherwise: a repeated member (a last-wins reader keeps one of its values), ``-0`` in an integer field (a lax
reader reads 0 and the payload decodes, then differs from the rebuild or is accepted), a trailing value or a
byte-order mark (a lax reader skips them and accepts the wire)."""

from __future__ import annotations

import json
from typing import Any, Final

from reference.canonical import MAX_JSON_DEPTH
from reference.ints import I64_MIN, U64_MAX
from strategies.cases import JsonPath, get_at, iter_paths
from strategies.forged_wire import SERIALIZATION, Chooser, Forgery, ForgeryOperator, PlanTarget, forgery, pick, with_raw
from strategies.forgery_operators import is_contract_version
from strategies.json_values import MALFORMED_CLASSES

__all__ = ["CLASS_RULES", "MALFORMED_OPERATORS", "MAP_KEYED_OBJECTS"]

#: Plan-wire objects that are maps keyed by identities rather than structs (01 §5 rule 5).
MAP_KEYED_OBJECTS: Final = frozenset({"attributes", "component_sources"})
#: The catalogue rules a class's refusal checks, whatever the place (the other classes name theirs per forgery,
#: or none where a lax reader would refuse the same wire for another reason).
CLASS_RULES: Final[dict[str, tuple[str, ...]]] = {
    "trailing_data": ("01.3.3/decode_trailing_data",),
    "byte_order_mark": ("05.9.1/step2_not_json",),
}
_HEADER_DUPLICATE: Final = ("01.3.6/decode_duplicate_header_key", "05.9.1/step2_duplicate_header_keys")
_NESTED_DUPLICATE: Final = ("01.3.3/decode_duplicate_known_field", "05.9.1/duplicate_nested_keys")


def _value_path(chooser: Chooser, raw: dict[str, Any]) -> JsonPath:
    paths = [path for path, _ in iter_paths(raw)][1:]
    result: JsonPath = paths[chooser.below(len(paths))]
    return result


def _integer_path(chooser: Chooser, raw: dict[str, Any]) -> JsonPath:
    paths = [path for path, value in iter_paths(raw) if type(value) is int]
    result: JsonPath = paths[chooser.below(len(paths))]
    return result


def _malformed_bytes(klass: str, chooser: Chooser, raw: dict[str, Any], data: bytes) -> tuple[bytes, tuple[str, ...]]:
    """The malformed wire and the catalogue rules its refusal checks."""
    if klass == "duplicate_key":
        # Only struct objects: serde's derived struct decoding refuses a repeated field, while a
        # BTreeMap (attributes, component_sources) keeps the last entry, so a duplicate map key
        # that repeats a valid value is not a forgery a serde-following backend must reject.
        objects = [
            path
            for path, value in iter_paths(raw)
            if isinstance(value, dict) and value and not (path and path[-1] in MAP_KEYED_OBJECTS)
        ]
        path = objects[chooser.below(len(objects))]
        target: dict[str, Any] = get_at(raw, path)
        key = pick(chooser, sorted(target))
        again = pick(chooser, [target[key], None, 0])
        members = [f"{json.dumps(k)}:{json.dumps(v, separators=(',', ':'))}" for k, v in target.items()]
        members.insert(chooser.integer(0, len(members)), f"{json.dumps(key)}:{json.dumps(again)}")
        header = (not path and key == "payload") or (path == ("payload",) and key == "schema")
        return with_raw(raw, path, "{" + ",".join(members) + "}"), _HEADER_DUPLICATE if header else _NESTED_DUPLICATE
    if klass == "negative_zero":
        # An integer field: a reader taking -0 for 0 decodes the wire (and differs from the rebuild, or not at all).
        path = _integer_path(chooser, raw)
        version = ("01.2/contract_version_minus_zero",) if is_contract_version(raw, path[:-1]) else ()
        text = pick(chooser, ["-0", "-0 "])
        return with_raw(raw, path, text), ("01.3.3/decode_minus_zero_integer_field", *version)
    if klass == "integer_out_of_range":
        big = pick(chooser, [U64_MAX + 1 + chooser.integer(0, 999), I64_MIN - 1 - chooser.integer(0, 999)])
        return with_raw(raw, _value_path(chooser, raw), str(big)), ()
    if klass == "non_finite":
        return with_raw(raw, _value_path(chooser, raw), pick(chooser, ["NaN", "Infinity", "-Infinity"])), ()
    if klass == "lone_surrogate":
        return with_raw(raw, _value_path(chooser, raw), f'"a\\u{chooser.integer(0xD800, 0xDFFF):04x}"'), ()
    if klass == "raw_control_character":
        return with_raw(raw, _value_path(chooser, raw), '"a' + chr(chooser.integer(0, 0x1F)) + '"'), ()
    if klass == "invalid_utf8":
        at = chooser.integer(0, len(data))
        bad: bytes = pick(chooser, [b"\xff", b"\xfe", b"\xc0\xaf", b"\x80", b"\xed\xa0\x80", b"\xe2\x82"])
        return data[:at] + bad + data[at:], ()
    if klass == "byte_order_mark":
        return b"\xef\xbb\xbf" + data, CLASS_RULES[klass]
    if klass == "trailing_data":
        space: bytes = pick(chooser, [b"", b" ", b"\n"])
        junk: bytes = pick(chooser, [b"x", b"0", b"{}", b"[]", b",", b"}"])
        return data + space + junk, CLASS_RULES[klass]
    if klass == "truncated":
        return data[: chooser.integer(1, len(data) - 1)], ()
    if klass == "deep_nesting":
        depth = chooser.integer(MAX_JSON_DEPTH, MAX_JSON_DEPTH + 32)
        return with_raw(raw, _value_path(chooser, raw), "[" * depth + "]" * depth), ()
    raise ValueError(f"unknown malformed class {klass!r}")


def _malformed(klass: str) -> ForgeryOperator:
    name = f"malformed:{klass}"

    def forge(chooser: Chooser, target: PlanTarget) -> Forgery | None:
        raw = target.raw()
        data, rules = _malformed_bytes(klass, chooser, raw, target.wire)
        return forgery(name, MALFORMED_CLASSES[klass], SERIALIZATION, data, target, rules=rules)

    return ForgeryOperator(name, MALFORMED_CLASSES[klass], forge)


#: The malformed-JSON classes of ``strategies.json_values`` (``oversize`` is the operator above).
MALFORMED_OPERATORS: Final = tuple(_malformed(k) for k in sorted(MALFORMED_CLASSES) if k != "oversize")
