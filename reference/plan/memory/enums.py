"""Memory-plan enumerations (spec 05 §7.1); ``BufferUsage`` is the resolution layer's (re-exported).

Unit variants are snake_case strings ordered as declared. ``AllocationKind`` is
externally tagged: ``"value"``, ``"initialization_scratch"`` or
``{"scratch"|"binding"|"persistent": {"node_id": N}}``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from reference.catalog._common import OrderedEnum, read_struct_variant
from reference.errors import Serialization
from reference.ids import NodeId
from reference.model.state import StateInitialization, StateLifetime
from reference.resolution.usage import BufferUsage
from reference.wire import read_tagged

__all__ = [
    "AllocationKind",
    "AllocationLifetime",
    "BufferUsage",
    "DynamicPoolProvisioningMode",
    "InvocationLivenessMode",
    "StateInitialization",
    "StepResourceSlotKind",
    "initialization_from_wire",
]


class AllocationLifetime(OrderedEnum):
    """``plan`` < ``request`` < ``sequence`` < ``step`` < ``invocation``."""

    PLAN = "plan"
    REQUEST = "request"
    SEQUENCE = "sequence"
    STEP = "step"
    INVOCATION = "invocation"

    @classmethod
    def from_state(cls, lifetime: StateLifetime) -> AllocationLifetime:
        """``StateLifetime::{Request, Sequence, Step}`` map one to one."""
        return cls(lifetime.value)


class InvocationLivenessMode(OrderedEnum):
    NO_INVOCATION_RESOURCES = "no_invocation_resources"
    TOTAL_ORDER_REUSE = "total_order_reuse"
    CONSERVATIVE_CONCURRENT = "conservative_concurrent"


class StepResourceSlotKind(OrderedEnum):
    DEDICATED = "dedicated"
    ORDERED_SINGLE_FENCE_STEP_WAVE = "ordered_single_fence_step_wave"


class DynamicPoolProvisioningMode(OrderedEnum):
    DEMAND_DRIVEN_ELASTIC = "demand_driven_elastic"


_UNIT_KINDS: Final = ("value", "initialization_scratch")
_NODE_KINDS: Final = ("scratch", "binding", "persistent")


@dataclass(frozen=True, slots=True)
class AllocationKind:
    """What a memory row backs: a program value, init scratch, or a node's workspace."""

    tag: str
    node_id: NodeId | None = None

    def __post_init__(self) -> None:
        if self.tag in _UNIT_KINDS:
            if self.node_id is not None:
                raise ValueError(f"allocation kind {self.tag} carries no node id")
        elif self.tag in _NODE_KINDS:
            if not isinstance(self.node_id, NodeId):
                raise ValueError(f"allocation kind {self.tag} needs a node id")
        else:
            raise ValueError(f"unknown allocation kind {self.tag!r}")

    @classmethod
    def value(cls) -> AllocationKind:
        return cls("value")

    @classmethod
    def initialization_scratch(cls) -> AllocationKind:
        return cls("initialization_scratch")

    @classmethod
    def scratch(cls, node_id: NodeId) -> AllocationKind:
        return cls("scratch", node_id)

    @classmethod
    def binding(cls, node_id: NodeId) -> AllocationKind:
        return cls("binding", node_id)

    @classmethod
    def persistent(cls, node_id: NodeId) -> AllocationKind:
        return cls("persistent", node_id)

    @classmethod
    def workspace(cls, kind: str, node_id: NodeId) -> AllocationKind:
        """``scratch`` | ``binding`` | ``persistent`` for ``node_id``."""
        return cls(kind, node_id)

    @property
    def is_value(self) -> bool:
        return self.tag == "value"

    def to_wire(self) -> Any:
        if self.node_id is None:
            return self.tag
        return {self.tag: {"node_id": self.node_id.value}}

    @classmethod
    def from_wire(cls, raw: Any, *, context: str, path: str = "$") -> AllocationKind:
        tag, content = read_tagged(raw, _UNIT_KINDS + _NODE_KINDS, context=context, path=path)
        if tag in _UNIT_KINDS:
            if content is not None:
                raise Serialization(  # rule: 01.5/enum_variant_shape
                    context, f"{path}: unit variant `{tag}` takes no content"
                )
            return cls(tag)
        obj = read_struct_variant(content, ("node_id",), variant=tag, context=context, path=path)
        return cls(tag, NodeId.from_wire(obj["node_id"], context=context))


def initialization_from_wire(raw: Any, *, context: str, path: str = "$") -> StateInitialization:
    """``"none"`` | ``"zero"``."""
    for member in StateInitialization:
        if raw == member.value:
            return member
    raise Serialization(context, f"{path}: unknown state initialization {raw!r}")  # rule: 01.5/enum_variant_shape
