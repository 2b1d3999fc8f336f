"""Dynamic backing pools (spec 05 §7.8, §7.9 wire types).

* ``CanonicalU128``: u128 evidence as a canonical unsigned decimal string.
* ``StepResourceSlot``: ``dedicated`` (one member) or ``ordered_single_fence_step_wave``
  (>= 2 sorted unique members); derived decode, checked by ``validate``.
* ``InvocationResourceLiveness``: one node's invocation resources (deny_unknown_fields).
* ``DynamicPoolProvisioningPolicy``: ``demand_driven_elastic`` with
  ``0 < minimum_resident <= maximum_resident``.
* ``DynamicBackingPoolSpec``: one compatibility class with its members, runnable minima,
  ceilings and liveness evidence. ``from_core`` derives the pool id and provisioning;
  ``validate_local`` holds every rule the wire decoder checks.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Final

from reference.errors import Serialization, invalid_plan
from reference.ids import DynamicBackingPoolId, NodeId, ResourceId
from reference.ints import U64_MAX, U128_MAX, check_uint, checked_sum
from reference.plan.memory.descriptor import PoolCompatibilityKey
from reference.plan.memory.enums import (
    BufferUsage,
    DynamicPoolProvisioningMode,
    InvocationLivenessMode,
    StepResourceSlotKind,
)
from reference.wire import WireObject, decode_with, read_list, read_str

__all__ = [
    "CanonicalU128",
    "DynamicBackingPoolSpec",
    "DynamicPoolProvisioningPolicy",
    "InvocationResourceLiveness",
    "StepResourceSlot",
    "resource_ids_from_wire",
]


class CanonicalU128:
    """Decimal-string codec of u128 evidence: no sign, no leading zeros (except ``"0"``)."""

    @staticmethod
    def to_wire(value: int) -> str:
        if type(value) is not int or not 0 <= value <= U128_MAX:
            raise ValueError(f"u128 out of range: {value!r}")
        return str(value)

    @staticmethod
    def from_wire(raw: Any, *, context: str, path: str = "$") -> int:
        text = read_str(raw, context=context, path=path)
        if not (text.isascii() and text.isdigit()) or str(int(text)) != text or int(text) > U128_MAX:
            raise Serialization(  # rule: 05.7.8/canonical_u128
                context, f"{path}: u128 evidence must be a canonical unsigned decimal string"
            )
        return int(text)


def resource_ids_from_wire(raw: Any, *, context: str, path: str) -> tuple[ResourceId, ...]:
    """A ``Vec<ResourceId>`` as given (order and duplicates kept for the validators)."""
    items = read_list(raw, context=context, path=path)
    out: list[ResourceId] = []
    for i, item in enumerate(items):
        text = read_str(item, context=context, path=f"{path}[{i}]")
        out.append(decode_with(lambda text=text: ResourceId(text), context=context, path=f"{path}[{i}]"))  # type: ignore[misc]
    return tuple(out)


def _strictly_ascending(values: tuple[Any, ...]) -> bool:
    return all(a < b for a, b in itertools.pairwise(values))


@dataclass(frozen=True, slots=True)
class StepResourceSlot:
    """Step-lifetime members that may share one physical extent."""

    kind: StepResourceSlotKind
    resource_ids: tuple[ResourceId, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "resource_ids", tuple(self.resource_ids))

    @classmethod
    def dedicated(cls, resource_id: ResourceId) -> StepResourceSlot:
        return cls(StepResourceSlotKind.DEDICATED, (resource_id,))

    @classmethod
    def ordered_single_fence_wave(cls, resource_ids: Iterable[ResourceId]) -> StepResourceSlot:
        """Sorted; at least two unique members."""
        ordered = tuple(sorted(resource_ids))
        if len(ordered) < 2 or len(set(ordered)) != len(ordered):
            raise invalid_plan(  # rule: 05.7.8/wave_slot_members_derived
                "ordered single-fence step slot requires at least two unique resources"
            )
        return cls(StepResourceSlotKind.ORDERED_SINGLE_FENCE_STEP_WAVE, ordered)

    def validate(self) -> None:
        """Non-empty, strictly ascending; ``dedicated`` has one member, a wave at least two."""
        count = len(self.resource_ids)
        wrong_count = count != 1 if self.kind is StepResourceSlotKind.DEDICATED else count < 2
        if count == 0 or not _strictly_ascending(self.resource_ids) or wrong_count:
            raise invalid_plan(  # rule: 05.7.8/slots_ascending_members_unique
                "step resource slot kind or members are invalid"
            )

    def to_wire(self) -> dict[str, Any]:
        return {"kind": self.kind.to_wire(), "resource_ids": [r.value for r in self.resource_ids]}

    @classmethod
    def from_wire(cls, raw: Any, *, context: str = "decode step resource slot", path: str = "$") -> StepResourceSlot:
        obj = WireObject(raw, ("kind", "resource_ids"), type_name="StepResourceSlot", context=context, path=path)
        return cls(
            StepResourceSlotKind.from_wire(obj.raw("kind"), context=context, path=obj.at("kind")),
            resource_ids_from_wire(obj.raw("resource_ids"), context=context, path=obj.at("resource_ids")),
        )


@dataclass(frozen=True, slots=True)
class InvocationResourceLiveness:
    """The invocation-lifetime resources one node uses (sorted)."""

    node_id: NodeId
    resource_ids: tuple[ResourceId, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "resource_ids", tuple(self.resource_ids))

    def to_wire(self) -> dict[str, Any]:
        return {"node_id": self.node_id.value, "resource_ids": [r.value for r in self.resource_ids]}

    @classmethod
    def from_wire(
        cls, raw: Any, *, context: str = "decode invocation resource liveness", path: str = "$"
    ) -> InvocationResourceLiveness:
        """deny_unknown_fields."""
        obj = WireObject(
            raw, ("node_id", "resource_ids"), type_name="InvocationResourceLiveness", context=context, path=path
        )
        return cls(
            obj.identity("node_id", NodeId),
            resource_ids_from_wire(obj.raw("resource_ids"), context=context, path=obj.at("resource_ids")),
        )


@dataclass(frozen=True, slots=True)
class DynamicPoolProvisioningPolicy:
    """Elastic residency bounds: ``0 < minimum_resident_bytes <= maximum_resident_bytes``."""

    minimum_resident_bytes: int
    maximum_resident_bytes: int
    mode: DynamicPoolProvisioningMode = DynamicPoolProvisioningMode.DEMAND_DRIVEN_ELASTIC

    def __post_init__(self) -> None:
        check_uint(self.minimum_resident_bytes, 64, "minimum_resident_bytes")
        check_uint(self.maximum_resident_bytes, 64, "maximum_resident_bytes")

    @classmethod
    def demand_driven(cls, minimum_resident_bytes: int, maximum_resident_bytes: int) -> DynamicPoolProvisioningPolicy:
        policy = cls(minimum_resident_bytes, maximum_resident_bytes)
        policy.validate()
        return policy

    def validate(self) -> None:
        if self.minimum_resident_bytes == 0 or self.maximum_resident_bytes < self.minimum_resident_bytes:
            raise invalid_plan("dynamic pool provisioning bounds are invalid")  # rule: 05.7.8/provisioning_bounds

    def to_wire(self) -> dict[str, Any]:
        return {
            "mode": self.mode.to_wire(),
            "minimum_resident_bytes": self.minimum_resident_bytes,
            "maximum_resident_bytes": self.maximum_resident_bytes,
        }

    @classmethod
    def from_wire(
        cls, raw: Any, *, context: str = "decode dynamic pool provisioning", path: str = "$"
    ) -> DynamicPoolProvisioningPolicy:
        """deny_unknown_fields; derived (bounds are checked by the pool's ``validate_local``)."""
        obj = WireObject(
            raw,
            ("mode", "minimum_resident_bytes", "maximum_resident_bytes"),
            type_name="DynamicPoolProvisioningPolicy",
            context=context,
            path=path,
        )
        mode = DynamicPoolProvisioningMode.from_wire(obj.raw("mode"), context=context, path=obj.at("mode"))
        return cls(obj.u64("minimum_resident_bytes"), obj.u64("maximum_resident_bytes"), mode)


_POOL_FIELDS: Final = (
    "pool_id",
    "compatibility",
    "resource_ids",
    "minimum_request_bytes",
    "minimum_sequence_bytes",
    "minimum_step_bytes",
    "minimum_invocation_peak_bytes",
    "step_resource_slots",
    "theoretical_ceiling_bytes",
    "reusable_workspace_ceiling_bytes",
    "checkpoint_growth_ceiling_bytes",
    "provisioning",
    "invocation_liveness_mode",
    "invocation_liveness",
)


@dataclass(frozen=True, slots=True)
class DynamicBackingPoolSpec:
    """One physical-compatibility class of dynamic descriptors and its budget evidence."""

    pool_id: DynamicBackingPoolId
    compatibility: PoolCompatibilityKey
    resource_ids: tuple[ResourceId, ...]
    minimum_request_bytes: int
    minimum_sequence_bytes: int
    minimum_step_bytes: int
    minimum_invocation_peak_bytes: int
    step_resource_slots: tuple[StepResourceSlot, ...]
    theoretical_ceiling_bytes: int
    reusable_workspace_ceiling_bytes: int
    checkpoint_growth_ceiling_bytes: int
    provisioning: DynamicPoolProvisioningPolicy
    invocation_liveness_mode: InvocationLivenessMode
    invocation_liveness: tuple[InvocationResourceLiveness, ...] = field(default=())

    def __post_init__(self) -> None:
        for name in ("resource_ids", "step_resource_slots", "invocation_liveness"):
            object.__setattr__(self, name, tuple(getattr(self, name)))
        for name in (
            "minimum_request_bytes",
            "minimum_sequence_bytes",
            "minimum_step_bytes",
            "minimum_invocation_peak_bytes",
            "reusable_workspace_ceiling_bytes",
            "checkpoint_growth_ceiling_bytes",
        ):
            check_uint(getattr(self, name), 64, f"DynamicBackingPoolSpec.{name}")
        check_uint(self.theoretical_ceiling_bytes, 128, "DynamicBackingPoolSpec.theoretical_ceiling_bytes")

    @classmethod
    def from_core(
        cls,
        compatibility: PoolCompatibilityKey,
        resource_ids: tuple[ResourceId, ...],
        minimum_request_bytes: int,
        minimum_sequence_bytes: int,
        minimum_step_bytes: int,
        minimum_invocation_peak_bytes: int,
        step_resource_slots: tuple[StepResourceSlot, ...],
        theoretical_ceiling_bytes: int,
        reusable_workspace_ceiling_bytes: int,
        checkpoint_growth_ceiling_bytes: int,
        dynamic_capacity_bytes: int,
        invocation_liveness_mode: InvocationLivenessMode,
        invocation_liveness: tuple[InvocationResourceLiveness, ...],
    ) -> DynamicBackingPoolSpec:
        """Derive the pool id and elastic bounds (maximum clamped to the dynamic capacity), then validate."""
        compatibility.validate()
        minimum_resident = pool_minimum_resident(
            minimum_request_bytes, minimum_sequence_bytes, minimum_step_bytes, minimum_invocation_peak_bytes
        )
        combined = pool_combined_ceiling(
            theoretical_ceiling_bytes, reusable_workspace_ceiling_bytes, checkpoint_growth_ceiling_bytes
        )
        maximum_resident = min(combined, dynamic_capacity_bytes)
        if maximum_resident > U64_MAX:
            raise invalid_plan(  # rule: 05.7.8/resident_ceiling_clamped_u64
                "dynamic pool resident ceiling exceeds u64"
            )
        spec = cls(
            compatibility.pool_id(),
            compatibility,
            resource_ids,
            minimum_request_bytes,
            minimum_sequence_bytes,
            minimum_step_bytes,
            minimum_invocation_peak_bytes,
            step_resource_slots,
            theoretical_ceiling_bytes,
            reusable_workspace_ceiling_bytes,
            checkpoint_growth_ceiling_bytes,
            DynamicPoolProvisioningPolicy.demand_driven(minimum_resident, maximum_resident),
            invocation_liveness_mode,
            invocation_liveness,
        )
        spec.validate_local()
        return spec

    def validate_local(self) -> None:
        """Every rule the wire decoder checks (spec 05 §7.8), ``InvalidExecutionPlan`` on failure."""
        self.compatibility.validate()
        self.provisioning.validate()
        for slot in self.step_resource_slots:
            slot.validate()
        minimum_resident = pool_minimum_resident(
            self.minimum_request_bytes,
            self.minimum_sequence_bytes,
            self.minimum_step_bytes,
            self.minimum_invocation_peak_bytes,
        )
        combined = pool_combined_ceiling(
            self.theoretical_ceiling_bytes, self.reusable_workspace_ceiling_bytes, self.checkpoint_growth_ceiling_bytes
        )
        members = [r for slot in self.step_resource_slots for r in slot.resource_ids]
        slot_keys = tuple(tuple(slot.resource_ids) for slot in self.step_resource_slots)
        invalid = "dynamic backing pool identity, membership, or bounds are invalid"
        if self.pool_id != self.compatibility.pool_id():
            raise invalid_plan(invalid)  # rule: 05.7.8/pool_id_derived
        if not self.resource_ids or not _strictly_ascending(self.resource_ids):
            raise invalid_plan(invalid)  # rule: 05.7.8/pool_members_ascending
        if self.checkpoint_growth_ceiling_bytes != 0 and self.compatibility.usage is not BufferUsage.STATE:
            raise invalid_plan(invalid)  # rule: 05.7.8/growth_only_for_state_pools
        if minimum_resident != self.provisioning.minimum_resident_bytes:
            raise invalid_plan(invalid)  # rule: 05.7.8/minimum_resident_is_sum
        if self.provisioning.maximum_resident_bytes > combined:
            raise invalid_plan(invalid)  # rule: 05.7.8/maximum_resident_within_ceiling
        if not _strictly_ascending(slot_keys) or len(set(members)) != len(members):
            raise invalid_plan(invalid)  # rule: 05.7.8/slots_ascending_members_unique
        if self.invocation_liveness_mode is InvocationLivenessMode.NO_INVOCATION_RESOURCES:
            if self.minimum_invocation_peak_bytes != 0 or self.invocation_liveness:
                raise invalid_plan(  # rule: 05.7.8/liveness_mode_consistent
                    "non-invocation pool carries invocation liveness evidence"
                )
        elif (
            self.minimum_invocation_peak_bytes == 0
            or not self.invocation_liveness
            or not _strictly_ascending(tuple(row.node_id for row in self.invocation_liveness))
        ):
            raise invalid_plan(  # rule: 05.7.8/liveness_mode_consistent
                "invocation pool liveness evidence is empty or non-canonical"
            )

    def to_wire(self) -> dict[str, Any]:
        """Field order of §7.8; ``checkpoint_growth_ceiling_bytes`` omitted when 0."""
        out: dict[str, Any] = {
            "pool_id": self.pool_id.value,
            "compatibility": self.compatibility.to_wire(),
            "resource_ids": [r.value for r in self.resource_ids],
            "minimum_request_bytes": self.minimum_request_bytes,
            "minimum_sequence_bytes": self.minimum_sequence_bytes,
            "minimum_step_bytes": self.minimum_step_bytes,
            "minimum_invocation_peak_bytes": self.minimum_invocation_peak_bytes,
            "step_resource_slots": [slot.to_wire() for slot in self.step_resource_slots],
            "theoretical_ceiling_bytes": CanonicalU128.to_wire(self.theoretical_ceiling_bytes),
            "reusable_workspace_ceiling_bytes": self.reusable_workspace_ceiling_bytes,
        }
        if self.checkpoint_growth_ceiling_bytes != 0:
            out["checkpoint_growth_ceiling_bytes"] = self.checkpoint_growth_ceiling_bytes
        out["provisioning"] = self.provisioning.to_wire()
        out["invocation_liveness_mode"] = self.invocation_liveness_mode.to_wire()
        out["invocation_liveness"] = [row.to_wire() for row in self.invocation_liveness]
        return out

    @classmethod
    def from_wire(
        cls, raw: Any, *, context: str = "decode dynamic backing pool", path: str = "$"
    ) -> DynamicBackingPoolSpec:
        """deny_unknown_fields (growth defaults to 0 when missing), then ``validate_local``."""
        if isinstance(raw, dict) and "checkpoint_growth_ceiling_bytes" not in raw:
            raw = {**raw, "checkpoint_growth_ceiling_bytes": 0}
        obj = WireObject(raw, _POOL_FIELDS, type_name="DynamicBackingPoolSpec", context=context, path=path)
        slots = tuple(
            StepResourceSlot.from_wire(item, context=context, path=f"{obj.at('step_resource_slots')}[{i}]")
            for i, item in enumerate(obj.array("step_resource_slots"))
        )
        rows = tuple(
            InvocationResourceLiveness.from_wire(item, context=context, path=f"{obj.at('invocation_liveness')}[{i}]")
            for i, item in enumerate(obj.array("invocation_liveness"))
        )
        spec = cls(
            obj.identity("pool_id", DynamicBackingPoolId),
            PoolCompatibilityKey.from_wire(obj.raw("compatibility"), context=context, path=obj.at("compatibility")),
            resource_ids_from_wire(obj.raw("resource_ids"), context=context, path=obj.at("resource_ids")),
            obj.u64("minimum_request_bytes"),
            obj.u64("minimum_sequence_bytes"),
            obj.u64("minimum_step_bytes"),
            obj.u64("minimum_invocation_peak_bytes"),
            slots,
            CanonicalU128.from_wire(
                obj.raw("theoretical_ceiling_bytes"), context=context, path=obj.at("theoretical_ceiling_bytes")
            ),
            obj.u64("reusable_workspace_ceiling_bytes"),
            obj.u64("checkpoint_growth_ceiling_bytes"),
            DynamicPoolProvisioningPolicy.from_wire(
                obj.raw("provisioning"), context=context, path=obj.at("provisioning")
            ),
            InvocationLivenessMode.from_wire(
                obj.raw("invocation_liveness_mode"), context=context, path=obj.at("invocation_liveness_mode")
            ),
            rows,
        )
        decode_with(spec.validate_local, context=context, path=path)
        return spec


def pool_minimum_resident(request: int, sequence: int, step: int, invocation: int) -> int:
    """``request + sequence + step + invocation_peak`` (checked u64)."""
    overflow = partial(invalid_plan, "dynamic pool runnable minimum overflows")
    return checked_sum(  # rule: 05.7.8/maximum_resident_within_ceiling, 05.7.8/minimum_resident_is_sum
        (request, sequence, step, invocation), error=overflow
    )


def pool_combined_ceiling(theoretical: int, reusable: int, growth: int) -> int:
    """``theoretical + reusable + growth`` (checked u128)."""
    overflow = partial(invalid_plan, "dynamic pool combined ceiling overflows")
    return checked_sum(  # rule: 05.7.8/maximum_resident_within_ceiling
        (theoretical, reusable, growth), limit=U128_MAX, error=overflow
    )
