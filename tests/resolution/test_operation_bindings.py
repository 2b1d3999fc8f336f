"""``validate_resolved_bindings`` (spec 04 §5.7): a node's bindings against its operation descriptor."""

from __future__ import annotations

import dataclasses

from reference.catalog import (
    BlockedLayout as BlockedConstraint,
)
from reference.catalog import (
    ExactBytesStride,
    MayAlias,
    MustAlias,
    NoAlias,
    RangeDimension,
    SymbolDimension,
    SymbolStride,
    TensorAccess,
    TensorContract,
)
from reference.catalog import (
    StridedLayout as StridedConstraint,
)
from reference.catalog.storage import ResolvedValueRole
from reference.ids import ProgramValueId, ResourceId
from reference.model.element import ElementType
from reference.resolution import (
    BlockedLayout,
    BufferUsage,
    ResolvedTensorSpec,
    ResolvedValueBinding,
    ResolvedValueStorage,
    StridedLayout,
    validate_resolved_bindings,
)
from seeds.catalogs import operation
from seeds.resolution import resolved_values
from tests.resolution.helpers import raises_kind

EP = "invalid_execution_plan"
F32 = ElementType.F32


def test_seed_bindings_pass() -> None:
    validate_resolved_bindings(operation(), resolved_values(0))


def test_count_order_duplicates_and_range() -> None:
    op, values = operation(), resolved_values(0)
    raises_kind(EP, lambda: validate_resolved_bindings(op, values[:3]))
    raises_kind(EP, lambda: validate_resolved_bindings(op, [values[1], values[0], values[2], values[3]]))
    relabelled = dataclasses.replace(values[3], role=ResolvedValueRole.OUTPUT, ordinal=1)
    raises_kind(EP, lambda: validate_resolved_bindings(op, [*values[:3], relabelled]))
    invalid_op = dataclasses.replace(op, outputs=())
    raises_kind(EP, lambda: validate_resolved_bindings(invalid_op, values[:3]))


def test_repeated_value_rules() -> None:
    op, values = operation(), resolved_values(0)
    same_as_input = dataclasses.replace(values[2], value_id=values[0].value_id)
    raises_kind(EP, lambda: validate_resolved_bindings(op, [values[0], values[1], same_as_input, values[3]]))


def test_access_alias_dtype_and_dimension_mismatches() -> None:
    op, values = operation(), resolved_values(0)
    rw_output = dataclasses.replace(values[3], access=TensorAccess.READ_WRITE)
    raises_kind(EP, lambda: validate_resolved_bindings(op, [*values[:3], rw_output]))
    u8_input = ResolvedValueBinding(
        values[0].value_id,
        ResolvedValueRole.INPUT,
        0,
        ResolvedTensorSpec((4,), ElementType.U8),
        TensorAccess.READ,
        NoAlias(),
        BufferUsage.ACTIVATIONS,
        None,
        ResolvedValueStorage.single(ResourceId("resource.input.0"), 0, 4, ElementType.U8),
    )
    raises_kind(EP, lambda: validate_resolved_bindings(op, [u8_input, *values[1:]]))
    wide = dataclasses.replace(
        values[0],
        tensor=ResolvedTensorSpec((8,), F32),
        storage=ResolvedValueStorage.single(ResourceId("resource.input.0"), 0, 32, F32),
    )
    raises_kind(EP, lambda: validate_resolved_bindings(op, [wide, *values[1:]]))


def _generic_op(inputs: list[TensorContract], outputs: list[TensorContract]):  # type: ignore[no-untyped-def]
    base = operation()
    resources = dataclasses.replace(base.resources, minimum_value_alignment_bytes=1)
    return dataclasses.replace(base, inputs=tuple(inputs), outputs=tuple(outputs), resources=resources)


def _contract(dims, layouts, access=TensorAccess.READ, alias=None):  # type: ignore[no-untyped-def]
    return TensorContract(tuple(dims), frozenset({F32}), tuple(layouts), access, alias or NoAlias())


def _bind(value, role, ordinal, dims, layout, resource, offset=0, length=None, access=None, alias=None):  # type: ignore[no-untyped-def]
    tensor = ResolvedTensorSpec(dims, F32, layout)
    size = tensor.minimum_storage_bytes() if length is None else length
    default_access = TensorAccess.READ if role is ResolvedValueRole.INPUT else TensorAccess.WRITE
    return ResolvedValueBinding(
        ProgramValueId(value),
        role,
        ordinal,
        tensor,
        access or default_access,
        alias or NoAlias(),
        BufferUsage.ACTIVATIONS,
        None,
        ResolvedValueStorage.single(ResourceId(resource), offset, size, F32),
    )


def test_symbols_ranges_and_layouts() -> None:
    from reference.catalog import ContiguousLayout as ContiguousConstraint
    from reference.resolution import ContiguousLayout

    inp, out = ResolvedValueRole.INPUT, ResolvedValueRole.OUTPUT
    sym = SymbolDimension("n")
    op = _generic_op(
        [
            _contract([sym], [ContiguousConstraint()]),
            _contract([sym, RangeDimension(1, 4)], [StridedConstraint((SymbolStride("s"), ExactBytesStride(4)))]),
        ],
        [_contract([sym], [BlockedConstraint((2,), (0,))], TensorAccess.WRITE)],
    )
    good = [
        _bind("a", inp, 0, (6,), ContiguousLayout(), "r.a"),
        _bind("b", inp, 1, (6, 3), StridedLayout((16, 4)), "r.b"),
        _bind("c", out, 0, (6,), BlockedLayout((2,), (0,)), "r.c"),
    ]
    validate_resolved_bindings(op, good)
    mismatched_symbol = [good[0], _bind("b", inp, 1, (5, 3), StridedLayout((16, 4)), "r.b"), good[2]]
    raises_kind(EP, lambda: validate_resolved_bindings(op, mismatched_symbol))
    out_of_range = [good[0], _bind("b", inp, 1, (6, 5), StridedLayout((20, 4)), "r.b"), good[2]]
    raises_kind(EP, lambda: validate_resolved_bindings(op, out_of_range))
    wrong_exact_stride = [good[0], _bind("b", inp, 1, (6, 3), StridedLayout((16, 8)), "r.b"), good[2]]
    raises_kind(EP, lambda: validate_resolved_bindings(op, wrong_exact_stride))
    wrong_layout = [_bind("a", inp, 0, (6,), StridedLayout((4,)), "r.a"), *good[1:]]
    raises_kind(EP, lambda: validate_resolved_bindings(op, wrong_layout))
    wrong_block = [*good[:2], _bind("c", out, 0, (6,), BlockedLayout((3,), (0,)), "r.c")]
    raises_kind(EP, lambda: validate_resolved_bindings(op, wrong_block))


def test_input_sharing_and_output_aliasing() -> None:
    from reference.catalog import ContiguousLayout as ContiguousConstraint
    from reference.resolution import ContiguousLayout

    inp, out = ResolvedValueRole.INPUT, ResolvedValueRole.OUTPUT
    c = [ContiguousConstraint()]

    def op_with(alias):  # type: ignore[no-untyped-def]
        return _generic_op(
            [_contract([SymbolDimension("n")], c), _contract([SymbolDimension("n")], c)],
            [
                _contract([SymbolDimension("n")], c, TensorAccess.WRITE, alias),
                _contract([SymbolDimension("n")], c, TensorAccess.WRITE),
            ],
        )

    a = _bind("a", inp, 0, (4,), ContiguousLayout(), "r.a")
    b = _bind("b", inp, 1, (4,), ContiguousLayout(), "r.b")
    a_twice = _bind("a", inp, 1, (4,), ContiguousLayout(), "r.a")
    y = _bind("y", out, 1, (4,), ContiguousLayout(), "r.y")
    validate_resolved_bindings(op_with(None), [a, a_twice, _bind("x", out, 0, (4,), ContiguousLayout(), "r.x"), y])
    shared_bytes = _bind("b", inp, 1, (4,), ContiguousLayout(), "r.a", offset=8, length=16)
    raises_kind(
        EP,
        lambda: validate_resolved_bindings(
            op_with(None), [a, shared_bytes, _bind("x", out, 0, (4,), ContiguousLayout(), "r.x"), y]
        ),
    )
    onto_a = _bind("x", out, 0, (4,), ContiguousLayout(), "r.a")
    raises_kind(EP, lambda: validate_resolved_bindings(op_with(None), [a, b, onto_a, y]))
    may0 = MayAlias(0)
    onto_a_may = _bind("x", out, 0, (4,), ContiguousLayout(), "r.a", alias=may0)
    validate_resolved_bindings(op_with(may0), [a, b, onto_a_may, y])
    partial = _bind("x", out, 0, (4,), ContiguousLayout(), "r.a", offset=4, alias=may0)
    raises_kind(EP, lambda: validate_resolved_bindings(op_with(may0), [a, b, partial, y]))
    wrong_input = _bind("x", out, 0, (4,), ContiguousLayout(), "r.b", alias=may0)
    raises_kind(EP, lambda: validate_resolved_bindings(op_with(may0), [a, b, wrong_input, y]))
    must0 = MustAlias(0)
    validate_resolved_bindings(
        op_with(must0), [a, b, _bind("x", out, 0, (4,), ContiguousLayout(), "r.a", alias=must0), y]
    )
    not_aliasing = _bind("x", out, 0, (4,), ContiguousLayout(), "r.x", alias=must0)
    raises_kind(EP, lambda: validate_resolved_bindings(op_with(must0), [a, b, not_aliasing, y]))
    x = _bind("x", out, 0, (4,), ContiguousLayout(), "r.x")
    y_on_x = _bind("y", out, 1, (4,), ContiguousLayout(), "r.x", offset=12, length=16)
    raises_kind(EP, lambda: validate_resolved_bindings(op_with(None), [a, b, x, y_on_x]))
