"""Allocation permits tied to an execution plan's memory plan (spec 03 §13.2).

``PlanAllocationAuthority`` is the only issuer of ``DeviceAllocationPermit``. It
knows the plan's reservations: every static row (its ``buffer_request()``) and
every dynamic descriptor (one instance of ``evaluate_request_bytes(shape)``
bytes, at most ``theoretical_maximum_instances`` live at once). A request is
granted only when it equals a reservation in all five fields and keeps the bytes
granted so far within the plan's usable capacity (capacity - reserve). Every
refusal -- a resource outside the plan, a size other than the reservation's, a
misaligned request, a usage or element-type mismatch, a static row already
live, too many instances, or the budget -- is ``InvalidExecutionPlan`` (the
kind §13.2's request check names) and is counted in the ledger.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from reference.errors import InvalidExecutionPlan
from reference.ids import ResourceId
from reference.plan.memory import DynamicResourceDescriptor, DynamicResourceShape, MemoryPlan
from reference.plan.memory.allocation import BufferRequest
from reference.runtime.ledger import RuntimeLedger

__all__ = ["DeviceAllocationPermit", "PlanAllocationAuthority", "Reservation"]

_ISSUER: Final = object()


@dataclass(frozen=True, slots=True)
class Reservation:
    """What the plan reserves for one resource: the exact request, static or dynamic."""

    request: BufferRequest
    static: bool
    maximum_instances: int


class DeviceAllocationPermit:
    """Single-use permission to allocate exactly one planned request (no public constructor)."""

    __slots__ = ("_consumed", "_generation", "_request", "_static")

    def __init__(self, issuer: object, request: BufferRequest, generation: int, static: bool) -> None:
        if issuer is not _ISSUER:
            raise TypeError("DeviceAllocationPermit is issued only by a PlanAllocationAuthority")
        self._request = request
        self._generation = generation
        self._static = static
        self._consumed = False

    def resource_id(self) -> ResourceId:
        return self._request.resource_id

    def generation(self) -> int:
        return self._generation

    def reservation(self) -> BufferRequest:
        return self._request

    @property
    def is_static(self) -> bool:
        return self._static

    def into_request(self) -> BufferRequest:
        """The request to allocate; a permit is consumed by its first use."""
        if self._consumed:
            raise InvalidExecutionPlan(  # rule: 03.13.2/executor_permit_accounting
                reason=f"allocation permit for `{self._request.resource_id}` was already used"
            )
        self._consumed = True
        return self._request


class PlanAllocationAuthority:
    """Issues permits for the plan's reservations and tracks what is granted and live."""

    def __init__(self, memory: MemoryPlan, ledger: RuntimeLedger) -> None:
        self._memory = memory
        self._ledger = ledger
        self._static = {row.resource_id: row.buffer_request() for row in memory.static_allocations}
        self._dynamic: dict[ResourceId, DynamicResourceDescriptor] = {
            d.base_resource_id: d for d in memory.dynamic_descriptors
        }
        self._live: dict[ResourceId, int] = {}
        self._granted_bytes = 0
        self._generation = 0

    @property
    def usable_capacity_bytes(self) -> int:
        return self._memory.usable_capacity_bytes

    @property
    def granted_bytes(self) -> int:
        return self._granted_bytes

    def reservation(self, resource_id: ResourceId, shape: DynamicResourceShape | None = None) -> Reservation:
        """The plan's reservation for ``resource_id`` (dynamic rows at ``shape``, default the minimum shape)."""
        request = self._static.get(resource_id)
        if request is not None:
            return Reservation(request, True, 1)
        descriptor = self._dynamic.get(resource_id)
        if descriptor is None:
            raise self._refuse(  # rule: 03.13.2/request_equals_reservation
                f"resource `{resource_id}` is outside the execution plan's memory plan"
            )
        size = descriptor.evaluate_request_bytes(shape or descriptor.demand.minimum_shape())
        request = BufferRequest(
            descriptor.base_resource_id, size, descriptor.alignment_bytes, descriptor.usage, descriptor.element_type
        )
        return Reservation(request, False, descriptor.theoretical_maximum_instances)

    def permit(self, request: BufferRequest, shape: DynamicResourceShape | None = None) -> DeviceAllocationPermit:
        """Grant ``request`` if it equals its reservation and fits the budget; else refuse."""
        reservation = self.reservation(request.resource_id, shape)
        planned = reservation.request
        if request.size_bytes != planned.size_bytes:
            raise self._refuse(  # rule: 03.13.2/request_equals_reservation
                f"request for `{request.resource_id}` asks {request.size_bytes} bytes, the plan reserves "
                f"{planned.size_bytes}"
            )
        if request.alignment_bytes != planned.alignment_bytes:
            raise self._refuse(  # rule: 03.13.2/request_equals_reservation
                f"request for `{request.resource_id}` is aligned to {request.alignment_bytes}, the plan reserves "
                f"{planned.alignment_bytes}"
            )
        if request != planned:
            raise self._refuse(  # rule: 03.13.2/executor_requests_own_reservations
                f"request for `{request.resource_id}` differs from its reservation in usage or dtype"
            )
        live = self._live.get(request.resource_id, 0)
        if live >= reservation.maximum_instances:
            raise self._refuse(  # rule: 03.13.2/executor_permit_accounting, 03.13.2/second_permit_refused
                f"resource `{request.resource_id}` already has {live} live instance(s)"
            )
        if self._granted_bytes + planned.size_bytes > self._memory.usable_capacity_bytes:
            raise self._refuse(  # rule: 03.13.2/second_permit_refused
                f"granting `{request.resource_id}` would hold {self._granted_bytes + planned.size_bytes} bytes, over "
                f"the usable capacity {self._memory.usable_capacity_bytes}"
            )
        self._live[request.resource_id] = live + 1
        self._granted_bytes += planned.size_bytes
        self._generation += 1
        self._ledger.record_grant()
        return DeviceAllocationPermit(_ISSUER, planned, self._generation, reservation.static)

    def permit_for(self, resource_id: ResourceId, shape: DynamicResourceShape | None = None) -> DeviceAllocationPermit:
        """A permit for the plan's own reservation of ``resource_id``."""
        return self.permit(self.reservation(resource_id, shape).request, shape)

    def release(self, request: BufferRequest) -> None:
        """Return one live instance of ``request`` to the plan."""
        live = self._live.get(request.resource_id, 0)
        if live == 0:
            raise InvalidExecutionPlan(  # rule: 03.13.2/executor_permit_accounting
                reason=f"resource `{request.resource_id}` has no live instance to release"
            )
        if live == 1:
            del self._live[request.resource_id]
        else:
            self._live[request.resource_id] = live - 1
        self._granted_bytes -= request.size_bytes

    def _refuse(self, reason: str) -> InvalidExecutionPlan:
        self._ledger.record_refusal()
        return InvalidExecutionPlan(reason=reason)
