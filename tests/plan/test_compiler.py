"""``ProgramPlanCompiler`` (spec 05 §7.13): weight arenas and the alignment fixed point."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest

from reference.ids import NodeId, ProgramValueId
from reference.model.element import ElementType
from reference.model.registration import TypedFamilyRegistration
from reference.model.tensor import ProgramTensorSpec
from reference.plan.compiler import ProgramPlanCompileOptions, ProgramPlanCompiler
from reference.plan.memory import AllocationLifetime, BufferUsage, compiler_resource_id
from reference.plan.request import PlanBuildRequest
from reference.plan.revalidate import from_json_validated, validate_against
from reference.weights import WeightMaterializationFidelity, WeightMaterializerRegistry
from seeds.catalogs import catalog
from seeds.families import FIXTURE_PROFILE, FixedSchemaFamily
from seeds.policies import policy
from seeds.resolution import planning_registry
from seeds.weights import (
    INT4_FORMAT,
    MIXED_GPTQ_FORMAT,
    PADDED_DENSE_ID,
    QUANTIZED_FORMAT,
    PaddedDenseMaterializer,
    block_quantized_schema,
    container_schema,
)
from seeds.weights import descriptor as seed_descriptor
from tests.plan.helpers import family, raises_kind, rehash_plan_json

INPUTS = {ProgramValueId("value.input"): ProgramTensorSpec((4,), ElementType.F32)}
OPTIONS = ProgramPlanCompileOptions(INPUTS)


def _compile(behavior: str, options: ProgramPlanCompileOptions | None = None) -> tuple[object, int]:
    cat = catalog()
    registry = planning_registry(cat, 64, 32, behavior)
    compilation = ProgramPlanCompiler.compile(
        family(), cat, policy(4096), registry.planning(), options or ProgramPlanCompileOptions(INPUTS)
    )
    return compilation, registry.estimator_calls


@pytest.mark.parametrize(("behavior", "alignment", "min_calls"), [("arena_alignment64", 64, 3), ("correct", 16, 2)])
def test_arena_alignment_fixed_point(behavior: str, alignment: int, min_calls: int) -> None:
    compilation, calls = _compile(behavior)
    plan = compilation.plan  # type: ignore[attr-defined]
    node = plan.nodes[0]
    assert node.provider_resources.value_alignment_bytes == alignment
    assert calls >= min_calls
    fingerprint = family().fingerprint()
    arena = compiler_resource_id("weight-arena", fingerprint, '"f32"')
    weight = next(b for b in node.values if b.usage is BufferUsage.WEIGHTS)
    assert [c.resource_id for c in weight.storage.components] == [arena]
    assert all(c.offset_bytes % alignment == 0 for c in weight.storage.components)
    (row,) = [a for a in plan.memory.static_allocations if a.resource_id == arena]
    assert row.size_bytes == max(16, alignment) and row.alignment_bytes == alignment


def test_compiler_storages_and_ids() -> None:
    compilation, _ = _compile("correct")
    fingerprint = family().fingerprint()
    node = compilation.plan.nodes[0]  # type: ignore[attr-defined]
    ids = {b.value_id.value: b.storage.components[0].resource_id for b in node.values}
    assert ids["value.input"] == compiler_resource_id("activation", fingerprint, "value.input")
    assert ids["value.output"] == compiler_resource_id("activation", fingerprint, "value.output")
    assert ids["value.state"] == compiler_resource_id("state", fingerprint, "state.cache")
    assert compilation.value_tensors[ProgramValueId("value.output")].dimensions == (4,)  # type: ignore[attr-defined]


def test_compiler_option_rejections() -> None:
    error = raises_kind("invalid_execution_plan", lambda: _compile("correct", ProgramPlanCompileOptions({})))
    assert "every program input requires an explicit canonical tensor capacity" in error.to_dict()["reason"]
    unknown = ProgramPlanCompileOptions(
        {**INPUTS, ProgramValueId("value.unknown"): ProgramTensorSpec((4,), ElementType.F32)}
    )
    raises_kind("invalid_execution_plan", lambda: _compile("correct", unknown))
    wrong_node = ProgramPlanCompileOptions(INPUTS, preferred_providers={NodeId("node.none"): None})  # type: ignore[dict-item]
    raises_kind("invalid_execution_plan", lambda: _compile("correct", wrong_node))
    wrong_shape = ProgramPlanCompileOptions({ProgramValueId("value.input"): ProgramTensorSpec((5,), ElementType.F32)})
    raises_kind("invalid_execution_plan", lambda: _compile("correct", wrong_shape))


# --------------------------------------------------------------------------- execution weights (D-04R-14)


def _padded_compile() -> tuple[Any, Any, Any, Any]:
    materializers = WeightMaterializerRegistry([PaddedDenseMaterializer()])
    cat = materializers.augment_catalog(catalog())
    registry = planning_registry(cat, 64, 32)
    identity = ProgramPlanCompiler.compile(family(), cat, policy(4096), registry.planning(), OPTIONS)
    padded = ProgramPlanCompiler.compile_with_weight_materializers(
        family(),
        cat,
        policy(4096),
        registry.planning(),
        materializers,
        dataclasses.replace(OPTIONS, weight_materializer=PADDED_DENSE_ID),
    )
    return identity, padded, cat, materializers


def test_compiler_lays_arenas_out_from_the_execution_schema() -> None:
    identity, padded, cat, materializers = _padded_compile()
    plan = padded.plan
    payload = plan.payload.to_wire()
    assert payload["execution_weights"]["materializer_id"] == PADDED_DENSE_ID.value
    assert payload["execution_weights"]["schema"]["layout_id"] == "weight-layout.test.padded-dense"
    assert plan.memory.static_bytes == identity.plan.memory.static_bytes + 16
    arena = compiler_resource_id("weight-arena", family().fingerprint(), '"f32"')
    (row,) = [a for a in plan.memory.static_allocations if a.resource_id == arena]
    assert row.size_bytes == 32
    validate_against(plan, family(), cat, policy(4096), padded.node_resolutions)
    wire = plan.to_json()
    raises_kind(
        "invalid_execution_plan",
        lambda: from_json_validated(wire, family(), cat, policy(4096), padded.node_resolutions),
    )
    trusted = materializers.select_exact(family(), cat, PADDED_DENSE_ID)
    restored = from_json_validated(
        wire, family(), cat, policy(4096), padded.node_resolutions, execution_weights=trusted
    )
    assert restored == plan


@pytest.mark.parametrize(
    "drifted",
    [
        PaddedDenseMaterializer.with_implementation_fingerprint("6"),
        PaddedDenseMaterializer(seed_descriptor(PADDED_DENSE_ID, "9", capabilities=frozenset())),
        PaddedDenseMaterializer.with_fidelity("9", WeightMaterializationFidelity.APPROXIMATE),
    ],
    ids=["implementation_fingerprint", "required_capabilities", "fidelity"],
)
def test_the_witness_is_refused_against_a_catalog_with_another_descriptor(drifted: PaddedDenseMaterializer) -> None:
    _, padded, cat, materializers = _padded_compile()
    trusted = materializers.select_exact(family(), cat, PADDED_DENSE_ID)
    other = WeightMaterializerRegistry([drifted]).augment_catalog(catalog())
    request = PlanBuildRequest.new(family(), other, policy(4096), padded.node_resolutions)
    raises_kind("invalid_execution_plan", lambda: request.with_execution_weights(trusted))


def test_compile_refuses_a_materializer_it_does_not_hold() -> None:
    cat = WeightMaterializerRegistry([PaddedDenseMaterializer()]).augment_catalog(catalog())
    registry = planning_registry(cat, 64, 32)
    options = dataclasses.replace(OPTIONS, weight_materializer=PADDED_DENSE_ID)
    raises_kind(
        "invalid_execution_plan",
        lambda: ProgramPlanCompiler.compile(family(), cat, policy(4096), registry.planning(), options),
    )
    assert registry.estimator_calls == 0


def _fixed(schema: Any) -> Any:
    return TypedFamilyRegistration(FixedSchemaFamily(schema)).prepare_with_profile({"width": 4}, FIXTURE_PROFILE)


def test_dense_weights_of_a_mixed_checkpoint_compile() -> None:
    registry = planning_registry(catalog(), 64, 32)
    compilation = ProgramPlanCompiler.compile(
        _fixed(container_schema()), catalog(), policy(4096), registry.planning(), OPTIONS
    )
    (weight,) = [b for b in compilation.plan.nodes[0].values if b.usage is BufferUsage.WEIGHTS]
    assert weight.weight is not None and weight.weight.to_wire()["format_id"] == MIXED_GPTQ_FORMAT.value


def test_quantized_weights_still_require_their_formats() -> None:
    registry = planning_registry(catalog(), 64, 32)
    error = raises_kind(
        "unsupported_operation",
        lambda: ProgramPlanCompiler.compile(
            _fixed(block_quantized_schema()), catalog(), policy(4096), registry.planning(), OPTIONS
        ),
    )
    reason = error.to_dict()["reason"]
    assert QUANTIZED_FORMAT.value in reason and INT4_FORMAT.value in reason


# --------------------------------------------------------------------------- completion retention (D-05M-12)


def _retained(value: str = "value.output") -> Any:
    registry = planning_registry(catalog(), 64, 32)
    options = dataclasses.replace(OPTIONS, completion_retention=frozenset({ProgramValueId(value)}))
    return ProgramPlanCompiler.compile(family(), catalog(), policy(4096), registry.planning(), options)


def test_retained_output_keeps_its_request_descriptor() -> None:
    plain, _ = _compile("correct")
    retained = _retained()
    (row,) = retained.plan.payload.retained_completion_values
    assert (row.value_id.value, row.producer_node_id.value, row.output_ordinal) == ("value.output", "node.main", 0)
    assert retained.completion_retention.values == {ProgramValueId("value.output")}
    descriptor = next(d for d in retained.plan.memory.dynamic_descriptors if d.base_resource_id == row.resource_id)
    assert descriptor.lifetime is AllocationLifetime.REQUEST
    assert descriptor.demand.to_wire() == {"fixed": {"bytes": 16}}
    memory, plain_memory = retained.plan.memory.to_wire(), plain.plan.memory.to_wire()  # type: ignore[attr-defined]
    for key in ("static_bytes", "minimum_runnable_request_bytes", "dynamic_descriptors"):
        assert memory[key] == plain_memory[key], key


@pytest.mark.parametrize("value", ["value.input", "value.weight", "value.state", "value.unknown"])
def test_retention_of_anything_but_a_node_output_is_rejected_before_planning(value: str) -> None:
    registry = planning_registry(catalog(), 64, 32)
    options = dataclasses.replace(OPTIONS, completion_retention=frozenset({ProgramValueId(value)}))
    error = raises_kind(
        "invalid_execution_plan",
        lambda: ProgramPlanCompiler.compile(family(), catalog(), policy(4096), registry.planning(), options),
    )
    assert "completion retention must reference a semantic node output" in error.to_dict()["reason"]
    assert registry.contract_calls == 0 and registry.estimator_calls == 0


def test_a_retained_compiled_plan_revalidates_only_with_its_retention() -> None:
    retained = _retained()
    wire = retained.plan.to_json()
    args = (family(), catalog(), policy(4096), retained.node_resolutions)
    raises_kind("invalid_execution_plan", lambda: from_json_validated(wire, *args))
    assert from_json_validated(wire, *args, completion_retention=retained.completion_retention) == retained.plan
    forged = json.loads(wire)
    forged["payload"]["retained_completion_values"][0]["resource_id"] = "resource/forged-retained-output"
    rehash_plan_json(forged)
    raises_kind(
        "invalid_execution_plan",
        lambda: from_json_validated(
            json.dumps(forged).encode(), *args, completion_retention=retained.completion_retention
        ),
    )
