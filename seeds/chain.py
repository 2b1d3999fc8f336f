"""A generated linear-chain family for scale tests and the build benchmark.

``ChainFamily(n)`` is the seed ``TestFamily`` with ``n`` ``operation.main`` nodes in one
block: node ``k`` reads the previous value, the shared weight and the shared state and
writes ``value.chain.<k>`` (the last one is the program output). ``chain_case(n)``
prepares it and resolves every node against the seed catalog and planning registry.
"""

from __future__ import annotations

from dataclasses import dataclass

from reference.catalog.catalog import CapabilityCatalog
from reference.catalog.storage import ResolvedValueRole
from reference.catalog.tensor_contract import TensorAccess
from reference.ids import ExternalModelMetadataId, ModelFamilyId, NodeId, OperationId, ProgramValueId, WeightId
from reference.model.element import ElementType
from reference.model.numerical import FamilyNumericalProfiles, NumericalExecutionProfile
from reference.model.prepared import PreparedModelFamily
from reference.model.program import ModelProgram, ProgramBlock, ProgramNode, ProgramNodeWorkSpec, WeightReference
from reference.model.registration import TypedFamilyRegistration
from reference.model.tensor import ContiguousLayout, ProgramTensorSpec
from reference.policy.runtime_policy import RuntimePolicy
from reference.resolution.binding import ResolvedValueBinding
from reference.resolution.node_resolution import PlanNodeResolution
from reference.resolution.usage import BufferUsage
from reference.versions import ContractVersion
from seeds.catalogs import catalog
from seeds.families import TestFamily, fixture_byte_state, fixture_f32_profiles
from seeds.policies import policy as seed_policy
from seeds.resolution import _weight_binding, binding, planning_registry

__all__ = ["ChainCase", "ChainFamily", "chain_case", "chain_values"]


def _value(index: int, count: int) -> str:
    return "value.input" if index < 0 else ("value.output" if index == count - 1 else f"value.chain.{index:05d}")


class ChainFamily(TestFamily):
    """``family.chain``: ``node_count`` sequential ``operation.main`` nodes."""

    def __init__(self, node_count: int) -> None:
        if node_count < 1:
            raise ValueError("a chain needs at least one node")
        self.node_count = node_count

    def family_id(self) -> ModelFamilyId:
        return ModelFamilyId("family.chain")

    def external_metadata_ids(self) -> frozenset[ExternalModelMetadataId]:
        return frozenset({ExternalModelMetadataId("metadata.chain")})

    def validated_external_metadata_id(self, raw: object, config: object) -> ExternalModelMetadataId:
        return ExternalModelMetadataId("metadata.chain")

    def numerical_profiles(self, config: object) -> FamilyNumericalProfiles:
        outputs = [_value(k, self.node_count) for k in range(self.node_count)]
        return fixture_f32_profiles(self.family_id(), outputs, ["operation.main"], [fixture_byte_state(4)])

    def semantic_program(self, config: object, profile: NumericalExecutionProfile) -> ModelProgram:
        del profile
        n = self.node_count
        nodes = tuple(
            ProgramNode(
                NodeId(f"node.{k:05d}"),
                OperationId("operation.main"),
                ContractVersion(1, 0),
                ProgramNodeWorkSpec.fixed(),
                (ProgramValueId(_value(k - 1, n)), ProgramValueId("value.weight"), ProgramValueId("value.state")),
                (ProgramValueId(_value(k, n)),),
                {},
            )
            for k in range(n)
        )
        tensor = ProgramTensorSpec((4,), ElementType.F32, ContiguousLayout())
        return ModelProgram(
            self.family_id(),
            (ProgramValueId("value.input"),),
            (ProgramBlock("block.chain", nodes),),
            (fixture_byte_state(4),),
            (WeightReference(WeightId("weight.matrix"), ProgramValueId("value.weight"), tensor),),
            (ProgramValueId("value.output"),),
        )


def chain_values(index: int, count: int, family: PreparedModelFamily) -> list[ResolvedValueBinding]:
    """Node ``index``'s bindings: previous value, the weight, the state, its output."""

    inp, out = ResolvedValueRole.INPUT, ResolvedValueRole.OUTPUT
    del family
    previous, current = _value(index - 1, count), _value(index, count)
    return [
        binding(previous, inp, 0, ElementType.F32, TensorAccess.READ, BufferUsage.ACTIVATIONS, f"resource.{previous}"),
        _weight_binding("resource.chain.weight"),
        binding("value.state", inp, 2, ElementType.U8, TensorAccess.READ, BufferUsage.STATE, "resource.chain.state"),
        binding(current, out, 0, ElementType.F32, TensorAccess.WRITE, BufferUsage.ACTIVATIONS, f"resource.{current}"),
    ]


@dataclass
class ChainCase:
    family: PreparedModelFamily
    catalog: CapabilityCatalog
    policy: RuntimePolicy
    resolutions: list[PlanNodeResolution]


def chain_case(node_count: int, policy: RuntimePolicy | None = None) -> ChainCase:
    """Prepare ``ChainFamily(node_count)`` and resolve every node (seed catalog, Correct estimator)."""

    family = TypedFamilyRegistration(ChainFamily(node_count)).prepare_with_profile({"width": 4}, "fixture.f32")
    cat = catalog()
    pol = seed_policy(1 << 20) if policy is None else policy
    registry = planning_registry(cat)
    handle = registry.planning()
    resolutions = [
        PlanNodeResolution.resolve(
            family, cat, pol, handle, NodeId(f"node.{k:05d}"), chain_values(k, node_count, family)
        )
        for k in range(node_count)
    ]
    return ChainCase(family, cat, pol, resolutions)
