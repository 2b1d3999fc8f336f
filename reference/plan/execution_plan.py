"""``ExecutionPlan`` (spec 05 §3, §8): an immutable, hashed, validated plan.

Built only by ``reference.plan.build`` (``build_plan(request)``, ``ExecutionPlan::build``). It holds
the payload, the plan hash, the registry authority of its resolutions and the trusted
execution-weight witness; only ``{"payload", "plan_hash"}`` is serialized. ``to_json``
writes the direct (declaration-order) bytes; more than 16 MiB is
``Serialization("serialize execution plan")``.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from typing import Any, Final

from reference.canonical import JsonValue, canonical_bytes, direct_bytes
from reference.catalog.registry import PlanningAuthority
from reference.errors import Serialization
from reference.ids import PlanHash, PlanId
from reference.plan.memory import MemoryPlan
from reference.plan.node import PlanNode
from reference.plan.payload import MAX_EXECUTION_PLAN_WIRE_BYTES, ExecutionPlanPayload
from reference.weights.trusted import TrustedExecutionWeightPlan

__all__ = ["SERIALIZED_MEMO_BYTES", "ExecutionPlan", "forget_serialized", "serialized_plan"]

SERIALIZE_CONTEXT: Final = "serialize execution plan"
_TOKEN: Final = object()


class ExecutionPlan:
    """Payload + hash (+ process-local authority and trusted weights, never serialized)."""

    __slots__ = ("_authority", "_canonical_payload", "_json", "_payload", "_payload_wire", "_plan_hash", "_weights")

    def __init__(
        self,
        token: object,
        payload: ExecutionPlanPayload,
        payload_wire: dict[str, JsonValue],
        plan_hash: PlanHash,
        authority: PlanningAuthority,
        weights: TrustedExecutionWeightPlan,
    ) -> None:
        if token is not _TOKEN:
            raise TypeError("ExecutionPlan is built by reference.plan.build")
        self._payload = payload
        self._payload_wire = payload_wire
        self._plan_hash = plan_hash
        self._authority = authority
        self._weights = weights
        self._json: bytes | None = None
        self._canonical_payload: bytes | None = None

    @classmethod
    def _assemble(
        cls,
        payload: ExecutionPlanPayload,
        payload_wire: dict[str, JsonValue],
        plan_hash: PlanHash,
        authority: PlanningAuthority,
        weights: TrustedExecutionWeightPlan,
    ) -> ExecutionPlan:
        return cls(_TOKEN, payload, payload_wire, plan_hash, authority, weights)

    # ------------------------------------------------------------------ accessors

    @property
    def payload(self) -> ExecutionPlanPayload:
        return self._payload

    @property
    def plan_hash(self) -> PlanHash:
        return self._plan_hash

    @property
    def plan_id(self) -> PlanId:
        return self._payload.plan_id

    @property
    def nodes(self) -> tuple[PlanNode, ...]:
        return self._payload.nodes

    @property
    def memory(self) -> MemoryPlan:
        return self._payload.memory

    def node(self, node_id: str) -> PlanNode:
        return next(n for n in self._payload.nodes if n.id.value == node_id)

    def registry_authority(self) -> PlanningAuthority:
        return self._authority

    def trusted_execution_weights(self) -> TrustedExecutionWeightPlan:
        return self._weights

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ExecutionPlan):
            return NotImplemented
        return (
            self._plan_hash == other._plan_hash
            and self._payload_wire == other._payload_wire
            and self._authority == other._authority
            and self._weights == other._weights
        )

    def __hash__(self) -> int:
        return hash(self._plan_hash)

    def __repr__(self) -> str:
        return f"ExecutionPlan({self.plan_id.value})"

    # ------------------------------------------------------------------ wire

    def payload_wire(self) -> dict[str, Any]:
        """A fresh copy of the payload's JSON value."""
        value = json.loads(self.to_json())["payload"]
        assert isinstance(value, dict)
        return value

    def to_wire(self) -> dict[str, Any]:
        """A fresh copy of ``{"payload": ..., "plan_hash": ...}``."""
        value = json.loads(self.to_json())
        assert isinstance(value, dict)
        return value

    def payload_canonical_bytes(self, *, context: str) -> bytes:
        """Canonical bytes of the payload's JSON value (computed once; the value is immutable)."""
        if self._canonical_payload is None:
            self._canonical_payload = canonical_bytes(self._payload_wire, context=context, trusted=True)
        return self._canonical_payload

    def to_json(self) -> bytes:
        """Compact declaration-order bytes; more than 16 MiB -> ``Serialization``."""
        if self._json is None:
            data = direct_bytes(
                {"payload": self._payload_wire, "plan_hash": self._plan_hash.value},
                context=SERIALIZE_CONTEXT,
                trusted=True,
            )
            if len(data) > MAX_EXECUTION_PLAN_WIRE_BYTES:
                raise Serialization(  # rule: 01.3.6/to_json_size_cap, 05.8.3/to_json_size_limit
                    SERIALIZE_CONTEXT,
                    f"execution plan wire has {len(data)} bytes, over {MAX_EXECUTION_PLAN_WIRE_BYTES}",
                )
            self._json = data
        _SERIALIZED.remember(self._json, self)
        return self._json


#: The wires ``to_json`` wrote last, with their plans, up to this many wire bytes in all (the newest kept).
SERIALIZED_MEMO_BYTES: Final = MAX_EXECUTION_PLAN_WIRE_BYTES


class _SerializedWires:
    """The plans of the last wires ``to_json`` returned, by their bytes (least recently used first)."""

    def __init__(self) -> None:
        self.plans: OrderedDict[bytes, ExecutionPlan] = OrderedDict()
        self.total = 0

    def remember(self, data: bytes, plan: ExecutionPlan) -> None:
        if data in self.plans:
            self.plans.move_to_end(data)
            return
        self.plans[data] = plan
        self.total += len(data)
        while self.total > SERIALIZED_MEMO_BYTES and len(self.plans) > 1:
            oldest, _ = self.plans.popitem(last=False)
            self.total -= len(oldest)

    def find(self, data: bytes) -> ExecutionPlan | None:
        plan = self.plans.get(data)
        if plan is not None:
            self.plans.move_to_end(data)
        return plan

    def clear(self) -> None:
        self.plans.clear()
        self.total = 0


_SERIALIZED: Final = _SerializedWires()


def serialized_plan(data: bytes) -> ExecutionPlan | None:
    """The plan whose ``to_json()`` returned exactly ``data`` lately, if it is still remembered.

    Such bytes decode to that plan's payload and hash (the wire of a built plan always decodes to
    itself), so an untrusted decoder may take them from here instead of parsing them again.
    """
    return _SERIALIZED.find(data)


def forget_serialized() -> None:
    """Forget every remembered wire (a decoder then parses every wire it is given)."""
    _SERIALIZED.clear()
