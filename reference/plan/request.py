"""``PlanBuildRequest`` and ``CompletionRetentionSpec`` (spec 05 §2).

``new`` rejects an empty resolution list, runs ``policy.validate()`` and starts with no
retained completion values and the family's identity execution weights;
``with_completion_retention`` requires every retained value to be some node's output;
``with_execution_weights`` validates the trusted plan against the catalog.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace

from reference.catalog.catalog import CapabilityCatalog
from reference.errors import invalid_plan
from reference.ids import ProgramValueId
from reference.model.prepared import PreparedModelFamily
from reference.policy.runtime_policy import RuntimePolicy
from reference.resolution.node_resolution import PlanNodeResolution
from reference.weights.plan import ExecutionWeightPlan
from reference.weights.trusted import TrustedExecutionWeightPlan

__all__ = ["CompletionRetentionSpec", "PlanBuildRequest"]


@dataclass(frozen=True, slots=True)
class CompletionRetentionSpec:
    """Program values whose completion bytes must survive the step (no wire form); default empty."""

    values: frozenset[ProgramValueId] = frozenset()

    @classmethod
    def of(cls, values: Iterable[ProgramValueId | str]) -> CompletionRetentionSpec:
        return cls(frozenset(v if isinstance(v, ProgramValueId) else ProgramValueId(v) for v in values))

    def sorted_values(self) -> tuple[ProgramValueId, ...]:
        return tuple(sorted(self.values))


@dataclass(frozen=True, slots=True)
class PlanBuildRequest:
    """Everything ``build_plan`` (``ExecutionPlan::build``) reads; made by ``new``, then the ``with_*`` refinements."""

    family: PreparedModelFamily
    capabilities: CapabilityCatalog
    policy: RuntimePolicy
    node_resolutions: tuple[PlanNodeResolution, ...]
    completion_retention: CompletionRetentionSpec = field(default_factory=CompletionRetentionSpec)
    execution_weights: TrustedExecutionWeightPlan | None = None

    @classmethod
    def new(
        cls,
        family: PreparedModelFamily,
        capabilities: CapabilityCatalog,
        policy: RuntimePolicy,
        node_resolutions: Sequence[PlanNodeResolution],
    ) -> PlanBuildRequest:
        """Non-empty resolutions; ``policy.validate()``; identity execution weights."""
        resolutions = tuple(node_resolutions)
        if not resolutions:
            raise invalid_plan(  # rule: 05.2/new_rejects_empty_resolutions, 05.2/new_order_empty_before_validate
                "execution plan build request has no node resolutions"
            )
        policy.validate()
        return cls(
            family,
            capabilities,
            policy,
            resolutions,
            CompletionRetentionSpec(),
            TrustedExecutionWeightPlan.identity(family),
        )

    def with_completion_retention(self, spec: CompletionRetentionSpec) -> PlanBuildRequest:
        """Every retained value must be an output of some program node."""
        outputs = self.family.program.node_outputs()
        missing = sorted(v for v in spec.values if v not in outputs)
        if missing:
            raise invalid_plan(  # rule: 05.2/retention_values_are_node_outputs
                f"retained completion value `{missing[0]}` is not a program node output"
            )
        return replace(self, completion_retention=spec)

    def with_execution_weights(self, trusted: TrustedExecutionWeightPlan) -> PlanBuildRequest:
        """The trusted plan must validate against the family and the catalog (05 §10.6)."""
        trusted.validate_against_catalog(self.family, self.capabilities)
        return replace(self, execution_weights=trusted)

    def trusted_weights(self) -> TrustedExecutionWeightPlan:
        if self.execution_weights is None:
            raise invalid_plan(  # rule: 05.2/request_carries_weights
                "execution plan build request has no execution weights"
            )
        return self.execution_weights

    def execution_weight_plan(self) -> ExecutionWeightPlan:
        return self.trusted_weights().plan()
