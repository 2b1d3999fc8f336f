"""Runtime-policy strategies (spec 04 §2-4, 05 §3 steps 1-5) as policy documents and contract objects.

* ``policy_fields`` / ``resolved_policies``: valid ``ResolvedRuntimePolicy`` values
  (the eight ``new`` fields as JSON), optionally pinned (capacity, reserve, ...)
  so scenario strategies can fit them to a device.
* ``policy_documents``: valid documents of every kind (``resolved``,
  ``resolved_fields``, ``adversarial``, ``declared``) with the policy they build.
* ``boundary_policies``: policies whose usable bytes sit at ``need - 1``,
  ``need`` or ``need + 1`` (``target()`` drives towards the boundary).
* ``hostile_policies``: custom policies (documents the decoder accepts) that
  lie or misbehave, with the error ``policy_for_build`` must raise.
* ``policy_rejections``: documents the decoder refuses, with the exact kind.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from hypothesis import strategies as st

from reference.canonical import JsonValue, fingerprint
from reference.documents.policy import policy_from_document
from reference.errors import InvalidExecutionPlan, InvalidModelConfig, UnsupportedOperation
from reference.ints import U64_MAX
from reference.policy.reusable import BUCKET_ID_DOMAIN, BUCKET_ID_PREFIX
from reference.policy.runtime_policy import RuntimePolicy
from seeds.policies import policy as seed_policy
from strategies._guide import guide
from strategies._reuse import reusable
from strategies.cases import SERIALIZATION, Rejection, replaced, updated
from strategies.ids import id_strings
from strategies.storage import profile_orders

__all__ = [
    "ACCEPTED_POLICY_VARIANTS",
    "HOSTILE_POLICY_OPERATORS",
    "POLICY_OPERATORS",
    "BoundaryPolicy",
    "HostilePolicy",
    "PolicyDraft",
    "boundary_policies",
    "hostile_policies",
    "policy_documents",
    "policy_fields",
    "policy_rejections",
    "resolved_policies",
    "reusable_bucket",
    "reusable_policy_wires",
]

U32_MAX: Final = 2**32 - 1
_RMP: Final = "invalid_resolved_model_plan"
_EP: Final = "invalid_execution_plan"


@dataclass(frozen=True, slots=True)
class PolicyDraft:
    """A policy document and the policy the reference builds from it."""

    document: dict[str, JsonValue]
    policy: RuntimePolicy


@dataclass(frozen=True, slots=True)
class BoundaryPolicy:
    """A resolved policy with ``usable = capacity - reserve = need + margin``."""

    document: dict[str, JsonValue]
    policy: RuntimePolicy
    need: int
    margin: int

    @property
    def usable(self) -> int:
        return self.need + self.margin


@dataclass(frozen=True, slots=True)
class HostilePolicy:
    """A custom policy document; ``policy_for_build(policy, device)`` raises ``expected_kind`` (None: accepted)."""

    hostility: str
    rule: str
    document: dict[str, JsonValue]
    device_capacity: int
    expected_kind: str | None


def _bucket(class_id: str, sequences: int, tokens: int, pages: int) -> dict[str, JsonValue]:
    capacity: dict[str, JsonValue] = {"maximum_sequences": sequences, "maximum_tokens": tokens, "maximum_pages": pages}
    material = {"domain": BUCKET_ID_DOMAIN, "class_id": class_id, "capacity": capacity}
    return {"bucket_id": BUCKET_ID_PREFIX + fingerprint(material), "class_id": class_id, "capacity": capacity}


def reusable_bucket(class_id: str, sequences: int, tokens: int, pages: int) -> dict[str, JsonValue]:
    """A ``ReusableExecutionBucketSpec`` wire with its derived bucket id."""
    return _bucket(class_id, sequences, tokens, pages)


@reusable
@st.composite
def reusable_policy_wires(draw: st.DrawFn, max_sequences: int = 4, max_tokens: int = 4096) -> dict[str, JsonValue]:
    """A valid ``ReusableExecutionPolicy`` wire within the sequence/token ceilings (rows 13-14)."""
    classes = draw(st.lists(st.sampled_from(("class.a", "class.b", "x:y/z")), min_size=1, max_size=2, unique=True))
    buckets: list[JsonValue] = []
    for class_id in sorted(classes):
        seq = draw(st.integers(1, min(max_sequences, 2)))
        tok = draw(st.integers(1, min(max_tokens, 64)))
        pages = draw(st.integers(1, 4))
        for _ in range(draw(st.integers(1, 3))):
            buckets.append(_bucket(class_id, seq, tok, pages))
            grow = draw(st.sampled_from(("tokens", "sequences", "pages")))
            if grow == "tokens" and tok < max_tokens:
                tok += 1
            elif grow == "sequences" and seq < max_sequences:
                seq += 1
            else:
                pages += 1
    return {"maximum_reusable_lanes": draw(st.integers(1, 4)), "buckets": buckets}


def _pick(draw: st.DrawFn, pinned: int | None, strategy: st.SearchStrategy[int]) -> int:
    return draw(strategy) if pinned is None else pinned


@reusable
@st.composite
def policy_fields(
    draw: st.DrawFn,
    *,
    capacity: int | None = None,
    reserve: int | None = None,
    sequences: int | None = None,
    tokens: int | None = None,
    profiles: list[JsonValue] | None = None,
    reusable: bool = True,
    force_reusable: bool = False,
) -> dict[str, JsonValue]:
    """The eight ``ResolvedRuntimePolicy.new`` fields (wire JSON) of a valid policy; any value may be pinned.

    ``reusable`` allows a reusable-execution policy, ``force_reusable`` always draws one.
    """
    cap = _pick(draw, capacity, st.one_of(st.sampled_from((1, 2, 4096, 1 << 20, U64_MAX)), st.integers(1, U64_MAX)))
    res = _pick(draw, reserve, st.one_of(st.sampled_from((0, cap - 1)), st.integers(0, cap - 1)))
    mas = _pick(draw, sequences, st.one_of(st.integers(1, 4), st.just(U32_MAX)))
    mst = _pick(draw, tokens, st.one_of(st.sampled_from((1, 4096)), st.integers(1, U64_MAX)))
    order = profiles if profiles is not None else [p.to_wire() for p in draw(profile_orders())]
    memory: dict[str, JsonValue] = {
        "capacity_bytes": cap,
        "reserve_bytes": res,
        "maximum_active_sequences": mas,
        "dynamic_storage_profile_order": order,
    }
    if draw(st.booleans()):
        memory["checkpoint_capacity"] = {"maximum_retained_bytes": draw(st.integers(1, U64_MAX))}
    reusable_wires = reusable_policy_wires(max_sequences=mas, max_tokens=mst)
    reusable_wire = draw(reusable_wires if force_reusable else st.one_of(st.none(), reusable_wires)) if (
        reusable or force_reusable) else None  # fmt: skip
    return {
        "policy_id": draw(st.one_of(st.just("runtime-policy.test"), id_strings("runtime-policy"))),
        "version": {"major": draw(st.integers(1, 3)), "minor": draw(st.integers(0, 3))},
        "scheduling": draw(st.sampled_from(("first_ready", "priority", "deadline"))),
        "memory": memory,
        "admission": {
            "maximum_queue_depth": draw(st.integers(1, U32_MAX)),
            "maximum_scheduled_tokens": mst,
            "sequence_fit_policy": draw(st.sampled_from(("immediate_only", "full_input_must_fit"))),
            "allow_defer": draw(st.booleans()),
            "cancellation_check_interval_steps": draw(st.integers(1, U32_MAX)),
        },
        "attention_execution": draw(st.sampled_from(("portable", "native-adaptive"))),
        "execution_determinism": draw(st.sampled_from(("bitwise_same_runtime", "bitwise_same_runtime_with_replay"))),
        "reusable_execution": reusable_wire,
    }


def resolved_policies(**pins: Any) -> st.SearchStrategy[PolicyDraft]:
    """Valid resolved policies as ``resolved_fields`` documents (pins as ``policy_fields``)."""

    def draft(fields: dict[str, JsonValue]) -> PolicyDraft:
        document: dict[str, JsonValue] = {"kind": "resolved_fields", "fields": fields}
        return PolicyDraft(document, policy_from_document(document))

    return policy_fields(**pins).map(draft)


def _as_resolved_wire(draft: PolicyDraft) -> PolicyDraft:
    document: dict[str, JsonValue] = {"kind": "resolved", "wire": draft.policy.to_wire()}
    return PolicyDraft(document, policy_from_document(document))


@reusable
@st.composite
def _adversarial(draw: st.DrawFn) -> PolicyDraft:
    serde: dict[str, JsonValue] = {
        "maximum_active_sequences": draw(st.one_of(st.integers(0, 4), st.just(U32_MAX))),
        "maximum_scheduled_tokens": draw(st.one_of(st.sampled_from((0, 4096)), st.integers(0, U64_MAX))),
        "dynamic_storage_profile_order": [p.to_wire() for p in draw(profile_orders(min_size=0))],
    }
    document: dict[str, JsonValue] = {"kind": "adversarial", "serde": serde}
    return PolicyDraft(document, policy_from_document(document))


def _reported(fields: Mapping[str, Any]) -> dict[str, JsonValue]:
    memory, admission = fields["memory"], fields["admission"]
    return {
        "version": copy.deepcopy(fields["version"]),
        "memory_capacity_bytes": memory["capacity_bytes"],
        "memory_reserve_bytes": memory["reserve_bytes"],
        "maximum_active_sequences": memory["maximum_active_sequences"],
        "maximum_scheduled_tokens": admission["maximum_scheduled_tokens"],
        "attention_execution_policy": fields["attention_execution"],
        "execution_determinism_requirement": fields["execution_determinism"],
        "dynamic_storage_profile_order": copy.deepcopy(memory["dynamic_storage_profile_order"]),
        "reusable_execution_policy": copy.deepcopy(fields["reusable_execution"]),
        "checkpoint_capacity_policy": copy.deepcopy(memory.get("checkpoint_capacity")),
    }


def _declared_document(serialized: JsonValue, reported: dict[str, JsonValue], error: Any) -> dict[str, JsonValue]:
    return {"kind": "declared", "serialized": serialized, "reported": reported, "validate_error": error}


@reusable
@st.composite
def _honest_declared(draw: st.DrawFn) -> PolicyDraft:
    fields = draw(policy_fields())
    document = _declared_document(copy.deepcopy(fields), _reported(fields), None)
    return PolicyDraft(document, policy_from_document(document))


def policy_documents() -> st.SearchStrategy[PolicyDraft]:
    """A valid document of any kind, with the policy the reference builds from it."""
    return st.one_of(
        resolved_policies(),
        resolved_policies().map(_as_resolved_wire),
        _adversarial(),
        _honest_declared(),
    )


@reusable
@st.composite
def boundary_policies(draw: st.DrawFn, need: int, *, device_capacity: int = U64_MAX) -> BoundaryPolicy:
    """A resolved policy with usable bytes ``need + margin``, margin in {-1, 0, +1} (or wider, guided by ``target``).

    The build accepts the budget iff ``margin >= 0``; ``need`` must be positive and the
    capacity fits ``device_capacity`` (otherwise the margin is clamped and recorded exactly).
    """
    if need < 1 or device_capacity < 1:
        raise ValueError("need and device_capacity must be positive")
    margin = draw(st.one_of(st.sampled_from((-1, 0, 1)), st.integers(-64, 64)))
    guide(-abs(margin), "distance from the budget boundary")
    usable = min(max(1, need + margin), device_capacity)
    reserve = min(draw(st.sampled_from((0, 128, 4096))), device_capacity - usable)
    fields = draw(policy_fields(capacity=usable + reserve, reserve=reserve))
    document: dict[str, JsonValue] = {"kind": "resolved_fields", "fields": fields}
    return BoundaryPolicy(document, policy_from_document(document), need, usable - need)


# --------------------------------------------------------------------------- hostile custom policies


def _error_object(kind: str) -> dict[str, JsonValue]:
    if kind == "invalid_model_config":
        return InvalidModelConfig(family_id="family.x", field="policy", reason="declared failure").to_dict()
    if kind == "unsupported_operation":
        error = UnsupportedOperation(node_id=None, operation_id="operation.x", device_id="device.x", reason="declared")
        return error.to_dict()
    return InvalidExecutionPlan(reason="declared validate failure").to_dict()


#: Every hostility of ``hostile_policies``, with the catalogue rule a planner meeting it checks (``None``: the
#: hostility checks no one rule of its own; the plan or refusal is still compared with the reference's).
HOSTILE_POLICY_OPERATORS: Final[dict[str, str | None]] = {
    "validate_raises": "04.9/step01_policy_validate_first",
    "zero_sequences": "04.9/step02_zero_active_sequences",
    "zero_tokens": "04.9/step03_zero_scheduled_tokens",
    "zero_capacity": "05.3/step05_capacity_nonzero",
    "capacity_over_device": "05.3/step05_capacity_within_device",
    "reserve_equals_capacity": "05.3/step05_reserve_below_capacity",
    "serialized_disagrees": "04.4/custom_policy_hashes_only_serde_fields",
    "empty_profile_order": "04.4.1/empty_profile_order_fails_resolution",
    "duplicate_profiles": "04.4.1/profile_order_trusted_duplicates_allowed",
    "adversarial_seed": None,
}


@reusable
@st.composite
def hostile_policies(
    draw: st.DrawFn,
    device_capacity: int = 1 << 20,
    hostilities: tuple[str, ...] | None = None,
    fields: Mapping[str, JsonValue] | None = None,
) -> HostilePolicy:
    """A custom (``declared`` or ``adversarial``) policy document whose hostility the planner must catch (or not).

    Rules (05 §3 steps 1-3, 5; trust table of 04 §4.1): ``validate`` errors propagate
    unchanged; zero sequences/tokens and a failed capacity gate are ``invalid_execution_plan``;
    lies about anything else are trusted as reported (accepted here). ``hostilities`` restricts the
    choice to those names (see ``HOSTILE_POLICY_OPERATORS``); ``fields`` are the honest policy's
    ``new`` fields the hostility starts from (drawn when absent).
    """
    if not 1 <= device_capacity < U64_MAX:
        raise ValueError("device_capacity must be in 1..u64::MAX-1")
    if fields is None:
        fields = draw(policy_fields(capacity=draw(st.integers(1, device_capacity)), reusable=False))
    reported = _reported(fields)
    serialized: JsonValue = copy.deepcopy(fields)
    hostility = draw(st.sampled_from(tuple(hostilities or HOSTILE_POLICY_OPERATORS)))
    error: JsonValue = None
    expected: str | None = _EP
    rule = "05 §3 step 5: 0 < capacity <= device and reserve < capacity"
    if hostility == "validate_raises":
        kind = draw(st.sampled_from(("invalid_execution_plan", "invalid_model_config", "unsupported_operation")))
        error, expected, rule = _error_object(kind), kind, "05 §3 step 1: policy.validate() errors propagate"
    elif hostility == "zero_sequences":
        reported["maximum_active_sequences"] = 0
        rule = "05 §3 step 2: maximum_active_sequences == 0"
    elif hostility == "zero_tokens":
        reported["maximum_scheduled_tokens"] = 0
        rule = "05 §3 step 3: maximum_scheduled_tokens == 0"
    elif hostility == "zero_capacity":
        reported["memory_capacity_bytes"] = 0
        reported["memory_reserve_bytes"] = 0
    elif hostility == "capacity_over_device":
        reported["memory_capacity_bytes"] = draw(st.integers(device_capacity + 1, U64_MAX))
    elif hostility == "reserve_equals_capacity":
        reported["memory_reserve_bytes"] = draw(st.integers(reported["memory_capacity_bytes"], U64_MAX))
    elif hostility == "serialized_disagrees":
        serialized = draw(st.sampled_from([{"claims": "anything"}, [], "policy", None]))
        expected, rule = None, "04 §4.1: the serde form is hashed, never trusted for values"
    elif hostility == "empty_profile_order":
        reported["dynamic_storage_profile_order"] = []
        expected, rule = None, "04 §4.1: the profile order is trusted as given (fails later, not at the gate)"
    elif hostility == "duplicate_profiles":
        order = reported["dynamic_storage_profile_order"]
        assert isinstance(order, list) and order
        order.append(copy.deepcopy(order[0]))
        expected, rule = None, "04 §4.1: duplicates in the profile order are not re-checked"
    elif hostility == "adversarial_seed":
        adversarial = draw(_adversarial())
        mas = adversarial.policy.maximum_active_sequences()
        mst = adversarial.policy.maximum_scheduled_tokens()
        expected, rule = None, "seed 000 AdversarialRuntimePolicy: capacity 1 MiB, reserve 128"
        if mas == 0 or mst == 0:
            expected, rule = _EP, "05 §3 steps 2-3: zero sequences or tokens"
        elif device_capacity < adversarial.policy.memory_capacity_bytes():
            expected = _EP
        return HostilePolicy(hostility, rule, adversarial.document, device_capacity, expected)
    else:
        raise ValueError(f"unknown hostility {hostility!r}")
    document = _declared_document(serialized, reported, error)
    return HostilePolicy(hostility, rule, document, device_capacity, expected)


# --------------------------------------------------------------------------- decoder rejections


def _rmp(operator: str, row: str, field: str, document: dict[str, JsonValue], original: JsonValue) -> Rejection:
    return Rejection(operator, f"04 §3.2 {row}", _RMP, document, original, {"field": f"runtime_policy.{field}"})


_NEEDS_REUSABLE: Final = ("reusable_bucket_over_sequences", "reusable_invalid", "reusable_no_buckets")


@reusable
@st.composite
def policy_rejections(draw: st.DrawFn, operators: tuple[str, ...] | None = None) -> Rejection:
    """A policy document ``policy_from_document`` refuses, with the exact kind (and field for §3.2 rows).

    ``operators`` restricts the choice (reusable operators then always get a reusable policy).
    """
    force = operators is not None and any(name in _NEEDS_REUSABLE for name in operators)
    fields = draw(policy_fields(force_reusable=force))
    doc: dict[str, JsonValue] = {"kind": "resolved_fields", "fields": fields}
    memory = ("fields", "memory")
    admission = ("fields", "admission")
    capacity = fields["memory"]["capacity_bytes"]
    table: dict[str, Any] = {
        "policy_id_empty": lambda: _rmp(
            "policy_id_empty", "row 1", "policy_id", replaced(doc, ("fields", "policy_id"), ""), doc
        ),
        "policy_id_charset": lambda: _rmp(
            "policy_id_charset", "row 2", "policy_id", replaced(doc, ("fields", "policy_id"), "policy id"), doc
        ),
        "major_zero": lambda: _rmp(
            "major_zero", "row 3", "version", updated(doc, ("fields", "version"), major=0), doc
        ),
        "capacity_zero": lambda: _rmp(
            "capacity_zero", "row 4", "memory", updated(doc, memory, capacity_bytes=0, reserve_bytes=0), doc
        ),
        "reserve_not_below_capacity": lambda: _rmp(
            "reserve_not_below_capacity", "row 5", "memory", updated(doc, memory, reserve_bytes=capacity), doc
        ),
        "sequences_zero": lambda: _rmp(
            "sequences_zero", "row 6", "memory", updated(doc, memory, maximum_active_sequences=0), doc
        ),
        "profile_order_empty": lambda: _rmp(
            "profile_order_empty", "row 7", "memory", updated(doc, memory, dynamic_storage_profile_order=[]), doc
        ),
        "profile_order_duplicate": lambda: _rmp(
            "profile_order_duplicate",
            "row 8",
            "memory",
            updated(
                doc,
                memory,
                dynamic_storage_profile_order=[
                    *fields["memory"]["dynamic_storage_profile_order"],
                    fields["memory"]["dynamic_storage_profile_order"][0],
                ],
            ),
            doc,
        ),
        "queue_depth_zero": lambda: _rmp(
            "queue_depth_zero", "row 9", "admission", updated(doc, admission, maximum_queue_depth=0), doc
        ),
        "tokens_zero": lambda: _rmp(
            "tokens_zero",
            "row 10",
            "admission",
            updated(replaced(doc, ("fields", "reusable_execution"), None), admission, maximum_scheduled_tokens=0),
            doc,
        ),
        "cancellation_zero": lambda: _rmp(
            "cancellation_zero", "row 11", "admission",
            updated(doc, admission, cancellation_check_interval_steps=0), doc,
        ),
        "attention_auto": lambda: _rmp(
            "attention_auto", "row 12", "attention_execution",
            replaced(doc, ("fields", "attention_execution"), "auto"), doc,
        ),
        "unknown_document_kind": lambda: Rejection(
            "unknown_document_kind", "policy document kind is one of four", SERIALIZATION,
            replaced(doc, ("kind",), "custom"), doc,
        ),
        "unknown_document_field": lambda: Rejection(
            "unknown_document_field", "policy documents deny unknown fields", SERIALIZATION,
            updated(doc, (), extra=1), doc,
        ),
        "resolved_wire_fingerprint_forged": lambda: _forged_wire(doc),
        "resolved_wire_unknown_field": lambda: _wire_unknown_field(doc),
        "adversarial_sequences_overflow": lambda: Rejection(
            "adversarial_sequences_overflow", "AdversarialRuntimePolicy.maximum_active_sequences is a u32",
            SERIALIZATION,
            {"kind": "adversarial", "serde": {
                "maximum_active_sequences": U32_MAX + 1, "maximum_scheduled_tokens": 1,
                "dynamic_storage_profile_order": [],
            }},
            doc,
        ),
        "declared_bad_error_kind": lambda: Rejection(
            "declared_bad_error_kind", "a declared validate_error must be a VNextError object", SERIALIZATION,
            _declared_document(None, _reported(fields), {"kind": "no_such_error", "message": "x"}), doc,
        ),
    }  # fmt: skip
    reusable = fields["reusable_execution"]
    if reusable is not None:
        table["reusable_bucket_over_sequences"] = lambda: _bucket_over_sequences(doc)
        table["reusable_invalid"] = lambda: _reusable_invalid(doc)
        table["reusable_no_buckets"] = lambda: _reusable_no_buckets(doc)
    names = sorted(table) if operators is None else sorted(operators)
    rejection: Rejection = table[draw(st.sampled_from(names))]()
    return rejection


def _bucket_over_sequences(doc: dict[str, JsonValue]) -> Rejection:
    """One active sequence, and the last bucket (end of its class chain) re-sealed to hold two."""
    mutated = copy.deepcopy(doc)
    fields = mutated["fields"]
    fields["memory"]["maximum_active_sequences"] = 1
    last = fields["reusable_execution"]["buckets"][-1]
    capacity = last["capacity"]
    fields["reusable_execution"]["buckets"][-1] = _bucket(
        last["class_id"], max(2, capacity["maximum_sequences"]), capacity["maximum_tokens"], capacity["maximum_pages"]
    )
    return _rmp("reusable_bucket_over_sequences", "row 14", "reusable_execution", mutated, doc)


def _reusable_invalid(doc: dict[str, JsonValue]) -> Rejection:
    mutated = copy.deepcopy(doc)
    mutated["fields"]["reusable_execution"]["maximum_reusable_lanes"] = 0
    return Rejection(
        "reusable_invalid",
        "04 §2.4: a reusable-execution wire is validated while decoding (lanes > 0): row 13 surfaces as Serialization",
        SERIALIZATION,
        mutated,
        doc,
    )


def _reusable_no_buckets(doc: dict[str, JsonValue]) -> Rejection:
    mutated = copy.deepcopy(doc)
    mutated["fields"]["reusable_execution"]["buckets"] = []
    return Rejection(
        "reusable_no_buckets",
        "04 §2.4: a reusable-execution wire is validated while decoding (1..=64 buckets): row 13 surfaces as "
        "Serialization",
        SERIALIZATION,
        mutated,
        doc,
    )


def _forged_wire(doc: dict[str, JsonValue]) -> Rejection:
    wire = policy_from_document(doc).to_wire()
    assert isinstance(wire, dict)
    wire["fingerprint"] = "0" * 64 if wire["fingerprint"] != "0" * 64 else "1" * 64
    return Rejection(
        "resolved_wire_fingerprint_forged", "04 §3.3: the decoder recomputes the fingerprint", SERIALIZATION,
        {"kind": "resolved", "wire": wire}, doc,
    )  # fmt: skip


def _wire_unknown_field(doc: dict[str, JsonValue]) -> Rejection:
    wire = policy_from_document(doc).to_wire()
    assert isinstance(wire, dict)
    wire["unknown"] = True
    return Rejection(
        "resolved_wire_unknown_field", "04 §3.1: ResolvedRuntimePolicy denies unknown fields", SERIALIZATION,
        {"kind": "resolved", "wire": wire}, doc,
    )  # fmt: skip


#: Every policy rejection operator, with the catalogue rule the reference's refusal of it implements (``None``: the
#: operator breaks no contract rule of its own, only the policy document's format; the refusal is still compared
#: with the reference's).
POLICY_OPERATORS: Final[dict[str, str | None]] = {
    "adversarial_sequences_overflow": "04.0/unsigned_fields_range_checked",
    "attention_auto": "04.3.2/row12_attention_resolved",
    "cancellation_zero": "04.3.2/row11_cancellation_interval_nonzero",
    "capacity_zero": "04.3.2/row04_capacity_nonzero",
    "declared_bad_error_kind": "01.6/error_object_decode",
    "major_zero": "04.3.2/row03_version_major_nonzero",
    "policy_id_charset": "04.3.2/row02_policy_id_portable_bytes",
    "policy_id_empty": "04.3.2/row01_policy_id_length",
    "profile_order_duplicate": "04.3.2/row08_profile_order_no_duplicates",
    "profile_order_empty": "04.3.2/row07_profile_order_nonempty",
    "queue_depth_zero": "04.3.2/row09_queue_depth_nonzero",
    "reserve_not_below_capacity": "04.3.2/row05_reserve_below_capacity",
    "resolved_wire_fingerprint_forged": "04.3.1/fingerprint_mismatch_rejected",
    "resolved_wire_unknown_field": "04.3.1/deny_unknown_top_level_fields",
    "reusable_bucket_over_sequences": "04.3.2/row14_buckets_within_policy_ceilings",
    "reusable_invalid": "04.2.4/lanes_nonzero",
    "reusable_no_buckets": "04.2.4/bucket_count_limit",
    "sequences_zero": "04.3.2/row06_active_sequences_nonzero",
    "tokens_zero": "04.3.2/row10_scheduled_tokens_nonzero",
    "unknown_document_field": None,
    "unknown_document_kind": None,
}


# --------------------------------------------------------------------------- fixed accepted documents

#: The seed policy's ``resolved_fields`` (``policy(4096)``: 3 sequences, 4096 tokens, one contiguous profile), without
#: a reusable-execution policy (the variants below add one or leave the member out).
_SEED_FIELDS: Final[dict[str, JsonValue]] = {
    name: value
    for name, value in seed_policy(4096).to_wire().items()
    if name not in ("fingerprint", "reusable_execution")
}

#: Policy documents the contract accepts whose plan shows one policy value: name -> (document, rules checked).
ACCEPTED_POLICY_VARIANTS: Final[dict[str, tuple[dict[str, JsonValue], tuple[str, ...]]]] = {
    # 04 §1, §4: the seed's custom policy: only its three serde fields are hashed, its members are constants
    # (version 1.0, capacity 1 MiB, reserve 128) and it plans no checkpoint capacity (provided member).
    "adversarial_seed_policy": (
        {
            "kind": "adversarial",
            "serde": {
                "maximum_active_sequences": 3,
                "maximum_scheduled_tokens": 4096,
                "dynamic_storage_profile_order": [{"allocator": "linear_arena", "view": "contiguous"}],
            },
        },
        ("04.4/adversarial_policy_shape", "04.1/checkpoint_capacity_policy_defaults_to_none"),
    ),
    # 04 §2.4: a reusable-execution policy without a program policy: decoded from a wire without the member,
    # hashed without it.
    "reusable_policy_without_program_policy": (
        {
            "kind": "resolved_fields",
            "fields": {
                **_SEED_FIELDS,
                "reusable_execution": {
                    "maximum_reusable_lanes": 1,
                    "buckets": [reusable_bucket("class.a", 1, 1, 1)],
                },
            },
        },
        ("04.2.4/program_policy_omitted_when_none",),
    ),
}
