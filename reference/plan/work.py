"""Node work contract (spec 05 §4.6): ``fixed``, or ``tokens`` projected through one symbol.

For ``Tokens{value_id, axis}`` the source binding's operation contract dimension at
``axis`` must be a symbol ``s``; every binding whose contract mentions ``s`` (at most one
axis each, activations, axis in range) contributes a projection ``{value_id, role,
ordinal, axis, rank, canonical_extent}``. Projections are sorted, non-empty, unique per
slot, include the source and share one canonical extent. Failures: ``InvalidExecutionPlan``.
"""

from __future__ import annotations

from collections.abc import Sequence

from reference.catalog.operation import OperationDescriptor
from reference.catalog.storage import ResolvedValueRole
from reference.catalog.tensor_contract import SymbolDimension, TensorContract
from reference.errors import invalid_plan
from reference.model.program import ProgramNode
from reference.plan._util import strictly_ascending
from reference.plan.node import NodeTokenBindingProjection, NodeWorkContract
from reference.resolution.binding import ResolvedValueBinding
from reference.resolution.usage import BufferUsage

__all__ = ["derive_work_contract", "validate_work_contract"]


def _contract(operation: OperationDescriptor, binding: ResolvedValueBinding) -> TensorContract:
    contracts = operation.inputs if binding.role is ResolvedValueRole.INPUT else operation.outputs
    if binding.ordinal >= len(contracts):
        raise invalid_plan(  # rule: 05.4.6/work_binding_contract_prechecked
            f"binding `{binding.value_id}` has no operation contract"
        )
    return contracts[binding.ordinal]


def _projection(binding: ResolvedValueBinding, axis: int) -> NodeTokenBindingProjection:
    dims = binding.tensor.dimensions
    if binding.usage is not BufferUsage.ACTIVATIONS or axis >= len(dims):
        raise invalid_plan(  # rule: 05.4.6/token_projection_activations_in_range
            f"token projection of `{binding.value_id}` is not an activation axis in range"
        )
    return NodeTokenBindingProjection(binding.value_id, binding.role, binding.ordinal, axis, len(dims), dims[axis])


def derive_work_contract(
    node: ProgramNode, operation: OperationDescriptor, values: Sequence[ResolvedValueBinding]
) -> NodeWorkContract:
    """The node's work contract from its program work spec and the operation signature."""
    work = node.work
    if work.value_id is None:
        return NodeWorkContract.fixed()
    axis = work.axis
    assert axis is not None
    source_binding = next((b for b in values if b.value_id == work.value_id), None)
    if source_binding is None:
        raise invalid_plan(  # rule: 05.4.6/token_value_bound_prechecked
            f"node `{node.id}` token work value `{work.value_id}` is not bound"
        )
    dims = _contract(operation, source_binding).dimensions
    if axis >= len(dims) or not isinstance(dims[axis], SymbolDimension):
        raise invalid_plan(  # rule: 05.4.6/token_axis_must_be_symbol
            f"node `{node.id}` token work axis is not a symbolic operation dimension"
        )
    symbol = dims[axis]
    assert isinstance(symbol, SymbolDimension)
    source = _projection(source_binding, axis)
    projections: list[NodeTokenBindingProjection] = []
    for binding in values:
        axes = [i for i, d in enumerate(_contract(operation, binding).dimensions) if d == symbol]
        if not axes:
            continue
        if len(axes) > 1:
            raise invalid_plan(  # rule: 05.4.6/token_symbol_one_axis_per_binding
                f"binding `{binding.value_id}` mentions the token symbol on several axes"
            )
        projections.append(_projection(binding, axes[0]))
    contract = NodeWorkContract(source, tuple(sorted(projections)))
    validate_work_contract(contract)
    return contract


def validate_work_contract(contract: NodeWorkContract) -> None:
    """Shape rules of a tokens contract (a fixed contract is always valid)."""
    if contract.source is None:
        if contract.projections:
            raise invalid_plan("fixed work contract carries token projections")  # rule: 05.4.6/token_projections_shape
        return
    projections = contract.projections
    slots = [(p.role, p.ordinal) for p in projections]
    if (
        not projections
        or not strictly_ascending(projections)
        or len(set(slots)) != len(slots)
        or contract.source not in projections
        or len({p.canonical_extent for p in projections}) != 1
    ):
        raise invalid_plan(  # rule: 05.4.6/token_projections_shape
            "token work projections are empty, unsorted, duplicated or disagree on their extent"
        )
