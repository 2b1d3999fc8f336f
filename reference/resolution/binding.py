"""``ResolvedValueBinding`` (spec 04 §5.6): one operand of one node call, with its storage.

Constructor checks, in order (all ``InvalidExecutionPlan``): role/access/alias;
non-weights use exactly one component; a single anonymous component carries the
tensor's dtype; non-weight storage covers ``minimum_storage_bytes``; weights carry
a ``ResolvedWeightBinding`` that fits the logical tensor and whose components the
storage names exactly; non-weights carry none.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from reference.canonical import JsonValue
from reference.catalog.storage import ResolvedValueRole
from reference.catalog.tensor_contract import AliasPolicy, NoAlias, TensorAccess
from reference.errors import InvalidExecutionPlan
from reference.ids import ProgramValueId, WeightId
from reference.ints import fits_uint
from reference.resolution.storage import ResolvedValueStorage
from reference.resolution.tensor_spec import ResolvedTensorSpec
from reference.resolution.usage import BufferUsage
from reference.resolution.weight_binding import ResolvedWeightBinding
from reference.wire import WireObject, decode_with

__all__ = ["ResolvedValueBinding", "validate_resolved_weight_storage"]

_INPUT_ACCESS = (TensorAccess.READ, TensorAccess.READ_WRITE)
_OUTPUT_ACCESS = (TensorAccess.WRITE, TensorAccess.READ_WRITE)


def validate_resolved_weight_storage(weight: ResolvedWeightBinding, storage: ResolvedValueStorage) -> None:
    """Storage names every weight component exactly once with its physical length and element type."""
    expected = {c.component_id: c for c in weight.components}
    if len(storage.components) != len(expected):
        raise InvalidExecutionPlan(  # rule: 04.5.6/weight_storage_component_count
            reason="resolved weight storage component count differs from its layout contract"
        )
    seen: set[WeightId] = set()
    for stored in storage.components:
        cid = stored.component_id
        if cid is None:
            raise InvalidExecutionPlan(  # rule: 04.5.6/weight_storage_component_identity
                reason="resolved weight storage component lacks its physical identity"
            )
        component = expected.get(cid)
        if component is None:
            raise InvalidExecutionPlan(  # rule: 04.5.6/weight_storage_component_identity
                reason=f"resolved weight storage contains unknown component `{cid}`"
            )
        # One combined check upstream: a repeated component and a wrong size or dtype have the same error.
        differs = f"resolved weight storage component `{cid}` differs from its layout"
        if cid in seen:
            raise InvalidExecutionPlan(reason=differs)  # rule: 04.5.6/weight_storage_component_identity
        if stored.length_bytes != component.physical_bytes():
            raise InvalidExecutionPlan(reason=differs)  # rule: 04.5.6/weight_storage_component_size_dtype
        if stored.element_type is not component.physical_element_type():
            raise InvalidExecutionPlan(reason=differs)  # rule: 04.5.6/weight_storage_component_size_dtype
        seen.add(cid)


@dataclass(frozen=True, slots=True)
class ResolvedValueBinding:
    """value, role/ordinal slot, tensor, access, alias, usage, optional weight contract, storage."""

    value_id: ProgramValueId
    role: ResolvedValueRole
    ordinal: int
    tensor: ResolvedTensorSpec
    access: TensorAccess
    alias: AliasPolicy
    usage: BufferUsage
    weight: ResolvedWeightBinding | None
    storage: ResolvedValueStorage

    def __post_init__(self) -> None:
        if not fits_uint(self.ordinal, 32):
            raise InvalidExecutionPlan(  # rule: 04.5.6/ordinal_fixed_width
                reason=f"binding ordinal {self.ordinal!r} is not a u32"
            )
        # Check 1 is one combined check upstream: its three failures have the same error.
        role, access = self.role, self.access
        inconsistent = "resolved value role, access, and alias policy are inconsistent"
        if role is ResolvedValueRole.INPUT and access not in _INPUT_ACCESS:
            raise InvalidExecutionPlan(reason=inconsistent)  # rule: 04.5.6/input_access_readable
        if role is ResolvedValueRole.OUTPUT and access not in _OUTPUT_ACCESS:
            raise InvalidExecutionPlan(reason=inconsistent)  # rule: 04.5.6/output_access_writable
        if role is ResolvedValueRole.INPUT and not isinstance(self.alias, NoAlias):
            raise InvalidExecutionPlan(reason=inconsistent)  # rule: 04.5.6/input_alias_no_alias
        components = self.storage.components
        weights = self.usage is BufferUsage.WEIGHTS
        if not weights and len(components) != 1:
            raise InvalidExecutionPlan(  # rule: 04.5.6/non_weights_single_component
                reason="only a weight value may use composite physical storage"
            )
        if (
            len(components) == 1
            and components[0].component_id is None
            and components[0].element_type is not self.tensor.element_type
        ):
            raise InvalidExecutionPlan(  # rule: 04.5.6/anonymous_component_dtype
                reason="single-resource value dtype differs from its logical tensor dtype"
            )
        if not weights and components[0].length_bytes < self.tensor.minimum_storage_bytes():
            raise InvalidExecutionPlan(  # rule: 04.5.6/non_weights_storage_covers_tensor
                reason="resolved value storage is smaller than its tensor span"
            )
        if weights:
            if self.weight is None:
                raise InvalidExecutionPlan(  # rule: 04.5.6/weights_need_weight_binding
                    reason="weight value lacks its resolved physical layout contract"
                )
            self.weight.validate_logical_contract(self.tensor.dimensions, self.tensor.element_type)
            validate_resolved_weight_storage(self.weight, self.storage)
        elif self.weight is not None:
            raise InvalidExecutionPlan(  # rule: 04.5.6/non_weights_without_weight_binding
                reason="non-weight value carries a resolved weight layout contract"
            )

    @property
    def slot(self) -> tuple[ResolvedValueRole, int]:
        return (self.role, self.ordinal)

    def to_wire(self) -> dict[str, JsonValue]:
        return {
            "value_id": self.value_id.value,
            "role": self.role.to_wire(),
            "ordinal": self.ordinal,
            "tensor": self.tensor.to_wire(),
            "access": self.access.to_wire(),
            "alias": self.alias.to_wire(),
            "usage": self.usage.to_wire(),
            "weight": None if self.weight is None else self.weight.to_wire(),
            "storage": self.storage.to_wire(),
        }

    @classmethod
    def from_wire(
        cls, raw: Any, *, context: str = "decode resolved value binding", path: str = "$"
    ) -> ResolvedValueBinding:
        """deny_unknown_fields, then the constructor."""
        fields = ("value_id", "role", "ordinal", "tensor", "access", "alias", "usage", "weight", "storage")
        obj = WireObject(raw, fields, type_name="ResolvedValueBinding", context=context, path=path)
        weight_raw = obj.raw("weight")
        args = (
            obj.identity("value_id", ProgramValueId),
            ResolvedValueRole.from_wire(obj.raw("role"), context=context, path=obj.at("role")),
            obj.u32("ordinal"),
            ResolvedTensorSpec.from_wire(obj.raw("tensor"), context=context, path=obj.at("tensor")),
            TensorAccess.from_wire(obj.raw("access"), context=context, path=obj.at("access")),
            AliasPolicy.from_wire(obj.raw("alias"), context=context, path=obj.at("alias")),
            BufferUsage.from_wire(obj.raw("usage"), context=context, path=obj.at("usage")),
            None
            if weight_raw is None
            else ResolvedWeightBinding.from_wire(weight_raw, context=context, path=obj.at("weight")),
            ResolvedValueStorage.from_wire(obj.raw("storage"), context=context, path=obj.at("storage")),
        )
        return decode_with(lambda: cls(*args), context=context, path=path)
