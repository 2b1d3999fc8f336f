"""``PoolCompatibilityKey`` and ``DynamicResourceDescriptor`` (spec 05 §7.7, §7.8).

A descriptor is one dynamic (non plan-static) resource: its demand, alignment, usage,
element type, lifetime, kind, storage contract, derived pool id, initialization and the
protocol ceiling ``theoretical_maximum_instances`` (= ``maximum_active_sequences``).
Every constructor rule raises ``InvalidExecutionPlan``; the decoder re-runs the
constructor and requires the wire ``pool_id`` to be the derived one (``Serialization``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Final

from reference.canonical import is_canonical_sha256
from reference.catalog.element_type import element_type_from_wire
from reference.catalog.storage import DynamicStorageProfile
from reference.errors import Serialization, invalid_plan
from reference.ids import DynamicBackingPoolId, ResourceId
from reference.ints import check_uint, is_power_of_two
from reference.model.element import ElementType
from reference.model.state import StateInitialization
from reference.plan.memory.demand import ActualSequencesDemand, DynamicResourceDemand, DynamicResourceShape
from reference.plan.memory.enums import AllocationKind, AllocationLifetime, BufferUsage, initialization_from_wire
from reference.plan.memory.identities import pool_id_for
from reference.plan.memory.storage import (
    DynamicStorageContract,
    physical_allocation_quantum_bytes,
    quantize_storage_bytes,
)
from reference.versions import ContractVersion
from reference.wire import WireObject, decode_with

__all__ = ["POOL_KEY_VERSION", "DynamicResourceDescriptor", "PoolCompatibilityKey"]

POOL_KEY_VERSION: Final = ContractVersion(1, 0)


@dataclass(frozen=True, slots=True)
class PoolCompatibilityKey:
    """Physical compatibility class of dynamic resources; equal keys share one pool."""

    profile: DynamicStorageProfile
    usage: BufferUsage
    element_type: ElementType
    logical_layout_fingerprint: str
    alignment_bytes: int
    version: ContractVersion = POOL_KEY_VERSION
    _pool_id: list[DynamicBackingPoolId] = field(default_factory=list, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        check_uint(self.alignment_bytes, 64, "PoolCompatibilityKey.alignment_bytes")
        self.validate()

    def validate(self) -> None:
        """Version 1.0, canonical layout fingerprint, power-of-two alignment."""
        if (
            self.version != POOL_KEY_VERSION
            or not is_canonical_sha256(self.logical_layout_fingerprint)
            or not is_power_of_two(self.alignment_bytes)
        ):
            raise invalid_plan("dynamic pool compatibility key is invalid")  # rule: 05.7.8/pool_key_wire_and_validation

    @classmethod
    def of(
        cls, storage: DynamicStorageContract, usage: BufferUsage, element_type: ElementType, alignment_bytes: int
    ) -> PoolCompatibilityKey:
        return cls(storage.profile, usage, element_type, storage.logical_layout_fingerprint, alignment_bytes)

    def pool_id(self) -> DynamicBackingPoolId:
        """``pool_id_for`` of the key's wire (derived once: the key is immutable)."""
        if not self._pool_id:
            self._pool_id.append(pool_id_for(self.to_wire()))
        return self._pool_id[0]

    def to_wire(self) -> dict[str, Any]:
        return {
            "version": self.version.to_wire(),
            "profile": self.profile.to_wire(),
            "usage": self.usage.to_wire(),
            "element_type": self.element_type.to_wire(),
            "logical_layout_fingerprint": self.logical_layout_fingerprint,
            "alignment_bytes": self.alignment_bytes,
        }

    @classmethod
    def from_wire(
        cls, raw: Any, *, context: str = "decode pool compatibility key", path: str = "$"
    ) -> PoolCompatibilityKey:
        """deny_unknown_fields, then ``validate``."""
        obj = WireObject(
            raw,
            ("version", "profile", "usage", "element_type", "logical_layout_fingerprint", "alignment_bytes"),
            type_name="PoolCompatibilityKey",
            context=context,
            path=path,
        )
        version = ContractVersion.from_wire(obj.raw("version"), context=context)
        profile = DynamicStorageProfile.from_wire(obj.raw("profile"), context=context, path=obj.at("profile"))
        usage = BufferUsage.from_wire(obj.raw("usage"), context=context, path=obj.at("usage"))
        element = element_type_from_wire(obj.raw("element_type"), context=context, path=obj.at("element_type"))
        layout, alignment = obj.string("logical_layout_fingerprint"), obj.u64("alignment_bytes")
        return decode_with(lambda: cls(profile, usage, element, layout, alignment, version), context=context, path=path)


def _kind_is_consistent(
    kind: AllocationKind, lifetime: AllocationLifetime, usage: BufferUsage, element: ElementType
) -> bool:
    if kind.tag == "initialization_scratch":
        return False
    if kind.tag == "scratch":
        return lifetime is AllocationLifetime.INVOCATION and usage is BufferUsage.SCRATCH and element is ElementType.U8
    if kind.tag == "binding":
        return lifetime is AllocationLifetime.INVOCATION and usage is BufferUsage.BINDING and element is ElementType.U8
    if kind.tag == "persistent":
        return (
            lifetime in (AllocationLifetime.REQUEST, AllocationLifetime.SEQUENCE, AllocationLifetime.STEP)
            and usage is BufferUsage.PERSISTENT
            and element is ElementType.U8
        )
    return usage is not BufferUsage.WEIGHTS


@dataclass(frozen=True)
class DynamicResourceDescriptor:
    """One dynamic resource row; construct with ``new`` (all rules checked, pool id derived)."""

    base_resource_id: ResourceId
    demand: DynamicResourceDemand
    alignment_bytes: int
    usage: BufferUsage
    element_type: ElementType
    lifetime: AllocationLifetime
    kind: AllocationKind
    storage: DynamicStorageContract
    pool_id: DynamicBackingPoolId
    initialization: StateInitialization
    theoretical_maximum_instances: int

    @classmethod
    def new(
        cls,
        base_resource_id: ResourceId,
        demand: DynamicResourceDemand,
        alignment_bytes: int,
        usage: BufferUsage,
        element_type: ElementType,
        lifetime: AllocationLifetime,
        kind: AllocationKind,
        storage: DynamicStorageContract,
        initialization: StateInitialization,
        theoretical_maximum_instances: int,
    ) -> DynamicResourceDescriptor:
        """Validate every §7.7 rule, derive the pool id, prove both request sizes evaluate."""
        check_uint(alignment_bytes, 64, "alignment_bytes")
        check_uint(theoretical_maximum_instances, 32, "theoretical_maximum_instances")
        if theoretical_maximum_instances == 0:
            raise invalid_plan(  # rule: 05.7.7/instances_at_least_one
                "maximum active sequences protocol ceiling must be non-zero"
            )
        layout = "dynamic resource descriptor has invalid alignment or static lifetime"
        if not is_power_of_two(alignment_bytes):
            raise invalid_plan(layout)  # rule: 05.7.7/alignment_power_of_two
        if lifetime is AllocationLifetime.PLAN:
            raise invalid_plan(layout)  # rule: 05.7.7/lifetime_not_plan
        if not _kind_is_consistent(kind, lifetime, usage, element_type):
            inconsistent = "dynamic resource kind, lifetime, usage, or element type is inconsistent"
            if kind.tag == "initialization_scratch":
                raise invalid_plan(inconsistent)  # rule: 05.7.7/initialization_scratch_never_dynamic
            if kind.tag == "scratch":
                raise invalid_plan(inconsistent)  # rule: 05.7.7/scratch_kind_consistency
            if kind.tag == "binding":
                raise invalid_plan(inconsistent)  # rule: 05.7.7/binding_kind_consistency
            if kind.tag == "persistent":
                raise invalid_plan(inconsistent)  # rule: 05.7.7/persistent_kind_consistency
            raise invalid_plan(inconsistent)  # rule: 05.7.7/value_kind_not_weights
        if initialization is StateInitialization.ZERO and not (
            kind.is_value and usage is BufferUsage.STATE and lifetime is AllocationLifetime.SEQUENCE
        ):
            raise invalid_plan(  # rule: 05.7.7/zero_init_sequence_state_only
                "zero initialization requires semantic Sequence state backing"
            )
        demand.validate()  # rule when 05.7.7/dynamic_demand_validate: 05.7.7/demand_valid
        if isinstance(demand, ActualSequencesDemand) and demand.maximum_sequences != theoretical_maximum_instances:
            raise invalid_plan(  # rule: 05.7.7/actual_sequences_bound_equals_instances
                "actual-sequence demand and descriptor instance ceilings differ"
            )
        pool_id = PoolCompatibilityKey.of(storage, usage, element_type, alignment_bytes).pool_id()
        descriptor = cls(
            base_resource_id,
            demand,
            alignment_bytes,
            usage,
            element_type,
            lifetime,
            kind,
            storage,
            pool_id,
            initialization,
            theoretical_maximum_instances,
        )
        _ = (  # rule when 04.0/align_up_overflow: 05.7.7/request_sizes_evaluate
            descriptor.minimum_request_bytes,
            descriptor.theoretical_maximum_request_bytes,
        )
        return descriptor

    @cached_property
    def compatibility(self) -> PoolCompatibilityKey:
        return PoolCompatibilityKey.of(self.storage, self.usage, self.element_type, self.alignment_bytes)

    @cached_property
    def minimum_request_bytes(self) -> int:
        """Quantized bytes of one sequence, one token, one page."""
        return self.evaluate_request_bytes(self.demand.minimum_shape())

    @cached_property
    def theoretical_maximum_request_bytes(self) -> int:
        """Quantized bytes at the demand's theoretical maximum shape."""
        return self.evaluate_request_bytes(self.demand.theoretical_maximum_shape())

    @property
    def theoretical_maximum_resident_bytes(self) -> int:
        """u128: per-instance bytes x ``theoretical_maximum_instances`` (minimum for actual-sequence demands)."""
        per_instance = (
            self.minimum_request_bytes
            if isinstance(self.demand, ActualSequencesDemand)
            else self.theoretical_maximum_request_bytes
        )
        return per_instance * self.theoretical_maximum_instances

    def physical_allocation_quantum_bytes(self) -> int:
        return physical_allocation_quantum_bytes(self.alignment_bytes, self.storage.profile)

    def evaluate_request_bytes(self, shape: DynamicResourceShape) -> int:
        """Quantized physical bytes for one logical shape."""
        return quantize_storage_bytes(
            self.demand.evaluate_shape_bytes(shape), self.alignment_bytes, self.storage.profile
        )

    def to_wire(self) -> dict[str, Any]:
        return {
            "base_resource_id": self.base_resource_id.value,
            "demand": self.demand.to_wire(),
            "alignment_bytes": self.alignment_bytes,
            "usage": self.usage.to_wire(),
            "element_type": self.element_type.to_wire(),
            "lifetime": self.lifetime.to_wire(),
            "kind": self.kind.to_wire(),
            "storage": self.storage.to_wire(),
            "pool_id": self.pool_id.value,
            "initialization": self.initialization.value,
            "theoretical_maximum_instances": self.theoretical_maximum_instances,
        }

    @classmethod
    def from_wire(
        cls, raw: Any, *, context: str = "decode dynamic resource descriptor", path: str = "$"
    ) -> DynamicResourceDescriptor:
        """deny_unknown_fields; re-runs ``new``; the wire pool id must be the derived one."""
        obj = WireObject(
            raw,
            (
                "base_resource_id",
                "demand",
                "alignment_bytes",
                "usage",
                "element_type",
                "lifetime",
                "kind",
                "storage",
                "pool_id",
                "initialization",
                "theoretical_maximum_instances",
            ),
            type_name="DynamicResourceDescriptor",
            context=context,
            path=path,
        )
        resource = obj.identity("base_resource_id", ResourceId)
        demand = DynamicResourceDemand.from_wire(obj.raw("demand"), context=context, path=obj.at("demand"))
        alignment = obj.u64("alignment_bytes")
        usage = BufferUsage.from_wire(obj.raw("usage"), context=context, path=obj.at("usage"))
        element = element_type_from_wire(obj.raw("element_type"), context=context, path=obj.at("element_type"))
        lifetime = AllocationLifetime.from_wire(obj.raw("lifetime"), context=context, path=obj.at("lifetime"))
        kind = AllocationKind.from_wire(obj.raw("kind"), context=context, path=obj.at("kind"))
        storage = DynamicStorageContract.from_wire(obj.raw("storage"), context=context, path=obj.at("storage"))
        pool_id = obj.identity(  # rule when 01.3.6/decode_invalid_identity: 05.7.8/pool_id_format
            "pool_id", DynamicBackingPoolId
        )
        init = initialization_from_wire(obj.raw("initialization"), context=context, path=obj.at("initialization"))
        instances = obj.u32("theoretical_maximum_instances")
        descriptor = decode_with(
            lambda: cls.new(resource, demand, alignment, usage, element, lifetime, kind, storage, init, instances),
            context=context,
            path=path,
        )
        if descriptor.pool_id != pool_id:
            raise Serialization(  # rule: 05.7.7/descriptor_decoder_reruns_new
                context, f"{path}: dynamic resource pool id is not core-derived from compatibility"
            )
        return descriptor
