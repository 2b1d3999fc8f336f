"""Retained completion values (spec 05 §7.10).

``RetainedCompletionValue {value_id, producer_node_id, output_ordinal, resource_id,
logical_offset_bytes, tensor}`` (deny_unknown_fields). ``resolve_retained_values``: for
each retained value (ascending) exactly one plan-node output binding, usage activations,
one storage component, and no later overwrite of its logical bytes (a write or
read-write component on the same resource in the producer — other than the value — or
in any later node).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from reference.canonical import JsonValue
from reference.catalog.storage import ResolvedValueRole
from reference.catalog.tensor_contract import TensorAccess
from reference.errors import invalid_plan
from reference.ids import NodeId, ProgramValueId, ResourceId
from reference.ints import checked_add
from reference.resolution.binding import ResolvedValueBinding
from reference.resolution.storage import ranges_overlap
from reference.resolution.tensor_spec import ResolvedTensorSpec
from reference.resolution.usage import BufferUsage
from reference.wire import WireObject

__all__ = ["RetainedCompletionValue", "resolve_retained_values"]

_WRITES = (TensorAccess.WRITE, TensorAccess.READ_WRITE)


@dataclass(frozen=True, slots=True)
class RetainedCompletionValue:
    """Where a retained output's completion bytes live."""

    value_id: ProgramValueId
    producer_node_id: NodeId
    output_ordinal: int
    resource_id: ResourceId
    logical_offset_bytes: int
    tensor: ResolvedTensorSpec

    def to_wire(self) -> dict[str, JsonValue]:
        return {
            "value_id": self.value_id.value,
            "producer_node_id": self.producer_node_id.value,
            "output_ordinal": self.output_ordinal,
            "resource_id": self.resource_id.value,
            "logical_offset_bytes": self.logical_offset_bytes,
            "tensor": self.tensor.to_wire(),
        }

    @classmethod
    def from_wire(cls, raw: Any, *, context: str, path: str = "$") -> RetainedCompletionValue:
        fields = ("value_id", "producer_node_id", "output_ordinal", "resource_id", "logical_offset_bytes", "tensor")
        obj = WireObject(raw, fields, type_name="RetainedCompletionValue", context=context, path=path)
        return cls(
            obj.identity("value_id", ProgramValueId),
            obj.identity("producer_node_id", NodeId),
            obj.u32("output_ordinal"),
            obj.identity("resource_id", ResourceId),
            obj.u64("logical_offset_bytes"),
            ResolvedTensorSpec.from_wire(obj.raw("tensor"), context=context, path=obj.at("tensor")),
        )


def resolve_retained_values(
    nodes: Sequence[tuple[NodeId, Sequence[ResolvedValueBinding]]], values: Iterable[ProgramValueId]
) -> tuple[RetainedCompletionValue, ...]:
    """Resolve and check every retained value against the plan nodes (plan order)."""
    out: list[RetainedCompletionValue] = []
    for value_id in sorted(set(values)):
        found = [
            (index, node_id, binding)
            for index, (node_id, bindings) in enumerate(nodes)
            for binding in bindings
            if binding.role is ResolvedValueRole.OUTPUT and binding.value_id == value_id
        ]
        if len(found) != 1:
            raise invalid_plan(  # rule: 05.7.10/retained_single_output_binding
                f"retained value `{value_id}` needs exactly one producing output binding"
            )
        index, producer, binding = found[0]
        if binding.usage is not BufferUsage.ACTIVATIONS or len(binding.storage.components) != 1:
            raise invalid_plan(  # rule: 05.7.10/retained_activation_single_component
                f"retained value `{value_id}` must be a single-component activation"
            )
        component = binding.storage.components[0]
        start = component.offset_bytes
        length = binding.tensor.minimum_storage_bytes()
        checked_add(  # rule: 05.7.10/retained_end_prechecked
            start, length, error=partial(invalid_plan, "retained value range overflows u64")
        )
        for later_index in range(index, len(nodes)):
            for other in nodes[later_index][1]:
                if other.access not in _WRITES or (later_index == index and other is binding):
                    continue
                for part in other.storage.components:
                    if part.resource_id == component.resource_id and ranges_overlap(
                        start, length, part.offset_bytes, part.length_bytes
                    ):
                        raise invalid_plan(  # rule: 05.7.10/retained_not_overwritten
                            f"retained value `{value_id}` is overwritten after it completes"
                        )
        out.append(
            RetainedCompletionValue(value_id, producer, binding.ordinal, component.resource_id, start, binding.tensor)
        )
    return tuple(out)
