"""Allocation permits tied to the memory plan (03 §13.2; decision 08-runtime D2)."""

from __future__ import annotations

import dataclasses

import pytest

from reference.errors import InvalidExecutionPlan
from reference.ids import ResourceId
from reference.model.element import ElementType
from reference.resolution.usage import BufferUsage
from reference.runtime.ledger import RuntimeLedger
from reference.runtime.permits import DeviceAllocationPermit, PlanAllocationAuthority

from .conftest import built_plan_fixture

WEIGHT = ResourceId("resource.weight.0")
STATE = ResourceId("resource.state.0")


def _authority() -> tuple[PlanAllocationAuthority, RuntimeLedger]:
    ledger = RuntimeLedger()
    return PlanAllocationAuthority(built_plan_fixture().plan.memory, ledger), ledger


def test_permits_have_no_public_constructor() -> None:
    request = built_plan_fixture().plan.memory.static_allocations[0].buffer_request()
    with pytest.raises(TypeError):
        DeviceAllocationPermit(object(), request, 1, True)


def test_planned_requests_are_granted_exactly() -> None:
    authority, ledger = _authority()
    permit = authority.permit_for(WEIGHT)
    assert permit.is_static and permit.resource_id() == WEIGHT and permit.generation() == 1
    assert permit.into_request() == built_plan_fixture().plan.memory.static_allocations[0].buffer_request()
    with pytest.raises(InvalidExecutionPlan):
        permit.into_request()
    dynamic = authority.permit_for(STATE)
    assert not dynamic.is_static and dynamic.reservation().size_bytes == 16  # 4 B aligned to 16
    assert ledger.granted == 2 and ledger.refused == 0


def test_requests_outside_the_plan_are_refused_and_counted() -> None:
    authority, ledger = _authority()
    planned = authority.reservation(WEIGHT).request
    refused = [
        dataclasses.replace(planned, resource_id=ResourceId("resource.not-planned")),
        dataclasses.replace(planned, size_bytes=planned.size_bytes + 1),
        dataclasses.replace(planned, size_bytes=planned.size_bytes - 1),
        dataclasses.replace(planned, alignment_bytes=planned.alignment_bytes * 2),
        dataclasses.replace(planned, alignment_bytes=planned.alignment_bytes // 2),
        dataclasses.replace(planned, usage=BufferUsage.SCRATCH),
        dataclasses.replace(planned, element_type=ElementType.U8),
    ]
    for request in refused:
        with pytest.raises(InvalidExecutionPlan):
            authority.permit(request)
    assert ledger.refused == len(refused) and ledger.granted == 0 and authority.granted_bytes == 0


def test_a_static_row_is_granted_once_and_dynamic_rows_up_to_their_instances() -> None:
    authority, _ = _authority()
    authority.permit_for(WEIGHT)
    with pytest.raises(InvalidExecutionPlan):
        authority.permit_for(WEIGHT)
    instances = built_plan_fixture().plan.memory.maximum_active_sequences
    for _ in range(instances):
        authority.permit_for(STATE)
    with pytest.raises(InvalidExecutionPlan):
        authority.permit_for(STATE)
    authority.release(authority.reservation(STATE).request)
    authority.permit_for(STATE)


def test_release_returns_bytes_and_refuses_unknown_instances() -> None:
    authority, _ = _authority()
    request = authority.permit_for(WEIGHT).reservation()
    assert authority.granted_bytes == 16
    authority.release(request)
    assert authority.granted_bytes == 0
    with pytest.raises(InvalidExecutionPlan):
        authority.release(request)


def test_grants_never_exceed_the_usable_capacity() -> None:
    from reference.scenario.execute import scenario_plan
    from seeds.policies import policy
    from seeds.scenarios import plan_fixture_scenario

    memory = scenario_plan(plan_fixture_scenario(0, policy_value=policy(4096))).plan.memory
    ledger = RuntimeLedger()
    authority = PlanAllocationAuthority(memory, ledger)
    granted = 0
    scratch = next(d for d in memory.dynamic_descriptors if d.usage is BufferUsage.SCRATCH).base_resource_id
    for row in memory.static_allocations:
        granted += authority.permit_for(row.resource_id).reservation().size_bytes
    for _ in range(memory.maximum_active_sequences):
        granted += authority.permit_for(scratch).reservation().size_bytes
    assert granted <= memory.usable_capacity_bytes == authority.usable_capacity_bytes
