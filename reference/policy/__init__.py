"""Runtime policies (spec 04 §1-§4): the ``RuntimePolicy`` protocol, its component types,
``ResolvedRuntimePolicy``, the payload policy fingerprint, planner trust checks and
declarative policy documents."""

from reference.policy.admission import AdmissionPolicy
from reference.policy.enums import (
    AdmissionFitPolicy,
    AttentionExecutionPolicy,
    ExecutionDeterminismRequirement,
    SchedulingDiscipline,
)
from reference.policy.memory import CheckpointCapacityPolicy, RuntimeMemoryPolicy
from reference.policy.resolved import ResolvedRuntimePolicy
from reference.policy.reusable import (
    ReusableExecutionBucketSpec,
    ReusableExecutionCapacity,
    ReusableExecutionClassId,
    ReusableExecutionPolicy,
    ReusableExecutionProgramPolicy,
    ReusableExecutionProgramSpec,
)
from reference.policy.runtime_policy import RuntimePolicy, canonical_runtime_policy_fingerprint
from reference.policy.trust import (
    PlannerPolicyView,
    check_capacity_gate,
    policy_for_build,
    policy_for_resolution,
    read_policy,
)

__all__ = [
    "AdmissionFitPolicy",
    "AdmissionPolicy",
    "AttentionExecutionPolicy",
    "CheckpointCapacityPolicy",
    "ExecutionDeterminismRequirement",
    "PlannerPolicyView",
    "ResolvedRuntimePolicy",
    "ReusableExecutionBucketSpec",
    "ReusableExecutionCapacity",
    "ReusableExecutionClassId",
    "ReusableExecutionPolicy",
    "ReusableExecutionProgramPolicy",
    "ReusableExecutionProgramSpec",
    "RuntimeMemoryPolicy",
    "RuntimePolicy",
    "SchedulingDiscipline",
    "canonical_runtime_policy_fingerprint",
    "check_capacity_gate",
    "policy_for_build",
    "policy_for_resolution",
    "read_policy",
]
