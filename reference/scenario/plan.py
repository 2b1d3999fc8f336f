"""Building and revalidating a scenario's execution plan (05 §3, §9).

``scenario_trusted_inputs(doc)``: decode the scenario, then, in this order, the family,
the catalog, the policy, the weights selection (which may augment the catalog) and
the node resolutions (against the augmented catalog, their weight bindings against
the selected execution schema); the completion retention is
the scenario's list. ``build_scenario_plan`` builds from them;
``revalidate_scenario_wire`` decodes the wire **first** (so decode-stage rejections
never depend on the scenario), then builds the trusted inputs and revalidates.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from reference.canonical import JsonValue
from reference.catalog.catalog import CapabilityCatalog
from reference.ids import ProgramValueId
from reference.model.prepared import PreparedModelFamily
from reference.plan.build import build_execution_plan
from reference.plan.execution_plan import ExecutionPlan
from reference.plan.request import CompletionRetentionSpec
from reference.plan.revalidate import revalidate_wire
from reference.policy.runtime_policy import RuntimePolicy
from reference.policy.trust import PlannerPolicyView, policy_for_resolution
from reference.resolution.node_resolution import PlanNodeResolution
from reference.scenario.document import SCENARIO_CONTEXT, ScenarioDocument
from reference.scenario.memo import ScenarioMemo
from reference.scenario.resolve import scenario_resolutions
from reference.scenario.sections import SCENARIO_CATALOGS, SCENARIO_FAMILIES, scenario_policy, scenario_weights
from reference.weights.trusted import TrustedExecutionWeightPlan

__all__ = ["ScenarioTrustedInputs", "build_scenario_plan", "revalidate_scenario_wire", "scenario_trusted_inputs"]


@dataclass(frozen=True, slots=True)
class ScenarioTrustedInputs:
    """Everything a plan build or revalidation of the scenario reads (the catalog as augmented)."""

    family: PreparedModelFamily
    catalog: CapabilityCatalog
    policy: RuntimePolicy
    resolutions: tuple[PlanNodeResolution, ...]
    completion_retention: CompletionRetentionSpec
    execution_weights: TrustedExecutionWeightPlan

    def build(self) -> ExecutionPlan:
        """``build_execution_plan`` with the retention and the trusted weights."""
        return build_execution_plan(
            self.family,
            self.catalog,
            self.policy,
            self.resolutions,
            completion_retention=self.completion_retention,
            execution_weights=self.execution_weights,
        )


def _document(scenario: Mapping[str, Any] | ScenarioDocument) -> ScenarioDocument:
    return scenario if isinstance(scenario, ScenarioDocument) else ScenarioDocument.from_wire(scenario)


def scenario_trusted_inputs(scenario: Mapping[str, Any] | ScenarioDocument) -> ScenarioTrustedInputs:
    """Scenario -> family -> catalog -> policy -> weights selection -> resolutions (first failure wins).

    Memoized per process by the scenario's canonical bytes (``reference.scenario.memo``).
    """
    return _TRUSTED_INPUTS(scenario)


def _trusted_inputs(scenario: Mapping[str, Any] | ScenarioDocument) -> ScenarioTrustedInputs:
    doc = _document(scenario)
    family = SCENARIO_FAMILIES(doc)
    catalog = SCENARIO_CATALOGS(doc)
    policy = scenario_policy(doc)
    catalog, weights = scenario_weights(doc, family, catalog)
    resolutions = _resolutions(doc, family, catalog, policy, weights)
    retention = CompletionRetentionSpec(
        frozenset(ProgramValueId.from_wire(v, context=SCENARIO_CONTEXT) for v in doc.completion_retention)
    )
    return ScenarioTrustedInputs(family, catalog, policy, resolutions, retention, weights)


@dataclass(frozen=True, slots=True, eq=False)
class _ResolutionInputs:
    doc: ScenarioDocument
    family: PreparedModelFamily
    catalog: CapabilityCatalog
    policy: RuntimePolicy
    weights: TrustedExecutionWeightPlan
    view: PlannerPolicyView


def _resolutions(
    doc: ScenarioDocument,
    family: PreparedModelFamily,
    catalog: CapabilityCatalog,
    policy: RuntimePolicy,
    weights: TrustedExecutionWeightPlan,
) -> tuple[PlanNodeResolution, ...]:
    """``scenario_resolutions``, memoized for a policy ``policy_for_resolution`` accepts by the scenario without
    its policy plus the two policy values resolution reads (04 §9: the storage profile order and the determinism
    requirement); a policy it refuses is resolved directly, so its refusal keeps its place."""
    try:
        view = policy_for_resolution(policy)
    except Exception:  # the first node's resolve raises it again, after the checks that precede it
        return scenario_resolutions(doc, family, catalog, policy, execution_weights=weights)
    return _RESOLUTIONS(_ResolutionInputs(doc, family, catalog, policy, weights, view))


def _resolution_section(inputs: _ResolutionInputs) -> JsonValue:
    section = inputs.doc.to_wire()
    for unread in ("policy", "name", "completion_retention"):
        del section[unread]
    section["resolution_policy"] = {
        "dynamic_storage_profile_order": [profile.to_wire() for profile in inputs.view.dynamic_storage_profile_order],
        "execution_determinism": inputs.view.execution_determinism.to_wire(),
    }
    return section


_TRUSTED_INPUTS: Final = ScenarioMemo(_trusted_inputs)
#: The node resolutions: scenarios that differ only in policy values resolution does not read share them.
_RESOLUTIONS: Final = ScenarioMemo(
    lambda inputs: scenario_resolutions(
        inputs.doc, inputs.family, inputs.catalog, inputs.policy, execution_weights=inputs.weights
    ),
    key=_resolution_section,
)


def build_scenario_plan(scenario: Mapping[str, Any] | ScenarioDocument) -> ExecutionPlan:
    """The scenario's execution plan (its wire is ``plan.to_json()``); memoized like the trusted inputs."""
    return _PLANS(scenario)


_PLANS: Final = ScenarioMemo(lambda scenario: scenario_trusted_inputs(scenario).build())


def revalidate_scenario_wire(scenario: Mapping[str, Any] | ScenarioDocument, wire: bytes) -> ExecutionPlan:
    """Decode ``wire`` untrusted, then revalidate it against the scenario's trusted inputs; the rebuilt plan.

    The outcome of that order (``revalidate_wire``): a decode rejection comes before any scenario
    or build error, and the schema check before the rebuild's errors.
    """
    return revalidate_wire(wire, lambda: build_scenario_plan(scenario))
