"""Config identity (spec 02 §5): canonical config, the raw-config-consumed check, config fingerprint.

Also ``parse_struct_config``: serde's derived-struct decoding of a config from a
JSON value (object or exact-length sequence form; unknown keys ignored), used by
the seed families and declarative families so they reject exactly what serde would.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from reference.canonical import JsonValue, canonical_bytes, canonical_json, sha256_hex
from reference.errors import InvalidModelConfig
from reference.ints import fits_i64, fits_uint

__all__ = [
    "CONFIG_TYPES",
    "canonical_config",
    "config_fingerprint",
    "json_equal",
    "parse_struct_config",
    "validate_raw_config_consumed",
]

#: Scalar config field kinds understood by ``parse_struct_config``.
CONFIG_TYPES: Final = ("u64", "i64", "string", "bool", "f64", "json")


def json_equal(left: JsonValue, right: JsonValue) -> bool:
    """serde_json ``Value`` equality: ``4 != 4.0``, ``true != 1``, object key order irrelevant."""
    stack: list[tuple[Any, Any]] = [(left, right)]
    while stack:
        a, b = stack.pop()
        ta, tb = type(a), type(b)
        if ta is not tb:
            return False
        if ta is dict:
            if a.keys() != b.keys():
                return False
            stack.extend((a[k], b[k]) for k in a)
        elif ta is list:
            if len(a) != len(b):
                return False
            stack.extend(zip(a, b, strict=True))
        elif a != b:
            return False
    return True


def canonical_config(value: JsonValue) -> JsonValue:
    """Recursively key-sorted copy (arrays keep order)."""
    return canonical_json(value)


def config_fingerprint(config: JsonValue) -> str:
    """sha256 of the compact key-sorted JSON of the canonical config."""
    return sha256_hex(canonical_bytes(config, context="serialize canonical model family config"))


def validate_raw_config_consumed(family_id: str, raw: JsonValue, typed: JsonValue) -> None:
    """Every caller-supplied key and value must survive typed parsing unchanged (spec 02 §5.2)."""
    if type(raw) is not dict or type(typed) is not dict:
        raise InvalidModelConfig(  # rule: 02.5.2/config_must_be_objects
            family_id=family_id, field="config", reason="config must be a JSON object"
        )
    _consumed(family_id, "", raw, typed)


def _consumed(family_id: str, path: str, raw: Any, typed: Any) -> None:
    """Depth-first, keys in ascending order: the first offending path is reported."""
    if type(raw) is dict and type(typed) is dict:
        for key in sorted(raw):
            child = f"/{key}" if path == "" else f"{path}/{key}"
            if key not in typed:
                raise InvalidModelConfig(  # rule: 02.5.2/raw_key_missing_in_typed
                    family_id=family_id, field=child, reason="configuration key was not consumed by the family"
                )
            _consumed(family_id, child, raw[key], typed[key])
    elif type(raw) is list and type(typed) is list and len(raw) == len(typed):
        for index, (r, t) in enumerate(zip(raw, typed, strict=True)):
            _consumed(  # rule when 02.5.2/scalar_value_changed: 02.5.2/arrays_equal_length_elementwise
                family_id, f"{path}/{index}", r, t
            )  # rule when 02.5.2/raw_key_missing_in_typed: 02.5.2/arrays_equal_length_elementwise
    elif type(raw) is list and type(typed) is list:
        raise InvalidModelConfig(  # rule: 02.5.2/arrays_length_differ_at_array_path
            family_id=family_id, field=path or "config", reason="configuration value changed during parsing"
        )
    elif not json_equal(raw, typed):
        raise InvalidModelConfig(  # rule: 02.5.2/scalar_value_changed
            family_id=family_id, field=path or "config", reason="configuration value changed during parsing"
        )


def _kind_accepts(kind: str, value: Any) -> bool:
    if kind == "u64":
        return fits_uint(value, 64)
    if kind == "i64":
        return fits_i64(value)
    if kind == "string":
        return type(value) is str
    if kind == "bool":
        return type(value) is bool
    if kind == "f64":
        return type(value) in (int, float)
    return kind == "json"


def parse_struct_config(raw: JsonValue, fields: Sequence[tuple[str, str]]) -> dict[str, JsonValue] | str:
    """serde derived-struct decode of ``raw``: the typed field dict, or the serde error text.

    Accepts an object (unknown keys ignored; every field required) or an array of
    exactly ``len(fields)`` elements in field order.
    """
    out: dict[str, JsonValue] = {}
    if type(raw) is dict:
        for name, kind in fields:
            if name not in raw:
                return f"missing field `{name}`"
            if not _kind_accepts(kind, raw[name]):
                return f"invalid type for field `{name}`, expected {kind}"
            out[name] = raw[name]
        return out
    if type(raw) is list:
        if len(raw) != len(fields):
            return f"invalid length {len(raw)}, expected struct with {len(fields)} elements"
        for (name, kind), value in zip(fields, raw, strict=True):
            if not _kind_accepts(kind, value):
                return f"invalid type for field `{name}`, expected {kind}"
            out[name] = value
        return out
    return "invalid type: expected a struct"
