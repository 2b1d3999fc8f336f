"""``ResolvedRuntimePolicy`` (spec 04 §3): the validated, fingerprinted runtime policy.

``new`` runs the fifteen checks of §3.2 in order (first failure wins); the
stored ``fingerprint`` is the canonical sha256 of the wire object without the
``fingerprint`` key (§3.3). The decoder is ``deny_unknown_fields`` at the top
level, runs ``new`` and then compares fingerprints; every failure is
``Serialization``.
"""

from __future__ import annotations

from typing import Any, Final

from reference.canonical import JsonValue, fingerprint
from reference.errors import InvalidResolvedModelPlan, Serialization
from reference.ids import check_portable_string
from reference.policy.admission import AdmissionPolicy
from reference.policy.enums import AttentionExecutionPolicy, ExecutionDeterminismRequirement, SchedulingDiscipline
from reference.policy.memory import CheckpointCapacityPolicy, RuntimeMemoryPolicy
from reference.policy.reusable import ReusableExecutionPolicy
from reference.policy.runtime_policy import RuntimePolicy
from reference.policy.storage import StorageProfile, profile_key
from reference.versions import ContractVersion
from reference.wire import WireObject, decode_with

__all__ = [
    "DECODE_CONTEXT",
    "FIELD_ADMISSION",
    "FIELD_ATTENTION",
    "FIELD_FINGERPRINT",
    "FIELD_MEMORY",
    "FIELD_POLICY_ID",
    "FIELD_REUSABLE",
    "FIELD_VERSION",
    "FINGERPRINT_CONTEXT",
    "WIRE_FIELDS",
    "PolicyFields",
    "ResolvedRuntimePolicy",
    "decode_policy_fields",
    "resolved_policy_material",
]

FIELD_POLICY_ID: Final = "runtime_policy.policy_id"
FIELD_VERSION: Final = "runtime_policy.version"
FIELD_MEMORY: Final = "runtime_policy.memory"
FIELD_ADMISSION: Final = "runtime_policy.admission"
FIELD_ATTENTION: Final = "runtime_policy.attention_execution"
FIELD_REUSABLE: Final = "runtime_policy.reusable_execution"
FIELD_FINGERPRINT: Final = "runtime_policy.fingerprint"

FINGERPRINT_CONTEXT: Final = "serialize resolved runtime policy"
DECODE_CONTEXT: Final = "decode resolved runtime policy"

#: Wire keys in serialization order; ``fingerprint`` is last.
WIRE_FIELDS: Final = (
    "policy_id",
    "version",
    "scheduling",
    "memory",
    "admission",
    "attention_execution",
    "execution_determinism",
    "reusable_execution",
    "fingerprint",
)


#: ``check_portable_string``'s reason when the length check (row 1) fails: an empty string fails it first.
_LENGTH_REASON: Final = check_portable_string("")


def _rmp(field: str, reason: str) -> InvalidResolvedModelPlan:
    return InvalidResolvedModelPlan(field=field, reason=reason)


def _check_fields(
    policy_id: str,
    version: ContractVersion,
    memory: RuntimeMemoryPolicy,
    admission: AdmissionPolicy,
    attention_execution: AttentionExecutionPolicy,
    reusable_execution: ReusableExecutionPolicy | None,
) -> None:
    """Rows 1-15 of spec 04 §3.2, in order."""
    reason = check_portable_string(policy_id)
    if reason is not None:  # row 1 (length), then row 2 (bytes)
        if reason == _LENGTH_REASON:
            raise _rmp(FIELD_POLICY_ID, reason)  # rule: 04.3.2/row01_policy_id_length, 01.1.4/policy_id_length
        raise _rmp(  # rule: 04.3.2/row02_policy_id_portable_bytes, 01.1.4/policy_id_charset
            FIELD_POLICY_ID, reason
        )
    if version.major == 0:  # row 3
        raise _rmp(FIELD_VERSION, "major version must be non-zero")  # rule: 04.3.2/row03_version_major_nonzero
    if memory.capacity_bytes == 0:  # row 4
        raise _rmp(FIELD_MEMORY, "memory capacity must be non-zero")  # rule: 04.3.2/row04_capacity_nonzero
    if memory.reserve_bytes >= memory.capacity_bytes:  # row 5
        raise _rmp(  # rule: 04.3.2/row05_reserve_below_capacity
            FIELD_MEMORY, "memory reserve must be smaller than the capacity"
        )
    if memory.maximum_active_sequences == 0:  # row 6
        raise _rmp(  # rule: 04.3.2/row06_active_sequences_nonzero
            FIELD_MEMORY, "maximum active sequences must be non-zero"
        )
    if not memory.dynamic_storage_profile_order:  # row 7
        raise _rmp(  # rule: 04.3.2/row07_profile_order_nonempty
            FIELD_MEMORY, "dynamic storage profile order must not be empty"
        )
    seen: set[bytes] = set()
    for profile in memory.dynamic_storage_profile_order:  # row 8
        key = profile_key(profile)
        if key in seen:
            raise _rmp(  # rule: 04.3.2/row08_profile_order_no_duplicates
                FIELD_MEMORY, "dynamic storage profile order repeats a profile"
            )
        seen.add(key)
    if admission.maximum_queue_depth == 0:  # row 9
        raise _rmp(FIELD_ADMISSION, "maximum queue depth must be non-zero")  # rule: 04.3.2/row09_queue_depth_nonzero
    if admission.maximum_scheduled_tokens == 0:  # row 10
        raise _rmp(  # rule: 04.3.2/row10_scheduled_tokens_nonzero
            FIELD_ADMISSION, "maximum scheduled tokens must be non-zero"
        )
    if admission.cancellation_check_interval_steps == 0:  # row 11
        raise _rmp(  # rule: 04.3.2/row11_cancellation_interval_nonzero
            FIELD_ADMISSION, "cancellation check interval must be non-zero"
        )
    if not attention_execution.is_resolved():  # row 12
        raise _rmp(  # rule: 04.3.2/row12_attention_resolved
            FIELD_ATTENTION, "attention execution policy must be resolved"
        )
    if reusable_execution is None:
        return
    reusable_execution.validate()  # row 13 (InvalidExecutionPlan)
    for bucket in reusable_execution.buckets:  # row 14
        if (
            bucket.capacity.maximum_sequences > memory.maximum_active_sequences
            or bucket.capacity.maximum_tokens > admission.maximum_scheduled_tokens
        ):
            raise _rmp(  # rule: 04.3.2/row14_buckets_within_policy_ceilings
                FIELD_REUSABLE, "reusable execution bucket exceeds the policy sequence or token ceiling"
            )
    program_policy = reusable_execution.program_policy
    if program_policy is not None:  # row 15
        for spec in program_policy.programs:
            if (
                spec.shape.request_capacity_value() > memory.maximum_active_sequences
                or spec.shape.token_capacity > admission.maximum_scheduled_tokens
            ):
                raise _rmp(  # rule: 04.3.2/row15_program_shapes_within_policy_ceilings
                    FIELD_REUSABLE, "reusable execution program exceeds the policy sequence or token ceiling"
                )


#: The eight arguments of ``ResolvedRuntimePolicy.new``, as decoded from a wire.
PolicyFields = tuple[
    str,
    ContractVersion,
    SchedulingDiscipline,
    RuntimeMemoryPolicy,
    AdmissionPolicy,
    AttentionExecutionPolicy,
    ExecutionDeterminismRequirement,
    ReusableExecutionPolicy | None,
]


def decode_policy_fields(obj: WireObject) -> PolicyFields:
    """Decode the eight ``new`` arguments from a checked wire object (failures: ``Serialization``)."""
    context = obj.context
    policy_id = obj.string("policy_id")
    version = decode_with(
        lambda: ContractVersion.from_wire(obj.raw("version"), context=context),
        context=context,
        path=obj.at("version"),
    )
    scheduling = SchedulingDiscipline.from_wire(
        obj.raw("scheduling"),  # rule when 01.5/enum_variant_shape: 04.2/scheduling_discipline_spellings
        context=context,
        path=obj.at("scheduling"),
    )
    memory = decode_with(
        lambda: RuntimeMemoryPolicy.from_wire(obj.raw("memory"), context=context, path=obj.at("memory")),
        context=context,
        path=obj.at("memory"),
    )
    admission = decode_with(
        lambda: AdmissionPolicy.from_wire(obj.raw("admission"), context=context, path=obj.at("admission")),
        context=context,
        path=obj.at("admission"),
    )
    attention = AttentionExecutionPolicy.from_wire(
        obj.raw("attention_execution"),  # rule when 01.5/enum_variant_shape: 04.2/attention_policy_kebab_case
        context=context,
        path=obj.at("attention_execution"),
    )
    determinism = ExecutionDeterminismRequirement.from_wire(
        obj.raw("execution_determinism"),  # rule when 01.5/enum_variant_shape: 04.2/determinism_requirement_spellings
        context=context,
        path=obj.at("execution_determinism"),
    )
    reusable = obj.optional(
        "reusable_execution", lambda value, ctx, at: ReusableExecutionPolicy.from_wire(value, context=ctx, path=at)
    )
    return (policy_id, version, scheduling, memory, admission, attention, determinism, reusable)


def _check_types(*pairs: tuple[Any, type | tuple[type, ...]]) -> None:
    for index, (value, expected) in enumerate(pairs):
        if not isinstance(value, expected):
            raise TypeError(f"ResolvedRuntimePolicy.new argument {index} has the wrong type {type(value).__name__}")


def resolved_policy_material(
    policy_id: str,
    version: ContractVersion,
    scheduling: SchedulingDiscipline,
    memory: RuntimeMemoryPolicy,
    admission: AdmissionPolicy,
    attention_execution: AttentionExecutionPolicy,
    execution_determinism: ExecutionDeterminismRequirement,
    reusable_execution: ReusableExecutionPolicy | None,
) -> dict[str, JsonValue]:
    """The fingerprint material: the wire object without ``fingerprint`` (``reusable_execution`` as null)."""
    return {
        "policy_id": policy_id,
        "version": version.to_wire(),
        "scheduling": scheduling.to_wire(),
        "memory": memory.to_wire(),
        "admission": admission.to_wire(),
        "attention_execution": attention_execution.to_wire(),
        "execution_determinism": execution_determinism.to_wire(),
        "reusable_execution": None if reusable_execution is None else reusable_execution.to_wire(),
    }


_SLOTS: Final = (
    "_policy_id",
    "_version",
    "_scheduling",
    "_memory",
    "_admission",
    "_attention_execution",
    "_execution_determinism",
    "_reusable_execution",
    "_fingerprint",
)


class ResolvedRuntimePolicy(RuntimePolicy):
    """A runtime policy whose fields passed §3.2 and whose fingerprint matches §3.3.

    Immutable; fields are private (as in Rust) and read through the accessor
    methods, which share names with the ``RuntimePolicy`` members. Build with
    ``ResolvedRuntimePolicy.new(...)`` or ``from_wire``.
    """

    __slots__ = _SLOTS

    _policy_id: str
    _version: ContractVersion
    _scheduling: SchedulingDiscipline
    _memory: RuntimeMemoryPolicy
    _admission: AdmissionPolicy
    _attention_execution: AttentionExecutionPolicy
    _execution_determinism: ExecutionDeterminismRequirement
    _reusable_execution: ReusableExecutionPolicy | None
    _fingerprint: str

    def __init__(self, *, _token: object, values: tuple[Any, ...]) -> None:
        if _token is not _NEW_TOKEN:
            raise TypeError("build a ResolvedRuntimePolicy with ResolvedRuntimePolicy.new(...) or from_wire(...)")
        for name, value in zip(_SLOTS, values, strict=True):
            object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("ResolvedRuntimePolicy is immutable")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ResolvedRuntimePolicy):
            return NotImplemented
        return all(getattr(self, name) == getattr(other, name) for name in _SLOTS)

    def __hash__(self) -> int:
        return hash(self._fingerprint)

    def __repr__(self) -> str:
        return f"ResolvedRuntimePolicy(policy_id={self._policy_id!r}, fingerprint={self._fingerprint!r})"

    @classmethod
    def new(
        cls,
        policy_id: str,
        version: ContractVersion,
        scheduling: SchedulingDiscipline,
        memory: RuntimeMemoryPolicy,
        admission: AdmissionPolicy,
        attention_execution: AttentionExecutionPolicy,
        execution_determinism: ExecutionDeterminismRequirement,
        reusable_execution: ReusableExecutionPolicy | None = None,
    ) -> ResolvedRuntimePolicy:
        """Run §3.2 rows 1-15 (first failure wins), then fingerprint the fields."""
        _check_types(
            (policy_id, str), (version, ContractVersion), (scheduling, SchedulingDiscipline),
            (memory, RuntimeMemoryPolicy), (admission, AdmissionPolicy),
            (attention_execution, AttentionExecutionPolicy),
            (execution_determinism, ExecutionDeterminismRequirement),
            (reusable_execution, (ReusableExecutionPolicy, type(None))),
        )  # fmt: skip
        _check_fields(policy_id, version, memory, admission, attention_execution, reusable_execution)
        material = resolved_policy_material(
            policy_id, version, scheduling, memory, admission, attention_execution, execution_determinism,
            reusable_execution,
        )  # fmt: skip
        digest = fingerprint(material, context=FINGERPRINT_CONTEXT)
        values = (
            policy_id, version, scheduling, memory, admission, attention_execution, execution_determinism,
            reusable_execution, digest,
        )  # fmt: skip
        return cls(_token=_NEW_TOKEN, values=values)

    # ------------------------------------------------------------------ hashing and wire

    def policy_id(self) -> str:
        return self._policy_id

    def version(self) -> ContractVersion:
        return self._version

    def scheduling(self) -> SchedulingDiscipline:
        return self._scheduling

    def memory(self) -> RuntimeMemoryPolicy:
        return self._memory

    def admission(self) -> AdmissionPolicy:
        return self._admission

    def attention_execution(self) -> AttentionExecutionPolicy:
        return self._attention_execution

    def execution_determinism(self) -> ExecutionDeterminismRequirement:
        return self._execution_determinism

    def reusable_execution(self) -> ReusableExecutionPolicy | None:
        return self._reusable_execution

    def fingerprint_str(self) -> str:
        return self._fingerprint

    def material(self) -> dict[str, JsonValue]:
        """The §3.3 fingerprint material of the current field values."""
        return resolved_policy_material(
            self._policy_id, self._version, self._scheduling, self._memory, self._admission,
            self._attention_execution, self._execution_determinism, self._reusable_execution,
        )  # fmt: skip

    def to_wire(self) -> dict[str, JsonValue]:
        """All nine fields; ``reusable_execution`` is explicit ``null`` when absent."""
        out = self.material()
        out["fingerprint"] = self._fingerprint
        return out

    @classmethod
    def from_wire(cls, raw: Any, *, context: str = DECODE_CONTEXT, path: str = "$") -> ResolvedRuntimePolicy:
        """Shape check, then ``new`` (its errors become ``Serialization``), then the fingerprint comparison."""
        if isinstance(raw, dict) and "reusable_execution" not in raw:
            raw = {**raw, "reusable_execution": None}
        obj = WireObject(  # rule when 01.3.6/decode_unknown_field: 04.3.1/deny_unknown_top_level_fields
            raw, WIRE_FIELDS, type_name="ResolvedRuntimePolicy", context=context, path=path
        )
        fields = decode_policy_fields(obj)
        carried = obj.string("fingerprint")
        policy = decode_with(
            # rule when 01.5/validating_wire_constructor_errors_are_serialization: 04.3.1/new_error_is_serde_error
            lambda: cls.new(*fields),
            context=context,
            path=path,
        )
        if policy.fingerprint_str() != carried:
            raise Serialization(  # rule: 04.3.1/fingerprint_mismatch_rejected
                context,
                f"{path}: resolved runtime policy fingerprint mismatch: "
                f"expected {policy.fingerprint_str()}, actual {carried}",
            )
        return policy

    # ------------------------------------------------------------------ RuntimePolicy

    def validate(self) -> None:
        """Re-run §3.2 and compare the recomputed fingerprint (``runtime_policy.fingerprint``)."""
        _check_fields(
            self._policy_id, self._version, self._memory, self._admission, self._attention_execution,
            self._reusable_execution,
        )  # fmt: skip
        if fingerprint(self.material(), context=FINGERPRINT_CONTEXT) != self._fingerprint:
            raise _rmp(  # rule: 04.3.4/validate_reruns_rows_and_fingerprint
                FIELD_FINGERPRINT, "stored fingerprint does not match the policy fields"
            )

    def memory_capacity_bytes(self) -> int:
        return self._memory.capacity_bytes

    def memory_reserve_bytes(self) -> int:
        return self._memory.reserve_bytes

    def maximum_active_sequences(self) -> int:
        return self._memory.maximum_active_sequences

    def maximum_scheduled_tokens(self) -> int:
        return self._admission.maximum_scheduled_tokens

    def attention_execution_policy(self) -> AttentionExecutionPolicy:
        return self._attention_execution

    def execution_determinism_requirement(self) -> ExecutionDeterminismRequirement:
        return self._execution_determinism

    def dynamic_storage_profile_order(self) -> tuple[StorageProfile, ...]:
        return self._memory.dynamic_storage_profile_order

    def reusable_execution_policy(self) -> ReusableExecutionPolicy | None:
        return self._reusable_execution

    def checkpoint_capacity_policy(self) -> CheckpointCapacityPolicy | None:
        return self._memory.checkpoint_capacity


_NEW_TOKEN: Final = object()
