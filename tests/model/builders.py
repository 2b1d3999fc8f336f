"""Small builders and Hypothesis strategies for model-layer tests."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hypothesis import strategies as st

from reference.ids import QuantizationFormatId, WeightFormatId, WeightId, WeightLayoutId
from reference.model.element import ElementType
from reference.model.prepared import PreparedModelFamily
from reference.model.registration import TypedFamilyRegistration
from reference.model.weight_encoding import (
    Dense,
    QuantizationGrouping,
    QuantizationPacking,
    QuantizationSpec,
    Quantized,
    WeightComponentRole,
    WeightComponentSpec,
    WeightEncoding,
)
from reference.model.weight_layout import CompositeLayout, CompositeWeightPart, DenseLayout, PhysicalWeightLayout
from reference.model.weight_schema import WeightSchema, WeightTensorSpec
from reference.versions import ContractVersion
from seeds.families import FIXTURE_PROFILE, FixedSchemaFamily, TestFamily

FID = "family.test"
V10 = ContractVersion(1, 0)


def component(
    cid: str,
    dims: Sequence[int],
    encoding: WeightEncoding | None = None,
    role: WeightComponentRole = WeightComponentRole.VALUES,
    names: Sequence[str] | None = None,
    required: bool = True,
) -> WeightComponentSpec:
    return WeightComponentSpec(
        WeightId(cid),
        role,
        tuple(names) if names is not None else (f"src.{cid}",),
        tuple(dims),
        encoding or Dense(ElementType.F32),
        required,
    )


def tensor(
    tid: str,
    dims: Sequence[int],
    layout: PhysicalWeightLayout,
    dtype: ElementType = ElementType.F32,
    required: bool = True,
) -> WeightTensorSpec:
    return WeightTensorSpec(WeightId(tid), tuple(dims), dtype, layout, required)


def schema(components: Sequence[WeightComponentSpec], tensors: Sequence[WeightTensorSpec]) -> WeightSchema:
    return WeightSchema(
        WeightFormatId("weight-format.test"),
        WeightLayoutId("weight-layout.test"),
        V10,
        tuple(components),
        tuple(tensors),
    )


def dense(cid: str) -> DenseLayout:
    return DenseLayout(WeightId(cid))


def single_dense_schema(dims: Sequence[int] = (4,)) -> WeightSchema:
    return schema([component("c", dims)], [tensor("t", dims, dense("c"))])


def qspec(
    bits: int = 4,
    grouping: QuantizationGrouping | None = None,
    scale: ElementType = ElementType.F16,
    zero: ElementType | None = None,
    fmt: str = "q.test",
) -> QuantizationSpec:
    return QuantizationSpec(
        QuantizationFormatId(fmt),
        bits,
        grouping or QuantizationGrouping.fixed(4),
        QuantizationPacking.LINEAR,
        scale,
        zero,
    )


def quantized(spec: QuantizationSpec) -> Quantized:
    return Quantized(spec)


def prepare_with_schema(weight_schema: WeightSchema) -> PreparedModelFamily:
    """Prepare TestFamily with ``weight_schema`` injected (FixedSchemaFamily)."""
    return TypedFamilyRegistration(FixedSchemaFamily(weight_schema)).prepare_with_profile({"width": 4}, FIXTURE_PROFILE)


def schema_with_extra(
    extra_components: Sequence[WeightComponentSpec], extra_tensors: Sequence[WeightTensorSpec]
) -> WeightSchema:
    """TestFamily's schema plus extra (non-required) parts, so the family still prepares."""
    base = TestFamily().weight_schema(TestFamily().parse_config({"width": 4}))
    return WeightSchema(
        base.format_id,
        base.layout_id,
        base.version,
        base.components + tuple(extra_components),
        base.tensors + tuple(extra_tensors),
    )


# --------------------------------------------------------------------------- box partitions


def with_axis(values: tuple[int, ...], axis: int, value: int) -> tuple[int, ...]:
    """``values`` with entry ``axis`` replaced by ``value``."""
    out = list(values)
    out[axis] = value
    return tuple(out)


@st.composite
def box_partitions(
    draw: Any, max_rank: int = 3, max_extent: int = 6, max_cuts: int = 4
) -> tuple[tuple[int, ...], list[tuple[tuple[int, ...], tuple[int, ...]]]]:
    """A shape and an exact partition of it into boxes (offsets, extents), by random guillotine cuts."""
    rank = draw(st.integers(1, max_rank))
    shape = tuple(draw(st.lists(st.integers(1, max_extent), min_size=rank, max_size=rank)))
    boxes = [((0,) * rank, shape)]
    for _ in range(draw(st.integers(0, max_cuts))):
        index = draw(st.integers(0, len(boxes) - 1))
        offsets, extents = boxes[index]
        axis = draw(st.integers(0, rank - 1))
        if extents[axis] < 2:
            continue
        cut = draw(st.integers(1, extents[axis] - 1))
        first_ext = with_axis(extents, axis, cut)
        second_off = with_axis(offsets, axis, offsets[axis] + cut)
        second_ext = with_axis(extents, axis, extents[axis] - cut)
        boxes[index] = (offsets, first_ext)
        boxes.append((second_off, second_ext))
    return shape, boxes


def composite_schema(
    shape: tuple[int, ...], boxes: Sequence[tuple[tuple[int, ...], tuple[int, ...]]], prefix: str = "part"
) -> WeightSchema:
    components = [component(f"{prefix}.{i}", extents) for i, (_, extents) in enumerate(boxes)]
    parts = tuple(
        CompositeWeightPart(dense(f"{prefix}.{i}"), offsets, extents) for i, (offsets, extents) in enumerate(boxes)
    )
    return schema(components, [tensor("t", shape, CompositeLayout(parts))])
