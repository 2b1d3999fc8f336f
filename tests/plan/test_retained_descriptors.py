"""Retention does not change a retained value's descriptor (05 §7.10; decision D-05M-12).

A retained program output keeps its request-lifetime ``fixed`` descriptor and a retained
step intermediate its step-lifetime one; the memory plan equals the unretained plan's and
only ``retained_completion_values`` records the retention.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from reference import api
from seeds.scenarios import plan_fixture_scenario, retention_scenario, sequential_scratch_scenario

CASES = {
    "output": (plan_fixture_scenario, "value.output", "node.main", "request"),
    "intermediate": (sequential_scratch_scenario, "value.intermediate", "node.first", "step"),
}


def _payload(scenario: dict[str, Any]) -> dict[str, Any]:
    payload: dict[str, Any] = json.loads(api.build_plan(scenario))["payload"]
    return payload


@pytest.mark.parametrize("value", sorted(CASES))
def test_a_retained_value_keeps_its_descriptor(value: str) -> None:
    plain_builder, value_id, producer, lifetime = CASES[value]
    retained, plain = _payload(retention_scenario(value)), _payload(plain_builder())
    (row,) = retained["retained_completion_values"]
    assert (row["value_id"], row["producer_node_id"], row["output_ordinal"]) == (value_id, producer, 0)
    (descriptor,) = [
        d for d in retained["memory"]["dynamic_descriptors"] if d["base_resource_id"] == row["resource_id"]
    ]
    assert descriptor["lifetime"] == lifetime
    assert descriptor["demand"] == {"fixed": {"bytes": 16}}
    assert retained["memory"] == plain["memory"]
    assert plain["retained_completion_values"] == []
