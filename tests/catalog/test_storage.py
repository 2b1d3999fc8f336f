"""Dynamic storage profiles and requirements (spec 03 §6; properties 10-11)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reference.catalog import (
    DynamicStorageAllocator,
    DynamicStorageProfile,
    DynamicStorageRequirement,
    DynamicStorageView,
    ProviderStorageBindingRequirement,
    ResolvedValueRole,
)
from reference.errors import Serialization

from .helpers import non_powers, powers_of_two, raises_kind, valid_profiles

LA, FBA, C, PR = (
    DynamicStorageAllocator.linear_arena,
    DynamicStorageAllocator.fixed_block_arena,
    DynamicStorageView.contiguous,
    DynamicStorageView.paged_regions,
)


@given(powers_of_two)
def test_power_of_two_rows_accepted(block: int) -> None:
    DynamicStorageProfile(FBA(block), C())
    DynamicStorageProfile(FBA(block), PR(block))


@given(non_powers)
def test_non_power_rows_rejected(block: int) -> None:
    raises_kind("invalid_execution_plan", lambda: DynamicStorageProfile(FBA(block), C()))
    raises_kind("invalid_execution_plan", lambda: DynamicStorageProfile(FBA(block), PR(block)))


def test_profile_table_edges() -> None:
    DynamicStorageProfile(LA(), C())
    DynamicStorageProfile(FBA(1), C())
    DynamicStorageProfile(FBA(2**63), PR(2**63))
    for bad in (0, 3):
        raises_kind("invalid_execution_plan", lambda b=bad: DynamicStorageProfile(FBA(b), C()))
    raises_kind("invalid_execution_plan", lambda: DynamicStorageProfile(FBA(64), PR(32)))
    raises_kind("invalid_execution_plan", lambda: DynamicStorageProfile(LA(), PR(64)))
    DynamicStorageProfile(FBA(64), C())  # only the allocator block size is checked in this row


def test_profile_order_example() -> None:
    ordered = [
        DynamicStorageProfile(LA(), C()),
        DynamicStorageProfile(FBA(16), C()),
        DynamicStorageProfile(FBA(16), PR(16)),
        DynamicStorageProfile(FBA(64), C()),
        DynamicStorageProfile(FBA(64), PR(64)),
    ]
    shuffled = [ordered[i] for i in (4, 2, 0, 3, 1)]
    assert sorted(shuffled) == ordered


@given(st.lists(valid_profiles(), min_size=1, max_size=8), st.randoms(use_true_random=False))
def test_requirement_idempotent_and_order_insensitive(profiles: list[DynamicStorageProfile], rnd: object) -> None:
    shuffled = profiles + profiles[:1]
    rnd.shuffle(shuffled)  # type: ignore[attr-defined]
    a = DynamicStorageRequirement(profiles)
    assert a == DynamicStorageRequirement(shuffled) == DynamicStorageRequirement(a.accepted_profiles)
    assert list(a.accepted_profiles) == sorted(set(profiles))
    assert DynamicStorageRequirement.from_wire(a.to_wire()) == a
    assert all(a.accepts(p) for p in profiles)


def test_requirement_rejections() -> None:
    raises_kind("invalid_execution_plan", lambda: DynamicStorageRequirement([]))
    la = DynamicStorageProfile.linear_contiguous().to_wire()
    paged = DynamicStorageProfile.paged(64).to_wire()
    for bad in (
        [],
        [paged, la],
        [la, la],
        [la, {"allocator": "linear_arena", "view": {"paged_regions": {"block_bytes": 64}}}],
    ):
        with pytest.raises(Serialization):
            DynamicStorageRequirement.from_wire({"accepted_profiles": bad})
    with pytest.raises(Serialization):
        DynamicStorageRequirement.from_wire({"accepted_profiles": [la], "x": 1})
    with pytest.raises(Serialization):
        DynamicStorageProfile.from_wire({**la, "x": 1})
    assert DynamicStorageRequirement.from_wire({"accepted_profiles": [la, paged]}).accepts(
        DynamicStorageProfile.paged(64)
    )
    assert not DynamicStorageRequirement.contiguous().accepts(DynamicStorageProfile.paged(64))


def test_binding_wire() -> None:
    binding = ProviderStorageBindingRequirement(ResolvedValueRole.OUTPUT, 3, DynamicStorageRequirement.contiguous())
    wire = binding.to_wire()
    assert list(wire) == ["role", "ordinal", "storage"]
    assert ProviderStorageBindingRequirement.from_wire(wire) == binding
    with pytest.raises(Serialization):
        ProviderStorageBindingRequirement.from_wire({**wire, "extra": True})
    with pytest.raises(Serialization):
        ProviderStorageBindingRequirement.from_wire({**wire, "ordinal": 2**32})
    assert ResolvedValueRole.INPUT < ResolvedValueRole.OUTPUT
