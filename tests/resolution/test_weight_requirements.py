"""Node weight requirements (04 §9 step 9, 05 §3.1 step 10; decisions D-04R-15, D-04R-16).

A weights binding requires its weight format, and its quantization formats, only
when it has quantized or block-quantized components; a dense binding inside a
container format (``weight-format.safetensors.mixed-gptq``) requires nothing.
One derivation feeds the compatibility request, the selection evidence and the
estimator input fingerprint.
"""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from reference.errors import UnsupportedOperation
from reference.ids import NodeId, ProviderId, QuantizationFormatId, WeightFormatId, WeightId
from reference.model.registration import TypedFamilyRegistration
from reference.model.weight_schema import WeightSchema
from reference.resolution import (
    PlanNodeResolution,
    ResolvedValueBinding,
    estimator_input_fingerprint,
    estimator_input_material,
    node_weight_requirements,
)
from seeds.catalogs import catalog
from seeds.families import FIXTURE_PROFILE, FixedSchemaFamily
from seeds.policies import policy
from seeds.resolution import planning_registry, resolved_values, schema_weight_binding
from seeds.weights import INT4_FORMAT, MIXED_GPTQ_FORMAT, QUANTIZED_FORMAT, block_quantized_schema, container_schema
from strategies.weights import weight_schemas
from tests.resolution.helpers import raises_kind

EP = "invalid_execution_plan"
#: 04 §8.2 / upstream ``ProviderEstimatorInputMaterial``: exactly these eleven keys (decision D-04R-16).
MATERIAL_KEYS = {
    "prepared_family_fingerprint",
    "operation_fingerprint",
    "node_id",
    "operation_id",
    "operation_version",
    "attributes",
    "provider_id",
    "values",
    "required_capabilities",
    "required_weight_formats",
    "required_quantization_formats",
}


def _family(schema: WeightSchema) -> Any:
    return TypedFamilyRegistration(FixedSchemaFamily(schema)).prepare_with_profile({"width": 4}, FIXTURE_PROFILE)


def _values(schema: WeightSchema) -> list[ResolvedValueBinding]:
    values = resolved_values(0)
    values[1] = schema_weight_binding(schema, "resource.weight.0")
    return values


def _resolve(schema: WeightSchema) -> tuple[PlanNodeResolution, Any]:
    family, cat = _family(schema), catalog()
    planning = planning_registry(cat, 64, 32)
    resolution = PlanNodeResolution.resolve(
        family, cat, policy(4096), planning.planning(), NodeId("node.main"), _values(schema)
    )
    return resolution, planning


def test_dense_binding_in_a_container_format_requires_no_weight_format() -> None:
    schema = container_schema()
    family = _family(schema)
    values = _values(schema)
    assert values[1].weight is not None and values[1].weight.schema_format_id == MIXED_GPTQ_FORMAT
    assert node_weight_requirements(family, values) == (frozenset(), frozenset())
    resolution, _ = _resolve(schema)  # catalog() providers accept weight-format.dense only
    (candidate,) = resolution.provider_resource_candidates()
    node = family.program.node(NodeId("node.main"))
    operation = catalog().operation_for_node(node.id, node.operation_id)
    common = {
        "prepared_family_fingerprint": family.fingerprint(),
        "operation": operation,
        "node_id": NodeId("node.main"),
        "operation_id": operation.id,
        "operation_version": node.required_version,
        "attributes": {},
        "provider_id": candidate.provider_id,
        "values": values,
        "required_capabilities": operation.provider.required_capabilities,
        "required_quantization_formats": (),
    }
    assert candidate.estimator_input_fingerprint == estimator_input_fingerprint(**common, required_weight_formats=())
    assert candidate.estimator_input_fingerprint != estimator_input_fingerprint(
        **common, required_weight_formats=(MIXED_GPTQ_FORMAT,)
    )


def test_quantized_binding_requires_its_format_and_quantization_format() -> None:
    schema = block_quantized_schema()
    assert node_weight_requirements(_family(schema), _values(schema)) == (
        frozenset({QUANTIZED_FORMAT}),
        frozenset({INT4_FORMAT}),
    )
    family, cat = _family(schema), catalog()
    planning = planning_registry(cat, 64, 32)
    error = raises_kind(
        "unsupported_operation",
        lambda: PlanNodeResolution.resolve(
            family, cat, policy(4096), planning.planning(), NodeId("node.main"), _values(schema)
        ),
    )
    assert isinstance(error, UnsupportedOperation)
    (rejection,) = json.loads(error.to_dict()["reason"])
    assert rejection["provider_id"] == "provider.operation.reference"
    assert {"unsupported_weight_formats": {"formats": [QUANTIZED_FORMAT.value]}} in rejection["reasons"]
    assert {"unsupported_quantization_formats": {"formats": [INT4_FORMAT.value]}} in rejection["reasons"]
    assert planning.estimator_calls == 0


def test_weights_bindings_must_name_their_program_weight() -> None:
    schema = container_schema()
    family = _family(schema)
    values = _values(schema)
    renamed = schema_weight_binding(schema, "resource.weight.0", value_id="value.input", ordinal=0)
    raises_kind(EP, lambda: node_weight_requirements(family, [renamed]))  # not a program weight
    other: Any = SimpleNamespace(
        program=SimpleNamespace(weight_for_value=lambda _value: SimpleNamespace(weight_id=WeightId("weight.other")))
    )
    raises_kind(EP, lambda: node_weight_requirements(other, values))  # names another logical weight
    assert node_weight_requirements(family, [v for v in values if v.weight is None]) == (frozenset(), frozenset())


@given(st.lists(weight_schemas(max_tensors=2), min_size=1, max_size=3))
def test_required_formats_are_those_of_the_bindings_with_quantized_components(schemas: list[WeightSchema]) -> None:
    """Over generated schemas: each binding contributes its format iff it has quantization formats."""
    bindings = [
        schema_weight_binding(schema, f"resource.w.{i}", value_id=f"value.w.{i}", weight_id="weight.t0", ordinal=i)
        for i, schema in enumerate(schemas)
    ]
    family: Any = SimpleNamespace(
        program=SimpleNamespace(weight_for_value=lambda _value: SimpleNamespace(weight_id=WeightId("weight.t0")))
    )
    expected_formats: set[WeightFormatId] = set()
    expected_quantization: set[QuantizationFormatId] = set()
    for binding in bindings:
        assert binding.weight is not None
        formats = binding.weight.quantization_formats()
        if formats:
            expected_formats.add(binding.weight.schema_format_id)
            expected_quantization |= formats
    assert node_weight_requirements(family, bindings) == (frozenset(expected_formats), frozenset(expected_quantization))


def test_estimator_input_material_has_exactly_the_contract_keys() -> None:
    schema = container_schema()
    family = _family(schema)
    node = family.program.node(NodeId("node.main"))
    operation = catalog().operation_for_node(node.id, node.operation_id)
    material = estimator_input_material(
        prepared_family_fingerprint=family.fingerprint(),
        operation=operation,
        node_id=NodeId("node.main"),
        operation_id=operation.id,
        operation_version=operation.version,
        attributes={},
        provider_id=ProviderId("provider.operation.reference"),
        values=_values(schema),
        required_capabilities=(),
        required_weight_formats=(),
        required_quantization_formats=(),
    )
    assert set(material) == MATERIAL_KEYS
