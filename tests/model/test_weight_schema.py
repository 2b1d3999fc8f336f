"""WeightSchema: validation order and rules, layouts, physical bytes, normalize and fingerprint."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import schemas
from reference.canonical import direct_bytes, sha256_hex
from reference.errors import InvalidExecutionPlan, InvalidModelConfig, UnknownWeightLayout
from reference.ids import QuantizationFormatId, WeightId
from reference.model import layout_traversal
from reference.model.element import ElementType
from reference.model.layout_traversal import LayoutBudgetBreach, layout_budget_breach, layout_budget_failure
from reference.model.semantic_value import CanonicalRational
from reference.model.weight_encoding import (
    BlockQuantizationSpec,
    BlockQuantized,
    Dense,
    DenseAffine,
    QuantizationGrouping,
    WeightComponentRole,
)
from reference.model.weight_layout import (
    AxisReshapePermutationLayout,
    AxisWeightComponent,
    BlockQuantizedLayout,
    CompositeLayout,
    CompositeWeightPart,
    ExpertStackLayout,
    IndexedLayout,
    PhysicalWeightComponentBinding,
    QuantizedBlockGridLayout,
    QuantizedLayout,
    StoredLayout,
)
from reference.model.weight_schema import WeightSchema
from reference.model.weight_storage import ContiguousStorage, PhysicalWeightPadding, StridedStorage, TiledStorage

from .builders import (
    FID,
    box_partitions,
    component,
    composite_schema,
    dense,
    prepare_with_schema,
    qspec,
    quantized,
    schema,
    schema_with_extra,
    single_dense_schema,
    tensor,
    with_axis,
)

R = WeightComponentRole
E = ElementType


def bind(cid: str, storage: Any = None) -> PhysicalWeightComponentBinding:
    return PhysicalWeightComponentBinding(WeightId(cid), storage or ContiguousStorage())


def field_of(weight_schema: WeightSchema) -> str:
    with pytest.raises(InvalidModelConfig) as info:
        weight_schema.validate(FID)
    assert info.value.family_id == FID
    return info.value.field


LAYOUT = "weight_schema.tensors.t.physical_layout"


def assert_layout_rejected(weight_schema: WeightSchema) -> InvalidModelConfig:
    with pytest.raises(InvalidModelConfig) as info:
        weight_schema.validate(FID)
    assert info.value.field == LAYOUT
    return info.value


# --------------------------------------------------------------------------- rule 1


@pytest.mark.parametrize(
    "broken",
    [
        lambda s: replace(s, version=replace(s.version, major=0)),
        lambda s: replace(s, components=()),
        lambda s: replace(s, tensors=()),
    ],
)
def test_unknown_weight_layout(broken: Any) -> None:
    with pytest.raises(UnknownWeightLayout) as info:
        broken(single_dense_schema()).validate("family.x")
    assert (info.value.family_id, info.value.layout_id) == ("family.x", "weight-layout.test")


# --------------------------------------------------------------------------- rule 3: components


@pytest.mark.parametrize(
    "components",
    [
        [component("c", [4]), component("c", [4], names=["other"])],
        [component("c", [4], names=[])],
        [component("c", [])],
        [component("c", [4], names=["  "])],
        [component("c", [4], names=["\u2003\u00a0"])],
        [component("c", [4], names=["a", "a"])],
        [component("c", [4], names=["a"]), component("d", [4], names=["a"], required=False)],
        [component("c", [4, 0])],
    ],
)
def test_component_shape_and_name_rules(components: list[Any]) -> None:
    assert field_of(schema(components, [tensor("t", [4], dense("c"))])) == "weight_schema.components"


def test_python_only_whitespace_is_not_blank_for_rust() -> None:
    # U+001C is stripped by Python's str.strip() but is not Rust White_Space.
    single_dense = schema([component("c", [4], names=["\u001c"])], [tensor("t", [4], dense("c"))])
    single_dense.validate(FID)


def test_conflicting_quantization_abis() -> None:
    a = component("a", [16], quantized(qspec(bits=4)), R.PACKED_VALUES)
    b = component("b", [16], quantized(qspec(bits=8)), R.PACKED_VALUES, required=False)
    with pytest.raises(InvalidModelConfig) as info:
        schema([a, b], [tensor("t", [4], dense("c"))]).validate(FID)
    assert info.value.field == "weight_schema.components.encoding"
    assert "conflicting physical ABIs" in info.value.reason
    # identical encodings under one format id are fine as far as this rule goes
    same = component("b", [16], quantized(qspec(bits=4)), R.PACKED_VALUES, required=False)
    values = component("c", [4])
    schema([replace(a, required=False), same, values], [tensor("t", [4], dense("c"))]).validate(FID)


@pytest.mark.parametrize(
    ("role", "encoding"),
    [
        (R.SCALES, DenseAffine(E.F16, CanonicalRational(1, 1), CanonicalRational(0, 1))),
        (R.VALUES, DenseAffine(E.I8, CanonicalRational(1, 1), CanonicalRational(0, 1))),
        (R.SCALES, Dense(E.I32)),
        (R.INDICES, Dense(E.F32)),
        (R.ZERO_POINTS, Dense(E.F16)),
        (R.PERMUTATION, Dense(E.BOOL)),
        (R.PACKED_VALUES, Dense(E.U8)),
        (R.INDICES, DenseAffine(E.F32, CanonicalRational(1, 1), CanonicalRational(0, 1))),
    ],
)
def test_role_encoding_mismatches(role: WeightComponentRole, encoding: Any) -> None:
    extra = component("x", [4], encoding, role, required=False)
    assert field_of(schema([component("c", [4]), extra], [tensor("t", [4], dense("c"))])) == (
        "weight_schema.components.encoding"
    )


@pytest.mark.parametrize(
    ("role", "encoding"),
    [
        (R.SCALES, Dense(E.U8)),
        (R.SCALES, Dense(E.BF16)),
        (R.ZERO_POINTS, Dense(E.I8)),
        (R.PERMUTATION, Dense(E.U32)),
        (R.CODEBOOK, Dense(E.BOOL)),
        (R.METADATA, quantized(qspec())),
        (R.VALUES, DenseAffine(E.BF16, CanonicalRational(2, 4), CanonicalRational(0, 1))),
    ],
)
def test_role_encoding_accepted(role: WeightComponentRole, encoding: Any) -> None:
    extra = component("x", [4], encoding, role, required=False)
    schema([component("c", [4]), extra], [tensor("t", [4], dense("c"))]).validate(FID)


@pytest.mark.parametrize(
    "spec",
    [
        qspec(bits=0),
        qspec(bits=9),
        qspec(grouping=QuantizationGrouping.fixed(6)),
        qspec(grouping=QuantizationGrouping.fixed(0)),
        qspec(scale=E.I32),
        qspec(scale=E.U8),
        qspec(zero=E.F16),
        qspec(grouping=QuantizationGrouping.block2d(3, 4)),
    ],
)
def test_invalid_quantization_spec_is_bare_invalid_execution_plan(spec: Any) -> None:
    extra = component("x", [4], quantized(spec), R.PACKED_VALUES, required=False)
    with pytest.raises(InvalidExecutionPlan):
        schema([component("c", [4]), extra], [tensor("t", [4], dense("c"))]).validate(FID)


@pytest.mark.parametrize(
    "spec",
    [
        BlockQuantizationSpec(QuantizationFormatId("q.b"), 0, 10),
        BlockQuantizationSpec(QuantizationFormatId("q.b"), 10, 0),
    ],
)
def test_invalid_block_spec(spec: BlockQuantizationSpec) -> None:
    extra = component("x", [4], BlockQuantized(spec), R.PACKED_VALUES, required=False)
    with pytest.raises(InvalidExecutionPlan):
        schema([component("c", [4]), extra], [tensor("t", [4], dense("c"))]).validate(FID)


def test_physical_bytes_overflow_is_a_dimensions_error() -> None:
    extra = component("x", [2**32, 2**32], Dense(E.U8), required=False)
    assert field_of(schema([component("c", [4]), extra], [tensor("t", [4], dense("c"))])) == (
        "weight_schema.components.dimensions"
    )
    wide = component("x", [2**62, 4], Dense(E.U8), required=False)
    assert field_of(schema([component("c", [4]), wide], [tensor("t", [4], dense("c"))])) == (
        "weight_schema.components.dimensions"
    )


def test_required_component_must_be_referenced() -> None:
    unreferenced = component("x", [4])
    assert field_of(schema([component("c", [4]), unreferenced], [tensor("t", [4], dense("c"))])) == (
        "weight_schema.components"
    )
    schema([component("c", [4]), replace(unreferenced, required=False)], [tensor("t", [4], dense("c"))]).validate(FID)


# --------------------------------------------------------------------------- rule 4: tensors and layouts


@pytest.mark.parametrize(
    "tensors",
    [
        [tensor("t", [4], dense("c")), tensor("t", [4], dense("d"))],
        [tensor("t", [], dense("c"))],
        [tensor("t", [4, 0], dense("c"))],
    ],
)
def test_tensor_rules(tensors: list[Any]) -> None:
    comps = [component("c", [4]), component("d", [4], required=False)]
    assert field_of(schema(comps, tensors)) == "weight_schema.tensors"


def test_component_bound_twice_is_rejected() -> None:
    twice = schema([component("c", [4])], [tensor("t", [4], dense("c")), tensor("u", [4], dense("c"))])
    with pytest.raises(InvalidModelConfig) as info:
        twice.validate(FID)
    assert info.value.field == "weight_schema.tensors.u.physical_layout"
    assert "referenced more than once" in info.value.reason
    parts = CompositeLayout((CompositeWeightPart(dense("c"), (0,), (2,)), CompositeWeightPart(dense("c"), (2,), (2,))))
    assert (
        "referenced more than once"
        in assert_layout_rejected(schema([component("c", [2])], [tensor("t", [4], parts)])).reason
    )
    experts = ExpertStackLayout((dense("c"), dense("c")), 0)
    assert (
        "referenced more than once"
        in assert_layout_rejected(schema([component("c", [4])], [tensor("t", [2, 4], experts)])).reason
    )


@pytest.mark.parametrize(
    "weight_schema",
    [
        schema([component("c", [4])], [tensor("t", [4], dense("missing"))]),
        schema([component("c", [4], Dense(E.F16))], [tensor("t", [4], dense("c"))]),
        schema([component("c", [5])], [tensor("t", [4], dense("c"))]),
        schema([component("c", [2, 2])], [tensor("t", [4], dense("c"))]),
        schema([component("c", [4], role=R.METADATA)], [tensor("t", [4], dense("c"))]),
    ],
)
def test_dense_binding_failures(weight_schema: WeightSchema) -> None:
    assert_layout_rejected(weight_schema)


def test_dense_affine_counts_with_its_element_type() -> None:
    affine = DenseAffine(E.BF16, CanonicalRational(1, 2), CanonicalRational(0, 1))
    schema([component("c", [4], affine)], [tensor("t", [4], dense("c"), E.BF16)]).validate(FID)


# composite


@given(box_partitions(), st.randoms(use_true_random=False))
def test_exact_partitions_are_accepted_in_any_order(partition: Any, rnd: Any) -> None:
    shape, boxes = partition
    weight_schema = composite_schema(shape, boxes)
    weight_schema.validate(FID)
    shuffled_boxes = list(enumerate(boxes))
    rnd.shuffle(shuffled_boxes)
    components = list(weight_schema.components)
    rnd.shuffle(components)
    parts = [CompositeWeightPart(dense(f"part.{i}"), o, e) for i, (o, e) in shuffled_boxes]
    shuffled = replace(
        weight_schema, components=tuple(components), tensors=(tensor("t", shape, CompositeLayout(tuple(parts))),)
    )
    shuffled.validate(FID)
    assert shuffled.normalize() == weight_schema.normalize()
    assert shuffled.normalize().fingerprint() == weight_schema.normalize().fingerprint()


@given(box_partitions(max_cuts=3), st.data())
def test_broken_partitions_are_rejected(partition: Any, data: Any) -> None:
    shape, boxes = partition
    index = data.draw(st.integers(0, len(boxes) - 1))
    offsets, extents = boxes[index]
    axis = data.draw(st.integers(0, len(shape) - 1))
    mutation = data.draw(st.sampled_from(["grow", "shrink", "shift", "drop", "rank", "zero"]))
    if mutation == "shrink" and extents[axis] == 1:
        mutation = "zero"
    if mutation == "drop" and len(boxes) == 1:
        mutation = "empty"
    if mutation == "grow":
        extents = with_axis(extents, axis, extents[axis] + 1)
    elif mutation == "shrink":
        extents = with_axis(extents, axis, extents[axis] - 1)
    elif mutation == "shift":
        offsets = with_axis(offsets, axis, offsets[axis] + 1)
    elif mutation == "rank":
        offsets, extents = (*offsets, 0), (*extents, 1)
    elif mutation == "zero":
        extents = with_axis(extents, axis, 0)
    broken = list(boxes)
    if mutation in ("drop", "empty"):
        del broken[index]
    else:
        broken[index] = (offsets, extents)
    comps = [component(f"part.{i}", e if 0 not in e else (1,)) for i, (_, e) in enumerate(broken)]
    parts = tuple(CompositeWeightPart(dense(f"part.{i}"), o, e) for i, (o, e) in enumerate(broken))
    weight_schema = schema(comps or [component("c", [1], required=False)], [tensor("t", shape, CompositeLayout(parts))])
    assert_layout_rejected(weight_schema)


def test_composite_child_sees_part_extents() -> None:
    parts = CompositeLayout(
        (CompositeWeightPart(dense("a"), (0, 0), (1, 4)), CompositeWeightPart(dense("b"), (1, 0), (1, 4)))
    )
    schema([component("a", [1, 4]), component("b", [1, 4])], [tensor("t", [2, 4], parts)]).validate(FID)
    assert_layout_rejected(schema([component("a", [4]), component("b", [1, 4])], [tensor("t", [2, 4], parts)]))


def nested_composites(depth: int) -> WeightSchema:
    layout: Any = dense("c")
    for _ in range(depth - 1):
        layout = CompositeLayout((CompositeWeightPart(layout, (0,), (4,)),))
    return schema([component("c", [4])], [tensor("t", [4], layout)])


def test_depth_boundary() -> None:
    nested_composites(16).validate(FID)
    assert "depth" in assert_layout_rejected(nested_composites(17)).reason
    with pytest.raises(InvalidModelConfig) as info:
        prepare_with_schema(
            schema_with_extra([], [replace(nested_composites(17).tensors[0], id=WeightId("t"), required=False)])
        )
    assert info.value.field == LAYOUT


def expert_stack(count: int) -> WeightSchema:
    comps = [component(f"e.{i:05d}", [4]) for i in range(count)]
    layout = ExpertStackLayout(tuple(dense(f"e.{i:05d}") for i in range(count)), 0)
    return schema(comps, [tensor("t", [count, 4], layout)])


def test_node_budget_boundary() -> None:
    assert layout_budget_failure(expert_stack(2047).tensors[0].physical_layout) is None
    expert_stack(2047).validate(FID)
    for count in (2048, 2049):
        assert "nodes" in (layout_budget_failure(expert_stack(count).tensors[0].physical_layout) or "")
        assert "nodes" in assert_layout_rejected(expert_stack(count)).reason


def _budget_trees() -> st.SearchStrategy[Any]:
    """Layout trees of dense leaves under expert stacks and composites (the budget pass ignores geometry)."""
    leaf = st.just(dense("c"))
    return st.recursive(
        leaf,
        lambda children: st.lists(children, min_size=1, max_size=5).flatmap(
            lambda items: st.sampled_from(
                [
                    ExpertStackLayout(tuple(items), 0),
                    CompositeLayout(tuple(CompositeWeightPart(item, (0,), (1,)) for item in items)),
                ]
            )
        ),
        max_leaves=20,
    )


def _depth_and_count(layout: Any) -> tuple[int, int]:
    """The tree's depth (the root is 1) and its budget count (1 per node, + 1 per dense leaf's binding)."""
    children = layout_traversal.layout_children(layout)
    if not children:
        return 1, 2
    measured = [_depth_and_count(child) for child in children]
    return 1 + max(depth for depth, _ in measured), 1 + sum(count for _, count in measured)


@given(tree=_budget_trees(), depth=st.integers(1, 6), nodes=st.integers(1, 40))
def test_the_push_test_never_changes_acceptance(tree: Any, depth: int, nodes: int) -> None:
    """02 §8.5: a tree passes the budget pass exactly when its depth and count are within the limits; the push
    test only refuses earlier a tree the visited count or the depth check refuses later (limits scaled down)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(layout_traversal, "MAX_PHYSICAL_WEIGHT_LAYOUT_DEPTH", depth)
        patch.setattr(layout_traversal, "MAX_PHYSICAL_WEIGHT_LAYOUT_NODES", nodes)
        breach = layout_budget_breach(tree)
    tree_depth, count = _depth_and_count(tree)
    assert (breach is None) == (tree_depth <= depth and count <= nodes), (breach, tree_depth, count)


def test_each_budget_check_is_told_apart() -> None:
    """The depth check, the visited count and the push test each name themselves; the two node checks share
    one text."""
    deep = dense("c")
    for _ in range(16):
        deep = CompositeLayout((CompositeWeightPart(deep, (0,), (1,)),))
    assert layout_budget_breach(deep) is LayoutBudgetBreach.DEPTH
    assert layout_budget_breach(expert_stack(2048).tensors[0].physical_layout) is LayoutBudgetBreach.NODES
    wide = ExpertStackLayout((dense("c"),) * 4096, 0)
    assert layout_budget_breach(wide) is LayoutBudgetBreach.PUSH
    assert LayoutBudgetBreach.PUSH.failure == LayoutBudgetBreach.NODES.failure != LayoutBudgetBreach.DEPTH.failure


def test_expert_order_is_semantic() -> None:
    base = expert_stack(3)
    layout = base.tensors[0].physical_layout
    assert isinstance(layout, ExpertStackLayout)
    swapped = replace(
        base,
        tensors=(
            replace(
                base.tensors[0],
                physical_layout=replace(layout, experts=(layout.experts[1], layout.experts[0], layout.experts[2])),
            ),
        ),
    )
    swapped.validate(FID)
    assert swapped.normalize().fingerprint() != base.normalize().fingerprint()
    assert direct_bytes(swapped.normalize().to_wire()) != direct_bytes(base.normalize().to_wire())


def test_expert_stack_rules() -> None:
    assert_layout_rejected(schema([component("c", [4])], [tensor("t", [4], ExpertStackLayout((dense("c"),), 0))]))
    two = expert_stack(2)
    assert_layout_rejected(replace(two, tensors=(tensor("t", [3, 4], two.tensors[0].physical_layout),)))
    assert_layout_rejected(
        replace(
            expert_stack(2), tensors=(tensor("t", [2, 4], ExpertStackLayout((dense("e.00000"), dense("e.00001")), 2)),)
        )
    )


# strided / tiled / padding


def test_documented_strided_and_tiled_examples() -> None:
    tiled = TiledStorage((2, 3), (1, 0), (12, 6))
    schema([component("c", [6, 4])], [tensor("t", [4, 6], StoredLayout(bind("c", tiled)))]).validate(FID)
    strided = StridedStorage((4, 1), PhysicalWeightPadding((2, 4)))
    schema([component("c", [8])], [tensor("t", [2, 3], StoredLayout(bind("c", strided)))]).validate(FID)


@pytest.mark.parametrize(
    ("raw", "storage", "shape"),
    [
        ([8], StridedStorage((4, 2), PhysicalWeightPadding((2, 4))), [2, 3]),
        ([7], StridedStorage((4, 1), PhysicalWeightPadding((2, 4))), [2, 3]),
        ([8], StridedStorage((4, 1), PhysicalWeightPadding((2, 3))), [2, 3]),
        ([8], StridedStorage((4, 1), PhysicalWeightPadding((1, 4))), [2, 3]),
        ([6], StridedStorage((3,)), [2, 3]),
        ([6, 4], TiledStorage((2, 3), (1, 0), (6, 6)), [4, 6]),
        ([6, 4], TiledStorage((2, 3), (0, 0), (12, 6)), [4, 6]),
        ([6, 4], TiledStorage((2, 4), (1, 0), (12, 6)), [4, 6]),
        ([8, 4], TiledStorage((2, 4), (1, 0), (16, 8), PhysicalWeightPadding((4, 12))), [4, 6]),
        ([4, 6], ContiguousStorage(PhysicalWeightPadding((4, 6))), [4, 6]),
    ],
)
def test_bad_geometry_is_rejected(raw: list[int], storage: Any, shape: list[int]) -> None:
    assert_layout_rejected(schema([component("c", raw)], [tensor("t", shape, StoredLayout(bind("c", storage)))]))


def test_minimal_tile_padding_is_accepted() -> None:
    storage = TiledStorage((2, 4), (1, 0), (16, 8), PhysicalWeightPadding((4, 8)))
    schema([component("c", [32])], [tensor("t", [4, 6], StoredLayout(bind("c", storage)))]).validate(FID)
    contiguous = ContiguousStorage(PhysicalWeightPadding((4, 8)))
    schema([component("c", [4, 8])], [tensor("t", [4, 6], StoredLayout(bind("c", contiguous)))]).validate(FID)


# quantized


def worked_quantized(**overrides: Any) -> WeightSchema:
    spec = qspec(bits=4, grouping=QuantizationGrouping.fixed(4), scale=E.F16, zero=E.U8)
    comps = [
        component("packed", [4, 8], quantized(spec), R.PACKED_VALUES),
        component("scales", [8, 2], Dense(E.F16), R.SCALES),
        component("zeros", [8, 2], Dense(E.U8), R.ZERO_POINTS),
        component("idx", [8], Dense(E.I32), R.INDICES),
    ]
    layout = QuantizedLayout(
        bind("packed"),
        (4, 8),
        bind("scales"),
        bind("zeros"),
        None,
        AxisWeightComponent(bind("idx"), 1),
        None,
        None,
        1,
    )
    layout = replace(layout, **overrides)
    return schema(comps, [tensor("t", [8, 8], layout, E.F16)])


def test_quantized_worked_example_is_112_bytes() -> None:
    weight_schema = worked_quantized()
    weight_schema.validate(FID)
    assert weight_schema.physical_bytes(WeightId("t")) == 112
    refs = weight_schema.physical_resource_requirements(WeightId("t"))
    assert [(r.component_id.value, r.resource_bytes, r.element_type.value) for r in refs] == [
        ("packed", 32, "u8"),
        ("scales", 32, "f16"),
        ("zeros", 16, "u8"),
        ("idx", 32, "i32"),
    ]
    for ref in refs:
        schemas.validate("model/physical_weight_component_ref.json", ref.to_wire())


@pytest.mark.parametrize(
    "overrides",
    [
        {"packed_dimensions": (2, 16)},
        {"packed_dimensions": (4, 4)},
        {"zero_points": None},
        {"zero_point_packed_dimensions": (8, 2)},
        {"group_axis": 2},
        {"axis_indices": AxisWeightComponent(bind("idx"), 0)},
    ],
)
def test_quantized_rejections(overrides: dict[str, Any]) -> None:
    assert_layout_rejected(worked_quantized(**overrides))


def test_quantized_logical_type_must_be_float() -> None:
    weight_schema = worked_quantized()
    assert_layout_rejected(
        replace(weight_schema, tensors=(replace(weight_schema.tensors[0], logical_element_type=E.I8),))
    )


def test_zero_point_presence_matrix() -> None:
    for zero_type in (None, E.U8):
        for present in (False, True):
            spec = qspec(bits=4, grouping=QuantizationGrouping.fixed(4), scale=E.F16, zero=zero_type)
            comps = [
                component("packed", [4, 8], quantized(spec), R.PACKED_VALUES),
                component("scales", [8, 2], Dense(E.F16), R.SCALES),
                component("zeros", [8, 2], Dense(E.U8), R.ZERO_POINTS, required=False),
            ]
            layout = QuantizedLayout(
                bind("packed"), (4, 8), bind("scales"), bind("zeros") if present else None, group_axis=1
            )
            weight_schema = schema(comps, [tensor("t", [8, 8], layout, E.F16)])
            if (zero_type is None) == (not present):
                weight_schema.validate(FID)
            else:
                assert_layout_rejected(weight_schema)


def test_packed_zero_points() -> None:
    spec = qspec(bits=4, grouping=QuantizationGrouping.fixed(4), scale=E.F16, zero=E.U8)
    comps = [
        component("packed", [4, 8], quantized(spec), R.PACKED_VALUES),
        component("scales", [8, 2], Dense(E.F16), R.SCALES),
        component("zeros", [8], Dense(E.U8), R.ZERO_POINTS),
    ]
    layout = QuantizedLayout(bind("packed"), (4, 8), bind("scales"), bind("zeros"), (8,), group_axis=1)
    schema(comps, [tensor("t", [8, 8], layout, E.F16)]).validate(FID)
    wrong = replace(comps[2], dimensions=(16,))
    bad_layout = replace(layout, zero_point_packed_dimensions=(16,))
    assert_layout_rejected(schema([comps[0], comps[1], wrong], [tensor("t", [8, 8], bad_layout, E.F16)]))


def test_codebook_and_permutation() -> None:
    spec = qspec(bits=2, grouping=QuantizationGrouping.whole_axis(), scale=E.F32)
    comps = [
        component("packed", [8], quantized(spec), R.PACKED_VALUES),
        component("scales", [4, 1], Dense(E.F32), R.SCALES),
        component("perm", [8], Dense(E.U32), R.PERMUTATION),
        component("book", [4], Dense(E.F32), R.CODEBOOK),
    ]
    layout = QuantizedLayout(
        bind("packed"),
        (8,),
        bind("scales"),
        permutation=AxisWeightComponent(bind("perm"), 1),
        codebook=bind("book"),
        group_axis=1,
    )
    schema(comps, [tensor("t", [4, 8], layout)]).validate(FID)
    narrow = replace(comps[2], encoding=Dense(E.U8))
    assert_layout_rejected(schema([comps[0], comps[1], narrow, comps[3]], [tensor("t", [4, 8], layout)]))


def test_grouped_zero_fill_must_be_the_unique_minimal_padding() -> None:
    spec = qspec(bits=8, grouping=QuantizationGrouping.fixed(4), scale=E.F16)

    def build(padding: Any, packed: int, scales: int) -> WeightSchema:
        comps = [
            component("packed", [packed], quantized(spec), R.PACKED_VALUES),
            component("scales", [2, scales], Dense(E.F16), R.SCALES),
        ]
        layout = QuantizedLayout(bind("packed"), (packed,), bind("scales"), group_axis=1, group_padding=padding)
        return schema(comps, [tensor("t", [2, 6], layout)])

    build(PhysicalWeightPadding((2, 8)), 16, 2).validate(FID)
    assert_layout_rejected(build(PhysicalWeightPadding((2, 12)), 24, 3))
    assert_layout_rejected(build(PhysicalWeightPadding((3, 8)), 24, 2))
    assert_layout_rejected(build(PhysicalWeightPadding(), 12, 2))


def test_block_grid() -> None:
    spec = qspec(bits=8, grouping=QuantizationGrouping.block2d(2, 4), scale=E.F32)
    comps = [
        component("packed", [4, 8], quantized(spec), R.PACKED_VALUES),
        component("scales", [2, 2], Dense(E.F32), R.SCALES),
    ]
    layout = QuantizedBlockGridLayout(bind("packed"), (4, 8), bind("scales"), (0, 1))
    schema(comps, [tensor("t", [4, 8], layout)]).validate(FID)
    assert_layout_rejected(schema(comps, [tensor("t", [4, 8], replace(layout, block_axes=(1, 0)))]))
    with_zero = replace(comps[0], encoding=quantized(replace(spec, zero_point_type=E.U8)))
    assert_layout_rejected(schema([with_zero, comps[1]], [tensor("t", [4, 8], layout)]))


# block quantized


def block_schema(padding: PhysicalWeightPadding, dims: list[int], dtype: ElementType = E.F32) -> WeightSchema:
    spec = BlockQuantizationSpec(QuantizationFormatId("q.gguf.q4-k"), 256, 144)
    comps = [component("blocks", dims, BlockQuantized(spec), R.PACKED_VALUES)]
    return schema(comps, [tensor("t", [2, 300], BlockQuantizedLayout(bind("blocks"), 1, padding), dtype)])


def test_block_quantized_padding() -> None:
    block_schema(PhysicalWeightPadding((2, 512)), [2, 2]).validate(FID)
    assert block_schema(PhysicalWeightPadding((2, 512)), [2, 2]).physical_bytes(WeightId("t")) == 576
    assert_layout_rejected(block_schema(PhysicalWeightPadding((2, 768)), [2, 3]))
    assert_layout_rejected(block_schema(PhysicalWeightPadding(), [2, 2]))
    assert_layout_rejected(block_schema(PhysicalWeightPadding((2, 512)), [2, 2], E.I32))


def test_gguf_mixed_composite_is_996_bytes() -> None:
    q4 = BlockQuantized(BlockQuantizationSpec(QuantizationFormatId("q.gguf.q4-k"), 256, 144))
    q6 = BlockQuantized(BlockQuantizationSpec(QuantizationFormatId("q.gguf.q6-k"), 256, 210))
    comps = [component("q4", [4, 1], q4, R.PACKED_VALUES), component("q6", [2, 1], q6, R.PACKED_VALUES)]
    parts = (
        CompositeWeightPart(BlockQuantizedLayout(bind("q4"), 1), (0, 0), (4, 256)),
        CompositeWeightPart(BlockQuantizedLayout(bind("q6"), 1), (4, 0), (2, 256)),
    )
    weight_schema = schema(comps, [tensor("t", [6, 256], CompositeLayout(parts), E.F16)])
    weight_schema.validate(FID)
    assert weight_schema.physical_bytes(WeightId("t")) == 996
    assert [f.value for f in weight_schema.quantization_formats()] == ["q.gguf.q4-k", "q.gguf.q6-k"]


def test_recursive_quantized_expert_stack_is_160_bytes() -> None:
    spec = qspec(bits=4, grouping=QuantizationGrouping.fixed(4), scale=E.F16, zero=E.U8)
    comps = []
    experts = []
    for e in range(2):
        comps += [
            component(f"p{e}", [4, 8], quantized(spec), R.PACKED_VALUES),
            component(f"s{e}", [8, 2], Dense(E.F16), R.SCALES),
            component(f"z{e}", [8, 2], Dense(E.U8), R.ZERO_POINTS),
        ]
        experts.append(QuantizedLayout(bind(f"p{e}"), (4, 8), bind(f"s{e}"), bind(f"z{e}"), group_axis=1))
    weight_schema = schema(comps, [tensor("t", [2, 8, 8], ExpertStackLayout(tuple(experts), 0), E.F16)])
    weight_schema.validate(FID)
    assert weight_schema.physical_bytes(WeightId("t")) == 160
    assert len(weight_schema.physical_component_refs(WeightId("t"))) == 6


# reshape / indexed


def reshape(**overrides: Any) -> WeightSchema:
    layout = AxisReshapePermutationLayout(dense("c"), 0, 0, 6, (2, 3), (1, 0))
    return schema([component("c", [6, 4])], [tensor("t", [6, 4], replace(layout, **overrides))])


def test_axis_reshape_permutation() -> None:
    reshape().validate(FID)
    for overrides in (
        {"stored_axis_order": (0, 0)},
        {"stored_axis_order": (0, 1)},
        {"reshape": (1, 6), "stored_axis_order": (1, 0)},
        {"reshape": (2, 2)},
        {"logical_offset": 1},
        {"stored_axis_order": (2, 0)},
        {"stored_axis_order": (7, 0)},
        {"reshape": (6,), "stored_axis_order": (0,)},
        {"extent": 0},
        {"axis": 2},
    ):
        assert_layout_rejected(reshape(**overrides))
    size_one = AxisReshapePermutationLayout(dense("c"), 0, 0, 6, (2, 1, 3), (2, 1, 0))
    schema([component("c", [6, 4])], [tensor("t", [6, 4], size_one)]).validate(FID)


def test_indexed() -> None:
    layout = IndexedLayout(AxisWeightComponent(bind("idx"), 0), dense("c"), 10)
    comps = [component("idx", [4], Dense(E.U8), R.INDICES), component("c", [10, 3])]
    schema(comps, [tensor("t", [4, 3], layout)]).validate(FID)
    assert_layout_rejected(schema(comps, [tensor("t", [4, 3], replace(layout, source_axis_extent=0))]))
    assert_layout_rejected(schema([comps[0], component("c", [4, 3])], [tensor("t", [4, 3], layout)]))


# --------------------------------------------------------------------------- bytes, queries, normalize


@given(st.lists(st.integers(1, 2**20), min_size=1, max_size=4), st.sampled_from(list(ElementType)))
def test_dense_physical_bytes_formula(dims: list[int], dtype: ElementType) -> None:
    expected = dtype.size_bytes
    for d in dims:
        expected *= d
    spec = component("c", dims, Dense(dtype))
    if expected > 2**64 - 1:
        with pytest.raises(InvalidExecutionPlan):
            spec.physical_bytes()
    else:
        assert spec.physical_bytes() == expected


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        (component("c", [4], Dense(E.F32)), 16),
        (component("c", [4, 8], quantized(qspec()), R.PACKED_VALUES), 32),
        (component("c", [8, 2], Dense(E.F16), R.SCALES), 32),
        (component("c", [2, 2], BlockQuantized(BlockQuantizationSpec(QuantizationFormatId("q4"), 256, 144))), 576),
        (
            component("c", [8192, 10], BlockQuantized(BlockQuantizationSpec(QuantizationFormatId("q5"), 256, 176))),
            14_417_920,
        ),
    ],
)
def test_documented_physical_bytes(spec: Any, expected: int) -> None:
    assert spec.physical_bytes() == expected


def test_physical_bytes_never_wrap() -> None:
    fits = component("c", [2**20, 2**30], BlockQuantized(BlockQuantizationSpec(QuantizationFormatId("q"), 1, 2**13)))
    assert fits.physical_bytes() == 2**63
    wraps = replace(fits, encoding=BlockQuantized(BlockQuantizationSpec(QuantizationFormatId("q"), 1, 2**14)))
    with pytest.raises(InvalidExecutionPlan):
        wraps.physical_bytes()
    with pytest.raises(InvalidExecutionPlan):
        component("c", [2**32, 2**32]).physical_bytes()


def test_component_refs_follow_schema_order_and_reject_unknown() -> None:
    parts = CompositeLayout((CompositeWeightPart(dense("z"), (0,), (2,)), CompositeWeightPart(dense("a"), (2,), (2,))))
    weight_schema = schema([component("z", [2]), component("a", [2])], [tensor("t", [4], parts)])
    assert [c.id.value for c in weight_schema.physical_component_refs(WeightId("t"))] == ["z", "a"]
    assert [c.id.value for c in weight_schema.normalize().physical_component_refs(WeightId("t"))] == ["a", "z"]
    with pytest.raises(InvalidExecutionPlan):
        weight_schema.physical_component_refs(WeightId("missing"))
    dangling = schema([component("a", [2])], [tensor("t", [4], parts)])
    with pytest.raises(InvalidExecutionPlan):
        dangling.physical_component_refs(WeightId("t"))


@given(box_partitions())
def test_normalize_is_idempotent_and_preserves_acceptance(partition: Any) -> None:
    shape, boxes = partition
    weight_schema = composite_schema(shape, list(reversed(boxes)))
    once = weight_schema.normalize()
    assert once.normalize() == once
    once.validate(FID)
    weight_schema.validate(FID)


def test_fingerprint_is_declaration_order_sha_and_not_normalized() -> None:
    weight_schema = composite_schema((4,), [((2,), (2,)), ((0,), (2,))])
    assert weight_schema.fingerprint() == sha256_hex(direct_bytes(weight_schema.to_wire()))
    assert weight_schema.fingerprint() != weight_schema.normalize().fingerprint()
    assert list(weight_schema.to_wire()) == ["format_id", "layout_id", "version", "components", "tensors"]


def test_wire_round_trip_and_schema() -> None:
    for weight_schema in (
        worked_quantized(),
        reshape(),
        block_schema(PhysicalWeightPadding((2, 512)), [2, 2]),
        expert_stack(3),
    ):
        wire = weight_schema.to_wire()
        schemas.validate("model/weight_schema.json", wire)
        assert WeightSchema.from_wire(wire) == weight_schema


def test_decode_ignores_unknown_keys_and_rejects_bad_shapes() -> None:
    wire = single_dense_schema().to_wire()
    wire["note"] = "ignored"
    wire["components"][0]["extra"] = 1
    assert WeightSchema.from_wire(wire) == single_dense_schema()
    from reference.errors import Serialization

    bad = single_dense_schema().to_wire()
    bad["components"][0]["encoding"] = {
        "quantized": {**qspec().to_wire(), "grouping": {"kind": "block2d", "block_shape": [0, 4]}}
    }
    with pytest.raises(Serialization):
        WeightSchema.from_wire(bad)
    bad["components"][0]["dimensions"] = [-1]
    with pytest.raises(Serialization):
        WeightSchema.from_wire(bad)
