"""Resolved value types (spec 04 §5.1-5.6): constructors, normalisation, wire forms, schemas."""

from __future__ import annotations

import copy
import dataclasses

import pytest
from hypothesis import given
from hypothesis import strategies as st

import schemas
from reference.canonical import fingerprint
from reference.catalog import MayAlias, NoAlias, ResolvedValueRole, TensorAccess
from reference.errors import Serialization
from reference.ids import ProgramValueId, ResourceId, WeightId
from reference.ints import U64_MAX
from reference.model.element import ElementType
from reference.resolution import (
    BlockedLayout,
    BlockedTensorPadding,
    BufferUsage,
    ContiguousLayout,
    ResolvedStorageComponent,
    ResolvedTensorSpec,
    ResolvedValueBinding,
    ResolvedValueStorage,
    ResolvedWeightBinding,
    StridedLayout,
    tensor_layout_fingerprint,
)
from seeds.resolution import binding, resolved_tensor, resolved_test_weight, resolved_values
from tests.resolution.helpers import family, raises_kind

EP = "invalid_execution_plan"
F32 = ElementType.F32
R0 = ResourceId("resource.r0")


# --------------------------------------------------------------------------- ResolvedTensorSpec


def test_tensor_spec_wire_and_seed_example() -> None:
    spec = resolved_tensor(F32)
    assert spec.to_wire() == {"dimensions": [4], "element_type": "f32", "layout": "contiguous"}
    assert ResolvedTensorSpec.from_wire(spec.to_wire()) == spec
    assert spec.minimum_storage_bytes() == 16
    assert ResolvedTensorSpec((), F32).minimum_storage_bytes() == 4  # scalar


@pytest.mark.parametrize(
    ("dims", "layout"),
    [
        ((4, 0), ContiguousLayout()),
        ((4, 4), StridedLayout((4,))),
        ((4, 4), StridedLayout((4, 0))),
        ((4, 4), BlockedLayout((2,), (0,))),
        ((4, 4), BlockedLayout((2, 0), (0, 1))),
        ((4, 4), BlockedLayout((2, 2), (0, 0))),
        ((4, 4), BlockedLayout((2, 2), (1, 2))),
        ((4, 5), BlockedLayout((2, 2), (0, 1))),
        ((4, 5), BlockedLayout((2, 2), (0, 1), BlockedTensorPadding((4,)))),
        ((4, 5), BlockedLayout((2, 2), (0, 1), BlockedTensorPadding((4, 5)))),
        ((4, 4), BlockedLayout((2, 2), (0, 1), BlockedTensorPadding((4, 4)))),
        ((2**40, 2**40), ContiguousLayout()),
    ],
)
def test_tensor_spec_rejections(dims: tuple[int, ...], layout: object) -> None:
    raises_kind(EP, lambda: ResolvedTensorSpec(dims, F32, layout))  # type: ignore[arg-type]


def test_tensor_spec_minimum_storage_per_layout() -> None:
    assert (
        ResolvedTensorSpec((3, 5), ElementType.F16, StridedLayout((64, 2))).minimum_storage_bytes()
        == 2 + 2 * 64 + 4 * 2
    )
    assert ResolvedTensorSpec((4, 6), F32, BlockedLayout((2, 3), (1, 0))).minimum_storage_bytes() == 96
    padded = BlockedLayout((2, 4), (1, 0), BlockedTensorPadding((8, 4)))
    assert ResolvedTensorSpec((3, 5), ElementType.U8, padded).minimum_storage_bytes() == 32
    raises_kind(EP, lambda: ResolvedTensorSpec((2,), ElementType.U8, StridedLayout((U64_MAX,))).minimum_storage_bytes())


def test_tensor_spec_decode_strict() -> None:
    wire = resolved_tensor(F32).to_wire()
    for bad in ({**wire, "x": 1}, {**wire, "dimensions": [0]}, {**wire, "element_type": "f64"}):
        with pytest.raises(Serialization):
            ResolvedTensorSpec.from_wire(bad)


def test_layout_fingerprint_is_class_only() -> None:
    a = BlockedLayout((2, 2), (0, 1), BlockedTensorPadding((4, 6)))
    b = BlockedLayout((2, 2), (0, 1), BlockedTensorPadding((6, 8)))
    assert tensor_layout_fingerprint(a) == tensor_layout_fingerprint(b)
    assert tensor_layout_fingerprint(a) != tensor_layout_fingerprint(BlockedLayout((2, 2), (0, 1)))
    assert tensor_layout_fingerprint(ContiguousLayout()) == fingerprint("contiguous")


# --------------------------------------------------------------------------- storage


def comp(cid: str | None, rid: str, off: int, length: int, et: ElementType = F32) -> ResolvedStorageComponent:
    return ResolvedStorageComponent(None if cid is None else WeightId(cid), ResourceId(rid), off, length, et)


@pytest.mark.parametrize(
    ("off", "length", "et"),
    [(0, 0, F32), (U64_MAX - 3, 8, ElementType.U8), (2, 4, F32), (0, 6, F32)],
)
def test_storage_component_rejections(off: int, length: int, et: ElementType) -> None:
    raises_kind(EP, lambda: comp(None, "r", off, length, et))


@given(st.permutations(range(4)))
def test_storage_normalises_component_order(order: list[int]) -> None:
    items = [comp(f"w.{i}", f"r.{i % 2}", 16 * i, 16) for i in range(4)]
    storage = ResolvedValueStorage.composite([items[i] for i in order])
    assert [c.component_id for c in storage.components] == [WeightId(f"w.{i}") for i in range(4)]
    assert ResolvedValueStorage.from_wire(storage.to_wire()) == storage
    assert storage.total_physical_bytes() == 64


def test_storage_rejections() -> None:
    raises_kind(EP, lambda: ResolvedValueStorage([]))
    raises_kind(EP, lambda: ResolvedValueStorage([comp(None, "r", 0, 4), comp("w", "s", 0, 4)]))
    raises_kind(EP, lambda: ResolvedValueStorage.composite([comp(None, "r", 0, 4)]))
    raises_kind(EP, lambda: ResolvedValueStorage.composite([comp("w", "r", 0, 4), comp("w", "s", 0, 4)]))
    raises_kind(EP, lambda: ResolvedValueStorage.composite([comp("a", "r", 0, 8), comp("b", "r", 4, 8)]))
    ResolvedValueStorage.composite([comp("a", "r", 0, 8), comp("b", "r", 8, 8)])  # touching is fine
    with pytest.raises(Serialization):
        ResolvedValueStorage.from_wire({"components": []})


@given(st.integers(0, 64), st.integers(1, 64), st.integers(0, 64), st.integers(1, 64))
def test_overlap_is_half_open_intersection(a: int, la: int, b: int, lb: int) -> None:
    x, y = comp("a", "r", 4 * a, 4 * la), comp("b", "r", 4 * b, 4 * lb)
    expected = not (4 * a + 4 * la <= 4 * b or 4 * b + 4 * lb <= 4 * a)
    assert x.overlaps(y) == expected
    if expected:
        raises_kind(EP, lambda: ResolvedValueStorage.composite([x, y]))
    else:
        assert len(ResolvedValueStorage.composite([x, y]).components) == 2


# --------------------------------------------------------------------------- weight binding


def test_resolved_test_weight_matches_seed_json() -> None:
    wire = resolved_test_weight().to_wire()
    assert wire == {
        "weight_id": "weight.matrix",
        "format_id": "weight-format.dense",
        "layout_id": "weight-layout.dense",
        "schema_version": {"major": 1, "minor": 0},
        "physical_layout": {"dense": {"component_id": "weight.component"}},
        "components": [
            {
                "component_id": "weight.component",
                "role": "values",
                "physical_dimensions": [4],
                "encoding": {"dense": {"element_type": "f32"}},
            }
        ],
    }
    assert ResolvedWeightBinding.from_wire(wire) == resolved_test_weight()
    schemas.validate("resolution/weight_binding.json", wire)


def test_weight_binding_structure_rejections() -> None:
    good = resolved_test_weight().to_wire()
    bad_cases = [
        {**good, "schema_version": {"major": 0, "minor": 1}},
        {**good, "components": []},
        {**good, "physical_layout": {"dense": {"component_id": "weight.other"}}},
        {**good, "components": [{**good["components"][0], "physical_dimensions": [0]}]},  # type: ignore[index]
        {**good, "components": [{**good["components"][0], "physical_dimensions": []}]},  # type: ignore[index]
        {**good, "extra": 1},
    ]
    for bad in bad_cases:
        with pytest.raises(Serialization):
            ResolvedWeightBinding.from_wire(bad)
    raises_kind(EP, lambda: ResolvedWeightBinding.from_schema(family().weight_schema, WeightId("weight.none")))


def test_weight_component_entries_ignore_unknown_keys() -> None:
    """D-04R-17: only the binding's own wire denies unknown keys; its component entries derive Deserialize."""
    good = resolved_test_weight().to_wire()
    component = {**good["components"][0], "packing": "row_major"}  # type: ignore[index]
    assert ResolvedWeightBinding.from_wire({**good, "components": [component]}) == resolved_test_weight()
    with pytest.raises(Serialization, match="unknown field `packing`"):
        ResolvedWeightBinding.from_wire({**good, "packing": "row_major"})


def test_weight_logical_contract() -> None:
    weight = resolved_test_weight()
    weight.validate_logical_contract((4,), F32)
    raises_kind(EP, lambda: weight.validate_logical_contract((8,), F32))
    raises_kind(EP, lambda: weight.validate_logical_contract((4,), ElementType.F16))


# --------------------------------------------------------------------------- value binding


def test_seed_value_example_and_round_trip() -> None:
    values = resolved_values(0)
    assert values[0].to_wire() == {
        "value_id": "value.input",
        "role": "input",
        "ordinal": 0,
        "tensor": {"dimensions": [4], "element_type": "f32", "layout": "contiguous"},
        "access": "read",
        "alias": "no_alias",
        "usage": "activations",
        "weight": None,
        "storage": {
            "components": [
                {
                    "component_id": None,
                    "resource_id": "resource.input.0",
                    "offset_bytes": 0,
                    "length_bytes": 16,
                    "element_type": "f32",
                }
            ]
        },
    }
    for value in values:
        assert ResolvedValueBinding.from_wire(copy.deepcopy(value.to_wire())) == value
        schemas.validate("resolution/value_binding.json", value.to_wire())


def _variant(base: ResolvedValueBinding, **changes: object) -> object:
    fields = {f.name: getattr(base, f.name) for f in dataclasses.fields(base)}
    fields.update(changes)
    return lambda: ResolvedValueBinding(**fields)  # type: ignore[arg-type]


def test_value_binding_rejections_in_order() -> None:
    inp, weight, _state, out = resolved_values(0)
    single = ResolvedValueStorage.single
    cases = [
        _variant(inp, access=TensorAccess.WRITE),
        _variant(out, access=TensorAccess.READ),
        _variant(inp, alias=MayAlias(0)),
        _variant(inp, storage=ResolvedValueStorage.composite([comp("a", "r", 0, 16), comp("b", "s", 0, 16)])),
        _variant(inp, storage=single(R0, 0, 16, ElementType.U8)),
        _variant(inp, storage=single(R0, 0, 12, F32)),
        _variant(weight, weight=None),
        _variant(inp, weight=resolved_test_weight()),
        _variant(weight, storage=ResolvedValueStorage.composite([comp("weight.component", "r", 0, 32)])),
        _variant(
            weight, storage=ResolvedValueStorage.composite([comp("weight.component", "r", 0, 16, ElementType.I32)])
        ),
        _variant(weight, storage=ResolvedValueStorage.composite([comp("weight.other", "r", 0, 16)])),
        _variant(
            weight,
            storage=ResolvedValueStorage.composite(
                [comp("weight.component", "r", 0, 16), comp("weight.x", "r", 16, 16)]
            ),
        ),
        _variant(weight, storage=single(R0, 0, 16, F32)),
        _variant(weight, tensor=ResolvedTensorSpec((8,), F32)),
    ]
    for case in cases:
        raises_kind(EP, case)  # type: ignore[arg-type]
    # output with read_write and an alias is fine; larger storage than the span is fine.
    _variant(out, access=TensorAccess.READ_WRITE, alias=MayAlias(0))()  # type: ignore[operator]
    _variant(inp, storage=single(R0, 0, 64, F32))()  # type: ignore[operator]


def test_value_binding_decode_strict() -> None:
    wire = resolved_values(0)[0].to_wire()
    for bad in ({**wire, "extra": None}, {**wire, "usage": "weights"}, {**wire, "ordinal": -1}):
        with pytest.raises(Serialization):
            ResolvedValueBinding.from_wire(bad)
    assert BufferUsage.from_wire("binding") is BufferUsage.BINDING
    assert [u.value for u in sorted(BufferUsage, reverse=True)][-1] == "weights"


def test_helper_binding_builds_seed_slot() -> None:
    made = binding(
        "value.x", ResolvedValueRole.OUTPUT, 3, ElementType.U8, TensorAccess.WRITE, BufferUsage.ACTIVATIONS, "r.x"
    )
    assert made.slot == (ResolvedValueRole.OUTPUT, 3) and made.value_id == ProgramValueId("value.x")
    assert isinstance(made.alias, NoAlias) and made.storage.components[0].length_bytes == 4
