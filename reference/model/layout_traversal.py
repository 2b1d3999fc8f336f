"""Walking the physical weight layout tree (spec 02 §8.5): child layouts and direct bindings in
their exact traversal order, the budget pass (depth <= 16, nodes <= 4096), the set of bound
component ids and the layout part of ``normalize``."""

from __future__ import annotations

import enum
from collections.abc import Iterator
from dataclasses import replace
from typing import Final

from reference.ids import WeightId
from reference.model.weight_layout import (
    AxisReshapePermutationLayout,
    BlockQuantizedLayout,
    CompositeLayout,
    DenseLayout,
    ExpertStackLayout,
    IndexedLayout,
    PhysicalWeightLayout,
    QuantizedBlockGridLayout,
    QuantizedLayout,
    StoredLayout,
)

__all__ = [
    "LAYOUT_DEPTH_FAILURE",
    "LayoutBudgetBreach",
    "LAYOUT_NODES_FAILURE",
    "MAX_PHYSICAL_WEIGHT_LAYOUT_DEPTH",
    "MAX_PHYSICAL_WEIGHT_LAYOUT_NODES",
    "layout_bindings",
    "layout_budget_breach",
    "layout_budget_failure",
    "layout_children",
    "normalize_layout",
    "physical_component_id_set",
]

MAX_PHYSICAL_WEIGHT_LAYOUT_DEPTH: Final = 16
MAX_PHYSICAL_WEIGHT_LAYOUT_NODES: Final = 4096
#: The two failures of the budget pass.
LAYOUT_DEPTH_FAILURE: Final = f"physical weight layout exceeds maximum depth {MAX_PHYSICAL_WEIGHT_LAYOUT_DEPTH}"
LAYOUT_NODES_FAILURE: Final = f"physical weight layout exceeds maximum nodes {MAX_PHYSICAL_WEIGHT_LAYOUT_NODES}"


def layout_children(layout: PhysicalWeightLayout) -> tuple[PhysicalWeightLayout, ...]:
    """Child layouts in list order (composite parts, ``values``, experts)."""
    if isinstance(layout, CompositeLayout):
        return tuple(part.layout for part in layout.parts)
    if isinstance(layout, AxisReshapePermutationLayout | IndexedLayout):
        return (layout.values,)
    if isinstance(layout, ExpertStackLayout):
        return layout.experts
    return ()


def layout_bindings(layout: PhysicalWeightLayout) -> Iterator[WeightId]:
    """Component ids bound directly by this node (not its children)."""
    if isinstance(layout, DenseLayout):
        yield layout.component_id
    elif isinstance(layout, StoredLayout):
        yield layout.component.component_id
    elif isinstance(layout, QuantizedLayout):
        yield layout.packed_values.component_id
        yield layout.scales.component_id
        if layout.zero_points is not None:
            yield layout.zero_points.component_id
        if layout.axis_indices is not None:
            yield layout.axis_indices.component.component_id
        if layout.permutation is not None:
            yield layout.permutation.component.component_id
        if layout.codebook is not None:
            yield layout.codebook.component_id
    elif isinstance(layout, QuantizedBlockGridLayout):
        yield layout.packed_values.component_id
        yield layout.scales.component_id
    elif isinstance(layout, BlockQuantizedLayout):
        yield layout.blocks.component_id
    elif isinstance(layout, IndexedLayout):
        yield layout.indices.component.component_id


def _direct(layout: PhysicalWeightLayout) -> int:
    if isinstance(layout, DenseLayout | StoredLayout | BlockQuantizedLayout | IndexedLayout):
        return 1
    if isinstance(layout, QuantizedLayout):
        optional = (layout.zero_points, layout.axis_indices, layout.permutation, layout.codebook)
        return 2 + sum(1 for item in optional if item is not None)
    if isinstance(layout, QuantizedBlockGridLayout):
        return 2
    return 0


class LayoutBudgetBreach(enum.Enum):
    """Which check of the budget pass refused a tree; ``failure`` is its text (the two node checks share one)."""

    #: a node popped deeper than ``MAX_PHYSICAL_WEIGHT_LAYOUT_DEPTH``
    DEPTH = "depth"
    #: the visited count (1 + direct bindings per node) past ``MAX_PHYSICAL_WEIGHT_LAYOUT_NODES``
    NODES = "nodes"
    #: the push test: visited + pending nodes reaching ``MAX_PHYSICAL_WEIGHT_LAYOUT_NODES`` before a child is pushed
    PUSH = "push"

    @property
    def failure(self) -> str:
        return LAYOUT_DEPTH_FAILURE if self is LayoutBudgetBreach.DEPTH else LAYOUT_NODES_FAILURE


def layout_budget_breach(root: PhysicalWeightLayout) -> LayoutBudgetBreach | None:
    """The budget pass: None when within depth 16 / 4096 nodes, else the check that refused the tree."""
    stack: list[tuple[PhysicalWeightLayout, int]] = [(root, 1)]
    visited = 0
    while stack:
        node, depth = stack.pop()
        if depth > MAX_PHYSICAL_WEIGHT_LAYOUT_DEPTH:
            return LayoutBudgetBreach.DEPTH
        visited += 1 + _direct(node)
        if visited > MAX_PHYSICAL_WEIGHT_LAYOUT_NODES:
            return LayoutBudgetBreach.NODES
        for child in layout_children(node):
            if visited + len(stack) >= MAX_PHYSICAL_WEIGHT_LAYOUT_NODES:
                return LayoutBudgetBreach.PUSH
            stack.append((child, depth + 1))
    return None


def layout_budget_failure(root: PhysicalWeightLayout) -> str | None:
    """The budget pass: None when within depth 16 / 4096 nodes, else the failure text."""
    breach = layout_budget_breach(root)
    return None if breach is None else breach.failure


def physical_component_id_set(root: PhysicalWeightLayout) -> frozenset[WeightId]:
    """Every component id bound anywhere in the tree (call after the budget pass)."""
    found: set[WeightId] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        found.update(layout_bindings(node))
        stack.extend(layout_children(node))
    return frozenset(found)


def normalize_layout(layout: PhysicalWeightLayout) -> PhysicalWeightLayout:
    """Sort composite parts by (offsets, extents) recursively; expert order is kept."""
    if isinstance(layout, CompositeLayout):
        parts = [replace(part, layout=normalize_layout(part.layout)) for part in layout.parts]
        parts.sort(key=lambda part: (part.logical_offsets, part.extents))
        return CompositeLayout(tuple(parts))
    if isinstance(layout, AxisReshapePermutationLayout | IndexedLayout):
        return replace(layout, values=normalize_layout(layout.values))
    if isinstance(layout, ExpertStackLayout):
        return replace(layout, experts=tuple(normalize_layout(e) for e in layout.experts))
    return layout
