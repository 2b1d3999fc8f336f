"""Dynamic storage strategies (spec 03 §6): profiles, requirements, provider slot bindings.

Block sizes are powers of two drawn from a small readable set plus the u64
edge ``2^63``; ``non_profiles`` draws allocator/view pairs §6.2 refuses.
"""

from __future__ import annotations

from typing import Any, Final

from hypothesis import strategies as st

from reference.catalog.storage import (
    DynamicStorageAllocator,
    DynamicStorageProfile,
    DynamicStorageRequirement,
    DynamicStorageView,
    ProviderStorageBindingRequirement,
    ResolvedValueRole,
)

__all__ = [
    "BLOCK_SIZES",
    "invalid_profile_wires",
    "profile_orders",
    "storage_bindings",
    "storage_profiles",
    "storage_requirements",
]

#: Readable power-of-two block sizes; ``2**63`` is the largest u64 power of two.
BLOCK_SIZES: Final = (1, 16, 64, 256, 4096, 2**63)


def storage_profiles() -> st.SearchStrategy[DynamicStorageProfile]:
    """Every accepted allocator x view row: LA/C, FBA(b)/C, FBA(b)/PR(b)."""
    blocks = st.sampled_from(BLOCK_SIZES)
    return st.one_of(
        st.just(DynamicStorageProfile.linear_contiguous()),
        blocks.map(lambda b: DynamicStorageProfile(DynamicStorageAllocator.fixed_block_arena(b), DynamicStorageView())),
        blocks.map(DynamicStorageProfile.paged),
    )


def profile_orders(min_size: int = 1, max_size: int = 4) -> st.SearchStrategy[list[DynamicStorageProfile]]:
    """Ordered lists of distinct profiles (a policy's allowlist)."""
    return st.lists(storage_profiles(), min_size=min_size, max_size=max_size, unique_by=lambda p: p.sort_key())


def storage_requirements(
    profiles: st.SearchStrategy[DynamicStorageProfile] | None = None,
) -> st.SearchStrategy[DynamicStorageRequirement]:
    """A non-empty requirement (canonicalized by its constructor)."""
    return st.lists(profiles or storage_profiles(), min_size=1, max_size=3).map(DynamicStorageRequirement)


def storage_bindings(
    inputs: int, outputs: int, requirements: st.SearchStrategy[DynamicStorageRequirement] | None = None
) -> st.SearchStrategy[list[ProviderStorageBindingRequirement]]:
    """One binding per operand slot (Input 0..n-1, Output 0..m-1), each with a drawn requirement."""
    slots = [(ResolvedValueRole.INPUT, i) for i in range(inputs)] + [
        (ResolvedValueRole.OUTPUT, j) for j in range(outputs)
    ]
    drawn = requirements or storage_requirements()
    return st.tuples(*(drawn for _ in slots)).map(
        lambda reqs: [
            ProviderStorageBindingRequirement(role, ordinal, req)
            for (role, ordinal), req in zip(slots, reqs, strict=True)
        ]
    )


def invalid_profile_wires() -> st.SearchStrategy[dict[str, Any]]:
    """Profile wires §6.2 refuses: non-power-of-two blocks, mismatched paged sizes, linear with pages."""
    bad_block = st.sampled_from([0, 3, 12, 100, 2**64 - 1])
    good_block = st.sampled_from(BLOCK_SIZES[:-1])
    return st.one_of(
        bad_block.map(lambda b: {"allocator": {"fixed_block_arena": {"block_bytes": b}}, "view": "contiguous"}),
        st.sampled_from([(a, b) for a in BLOCK_SIZES[:-1] for b in BLOCK_SIZES[:-1] if a != b]).map(
            lambda pair: {
                "allocator": {"fixed_block_arena": {"block_bytes": pair[0]}},
                "view": {"paged_regions": {"block_bytes": pair[1]}},
            }
        ),
        good_block.map(lambda b: {"allocator": "linear_arena", "view": {"paged_regions": {"block_bytes": b}}}),
    )
