"""Semantic checks of a node's bindings against the execution weight schema (spec 05 §3.1 steps 9-10).

With the identity plan the execution schema is the family's and the resolution layer's
``validate_semantic_binding`` applies unchanged. Otherwise a weight binding is checked
against the trusted execution schema: read-only ``weights`` usage, the program tensor,
exactly that weight's physical components (length and dtype) and the matching
``ResolvedWeightBinding``. ``node_weight_formats`` gives the formats the node requires.
"""

from __future__ import annotations

from collections.abc import Sequence

from reference.catalog.tensor_contract import TensorAccess
from reference.errors import invalid_plan
from reference.ids import QuantizationFormatId, WeightFormatId
from reference.model.prepared import PreparedModelFamily
from reference.model.weight_schema import WeightSchema
from reference.resolution.binding import ResolvedValueBinding
from reference.resolution.semantic import validate_semantic_binding
from reference.resolution.usage import BufferUsage
from reference.resolution.weight_binding import ResolvedWeightBinding

__all__ = ["check_binding_semantics", "node_weight_formats"]


def check_binding_semantics(family: PreparedModelFamily, schema: WeightSchema, binding: ResolvedValueBinding) -> None:
    """Weights against ``schema``; states and activations against the family program."""
    reference = family.program.weight_for_value(binding.value_id)
    if reference is None or schema is family.weight_schema or schema == family.weight_schema:
        validate_semantic_binding(family, binding)
        return
    if binding.usage is not BufferUsage.WEIGHTS or binding.access is not TensorAccess.READ:
        raise invalid_plan(f"weight value `{binding.value_id}` must be a read-only weights binding")
    if not binding.tensor.matches_program(reference.tensor):
        raise invalid_plan(f"weight value `{binding.value_id}` tensor differs from the program")
    expected = {c.id: c for c in schema.physical_component_refs(reference.weight_id)}
    stored = binding.storage.components
    ids = [c.component_id for c in stored]
    if len(stored) != len(expected) or set(ids) != set(expected):
        raise invalid_plan(f"weight value `{binding.value_id}` storage does not name its execution components")
    for component in stored:
        assert component.component_id is not None
        spec = expected[component.component_id]
        if (
            component.length_bytes != spec.physical_bytes()
            or component.element_type is not spec.physical_element_type()
        ):
            raise invalid_plan(f"weight value `{binding.value_id}` component storage differs from the execution schema")
    if binding.weight != ResolvedWeightBinding.from_schema(schema, reference.weight_id):
        raise invalid_plan(f"weight value `{binding.value_id}` carries a different resolved weight layout")


def node_weight_formats(
    schema: WeightSchema, values: Sequence[ResolvedValueBinding]
) -> tuple[frozenset[WeightFormatId], frozenset[QuantizationFormatId]]:
    """``{schema.format_id}`` if any weights binding; quantized component formats of those weights."""
    weight_formats: set[WeightFormatId] = set()
    quantization: set[QuantizationFormatId] = set()
    for binding in values:
        if binding.usage is not BufferUsage.WEIGHTS:
            continue
        weight_formats.add(schema.format_id)
        if binding.weight is not None:
            quantization |= binding.weight.quantization_formats()
    return frozenset(weight_formats), frozenset(quantization)
