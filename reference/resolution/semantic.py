"""Program-side checks of a node's bindings (spec 04 §9 steps 8-9, spec 05 §3.1 steps 4, 9, 10).

* ``validate_program_bindings`` — bindings list equals the node's inputs then outputs.
* ``validate_semantic_binding`` — weights against a weight schema (the trusted execution
  schema; the family's by default), states and activations against the program.
* ``node_weight_requirements`` — the weight and quantization formats a node needs: only
  bindings with quantized components require their format (decision D-04R-15).
All failures are ``InvalidExecutionPlan``.
"""

from __future__ import annotations

from collections.abc import Sequence

from reference.catalog.storage import ResolvedValueRole
from reference.catalog.tensor_contract import TensorAccess
from reference.errors import InvalidExecutionPlan
from reference.ids import QuantizationFormatId, WeightFormatId
from reference.model.prepared import PreparedModelFamily
from reference.model.program import ProgramNode
from reference.model.weight_schema import WeightSchema
from reference.resolution.binding import ResolvedValueBinding
from reference.resolution.usage import BufferUsage
from reference.resolution.weight_binding import ResolvedWeightBinding

__all__ = ["node_weight_requirements", "validate_program_bindings", "validate_semantic_binding"]


def validate_program_bindings(node: ProgramNode, values: Sequence[ResolvedValueBinding]) -> None:
    """Position by position ``[(input, i, node.inputs[i])...] + [(output, j, node.outputs[j])...]``."""
    expected = [(ResolvedValueRole.INPUT, i, v) for i, v in enumerate(node.inputs)] + [
        (ResolvedValueRole.OUTPUT, j, v) for j, v in enumerate(node.outputs)
    ]
    actual = [(b.role, b.ordinal, b.value_id) for b in values]
    if actual != expected:
        raise InvalidExecutionPlan(  # rule: 04.9/step08_program_bindings_positional
            reason=f"node `{node.id}` bindings do not match its program operands"
        )


def validate_semantic_binding(
    family: PreparedModelFamily, binding: ResolvedValueBinding, schema: WeightSchema | None = None
) -> None:
    """A weight reference binds exactly its ``schema`` weight read-only (``schema`` defaults to the family's;
    plans pass the trusted execution schema); a state binds its state tensor; anything else activations."""
    program = family.program
    value_id = binding.value_id
    reference = program.weight_for_value(value_id)
    if reference is not None:
        weights = family.weight_schema if schema is None else schema
        if binding.usage is not BufferUsage.WEIGHTS or binding.access is not TensorAccess.READ:
            raise InvalidExecutionPlan(  # rule: 04.9/step08_weight_usage_and_access
                reason=f"weight value `{value_id}` must be a read-only weights binding"
            )
        if not binding.tensor.matches_program(reference.tensor):
            raise InvalidExecutionPlan(  # rule: 04.9/step08_weight_tensor_equals_program
                reason=f"weight value `{value_id}` tensor differs from the program"
            )
        components = {c.id: c for c in weights.physical_component_refs(reference.weight_id)}
        stored = binding.storage.components
        ids = [c.component_id for c in stored]
        if len(stored) != len(components) or set(ids) != set(components) or len(set(ids)) != len(ids):
            raise InvalidExecutionPlan(  # rule: 04.9/step08_weight_storage_matches_components
                reason=f"weight value `{value_id}` storage does not name its components"
            )
        for component in stored:
            assert component.component_id is not None
            spec = components[component.component_id]
            if (
                component.length_bytes != spec.physical_bytes()
                or component.element_type is not spec.physical_element_type()
            ):
                raise InvalidExecutionPlan(  # rule: 04.9/step08_weight_binding_equals_schema
                    reason=f"weight value `{value_id}` component storage differs from schema"
                )
        if binding.weight != ResolvedWeightBinding.from_schema(weights, reference.weight_id):
            raise InvalidExecutionPlan(  # rule: 04.9/step08_weight_binding_equals_schema
                reason=f"weight value `{value_id}` carries a different resolved weight layout"
            )
        return
    state = program.state_for_value(value_id)
    if state is not None:
        if binding.usage is not BufferUsage.STATE or not binding.tensor.matches_program(state.tensor):
            raise InvalidExecutionPlan(  # rule: 04.9/step08_state_usage_and_tensor
                reason=f"state value `{value_id}` must bind its state tensor with usage state"
            )
        return
    if binding.usage is not BufferUsage.ACTIVATIONS:
        raise InvalidExecutionPlan(  # rule: 04.9/step08_other_values_activations
            reason=f"value `{value_id}` must use activations storage"
        )


def node_weight_requirements(
    family: PreparedModelFamily, values: Sequence[ResolvedValueBinding]
) -> tuple[frozenset[WeightFormatId], frozenset[QuantizationFormatId]]:
    """Per weights binding: a program weight with its resolved layout naming that weight; a binding with
    quantized components requires its ``format_id`` and their formats, a dense-only binding requires none."""
    weight_formats: set[WeightFormatId] = set()
    quantization_formats: set[QuantizationFormatId] = set()
    for binding in values:
        if binding.usage is not BufferUsage.WEIGHTS:
            continue
        reference = family.program.weight_for_value(binding.value_id)
        if reference is None:
            raise InvalidExecutionPlan(  # rule: 04.9/step09_weights_binding_not_program_weight
                reason=f"weights binding `{binding.value_id}` is not a program weight"
            )
        if binding.weight is None:
            raise InvalidExecutionPlan(  # rule: 04.9/step09_weights_binding_not_program_weight
                reason=f"weights binding `{binding.value_id}` has no resolved weight layout"
            )
        if binding.weight.weight_id != reference.weight_id:
            raise InvalidExecutionPlan(  # rule: 04.9/step09_weights_binding_not_program_weight
                reason=f"weights binding `{binding.value_id}` resolves another logical weight"
            )
        formats = binding.weight.quantization_formats()
        if formats:
            weight_formats.add(binding.weight.schema_format_id)
            quantization_formats |= formats
    return frozenset(weight_formats), frozenset(quantization_formats)
