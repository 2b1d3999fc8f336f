"""Node resolutions of a scenario: every node resolved in listed order (04 §9) by its planning-registry
instance (one instance in version 1; version 2 names one per resolution)."""

from __future__ import annotations

from typing import Any, Final

from reference.catalog.catalog import CapabilityCatalog
from reference.catalog.registry import OperationPlanningHandle
from reference.documents.registry import RegistryDocument
from reference.ids import CapabilityId, NodeId, ProviderId
from reference.model.prepared import PreparedModelFamily
from reference.policy.runtime_policy import RuntimePolicy
from reference.resolution.binding import ResolvedValueBinding
from reference.resolution.node_resolution import PlanNodeResolution
from reference.scenario.document import SCENARIO_CONTEXT, ScenarioDocument
from reference.wire import WireObject, read_str

__all__ = ["RESOLUTION_FIELDS", "scenario_resolutions"]

RESOLUTION_FIELDS: Final = ("node_id", "values", "required_capabilities", "preferred_provider")


def scenario_resolutions(
    scenario: ScenarioDocument,
    family: PreparedModelFamily,
    catalog: CapabilityCatalog,
    policy: RuntimePolicy,
) -> tuple[PlanNodeResolution, ...]:
    """Build the registry the scenario describes against ``catalog`` and resolve every listed node with it.

    Resolutions of one registry instance carry one registry authority (05 §3 step 4); each
    further instance (version 2) is another build of the same document, so another authority.
    Shape errors are ``Serialization``; resolution errors keep their contract kinds and the
    first failing node wins.
    """
    document = RegistryDocument.from_wire(scenario.registry, context=SCENARIO_CONTEXT, path="$.registry")
    registry, _ = document.build(catalog)
    handles: dict[int, OperationPlanningHandle] = {0: registry.planning()}
    resolved = []
    for index, raw in enumerate(scenario.resolutions):
        instance = scenario.registry_instance(index)
        if instance not in handles:
            handles[instance] = document.build(catalog)[0].planning()
        handle = handles[instance]
        path = f"$.resolutions[{index}]"
        obj = WireObject(raw, RESOLUTION_FIELDS, type_name="ScenarioResolution", context=SCENARIO_CONTEXT, path=path)
        values = [
            ResolvedValueBinding.from_wire(item, context=SCENARIO_CONTEXT, path=f"{path}.values[{i}]")
            for i, item in enumerate(obj.array("values"))
        ]
        capabilities = [
            _identity(CapabilityId, item, f"{path}.required_capabilities[{i}]")
            for i, item in enumerate(obj.array("required_capabilities"))
        ]
        preferred = obj.optional("preferred_provider", lambda value, _ctx, at: _identity(ProviderId, value, at))
        resolved.append(
            PlanNodeResolution.resolve(
                family,
                catalog,
                policy,
                handle,
                obj.identity("node_id", NodeId),
                values,
                capabilities,
                preferred,
            )
        )
    return tuple(resolved)


def _identity(cls: Any, raw: Any, path: str) -> Any:
    return cls.from_wire(read_str(raw, context=SCENARIO_CONTEXT, path=path), context=SCENARIO_CONTEXT)
