"""Builders and strategies shared by the catalog tests."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import strategies as st

from reference.catalog import (
    ContiguousLayout,
    DynamicStorageProfile,
    ElementType,
    ExactDimension,
    NoAlias,
    OperationDescriptor,
    OperationProviderDescriptor,
    TensorAccess,
    TensorContract,
)
from reference.errors import VNextError

ALL_ELEMENT_TYPES = list(ElementType)


def raises_kind(kind: str, fn: Callable[[], Any]) -> VNextError:
    """Run ``fn`` and assert it raises the contract error ``kind``."""
    with pytest.raises(VNextError) as info:
        fn()
    assert info.value.kind == kind, info.value
    return info.value


def contract(
    element_type: ElementType = ElementType.F32,
    access: TensorAccess = TensorAccess.READ,
    alias: Any = None,
) -> TensorContract:
    return TensorContract(
        (ExactDimension(4),), frozenset({element_type}), (ContiguousLayout(),), access, alias or NoAlias()
    )


def replace_op(op: OperationDescriptor, **changes: Any) -> OperationDescriptor:
    return dataclasses.replace(op, **changes)


def replace_provider(provider: OperationProviderDescriptor, **changes: Any) -> OperationProviderDescriptor:
    return dataclasses.replace(provider, **changes)


powers_of_two = st.integers(min_value=0, max_value=63).map(lambda e: 1 << e)
non_powers = st.integers(min_value=0, max_value=2**64 - 1).filter(lambda v: v == 0 or v & (v - 1) != 0)


@st.composite
def valid_profiles(draw: st.DrawFn) -> DynamicStorageProfile:
    kind = draw(st.sampled_from(["la_c", "fba_c", "fba_pr"]))
    if kind == "la_c":
        return DynamicStorageProfile.linear_contiguous()
    block = draw(powers_of_two)
    if kind == "fba_pr":
        return DynamicStorageProfile.paged(block)
    from reference.catalog import DynamicStorageAllocator, DynamicStorageView

    return DynamicStorageProfile(DynamicStorageAllocator.fixed_block_arena(block), DynamicStorageView.contiguous())
