"""Forgery operators over execution-plan wires (05 §8-§9, 01 "Forged plans", seed ``rehash_plan_json``).

Each operator takes a ``PlanTarget`` (a scenario and the plan wire the reference built
for it) and a ``Chooser`` and returns a ``Forgery``: the forged wire bytes, the scenario
to revalidate them against, the contract rule that must reject them and the expected
error kind (and pinned fields). An operator returns ``None`` when it does not apply to
the target (e.g. no array it may reorder).

The chooser abstracts every choice, so one operator serves Hypothesis (``forgeries``,
shrinking towards the first path / smallest change) and the deterministic kill matrix
(``forge_seeded``). Operator families:

* leaf mutation (with or without re-sealing the hash as a forger would);
* unknown fields at any depth; non-canonical respellings (integer as float, u128
  with a leading zero or as a number, reordered arrays, dropped ``null`` keys, an
  explicit default growth of 0);
* plan schema changes; broken hashes (case, other hex, truncation); changed ``plan_id``;
* replay of a plan against a semantically different scenario;
* oversize, and every malformed-JSON class of ``strategies.json_values``.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any, Final, Protocol

from hypothesis import strategies as st

from reference.canonical import MAX_JSON_DEPTH, JsonValue, canonical_bytes, direct_bytes, sha256_hex
from reference.errors import Serialization
from reference.ints import U64_MAX
from strategies.cases import JsonPath, get_at, iter_paths, replaced
from strategies.json_values import MALFORMED_CLASSES
from strategies.scenarios import SEMANTIC_CHANGES, ScenarioCase, semantically_changed

__all__ = [
    "INVALID_PLAN",
    "MALFORMED_OPERATORS",
    "MAX_WIRE",
    "OPERATORS",
    "ORDERED_ARRAYS",
    "SET_ARRAYS",
    "Chooser",
    "DrawChooser",
    "Forgery",
    "ForgeryOperator",
    "PlanTarget",
    "SeededChooser",
    "forge_seeded",
    "forgeries",
    "plan_target",
    "rehash_plan_json",
    "reference_targets",
]

MAX_WIRE: Final = 16 * 1024 * 1024
SERIALIZATION: Final = "serialization"
INVALID_PLAN: Final = "invalid_execution_plan"
MISMATCH: Final = "plan_hash_mismatch"
UNSUPPORTED: Final = "unsupported_plan_schema"
_SENTINEL: Final = "__vnext_forgery_sentinel__"
_I64_MIN: Final = -(2**63)

#: Arrays whose order the typed decoder fixes (sets, canonical row order): reordering is ``Serialization``
#: (05 §9.1 step 4-5 and §9.5 "rows reversed", "unsorted set"). Patterns use ``*`` for any index.
SET_ARRAYS: Final = frozenset(
    {
        ("payload", "quantization_formats"),
        ("payload", "nodes", "*", "required_capabilities"),
        ("payload", "memory", "static_allocations"),
        ("payload", "memory", "dynamic_descriptors"),
        ("payload", "memory", "dynamic_pools"),
        ("payload", "memory", "dynamic_pools", "*", "resource_ids"),
        ("payload", "memory", "dynamic_pools", "*", "invocation_liveness"),
        ("payload", "memory", "dynamic_pools", "*", "step_resource_slots"),
        ("payload", "memory", "invocation_liveness"),
    }
)
#: Arrays the decoder keeps in wire order: reordering decodes, then differs from the rebuild (05 §9.2 step 3).
ORDERED_ARRAYS: Final = frozenset(
    {
        ("payload", "nodes"),
        ("payload", "retained_completion_values"),
        ("payload", "nodes", "*", "values"),
        ("payload", "nodes", "*", "resources"),
        ("payload", "execution_weights", "schema", "components"),
        ("payload", "execution_weights", "schema", "tensors"),
        ("payload", "execution_weights", "schema", "components", "*", "external_names"),
        ("payload", "execution_weights", "schema", "tensors", "*", "physical_layout", "composite", "parts"),
    }
)


# --------------------------------------------------------------------------- values


@dataclass(frozen=True, slots=True)
class PlanTarget:
    """A scenario and the plan wire the reference built for it."""

    name: str
    scenario: dict[str, Any]
    wire: bytes

    def raw(self) -> dict[str, Any]:
        """A fresh parse of the wire (callers may mutate it)."""
        value: dict[str, Any] = json.loads(self.wire)
        return value


@dataclass(frozen=True, slots=True)
class Forgery:
    """``wire_bytes`` revalidated against ``scenario`` must fail with ``expected_kind`` because of ``rule``."""

    operator: str
    rule: str
    expected_kind: str
    wire_bytes: bytes
    scenario: dict[str, Any]
    target: str = ""
    detail: str = ""
    fields: Mapping[str, JsonValue] = field(default_factory=dict)

    def expected_error(self) -> dict[str, JsonValue]:
        """The error object a bundle expects (kind plus pinned fields)."""
        return {"kind": self.expected_kind, **self.fields}


class Chooser(Protocol):
    """Every choice an operator makes."""

    def below(self, size: int) -> int:
        """An index in ``[0, size)`` (``size >= 1``)."""
        ...

    def integer(self, low: int, high: int) -> int:
        """An integer in ``[low, high]``."""
        ...


class DrawChooser:
    """Choices drawn by Hypothesis (they shrink towards index 0 / ``low``)."""

    def __init__(self, draw: st.DrawFn) -> None:
        self._draw = draw

    def below(self, size: int) -> int:
        return self._draw(st.integers(0, size - 1))

    def integer(self, low: int, high: int) -> int:
        return self._draw(st.integers(low, high))


class SeededChooser:
    """Deterministic choices from a seed (the kill matrix)."""

    def __init__(self, seed: int) -> None:
        self._random = random.Random(seed)

    def below(self, size: int) -> int:
        return self._random.randrange(size)

    def integer(self, low: int, high: int) -> int:
        return self._random.randint(low, high)


def _pick(chooser: Chooser, items: Sequence[Any]) -> Any:
    return items[chooser.below(len(items))]


# --------------------------------------------------------------------------- sealing


def rehash_plan_json(raw: dict[str, Any]) -> dict[str, Any]:
    """Seed ``rehash_plan_json``: drop ``payload.plan_id``, hash the canonical rest, write id and hash back."""
    payload = {k: v for k, v in raw["payload"].items() if k != "plan_id"}
    digest = sha256_hex(canonical_bytes(payload))
    sealed = dict(raw)
    sealed["payload"] = {**raw["payload"], "plan_id": "plan/sha256/" + digest}
    sealed["plan_hash"] = digest
    return sealed


def _seal(raw: dict[str, Any], rehash: bool) -> bytes:
    return direct_bytes(rehash_plan_json(raw) if rehash else raw)


def _with_raw(document: Any, path: JsonPath, text: str) -> bytes:
    """Compact bytes (document key order) with the value at ``path`` written as the raw JSON ``text``."""
    marked = replaced(document, path, _SENTINEL)
    encoded = json.dumps(marked, ensure_ascii=False, separators=(",", ":"))
    return encoded.replace(json.dumps(_SENTINEL), text, 1).encode("utf-8")


def _pattern(path: JsonPath) -> tuple[str, ...]:
    return tuple("*" if isinstance(step, int) else step for step in path)


def _payload_leaves(raw: dict[str, Any]) -> list[tuple[JsonPath, Any]]:
    """Leaves of the payload a forger may edit (not ``plan_id`` or the ``schema`` header)."""
    return [
        (path, value)
        for path, value in iter_paths(raw)
        if len(path) >= 2
        and path[0] == "payload"
        and path[1] not in ("plan_id", "schema")
        and not isinstance(value, dict | list)
    ]


# --------------------------------------------------------------------------- operators


@dataclass(frozen=True, slots=True)
class ForgeryOperator:
    """A named forgery; ``forge`` returns ``None`` when the target has nothing to forge this way."""

    name: str
    rule: str
    forge: Callable[[Chooser, PlanTarget], Forgery | None]


def _forgery(
    operator: str, rule: str, kind: str, wire: bytes, target: PlanTarget, detail: str = "", **fields: JsonValue
) -> Forgery:
    return Forgery(operator, rule, kind, wire, target.scenario, target.name, detail, fields)


def _mutated_leaf(chooser: Chooser, value: Any) -> Any:
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        options = [value + 1 if value < U64_MAX else value - 1, 0 if value else 1, chooser.integer(0, 2**32)]
        new = _pick(chooser, options)
        return new if new != value else value + 1
    if isinstance(value, str):
        if len(value) == 64 and all(c in "0123456789abcdef" for c in value):
            return ("1" if value[0] != "1" else "2") + value[1:]
        if value.isdigit():
            return str(int(value) + 1)
        return value + _pick(chooser, [".x", "x", "0"])
    return _pick(chooser, [0, "x", False])


def _decode_verdict(wire: bytes) -> str:
    """``serialization`` when the reference decoder (05 §9.1) refuses ``wire``, else ``invalid_execution_plan``."""
    from reference.plan.decode import decode_untrusted

    try:
        decode_untrusted(wire)
    except Serialization:
        return SERIALIZATION
    return INVALID_PLAN


def _mutate_leaf(rehash: bool) -> Callable[[Chooser, PlanTarget], Forgery | None]:
    name = "mutate_leaf_rehashed" if rehash else "mutate_leaf_unsealed"

    def forge(chooser: Chooser, target: PlanTarget) -> Forgery | None:
        raw = target.raw()
        leaves = _payload_leaves(raw)
        path, value = leaves[chooser.below(len(leaves))]
        forged = replaced(raw, path, _mutated_leaf(chooser, value))
        wire = _seal(forged, rehash)
        kind = _decode_verdict(wire)
        rule = (
            "05 §9.1 step 4-5: the typed parse refuses the edited value"
            if kind == SERIALIZATION
            else "05 §9.2 step 3: a payload that differs from the semantic rebuild (checked before the hash)"
        )
        return _forgery(name, rule, kind, wire, target, _path_text(path))

    return forge


def _path_text(path: JsonPath) -> str:
    return "$" + "".join(f"[{step}]" if isinstance(step, int) else f".{step}" for step in path)


def _unknown_field(chooser: Chooser, target: PlanTarget) -> Forgery | None:
    raw = target.raw()
    objects = [path for path, value in iter_paths(raw) if isinstance(value, dict)]
    path = objects[chooser.below(len(objects))]
    key = _pick(chooser, ["unknown_field", "x_extra", "_"])
    forged = replaced(raw, path, {**get_at(raw, path), key: _pick(chooser, [0, None, "x", {}, []])})
    rehash = bool(path) and chooser.below(2) == 1
    return _forgery(
        "unknown_field",
        "05 §9.1 step 4-5: deny_unknown_fields / canonical round trip",
        SERIALIZATION,
        _seal(forged, rehash),
        target,
        _path_text((*path, key)),
    )


def _integer_as_float(chooser: Chooser, target: PlanTarget) -> Forgery | None:
    raw = target.raw()
    ints = [(p, v) for p, v in iter_paths(raw) if isinstance(v, int) and not isinstance(v, bool)]
    path, value = ints[chooser.below(len(ints))]
    text = _pick(chooser, [f"{value}.0", f"{value}e0", f"{value}.00", f"{value}E+0"])
    return _forgery(
        "integer_as_float",
        "05 §9.1 step 4: an integer field written as a float is not canonical",
        SERIALIZATION,
        _with_raw(raw, path, text),
        target,
        _path_text(path),
    )


def _u128_respelled(chooser: Chooser, target: PlanTarget) -> Forgery | None:
    raw = target.raw()
    digits = [(p, v) for p, v in iter_paths(raw) if p and p[-1] == "theoretical_ceiling_bytes" and isinstance(v, str)]
    if not digits:
        return None
    path, value = digits[chooser.below(len(digits))]
    text = _pick(chooser, [json.dumps("0" + value), value, json.dumps(value + " "), json.dumps("+" + value)])
    return _forgery(
        "u128_respelled",
        "05 §9.1 step 4: CanonicalU128 is a decimal string without leading zeros",
        SERIALIZATION,
        _with_raw(raw, path, text),
        target,
        _path_text(path),
    )


def _reorder(table: frozenset[tuple[str, ...]], name: str, rule: str, kind: str) -> ForgeryOperator:
    def forge(chooser: Chooser, target: PlanTarget) -> Forgery | None:
        raw = target.raw()
        arrays = [
            (path, value)
            for path, value in iter_paths(raw)
            if isinstance(value, list)
            and _pattern(path) in table
            and len({json.dumps(item, sort_keys=True) for item in value}) >= 2
        ]
        if not arrays:
            return None
        path, value = arrays[chooser.below(len(arrays))]
        shift = chooser.integer(1, len(value) - 1)
        reordered = value[shift:] + value[:shift]
        if reordered == value:
            reordered = list(reversed(value))
        return _forgery(name, rule, kind, _seal(replaced(raw, path, reordered), True), target, _path_text(path))

    return ForgeryOperator(name, rule, forge)


def _drop_null(chooser: Chooser, target: PlanTarget) -> Forgery | None:
    raw = target.raw()
    nulls = [path for path, value in iter_paths(raw) if value is None and path and isinstance(path[-1], str)]
    if not nulls:
        return None
    path = nulls[chooser.below(len(nulls))]
    forged = replaced(raw, path[:-1], {k: v for k, v in get_at(raw, path[:-1]).items() if k != path[-1]})
    return _forgery(
        "drop_null_key",
        "05 §9.1 step 5: an Option is serialized as an explicit null; omitting it is not canonical",
        SERIALIZATION,
        _seal(forged, chooser.below(2) == 1),
        target,
        _path_text(path),
    )


def _default_growth(chooser: Chooser, target: PlanTarget) -> Forgery | None:
    raw = target.raw()
    pools = raw["payload"]["memory"]["dynamic_pools"]
    candidates = [i for i, pool in enumerate(pools) if "checkpoint_growth_ceiling_bytes" not in pool]
    if not candidates:
        return None
    index = candidates[chooser.below(len(candidates))]
    path: JsonPath = ("payload", "memory", "dynamic_pools", index)
    forged = replaced(raw, path, {**pools[index], "checkpoint_growth_ceiling_bytes": 0})
    return _forgery(
        "explicit_default_growth",
        "05 §8.2 / §9.1 step 5: a growth of 0 is skipped when serialized; writing it is not canonical",
        SERIALIZATION,
        _seal(forged, chooser.below(2) == 1),
        target,
        _path_text(path),
    )


def _schema_version(chooser: Chooser, target: PlanTarget) -> Forgery | None:
    raw = target.raw()
    major, minor = _pick(
        chooser,
        [
            (9, 1),
            (8, 0),
            (8, 2),
            (7, 1),
            (3, 0),
            (chooser.integer(0, 0xFFFF), chooser.integer(0, 0xFFFF)),
        ],
    )
    if (major, minor) == (8, 1):
        major = 0
    raw["payload"]["schema"] = {"major": major, "minor": minor}
    return _forgery(
        "schema_version",
        "05 §9.1 step 3: only plan schema 8.1 is accepted, checked before any nested validation",
        UNSUPPORTED,
        _seal(raw, chooser.below(2) == 1),
        target,
        f"{major}.{minor}",
        expected_major=8,
        expected_minor=1,
        actual_major=major,
        actual_minor=minor,
    )


def _schema_out_of_range(chooser: Chooser, target: PlanTarget) -> Forgery | None:
    raw = target.raw()
    name = _pick(chooser, ["major", "minor"])
    raw["payload"]["schema"][name] = _pick(chooser, [0x10000, -1, chooser.integer(0x10000, U64_MAX)])
    return _forgery(
        "schema_out_of_range",
        "05 §9.1 step 2: the header schema numbers are u16",
        SERIALIZATION,
        _seal(raw, chooser.below(2) == 1),
        target,
        name,
    )


def _hash_case(chooser: Chooser, target: PlanTarget) -> Forgery | None:
    raw = target.raw()
    digest = raw["plan_hash"]
    letters = [i for i, c in enumerate(digest) if c in "abcdef"]
    if not letters:
        return None
    if chooser.below(2) == 0:
        forged = digest.upper()
    else:
        i = letters[chooser.below(len(letters))]
        forged = digest[:i] + digest[i].upper() + digest[i + 1 :]
    raw["plan_hash"] = forged
    return _forgery(
        "hash_uppercase",
        "01 §3.4 / 05 §9.1 step 4: PlanHash is 64 lowercase hex characters",
        SERIALIZATION,
        direct_bytes(raw),
        target,
        forged,
    )


def _hash_other_hex(chooser: Chooser, target: PlanTarget) -> Forgery | None:
    raw = target.raw()
    digest = raw["plan_hash"]
    i = chooser.below(64)
    other = "0123456789abcdef".replace(digest[i], "")
    forged = digest[:i] + other[chooser.below(len(other))] + digest[i + 1 :]
    raw["plan_hash"] = forged
    return _forgery(
        "hash_other_hex",
        "05 §9.2 step 4: payload untouched, another valid hash -> PlanHashMismatch{expected: rebuilt, actual: wire}",
        MISMATCH,
        direct_bytes(raw),
        target,
        forged,
        expected=digest,
        actual=forged,
    )


def _hash_truncated(chooser: Chooser, target: PlanTarget) -> Forgery | None:
    raw = target.raw()
    digest = raw["plan_hash"]
    forged = _pick(
        chooser,
        [digest[: chooser.integer(0, 63)], digest + _pick(chooser, list("0af")), digest[:63] + "g", digest + "\n"],
    )
    raw["plan_hash"] = forged
    return _forgery(
        "hash_malformed",
        "01 §3.4 / 05 §9.1 step 4: PlanHash must be exactly 64 lowercase hex characters",
        SERIALIZATION,
        direct_bytes(raw),
        target,
        repr(forged),
    )


def _plan_id(chooser: Chooser, target: PlanTarget) -> Forgery | None:
    raw = target.raw()
    digest = raw["plan_hash"]
    other = "".join("0123456789abcdef"[chooser.below(16)] for _ in range(2)) + digest[2:]
    if other == digest:
        other = ("1" if digest[0] != "1" else "2") + digest[1:]
    raw["payload"]["plan_id"] = "plan/sha256/" + other
    return _forgery(
        "plan_id_changed",
        "05 §9.2 step 3: plan_id is part of the compared payload",
        INVALID_PLAN,
        direct_bytes(raw),
        target,
        other,
    )


def _replay(chooser: Chooser, target: PlanTarget) -> Forgery | None:
    names = sorted(SEMANTIC_CHANGES)
    start = chooser.below(len(names))
    for offset in range(len(names)):
        change = semantically_changed(target.scenario, names[(start + offset) % len(names)])
        if change is not None:
            return Forgery(
                "replay_other_scenario",
                "05 §9.2 step 3: a plan revalidated against other dependencies differs from their rebuild",
                INVALID_PLAN,
                target.wire,
                change.scenario,
                target.name,
                f"{change.operator} ({change.input})",
            )
    return None


def _oversize(chooser: Chooser, target: PlanTarget) -> Forgery | None:
    pad = _pick(chooser, [b" ", b"\n", b"\t", b"\r\n"])
    extra = chooser.integer(1, 64)
    count = (MAX_WIRE - len(target.wire) + extra + len(pad) - 1) // len(pad)
    padding = pad * count
    wire = padding + target.wire if chooser.below(2) == 0 else target.wire + padding
    return _forgery(
        "malformed:oversize",
        MALFORMED_CLASSES["oversize"] + " (05 §9.1 step 1: more than 16 MiB)",
        SERIALIZATION,
        wire,
        target,
        f"{len(wire)} bytes",
    )


# --------------------------------------------------------------------------- malformed JSON classes

#: Plan-wire objects that are maps keyed by identities rather than structs (01 §5 rule 5).
MAP_KEYED_OBJECTS: Final = frozenset({"attributes", "component_sources"})


def _value_path(chooser: Chooser, raw: dict[str, Any]) -> JsonPath:
    paths = [path for path, _ in iter_paths(raw)][1:]
    result: JsonPath = paths[chooser.below(len(paths))]
    return result


def _malformed_bytes(klass: str, chooser: Chooser, raw: dict[str, Any], data: bytes) -> bytes:
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
        key = _pick(chooser, sorted(target))
        again = _pick(chooser, [target[key], None, 0])
        members = [f"{json.dumps(k)}:{json.dumps(v, separators=(',', ':'))}" for k, v in target.items()]
        members.insert(chooser.integer(0, len(members)), f"{json.dumps(key)}:{json.dumps(again)}")
        return _with_raw(raw, path, "{" + ",".join(members) + "}")
    if klass == "negative_zero":
        return _with_raw(raw, _value_path(chooser, raw), _pick(chooser, ["-0", "-0 "]))
    if klass == "integer_out_of_range":
        big = _pick(chooser, [U64_MAX + 1 + chooser.integer(0, 999), _I64_MIN - 1 - chooser.integer(0, 999)])
        return _with_raw(raw, _value_path(chooser, raw), str(big))
    if klass == "non_finite":
        return _with_raw(raw, _value_path(chooser, raw), _pick(chooser, ["NaN", "Infinity", "-Infinity"]))
    if klass == "lone_surrogate":
        return _with_raw(raw, _value_path(chooser, raw), f'"a\\u{chooser.integer(0xD800, 0xDFFF):04x}"')
    if klass == "raw_control_character":
        return _with_raw(raw, _value_path(chooser, raw), '"a' + chr(chooser.integer(0, 0x1F)) + '"')
    if klass == "invalid_utf8":
        at = chooser.integer(0, len(data))
        bad: bytes = _pick(chooser, [b"\xff", b"\xfe", b"\xc0\xaf", b"\x80", b"\xed\xa0\x80", b"\xe2\x82"])
        return data[:at] + bad + data[at:]
    if klass == "byte_order_mark":
        return b"\xef\xbb\xbf" + data
    if klass == "trailing_data":
        space: bytes = _pick(chooser, [b"", b" ", b"\n"])
        junk: bytes = _pick(chooser, [b"x", b"0", b"{}", b"[]", b",", b"}"])
        return data + space + junk
    if klass == "truncated":
        return data[: chooser.integer(1, len(data) - 1)]
    if klass == "deep_nesting":
        depth = chooser.integer(MAX_JSON_DEPTH, MAX_JSON_DEPTH + 32)
        return _with_raw(raw, _value_path(chooser, raw), "[" * depth + "]" * depth)
    raise ValueError(f"unknown malformed class {klass!r}")


def _malformed(klass: str) -> ForgeryOperator:
    name = f"malformed:{klass}"

    def forge(chooser: Chooser, target: PlanTarget) -> Forgery | None:
        raw = target.raw()
        data = _malformed_bytes(klass, chooser, raw, target.wire)
        return _forgery(name, MALFORMED_CLASSES[klass], SERIALIZATION, data, target)

    return ForgeryOperator(name, MALFORMED_CLASSES[klass], forge)


_BASE_OPERATORS: Final = (
    ForgeryOperator(
        "mutate_leaf_rehashed", "05 §9.2 step 3 / §9.1 step 4: an edited, re-sealed payload", _mutate_leaf(True)
    ),
    ForgeryOperator("mutate_leaf_unsealed", "05 §9.2 step 3 / §9.1 step 4: an edited payload", _mutate_leaf(False)),
    ForgeryOperator("unknown_field", "05 §9.1 step 4-5: deny_unknown_fields", _unknown_field),
    ForgeryOperator("integer_as_float", "05 §9.1 step 4: integers are integers", _integer_as_float),
    ForgeryOperator("u128_respelled", "05 §9.1 step 4: canonical u128 strings", _u128_respelled),
    _reorder(
        SET_ARRAYS,
        "reorder_set_array",
        "05 §9.1 step 4-5: set arrays and memory rows have one canonical order",
        SERIALIZATION,
    ),
    _reorder(
        ORDERED_ARRAYS,
        "reorder_ordered_array",
        "05 §9.2 step 3: a reordered list decodes but differs from the rebuild",
        INVALID_PLAN,
    ),
    ForgeryOperator("drop_null_key", "05 §9.1 step 5: Options are explicit nulls", _drop_null),
    ForgeryOperator("explicit_default_growth", "05 §8.2: growth 0 is skipped", _default_growth),
    ForgeryOperator("schema_version", "05 §9.1 step 3: schema 8.1 only", _schema_version),
    ForgeryOperator("schema_out_of_range", "05 §9.1 step 2: u16 header", _schema_out_of_range),
    ForgeryOperator("hash_uppercase", "01 §3.4: lowercase hex", _hash_case),
    ForgeryOperator("hash_other_hex", "05 §9.2 step 4: PlanHashMismatch", _hash_other_hex),
    ForgeryOperator("hash_malformed", "01 §3.4: 64 hex characters", _hash_truncated),
    ForgeryOperator("plan_id_changed", "05 §9.2 step 3: plan_id compared", _plan_id),
    ForgeryOperator("replay_other_scenario", "05 §9.2 step 3: other dependencies", _replay),
    ForgeryOperator("malformed:oversize", MALFORMED_CLASSES["oversize"], _oversize),
)
#: The malformed-JSON classes of ``strategies.json_values`` (``oversize`` is the operator above).
MALFORMED_OPERATORS: Final = tuple(_malformed(k) for k in sorted(MALFORMED_CLASSES) if k != "oversize")
#: Every operator by name.
OPERATORS: Final[dict[str, ForgeryOperator]] = {op.name: op for op in (*_BASE_OPERATORS, *MALFORMED_OPERATORS)}


# --------------------------------------------------------------------------- entry points


def forge_seeded(operator: str, target: PlanTarget, seed: int = 0) -> Forgery | None:
    """One deterministic forgery (the kill matrix cell ``operator x target``)."""
    return OPERATORS[operator].forge(SeededChooser(seed), target)


@st.composite
def forgeries(draw: st.DrawFn, targets: Sequence[PlanTarget], operator: str | None = None) -> Forgery:
    """A forgery of a drawn target by ``operator`` (or a drawn one). When the drawn operator does not
    apply to the drawn target, the next target (then the next operator) is tried, in order."""
    names = sorted(OPERATORS)
    chooser = DrawChooser(draw)
    start_op = names.index(operator) if operator is not None else chooser.below(len(names))
    candidates = [operator] if operator is not None else [names[(start_op + k) % len(names)] for k in range(len(names))]
    start = chooser.below(len(targets))
    for name in candidates:
        assert name is not None
        for offset in range(len(targets)):
            forged = OPERATORS[name].forge(chooser, targets[(start + offset) % len(targets)])
            if forged is not None:
                return forged
    raise ValueError(f"operator {operator!r} applies to none of the targets")


def plan_target(case: ScenarioCase, name: str | None = None) -> PlanTarget:
    """The reference's plan of ``case`` as a forgery target."""
    from reference import api

    return PlanTarget(name or case.shape, case.scenario, api.build_plan(case.scenario))


@cache
def reference_targets() -> tuple[PlanTarget, ...]:
    """The fixed targets of the kill matrix (one per seed shape, built once per process)."""
    from seeds.scenarios import paged_storage_scenario
    from strategies.scenarios import (
        PlanFixtureParams,
        chain_case,
        graph_case,
        plan_fixture_case,
        rich_fixture_case,
        sequential_scratch_case,
    )

    cases = {
        "plan_fixture": plan_fixture_case(PlanFixtureParams()),
        "rich_fixture": rich_fixture_case(),
        "paged_storage": ScenarioCase("plan_fixture", {"storage": "paged"}, paged_storage_scenario()),
        "fallback_unregistered": plan_fixture_case(
            PlanFixtureParams(providers="secondary", preferred_provider="provider.operation.unregistered")
        ),
        "sequential_scratch": sequential_scratch_case(),
        "graph_state_chain": graph_case("state_chain", "must_alias_exact"),
        "chain_3_retained": chain_case(3, retention=("value.chain.00000", "value.chain.00001")),
    }
    return tuple(plan_target(case, name) for name, case in cases.items())
