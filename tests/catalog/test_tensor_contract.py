"""Element types and tensor contracts (spec 03 §2-3; properties 1-4, 8)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reference.catalog import (
    BlockedLayout,
    ContiguousLayout,
    ElementType,
    ExactBytesStride,
    ExactDimension,
    LayoutConstraint,
    MayAlias,
    NoAlias,
    RangeDimension,
    StridedLayout,
    SymbolDimension,
    SymbolStride,
    TensorAccess,
    TensorContract,
)
from reference.catalog._common import is_blank
from reference.catalog.element_type import element_types_from_wire, element_types_to_wire
from reference.errors import Serialization
from reference.ints import rust_trim

from .helpers import raises_kind

SIZES = {"bool": 1, "u8": 1, "u32": 4, "i8": 1, "i32": 4, "f16": 2, "bf16": 2, "f32": 4}


def test_element_type_sizes_and_declaration_order() -> None:
    assert {e.value: e.size_bytes for e in ElementType} == SIZES
    assert [e.value for e in sorted(ElementType)] == ["bool", "u8", "u32", "i8", "i32", "f16", "bf16", "f32"]
    assert element_types_to_wire({ElementType.F32, ElementType.U8}) == ["u8", "f32"]


@given(st.lists(st.sampled_from(list(ElementType)), min_size=1))
def test_element_type_set_wire_collapses_duplicates(values: list[ElementType]) -> None:
    wire = [v.value for v in values]
    decoded = element_types_from_wire(wire, context="t", path="$")
    assert decoded == frozenset(values)
    assert element_types_to_wire(decoded) == [e.value for e in ElementType if e in decoded]


layouts_2d = st.one_of(
    st.just(ContiguousLayout()),
    st.tuples(
        st.one_of(st.integers(1, 64).map(ExactBytesStride), st.sampled_from(["row", "col"]).map(SymbolStride)),
        st.one_of(st.integers(1, 64).map(ExactBytesStride), st.sampled_from(["row", "col"]).map(SymbolStride)),
    ).map(StridedLayout),
    st.tuples(st.tuples(st.integers(1, 8), st.integers(1, 8)), st.sampled_from([(0, 1), (1, 0)])).map(
        lambda t: BlockedLayout(*t)
    ),
)


def _contract(layouts: list[LayoutConstraint]) -> TensorContract:
    dims = (ExactDimension(4), SymbolDimension("tokens"))
    return TensorContract(dims, frozenset({ElementType.F32}), tuple(layouts), TensorAccess.READ, NoAlias())


@given(st.lists(layouts_2d, min_size=1, max_size=6), st.randoms(use_true_random=False))
def test_layout_canonicalisation_is_order_and_duplicate_independent(
    layouts: list[LayoutConstraint], rnd: object
) -> None:
    shuffled = list(layouts) + list(layouts[:2])
    rnd.shuffle(shuffled)  # type: ignore[attr-defined]
    a, b = _contract(layouts), _contract(shuffled)
    assert a == b
    assert a.to_wire() == b.to_wire()
    assert len(set(a.layouts)) == len(a.layouts)
    ranks = [type(layout).__name__ for layout in a.layouts]
    order = {"ContiguousLayout": 0, "StridedLayout": 1, "BlockedLayout": 2}
    assert [order[r] for r in ranks] == sorted(order[r] for r in ranks)
    assert TensorContract.from_wire(a.to_wire()).to_wire() == a.to_wire()


def test_strided_sorting_exact_before_symbol_and_prefix() -> None:
    one = StridedLayout((SymbolStride("a"),))
    two = StridedLayout((ExactBytesStride(99),))
    contract = TensorContract(
        (ExactDimension(4),), frozenset({ElementType.F32}), (one, two), TensorAccess.READ, NoAlias()
    )
    assert contract.layouts == (two, one)


@pytest.mark.parametrize(
    "build",
    [
        lambda: TensorContract((ExactDimension(4),), frozenset(), (ContiguousLayout(),), TensorAccess.READ, NoAlias()),
        lambda: TensorContract((ExactDimension(4),), frozenset({ElementType.F32}), (), TensorAccess.READ, NoAlias()),
        lambda: TensorContract(
            (ExactDimension(0),), frozenset({ElementType.F32}), (ContiguousLayout(),), TensorAccess.READ, NoAlias()
        ),
        lambda: TensorContract(
            (RangeDimension(0, 8),), frozenset({ElementType.F32}), (ContiguousLayout(),), TensorAccess.READ, NoAlias()
        ),
        lambda: TensorContract(
            (RangeDimension(0, 0),), frozenset({ElementType.F32}), (ContiguousLayout(),), TensorAccess.READ, NoAlias()
        ),
        lambda: TensorContract(
            (RangeDimension(9, 8),), frozenset({ElementType.F32}), (ContiguousLayout(),), TensorAccess.READ, NoAlias()
        ),
        lambda: TensorContract(
            (SymbolDimension(""),), frozenset({ElementType.F32}), (ContiguousLayout(),), TensorAccess.READ, NoAlias()
        ),
        lambda: TensorContract(
            (SymbolDimension(" \u3000\t"),),
            frozenset({ElementType.F32}),
            (ContiguousLayout(),),
            TensorAccess.READ,
            NoAlias(),
        ),
    ],
    ids=["no-types", "no-layouts", "exact0", "range0", "range00", "inverted", "empty-symbol", "blank-symbol"],
)
def test_contract_rejections(build: object) -> None:
    raises_kind("invalid_execution_plan", build)  # type: ignore[arg-type]


def test_rust_trim_set() -> None:
    assert is_blank("\u3000") and is_blank("\u0085\u00a0") and is_blank("")
    assert not is_blank("\x1c") and rust_trim("\x1ca\x1f") == "\x1ca\x1f"
    ok = TensorContract(
        (SymbolDimension("\x1c"),), frozenset({ElementType.F32}), (ContiguousLayout(),), TensorAccess.READ, NoAlias()
    )
    assert ok.dimensions[0] == SymbolDimension("\x1c")


@pytest.mark.parametrize(
    "layout",
    [
        StridedLayout((ExactBytesStride(4),)),
        StridedLayout((ExactBytesStride(4), ExactBytesStride(0))),
        StridedLayout((ExactBytesStride(4), SymbolStride("\u2003"))),
        BlockedLayout((4,), (0, 1)),
        BlockedLayout((4, 0), (0, 1)),
        BlockedLayout((4, 4), (0,)),
        BlockedLayout((4, 4), (0, 0)),
        BlockedLayout((4, 4), (1, 2)),
    ],
)
def test_bad_layouts_rejected(layout: LayoutConstraint) -> None:
    raises_kind("invalid_execution_plan", lambda: _contract([layout]))


def test_good_rank2_layouts_accepted() -> None:
    _contract([StridedLayout((ExactBytesStride(16), SymbolStride("row"))), BlockedLayout((4, 4), (1, 0))])


def test_rank_zero_allowed() -> None:
    TensorContract((), frozenset({ElementType.F32}), (ContiguousLayout(),), TensorAccess.READ, NoAlias())


WIRE = {
    "dimensions": [{"exact": 4}],
    "element_types": ["f32"],
    "layouts": ["contiguous"],
    "access": "read",
    "alias": "no_alias",
}


def test_wire_example_and_unknown_field() -> None:
    value = TensorContract.from_wire(WIRE)
    assert value.to_wire() == WIRE
    with pytest.raises(Serialization):
        TensorContract.from_wire({**WIRE, "extra": 1})
    with pytest.raises(Serialization):
        TensorContract.from_wire({**WIRE, "element_types": []})


@pytest.mark.parametrize("bad", [16.0, -1, True, 2**64, "4", None])
def test_wire_integers_strict(bad: object) -> None:
    with pytest.raises(Serialization):
        TensorContract.from_wire({**WIRE, "dimensions": [{"exact": bad}]})
    with pytest.raises(Serialization):
        TensorContract.from_wire({**WIRE, "alias": {"may_alias": {"tensor_index": bad}}})


def test_u32_alias_index_range() -> None:
    assert TensorContract.from_wire({**WIRE, "alias": {"may_alias": {"tensor_index": 2**32 - 1}}}).alias == MayAlias(
        2**32 - 1
    )
    with pytest.raises(Serialization):
        TensorContract.from_wire({**WIRE, "alias": {"may_alias": {"tensor_index": 2**32}}})


def test_unit_variant_null_form_accepted_never_emitted() -> None:
    value = TensorContract.from_wire({**WIRE, "layouts": [{"contiguous": None}], "alias": {"no_alias": None}})
    assert value.to_wire() == WIRE
    assert "null" not in json.dumps(value.to_wire())


def test_non_canonical_layouts_are_normalised_on_decode() -> None:
    raw = {**WIRE, "dimensions": [{"exact": 4}, {"exact": 4}]}
    raw["layouts"] = [{"blocked": {"block": [2, 2], "axis_order": [1, 0]}}, "contiguous", "contiguous"]
    value = TensorContract.from_wire(raw)
    assert value.to_wire()["layouts"] == ["contiguous", {"blocked": {"block": [2, 2], "axis_order": [1, 0]}}]


def test_struct_variants_ignore_unknown_keys() -> None:
    """Decision D-03-2: enum struct variants follow serde's default (no deny_unknown_fields)."""
    raw = {**WIRE, "alias": {"may_alias": {"tensor_index": 0, "note": "x"}}}
    assert TensorContract.from_wire(raw).alias == MayAlias(0)
    raw = {**WIRE, "dimensions": [{"range": {"minimum": 1, "maximum": 2, "note": 1}}]}
    assert TensorContract.from_wire(raw).dimensions == (RangeDimension(1, 2),)
    with pytest.raises(Serialization):
        TensorContract.from_wire({**WIRE, "dimensions": [{"range": {"minimum": 1}}]})
    with pytest.raises(Serialization):
        TensorContract.from_wire({**WIRE, "dimensions": [{"exact": 4, "symbol": "t"}]})
