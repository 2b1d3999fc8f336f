"""The structural forgery operators over execution-plan wires (05 §8-§9, 01 "Forged plans").

Leaf mutation (with or without re-sealing the hash as a forger would); unknown fields at any
depth; non-canonical respellings (integer as float, u128 with a leading zero or as a number,
reordered arrays, dropped ``null`` keys, an explicit default growth of 0); plan schema changes;
broken hashes (case, other hex, truncation); a changed ``plan_id``; replay of a plan against a
semantically different scenario; oversize.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Final

from reference.canonical import direct_bytes
from reference.errors import Serialization
from reference.ints import U64_MAX
from reference.plan.decode import decode_untrusted
from strategies.cases import JsonPath, get_at, iter_paths, replaced
from strategies.forged_wire import (
    INVALID_PLAN,
    MAX_WIRE,
    MISMATCH,
    SERIALIZATION,
    UNSUPPORTED,
    Chooser,
    Forgery,
    ForgeryOperator,
    PlanTarget,
    forgery,
    pattern,
    payload_leaves,
    pick,
    seal,
    with_raw,
)
from strategies.json_values import MALFORMED_CLASSES
from strategies.semantic_changes import SEMANTIC_CHANGES, semantically_changed

__all__ = ["BASE_OPERATORS", "ORDERED_ARRAYS", "SET_ARRAYS"]

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
#: The set arrays among them (``BTreeSet``s): a reordered or repeated item is an unsorted set (05 §9.1 step 5).
SET_VALUED: Final = frozenset(
    {
        ("payload", "quantization_formats"),
        ("payload", "nodes", "*", "required_capabilities"),
        ("payload", "memory", "dynamic_pools", "*", "resource_ids"),
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


#: Catalogue rules of a payload the rebuild comparison refuses (05 §9.2 step 3).
PAYLOAD_DIFFERS: Final = ("01.3.6/revalidate_payload_differs", "05.9.2/revalidate_payload_differs")
#: ... of a changed payload value (any hash: the payload comparison comes first), unsealed or re-sealed.
UNSEALED_TAMPER: Final = (
    *PAYLOAD_DIFFERS,
    "05.9.5/payload_value_changed",
    "05.9.2/revalidate_payload_before_hash",
    "01.3.6/unrehashed_tamper_is_invalid_plan",
)
RESEALED_TAMPER: Final = (
    *PAYLOAD_DIFFERS,
    "05.9.5/payload_value_changed",
    "05.9.2/revalidate_payload_before_hash",
    "01.3.6/rehashed_tamper_is_invalid_plan",
    "05.8.2/rehashed_forgery_still_rejected",
)
#: ... of a plan hash the decoder refuses (01 §1.3, 05 §8.1).
NON_CANONICAL_HASH: Final = ("01.1.3/plan_hash_decode_rejects_non_canonical", "05.8.1/plan_hash_canonical_on_decode")
#: ... of a non-canonical value the canonical round trip refuses (01 §5 rule 7).
NON_CANONICAL: Final = "01.5/reserialization_rejects_non_canonical_value"
_VERSION_EXTRA_KEY: Final = ("01.2/contract_version_extra_keys_rejected_in_reserialized_wires",)
_DIFFERS_ON_ROUND_TRIP: Final = "01.3.6/decode_reserialization_differs"
#: The replays by the input they change: another resolution set, or another retention or weight selection.
REPLAY_RULES: Final = {
    "resolutions": ("05.9.5/other_resolution_set",),
    "registry": ("05.9.5/other_resolution_set",),
    "preferred_provider": ("05.9.5/other_resolution_set",),
    "completion_retention": ("05.9.2/revalidate_matching_variant",),
    "weights": ("05.9.2/revalidate_matching_variant",),
}


def is_contract_version(raw: dict[str, Any], path: JsonPath) -> bool:
    """Whether the object at ``path`` is a ``ContractVersion`` (not the plan schema header)."""
    value = get_at(raw, path)
    return isinstance(value, dict) and set(value) == {"major", "minor"} and path != ("payload", "schema")


def _mutated_leaf(chooser: Chooser, value: Any) -> Any:
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        options = [value + 1 if value < U64_MAX else value - 1, 0 if value else 1, chooser.integer(0, 2**32)]
        new = pick(chooser, options)
        return new if new != value else value + 1
    if isinstance(value, str):
        if len(value) == 64 and all(c in "0123456789abcdef" for c in value):
            return ("1" if value[0] != "1" else "2") + value[1:]
        if value.isdigit():
            return str(int(value) + 1)
        return value + pick(chooser, [".x", "x", "0"])
    return pick(chooser, [0, "x", False])


def _decode_verdict(wire: bytes) -> str:
    """``serialization`` when the reference decoder (05 §9.1) refuses ``wire``, else ``invalid_execution_plan``."""
    try:
        decode_untrusted(wire)
    except Serialization:
        return SERIALIZATION
    return INVALID_PLAN


def _mutate_leaf(rehash: bool) -> Callable[[Chooser, PlanTarget], Forgery | None]:
    name = "mutate_leaf_rehashed" if rehash else "mutate_leaf_unsealed"

    def forge(chooser: Chooser, target: PlanTarget) -> Forgery | None:
        raw = target.raw()
        leaves = payload_leaves(raw)
        path, value = leaves[chooser.below(len(leaves))]
        forged = replaced(raw, path, _mutated_leaf(chooser, value))
        wire = seal(forged, rehash)
        kind = _decode_verdict(wire)
        rule = (
            "05 §9.1 step 4-5: the typed parse refuses the edited value"
            if kind == SERIALIZATION
            else "05 §9.2 step 3: a payload that differs from the semantic rebuild (checked before the hash)"
        )
        rules = () if kind == SERIALIZATION else RESEALED_TAMPER if rehash else UNSEALED_TAMPER
        return forgery(name, rule, kind, wire, target, _path_text(path), rules=rules)

    return forge


def _path_text(path: JsonPath) -> str:
    return "$" + "".join(f"[{step}]" if isinstance(step, int) else f".{step}" for step in path)


def _unknown_field(chooser: Chooser, target: PlanTarget) -> Forgery | None:
    raw = target.raw()
    objects = [path for path, value in iter_paths(raw) if isinstance(value, dict)]
    path = objects[chooser.below(len(objects))]
    key = pick(chooser, ["unknown_field", "x_extra", "_"])
    forged = replaced(raw, path, {**get_at(raw, path), key: pick(chooser, [0, None, "x", {}, []])})
    rehash = bool(path) and chooser.below(2) == 1
    wire = seal(forged, rehash)
    # A struct refuses the member; a map (``component_sources``) may take it as one more entry, which the
    # rebuild comparison then refuses.
    kind = _decode_verdict(wire)
    rule = (
        "05 §9.1 step 4-5: deny_unknown_fields / canonical round trip"
        if kind == SERIALIZATION
        else "05 §9.2 step 3: a map entry the semantic rebuild does not have"
    )
    if kind == SERIALIZATION:
        rules: tuple[str, ...] = (
            "05.9.1/step5_round_trip_unknown_nested_key",
            "01.5/reserialization_rejects_unknown_nested_key",
            *(("05.8.1/plan_wire_unknown_top_level_key",) if not path else ()),
            *(_VERSION_EXTRA_KEY if is_contract_version(raw, path) else ()),
        )
    else:
        rules = (*PAYLOAD_DIFFERS, "05.9.5/payload_value_changed")
    return forgery("unknown_field", rule, kind, wire, target, _path_text((*path, key)), rules=rules)


def _integer_as_float(chooser: Chooser, target: PlanTarget) -> Forgery | None:
    raw = target.raw()
    ints = [(p, v) for p, v in iter_paths(raw) if isinstance(v, int) and not isinstance(v, bool)]
    path, value = ints[chooser.below(len(ints))]
    text = pick(chooser, [f"{value}.0", f"{value}e0", f"{value}.00", f"{value}E+0"])
    header = ("05.9.1/step2_header_numbers",) if path[:2] == ("payload", "schema") else ()
    return forgery(
        "integer_as_float",
        "05 §9.1 step 4: an integer field written as a float is not canonical",
        SERIALIZATION,
        with_raw(raw, path, text),
        target,
        _path_text(path),
        rules=("05.9.1/step5_round_trip_float_number", NON_CANONICAL, *header),
    )


def _u128_respelled(chooser: Chooser, target: PlanTarget) -> Forgery | None:
    raw = target.raw()
    digits = [(p, v) for p, v in iter_paths(raw) if p and p[-1] == "theoretical_ceiling_bytes" and isinstance(v, str)]
    if not digits:
        return None
    path, value = digits[chooser.below(len(digits))]
    text = pick(chooser, [json.dumps("0" + value), value, json.dumps(value + " "), json.dumps("+" + value)])
    return forgery(
        "u128_respelled",
        "05 §9.1 step 4: CanonicalU128 is a decimal string without leading zeros",
        SERIALIZATION,
        with_raw(raw, path, text),
        target,
        _path_text(path),
        rules=("05.9.1/step5_round_trip_non_canonical_u128", NON_CANONICAL),
    )


def _reorder(table: frozenset[tuple[str, ...]], name: str, rule: str, kind: str) -> ForgeryOperator:
    def forge(chooser: Chooser, target: PlanTarget) -> Forgery | None:
        raw = target.raw()
        arrays = [
            (path, value)
            for path, value in iter_paths(raw)
            if isinstance(value, list)
            and pattern(path) in table
            and len({json.dumps(item, sort_keys=True) for item in value}) >= 2
        ]
        if not arrays:
            return None
        path, value = arrays[chooser.below(len(arrays))]
        shift = chooser.integer(1, len(value) - 1)
        reordered = value[shift:] + value[:shift]
        if reordered == value:
            reordered = list(reversed(value))
        if kind == SERIALIZATION:
            unsorted = ("05.9.1/step5_round_trip_unsorted_set_array",) if pattern(path) in SET_VALUED else ()
            rules: tuple[str, ...] = (*unsorted, NON_CANONICAL)
        else:
            rules = RESEALED_TAMPER
        wire = seal(replaced(raw, path, reordered), True)
        return forgery(name, rule, kind, wire, target, _path_text(path), rules=rules)

    return ForgeryOperator(name, rule, forge)


def _drop_null(chooser: Chooser, target: PlanTarget) -> Forgery | None:
    raw = target.raw()
    nulls = [path for path, value in iter_paths(raw) if value is None and path and isinstance(path[-1], str)]
    if not nulls:
        return None
    path = nulls[chooser.below(len(nulls))]
    forged = replaced(raw, path[:-1], {k: v for k, v in get_at(raw, path[:-1]).items() if k != path[-1]})
    return forgery(
        "drop_null_key",
        "05 §9.1 step 5: an Option is serialized as an explicit null; omitting it is not canonical",
        SERIALIZATION,
        seal(forged, chooser.below(2) == 1),
        target,
        _path_text(path),
        rules=(
            "05.9.1/step5_round_trip_omitted_option_key",
            "01.5/reserialization_rejects_omitted_option",
            "01.3.6/decode_reserialization_differs",
        ),
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
    return forgery(
        "explicit_default_growth",
        "05 §8.2 / §9.1 step 5: a growth of 0 is skipped when serialized; writing it is not canonical",
        SERIALIZATION,
        seal(forged, chooser.below(2) == 1),
        target,
        _path_text(path),
        rules=("05.9.1/step5_round_trip_explicit_skipped_default", NON_CANONICAL, _DIFFERS_ON_ROUND_TRIP),
    )


def _schema_version(chooser: Chooser, target: PlanTarget) -> Forgery | None:
    raw = target.raw()
    major, minor = pick(
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
    return forgery(
        "schema_version",
        "05 §9.1 step 3: only plan schema 8.1 is accepted, checked before any nested validation",
        UNSUPPORTED,
        seal(raw, chooser.below(2) == 1),
        target,
        f"{major}.{minor}",
        rules=(
            "05.9.1/step3_unsupported_schema",
            "01.3.6/decode_schema_mismatch",
            "05.9.5/schema_tamper_even_after_rehash",
            "01.2/plan_schema_exact_equality",
        ),
        expected_major=8,
        expected_minor=1,
        actual_major=major,
        actual_minor=minor,
    )


def _schema_out_of_range(chooser: Chooser, target: PlanTarget) -> Forgery | None:
    raw = target.raw()
    name = pick(chooser, ["major", "minor"])
    raw["payload"]["schema"][name] = pick(chooser, [0x10000, -1, chooser.integer(0x10000, U64_MAX)])
    return forgery(
        "schema_out_of_range",
        "05 §9.1 step 2: the header schema numbers are u16",
        SERIALIZATION,
        seal(raw, chooser.below(2) == 1),
        target,
        name,
        rules=("05.9.1/step2_header_numbers",),
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
    return forgery(
        "hash_uppercase",
        "01 §3.4 / 05 §9.1 step 4: PlanHash is 64 lowercase hex characters",
        SERIALIZATION,
        direct_bytes(raw),
        target,
        forged,
        rules=NON_CANONICAL_HASH,
    )


def _hash_other_hex(chooser: Chooser, target: PlanTarget) -> Forgery | None:
    raw = target.raw()
    digest = raw["plan_hash"]
    i = chooser.below(64)
    other = "0123456789abcdef".replace(digest[i], "")
    forged = digest[:i] + other[chooser.below(len(other))] + digest[i + 1 :]
    raw["plan_hash"] = forged
    return forgery(
        "hash_other_hex",
        "05 §9.2 step 4: payload untouched, another valid hash -> PlanHashMismatch{expected: rebuilt, actual: wire}",
        MISMATCH,
        direct_bytes(raw),
        target,
        forged,
        rules=(
            "05.9.5/plan_hash_only_changed",
            "01.3.6/only_plan_hash_changed",
            "01.3.6/revalidate_plan_hash_mismatch",
            "05.9.2/revalidate_hash_mismatch",
            "05.9.1/decode_ignores_hash_and_plan_id",
        ),
        expected=digest,
        actual=forged,
    )


def _hash_truncated(chooser: Chooser, target: PlanTarget) -> Forgery | None:
    raw = target.raw()
    digest = raw["plan_hash"]
    forged = pick(
        chooser,
        [digest[: chooser.integer(0, 63)], digest + pick(chooser, list("0af")), digest[:63] + "g", digest + "\n"],
    )
    raw["plan_hash"] = forged
    return forgery(
        "hash_malformed",
        "01 §3.4 / 05 §9.1 step 4: PlanHash must be exactly 64 lowercase hex characters",
        SERIALIZATION,
        direct_bytes(raw),
        target,
        repr(forged),
        rules=NON_CANONICAL_HASH,
    )


def _plan_id(chooser: Chooser, target: PlanTarget) -> Forgery | None:
    raw = target.raw()
    digest = raw["plan_hash"]
    other = "".join("0123456789abcdef"[chooser.below(16)] for _ in range(2)) + digest[2:]
    if other == digest:
        other = ("1" if digest[0] != "1" else "2") + digest[1:]
    raw["payload"]["plan_id"] = "plan/sha256/" + other
    return forgery(
        "plan_id_changed",
        "05 §9.2 step 3: plan_id is part of the compared payload",
        INVALID_PLAN,
        direct_bytes(raw),
        target,
        other,
        rules=(
            *PAYLOAD_DIFFERS,
            "01.3.6/only_plan_id_changed",
            "05.9.5/plan_id_only_changed",
            "05.9.1/decode_ignores_hash_and_plan_id",
        ),
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
                rules=REPLAY_RULES.get(change.operator, ()),
            )
    return None


def _oversize(chooser: Chooser, target: PlanTarget) -> Forgery | None:
    pad = pick(chooser, [b" ", b"\n", b"\t", b"\r\n"])
    extra = chooser.integer(1, 64)
    count = (MAX_WIRE - len(target.wire) + extra + len(pad) - 1) // len(pad)
    padding = pad * count
    wire = padding + target.wire if chooser.below(2) == 0 else target.wire + padding
    return forgery(
        "malformed:oversize",
        MALFORMED_CLASSES["oversize"] + " (05 §9.1 step 1: more than 16 MiB)",
        SERIALIZATION,
        wire,
        target,
        f"{len(wire)} bytes",
    )


#: Every structural operator.
BASE_OPERATORS: Final = (
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
