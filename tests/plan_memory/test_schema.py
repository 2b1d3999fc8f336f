"""``schemas/plan/memory.json`` accepts every reference memory plan and refuses malformed shapes."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given
from jsonschema import ValidationError

import schemas
from reference.catalog.storage import DynamicStorageProfile
from reference.ids import ResourceId
from reference.plan.memory import build_memory_plan
from reference.policy.memory import CheckpointCapacityPolicy
from reference.policy.reusable import (
    ReusableExecutionBucketSpec,
    ReusableExecutionCapacity,
    ReusableExecutionClassId,
    ReusableExecutionPolicy,
)
from tests.plan_memory.fixtures import plan_fixture_input, plan_input, sequential_scratch_nodes
from tests.plan_memory.test_properties import Program, programs

DOC = "plan/memory.json"


def _plans() -> list[dict[str, Any]]:
    bucket = ReusableExecutionBucketSpec.new(
        ReusableExecutionClassId("execution.test"), ReusableExecutionCapacity(1, 1, 1)
    )
    return [
        build_memory_plan(plan_fixture_input(0)).to_wire(),
        build_memory_plan(
            plan_fixture_input(
                0,
                checkpoint=CheckpointCapacityPolicy(100),
                checkpoint_resources=(ResourceId("resource.state.0"),),
            )
        ).to_wire(),
        build_memory_plan(plan_fixture_input(0, profile=DynamicStorageProfile.paged(4096), capacity=1 << 20)).to_wire(),
        build_memory_plan(
            plan_input(sequential_scratch_nodes(), capacity=16384, reusable=ReusableExecutionPolicy.new(2, [bucket]))
        ).to_wire(),
    ]


@pytest.mark.parametrize("index", range(4))
def test_reference_plans_validate(index: int) -> None:
    schemas.validate(DOC, _plans()[index])


@given(programs())
def test_generated_plans_validate(program: Program) -> None:
    schemas.validate(DOC, build_memory_plan(plan_input(program.nodes, capacity=1 << 30, device=1 << 30)).to_wire())


@pytest.mark.parametrize(
    "mutate",
    [
        lambda w: w.update(unknown=1),
        lambda w: w.update(theoretical_ceiling_bytes=384),
        lambda w: w.update(theoretical_ceiling_bytes="0384"),
        lambda w: w.pop("reusable_execution"),
        lambda w: w["dynamic_pools"][0].update(checkpoint_growth_ceiling_bytes=0),
        lambda w: w["dynamic_descriptors"][0].update(lifetime="plan"),
        lambda w: w["dynamic_descriptors"][0].update(demand={"fixed": {"bytes": 0}}),
        lambda w: w["static_allocations"][0].update(instance_count=2),
        lambda w: w["dynamic_pools"][0]["provisioning"].update(mode="eager"),
    ],
)
def test_malformed_plans_rejected(mutate: Any) -> None:
    wire = copy.deepcopy(_plans()[0])
    mutate(wire)
    with pytest.raises(ValidationError):
        schemas.validate(DOC, wire)
