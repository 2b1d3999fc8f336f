"""Custom ``RuntimePolicy`` implementations (spec 04 §4).

* ``AdversarialRuntimePolicy``: seed 000's policy. Its serde form is only
  ``{maximum_active_sequences, maximum_scheduled_tokens,
  dynamic_storage_profile_order}``; every other member returns a constant
  (version 1.0, capacity ``1 << 20``, reserve 128, portable, bitwise with
  replay, no reusable policy) and ``validate`` always passes.
* ``DeclaredRuntimePolicy``: a policy described entirely by data: what it
  serializes to, what each member reports and what ``validate`` raises. The
  two may disagree, which is the point: the planner must rely only on the
  documented trust table.

Neither validates its values beyond Rust widths: hostility is their purpose.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Final

from reference.canonical import JsonValue, canonical_bytes
from reference.errors import VNextError
from reference.ints import check_uint
from reference.policy.enums import AttentionExecutionPolicy, ExecutionDeterminismRequirement
from reference.policy.memory import CheckpointCapacityPolicy
from reference.policy.reusable import ReusableExecutionPolicy
from reference.policy.runtime_policy import RuntimePolicy
from reference.policy.storage import StorageProfile, decode_storage_profile
from reference.versions import ContractVersion
from reference.wire import WireObject, read_list

__all__ = [
    "ADVERSARIAL_CAPACITY_BYTES",
    "ADVERSARIAL_RESERVE_BYTES",
    "AdversarialRuntimePolicy",
    "DeclaredRuntimePolicy",
    "ReportedPolicyValues",
]

ADVERSARIAL_CAPACITY_BYTES: Final = 1 << 20
ADVERSARIAL_RESERVE_BYTES: Final = 128
_ADVERSARIAL_FIELDS: Final = ("maximum_active_sequences", "maximum_scheduled_tokens", "dynamic_storage_profile_order")


class AdversarialRuntimePolicy(RuntimePolicy):
    """Seed 000's custom policy; only its three serde fields are hash material."""

    __slots__ = ("_maximum_active_sequences", "_maximum_scheduled_tokens", "_order")
    _maximum_active_sequences: int
    _maximum_scheduled_tokens: int
    _order: tuple[StorageProfile, ...]

    def __init__(
        self,
        maximum_active_sequences: int,
        maximum_scheduled_tokens: int,
        dynamic_storage_profile_order: Iterable[StorageProfile],
    ) -> None:
        set_ = object.__setattr__
        set_(self, "_maximum_active_sequences", check_uint(maximum_active_sequences, 32, "Adversarial.sequences"))
        set_(self, "_maximum_scheduled_tokens", check_uint(maximum_scheduled_tokens, 64, "Adversarial.tokens"))
        set_(self, "_order", tuple(dynamic_storage_profile_order))

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("AdversarialRuntimePolicy is immutable")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, AdversarialRuntimePolicy):
            return NotImplemented
        return self.to_wire() == other.to_wire()

    def __hash__(self) -> int:
        return hash(canonical_bytes(self.to_wire()))

    def __repr__(self) -> str:
        return f"AdversarialRuntimePolicy({self.to_wire()!r})"

    def version(self) -> ContractVersion:
        return ContractVersion(1, 0)

    def memory_capacity_bytes(self) -> int:
        return ADVERSARIAL_CAPACITY_BYTES

    def memory_reserve_bytes(self) -> int:
        return ADVERSARIAL_RESERVE_BYTES

    def maximum_active_sequences(self) -> int:
        return self._maximum_active_sequences

    def maximum_scheduled_tokens(self) -> int:
        return self._maximum_scheduled_tokens

    def attention_execution_policy(self) -> AttentionExecutionPolicy:
        return AttentionExecutionPolicy.PORTABLE

    def execution_determinism_requirement(self) -> ExecutionDeterminismRequirement:
        return ExecutionDeterminismRequirement.BITWISE_SAME_RUNTIME_WITH_REPLAY

    def dynamic_storage_profile_order(self) -> tuple[StorageProfile, ...]:
        return self._order

    def reusable_execution_policy(self) -> ReusableExecutionPolicy | None:
        return None

    def validate(self) -> None:
        """Always passes."""

    def to_wire(self) -> dict[str, JsonValue]:
        return {
            "maximum_active_sequences": self._maximum_active_sequences,
            "maximum_scheduled_tokens": self._maximum_scheduled_tokens,
            "dynamic_storage_profile_order": [profile.to_wire() for profile in self._order],
        }

    @classmethod
    def from_wire(
        cls, raw: Any, *, context: str = "decode adversarial runtime policy", path: str = "$"
    ) -> AdversarialRuntimePolicy:
        """Derived Deserialize: the three fields are required, unknown keys are ignored."""
        obj = WireObject(
            raw, _ADVERSARIAL_FIELDS, type_name="AdversarialRuntimePolicy", context=context, path=path, lenient=True
        )
        order_path = obj.at("dynamic_storage_profile_order")
        items = read_list(obj.raw("dynamic_storage_profile_order"), context=context, path=order_path)
        profiles = [
            decode_storage_profile(item, context=context, path=f"{order_path}[{i}]") for i, item in enumerate(items)
        ]
        return cls(obj.u32("maximum_active_sequences"), obj.u64("maximum_scheduled_tokens"), profiles)


@dataclass(frozen=True, slots=True)
class ReportedPolicyValues:
    """What each ``RuntimePolicy`` member of a declared policy returns."""

    version: ContractVersion
    memory_capacity_bytes: int
    memory_reserve_bytes: int
    maximum_active_sequences: int
    maximum_scheduled_tokens: int
    attention_execution_policy: AttentionExecutionPolicy
    execution_determinism_requirement: ExecutionDeterminismRequirement
    dynamic_storage_profile_order: tuple[StorageProfile, ...]
    reusable_execution_policy: ReusableExecutionPolicy | None = None
    checkpoint_capacity_policy: CheckpointCapacityPolicy | None = None

    def __post_init__(self) -> None:
        check_uint(self.memory_capacity_bytes, 64, "ReportedPolicyValues.memory_capacity_bytes")
        check_uint(self.memory_reserve_bytes, 64, "ReportedPolicyValues.memory_reserve_bytes")
        check_uint(self.maximum_active_sequences, 32, "ReportedPolicyValues.maximum_active_sequences")
        check_uint(self.maximum_scheduled_tokens, 64, "ReportedPolicyValues.maximum_scheduled_tokens")
        object.__setattr__(self, "dynamic_storage_profile_order", tuple(self.dynamic_storage_profile_order))

    @classmethod
    def of(cls, policy: RuntimePolicy) -> ReportedPolicyValues:
        """Read every member of ``policy`` once."""
        return cls(
            policy.version(),
            policy.memory_capacity_bytes(),
            policy.memory_reserve_bytes(),
            policy.maximum_active_sequences(),
            policy.maximum_scheduled_tokens(),
            policy.attention_execution_policy(),
            policy.execution_determinism_requirement(),
            tuple(policy.dynamic_storage_profile_order()),
            policy.reusable_execution_policy(),
            policy.checkpoint_capacity_policy(),
        )


class DeclaredRuntimePolicy(RuntimePolicy):
    """A custom policy given as data: ``serialized`` (its serde form), ``reported`` member values,
    and ``validate_error`` (raised by ``validate`` when set)."""

    __slots__ = ("_reported", "_serialized", "_validate_error")
    _reported: ReportedPolicyValues
    _serialized: JsonValue
    _validate_error: VNextError | None

    def __init__(
        self,
        serialized: JsonValue,
        reported: ReportedPolicyValues,
        validate_error: VNextError | None = None,
    ) -> None:
        canonical_bytes(serialized, context="declared runtime policy serde form")  # must be plain JSON
        if validate_error is not None and not isinstance(validate_error, VNextError):
            raise TypeError("validate_error must be a VNextError or None")
        object.__setattr__(self, "_serialized", serialized)
        object.__setattr__(self, "_reported", reported)
        object.__setattr__(self, "_validate_error", validate_error)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("DeclaredRuntimePolicy is immutable")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, DeclaredRuntimePolicy):
            return NotImplemented
        return (self._serialized, self._reported, self._validate_error) == (
            other._serialized,
            other._reported,
            other._validate_error,
        )

    def __hash__(self) -> int:
        return hash((canonical_bytes(self._serialized), self._reported))

    @property
    def reported(self) -> ReportedPolicyValues:
        return self._reported

    @property
    def validate_error(self) -> VNextError | None:
        return self._validate_error

    def version(self) -> ContractVersion:
        return self._reported.version

    def memory_capacity_bytes(self) -> int:
        return self._reported.memory_capacity_bytes

    def memory_reserve_bytes(self) -> int:
        return self._reported.memory_reserve_bytes

    def maximum_active_sequences(self) -> int:
        return self._reported.maximum_active_sequences

    def maximum_scheduled_tokens(self) -> int:
        return self._reported.maximum_scheduled_tokens

    def attention_execution_policy(self) -> AttentionExecutionPolicy:
        return self._reported.attention_execution_policy

    def execution_determinism_requirement(self) -> ExecutionDeterminismRequirement:
        return self._reported.execution_determinism_requirement

    def dynamic_storage_profile_order(self) -> tuple[StorageProfile, ...]:
        return self._reported.dynamic_storage_profile_order

    def reusable_execution_policy(self) -> ReusableExecutionPolicy | None:
        return self._reported.reusable_execution_policy

    def checkpoint_capacity_policy(self) -> CheckpointCapacityPolicy | None:
        return self._reported.checkpoint_capacity_policy

    def validate(self) -> None:
        if self._validate_error is not None:
            raise self._validate_error  # rule: 04.9/step01_policy_validate_first, 05.3/step01_policy_validate

    def to_wire(self) -> JsonValue:
        return self._serialized
