"""The ``RuntimePolicy`` protocol (spec 04 §1) and the payload policy fingerprint (§4).

Any policy the planner accepts implements these members; ``to_wire()`` is its
serde form. ``checkpoint_capacity_policy`` is a provided member returning
``None`` unless overridden (decision D-04-1). Implementations subclass
``RuntimePolicy`` explicitly to inherit that default.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, Protocol, runtime_checkable

from reference.canonical import JsonValue, fingerprint
from reference.policy.enums import AttentionExecutionPolicy, ExecutionDeterminismRequirement
from reference.policy.memory import CheckpointCapacityPolicy
from reference.policy.reusable import ReusableExecutionPolicy
from reference.policy.storage import StorageProfile
from reference.versions import ContractVersion

__all__ = ["POLICY_FINGERPRINT_CONTEXT", "RuntimePolicy", "canonical_runtime_policy_fingerprint"]

POLICY_FINGERPRINT_CONTEXT: Final = "fingerprint validated runtime policy"


@runtime_checkable
class RuntimePolicy(Protocol):
    """What planning reads from a runtime policy. Values are trusted only as spec 04 §4.1 says."""

    def version(self) -> ContractVersion:
        """Copied into the plan payload as ``policy_version``."""
        ...

    def memory_capacity_bytes(self) -> int:
        """u64 memory ceiling before the reserve."""
        ...

    def memory_reserve_bytes(self) -> int:
        """u64 reserve subtracted from the capacity."""
        ...

    def maximum_active_sequences(self) -> int:
        """u32 protocol ceiling; must be non-zero."""
        ...

    def maximum_scheduled_tokens(self) -> int:
        """u64 per-step token ceiling; must be non-zero."""
        ...

    def attention_execution_policy(self) -> AttentionExecutionPolicy: ...

    def execution_determinism_requirement(self) -> ExecutionDeterminismRequirement: ...

    def dynamic_storage_profile_order(self) -> Sequence[StorageProfile]:
        """Ordered allowlist; earlier is preferred."""
        ...

    def reusable_execution_policy(self) -> ReusableExecutionPolicy | None: ...

    def checkpoint_capacity_policy(self) -> CheckpointCapacityPolicy | None:
        """Provided member: no checkpoint capacity unless an implementation says otherwise."""
        return None

    def validate(self) -> None:
        """Implementation-defined self check; raises a ``VNextError``."""
        ...

    def to_wire(self) -> JsonValue:
        """The policy's serde form (the payload policy fingerprint material)."""
        ...


def canonical_runtime_policy_fingerprint(policy: RuntimePolicy) -> str:
    """``policy.validate()`` then sha256 of the canonical JSON of the whole serde form.

    For a ``ResolvedRuntimePolicy`` that form includes its own ``fingerprint``
    field, so the result differs from ``fingerprint_str()`` (spec 01 §3.5).
    """
    policy.validate()
    return fingerprint(policy.to_wire(), context=POLICY_FINGERPRINT_CONTEXT)
