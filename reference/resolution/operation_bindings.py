"""``OperationDescriptor::validate_resolved_bindings`` (spec 04 §5.7): a node's bindings vs its operation.

Checks, first failure wins (``InvalidExecutionPlan``): descriptor ``validate``;
binding count; canonical ``(input, i)`` then ``(output, j)`` order; no duplicate
slot; a repeated value only between identical read-only inputs; access and alias
equal to the contract's; tensor vs contract (rank, dtype, dimension constraints
with symbols bound across the call, one matching layout constraint); input
storage sharing; output aliasing and output overlap.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from reference.catalog.operation import OperationDescriptor
from reference.catalog.storage import ResolvedValueRole
from reference.catalog.tensor_contract import (
    BlockedLayout as BlockedConstraint,
)
from reference.catalog.tensor_contract import (
    ContiguousLayout as ContiguousConstraint,
)
from reference.catalog.tensor_contract import (
    ExactBytesStride,
    ExactDimension,
    MayAlias,
    MustAlias,
    NoAlias,
    RangeDimension,
    SymbolDimension,
    TensorAccess,
    TensorContract,
)
from reference.catalog.tensor_contract import (
    StridedLayout as StridedConstraint,
)
from reference.errors import InvalidExecutionPlan
from reference.recomputation import ValidByIdentity
from reference.resolution.binding import ResolvedValueBinding
from reference.resolution.tensor_spec import BlockedLayout, ContiguousLayout, ResolvedTensorSpec, StridedLayout

__all__ = ["validate_resolved_bindings"]


def _fail(operation: OperationDescriptor, detail: str) -> InvalidExecutionPlan:
    return InvalidExecutionPlan(reason=f"operation `{operation.id}` {detail}")


def _layout_matches(contract: TensorContract, tensor: ResolvedTensorSpec, strides: dict[str, int]) -> bool:
    """Some allowed layout matches; a matching strided constraint commits its stride symbols."""
    layout = tensor.layout
    for allowed in contract.layouts:
        if isinstance(allowed, ContiguousConstraint) and isinstance(layout, ContiguousLayout):
            return True
        if (
            isinstance(allowed, BlockedConstraint)
            and isinstance(layout, BlockedLayout)
            and (allowed.block, allowed.axis_order) == (layout.block, layout.axis_order)
        ):
            return True
        if (
            isinstance(allowed, StridedConstraint)
            and isinstance(layout, StridedLayout)
            and len(allowed.strides) == len(layout.byte_strides)
        ):
            candidate = dict(strides)
            ok = True
            for constraint, actual in zip(allowed.strides, layout.byte_strides, strict=True):
                if isinstance(constraint, ExactBytesStride):
                    ok = constraint.value == actual
                else:
                    name = getattr(constraint, "name", "")
                    ok = candidate.setdefault(name, actual) == actual
                if not ok:
                    break
            if ok:
                strides.clear()
                strides.update(candidate)
                return True
    return False


def _check_tensor(
    operation: OperationDescriptor,
    contract: TensorContract,
    tensor: ResolvedTensorSpec,
    dimensions: dict[str, int],
    strides: dict[str, int],
) -> None:
    # Each of the combined checks below has one error upstream; each rule raises at its own site.
    incompatible = "resolved tensor rank or element type is incompatible"
    if len(tensor.dimensions) != contract.rank:
        raise _fail(operation, incompatible)  # rule: 04.5.7/rank_equal
    if tensor.element_type not in contract.element_types:
        raise _fail(operation, incompatible)  # rule: 04.5.7/dtype_in_contract_set
    violated = "resolved tensor violates a dimension constraint"
    for constraint, extent in zip(contract.dimensions, tensor.dimensions, strict=True):
        if isinstance(constraint, ExactDimension):
            if constraint.value != extent:
                raise _fail(operation, violated)  # rule: 04.5.7/exact_dimension
        elif isinstance(constraint, RangeDimension):
            if not constraint.minimum <= extent <= constraint.maximum:
                raise _fail(operation, violated)  # rule: 04.5.7/range_dimension
        else:
            assert isinstance(constraint, SymbolDimension)
            if dimensions.setdefault(constraint.name, extent) != extent:
                raise _fail(operation, violated)  # rule: 04.5.7/symbol_dimension_binding
    if not _layout_matches(contract, tensor, strides):
        layout = tensor.layout
        if isinstance(layout, ContiguousLayout):
            raise _fail(operation, "resolved tensor layout is incompatible")  # rule: 04.5.7/layout_contiguous
        if isinstance(layout, BlockedLayout):
            raise _fail(operation, "resolved tensor layout is incompatible")  # rule: 04.5.7/layout_blocked
        raise _fail(operation, "resolved tensor layout is incompatible")  # rule: 04.5.7/layout_strided


#: (operation, bindings tuple) pairs found valid.
_VALID_PAIRS: Final = ValidByIdentity(65536)


def validate_resolved_bindings(operation: OperationDescriptor, bindings: Sequence[ResolvedValueBinding]) -> None:
    """The §5.7 checks of ``bindings`` against ``operation`` (a tuple found valid with the same operation once is
    remembered: both are immutable)."""
    remembered = type(bindings) is tuple
    if remembered and _VALID_PAIRS.known(operation, bindings):
        return
    operation.validate()
    n_in = len(operation.inputs)
    if len(bindings) != n_in + len(operation.outputs):
        raise _fail(  # rule: 04.5.7/binding_count
            operation, f"expects {n_in + len(operation.outputs)} value bindings, received {len(bindings)}"
        )
    dimensions: dict[str, int] = {}
    strides: dict[str, int] = {}
    slots: set[tuple[ResolvedValueRole, int]] = set()
    for index, binding in enumerate(bindings):
        expected = (ResolvedValueRole.INPUT, index) if index < n_in else (ResolvedValueRole.OUTPUT, index - n_in)
        if binding.slot != expected:
            raise _fail(  # rule: 04.5.7/canonical_slot_order
                operation, "bindings are not in canonical input/output ordinal order"
            )
        if binding.slot in slots:
            raise _fail(operation, "contains duplicate ordinal bindings")  # rule: 04.5.7/duplicate_slot
        slots.add(binding.slot)
        previous = next((p for p in bindings[:index] if p.value_id == binding.value_id), None)
        if previous is not None and not (
            previous.role is ResolvedValueRole.INPUT
            and binding.role is ResolvedValueRole.INPUT
            and previous.access is TensorAccess.READ
            and binding.access is TensorAccess.READ
            and previous.tensor == binding.tensor
            and previous.storage == binding.storage
            and previous.usage is binding.usage
        ):
            raise _fail(  # rule: 04.5.7/repeated_value_read_only_inputs
                operation, "repeats a value outside identical read-only input slots"
            )
        contracts = operation.inputs if binding.role is ResolvedValueRole.INPUT else operation.outputs
        if binding.ordinal >= len(contracts):
            raise _fail(operation, "binding ordinal is out of range")  # rule: 04.5.7/ordinal_in_range
        contract = contracts[binding.ordinal]
        differs = "binding access or alias differs from its contract"
        if binding.access is not contract.access:
            raise _fail(operation, differs)  # rule: 04.5.7/access_equals_contract
        if binding.alias != contract.alias:
            raise _fail(operation, differs)  # rule: 04.5.7/alias_equals_contract
        _check_tensor(operation, contract, binding.tensor, dimensions, strides)
    inputs, outputs = list(bindings[:n_in]), list(bindings[n_in:])
    for index, current in enumerate(inputs):
        for previous in inputs[:index]:
            if current.storage.overlaps(previous.storage) and (
                current.value_id != previous.value_id
                or current.access is not TensorAccess.READ
                or previous.access is not TensorAccess.READ
            ):
                raise _fail(  # rule: 04.5.7/input_storage_sharing
                    operation, "shares input storage between different or writable values"
                )
    for index, output in enumerate(outputs):
        aliased = [i for i, inp in enumerate(inputs) if output.storage.overlaps(inp.storage)]
        alias = output.alias
        if isinstance(alias, NoAlias) and aliased:
            raise _fail(  # rule: 04.5.7/no_alias_output_overlap
                operation, f"output {index} aliases despite a no-alias contract"
            )
        if isinstance(alias, MayAlias) and (
            any(i != alias.index for i in aliased)
            or (alias.index in aliased and output.storage != inputs[alias.index].storage)
        ):
            raise _fail(  # rule: 04.5.7/may_alias_output
                operation, f"output {index} partially aliases or aliases the wrong input"
            )
        if isinstance(alias, MustAlias) and (aliased != [alias.index] or output.storage != inputs[alias.index].storage):
            raise _fail(  # rule: 04.5.7/must_alias_output
                operation, f"output {index} does not exactly alias its declared input"
            )
        if any(output.storage.overlaps(previous.storage) for previous in outputs[:index]):
            raise _fail(operation, "output resources overlap")  # rule: 04.5.7/outputs_do_not_overlap
    if remembered:
        _VALID_PAIRS.add(operation, bindings)
