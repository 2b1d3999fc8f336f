"""Node-resolution sections the planner refuses: a valid scenario's ``resolutions`` broken by one operator.

Each operator rewrites one place of the resolutions a backend is handed (a binding's position, role, value,
tensor, access, storage range, weight binding, a node's required capabilities, the node list itself) so
that decoding the scenario or ``ExecutionPlan::build`` (05 §3.1) must refuse it. An operator reports when the
scenario has nothing it applies to (no second node, no weight value, ...). Deterministic: no drawing.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from typing import Any, Final

__all__ = ["RESOLUTION_OPERATORS", "break_resolutions"]

Scenario = dict[str, Any]
Operator = Callable[[list[dict[str, Any]]], bool]


def _values(resolutions: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    for node in resolutions:
        yield from node["values"]


def _first(resolutions: list[dict[str, Any]], **match: Any) -> dict[str, Any] | None:
    return next((v for v in _values(resolutions) if all(v.get(k) == x for k, x in match.items())), None)


def _drop_resolution(resolutions: list[dict[str, Any]]) -> bool:
    resolutions.pop()
    return True


def _duplicate_resolution(resolutions: list[dict[str, Any]]) -> bool:
    resolutions.append(copy.deepcopy(resolutions[0]))
    return True


def _unknown_node(resolutions: list[dict[str, Any]]) -> bool:
    resolutions[0]["node_id"] = "node.absent"
    return True


def _ordinal_shifted(resolutions: list[dict[str, Any]]) -> bool:
    resolutions[0]["values"][0]["ordinal"] += 1
    return True


def _role_swapped(resolutions: list[dict[str, Any]]) -> bool:
    value = resolutions[0]["values"][0]
    value["role"] = "output" if value["role"] == "input" else "input"
    return True


def _unknown_value(resolutions: list[dict[str, Any]]) -> bool:
    resolutions[0]["values"][0]["value_id"] = "value.absent"
    return True


def _value_dropped(resolutions: list[dict[str, Any]]) -> bool:
    resolutions[0]["values"].pop()
    return True


def _dimension_grown(resolutions: list[dict[str, Any]]) -> bool:
    tensor = resolutions[0]["values"][0]["tensor"]
    tensor["dimensions"] = [tensor["dimensions"][0] + 1, *tensor["dimensions"][1:]]
    return True


def _element_type_changed(resolutions: list[dict[str, Any]]) -> bool:
    tensor = resolutions[0]["values"][0]["tensor"]
    tensor["element_type"] = "u8" if tensor["element_type"] != "u8" else "f32"
    return True


def _output_read_only(resolutions: list[dict[str, Any]]) -> bool:
    value = _first(resolutions, role="output")
    if value is None:
        return False
    value["access"] = "read"
    return True


def _storage_short(resolutions: list[dict[str, Any]]) -> bool:
    component = resolutions[0]["values"][0]["storage"]["components"][0]
    component["length_bytes"] -= 1
    return True


def _storage_misaligned(resolutions: list[dict[str, Any]]) -> bool:
    component = resolutions[0]["values"][0]["storage"]["components"][0]
    component["offset_bytes"] += 1
    return True


def _storage_element_type(resolutions: list[dict[str, Any]]) -> bool:
    component = resolutions[0]["values"][0]["storage"]["components"][0]
    component["element_type"] = "u8" if component["element_type"] != "u8" else "f32"
    return True


def _storage_dropped(resolutions: list[dict[str, Any]]) -> bool:
    resolutions[0]["values"][0]["storage"]["components"] = []
    return True


def _cross_node_resource(resolutions: list[dict[str, Any]]) -> bool:
    """A later node reads a value from another resource than the node that wrote it."""
    if len(resolutions) < 2:
        return False
    value = next((v for v in resolutions[-1]["values"] if v["role"] == "input" and v["usage"] == "activations"), None)
    if value is None:
        return False
    value["storage"]["components"][0]["resource_id"] = "resource.elsewhere"
    return True


def _weight_format_changed(resolutions: list[dict[str, Any]]) -> bool:
    value = _first(resolutions, usage="weights")
    if value is None or value["weight"] is None:
        return False
    value["weight"]["format_id"] = "weight-format.absent"
    return True


def _weight_component_grown(resolutions: list[dict[str, Any]]) -> bool:
    value = _first(resolutions, usage="weights")
    if value is None or value["weight"] is None:
        return False
    component = value["weight"]["components"][0]
    component["physical_dimensions"] = [component["physical_dimensions"][0] * 2, *component["physical_dimensions"][1:]]
    return True


def _weight_binding_dropped(resolutions: list[dict[str, Any]]) -> bool:
    value = _first(resolutions, usage="weights")
    if value is None:
        return False
    value["weight"] = None
    return True


def _capability_absent(resolutions: list[dict[str, Any]]) -> bool:
    resolutions[0]["required_capabilities"] = ["capability.absent"]
    return True


#: Every resolution rejection operator, by name.
RESOLUTION_OPERATORS: Final[dict[str, Operator]] = {
    "capability_absent": _capability_absent,
    "cross_node_resource": _cross_node_resource,
    "dimension_grown": _dimension_grown,
    "drop_resolution": _drop_resolution,
    "duplicate_resolution": _duplicate_resolution,
    "element_type_changed": _element_type_changed,
    "ordinal_shifted": _ordinal_shifted,
    "output_read_only": _output_read_only,
    "role_swapped": _role_swapped,
    "storage_dropped": _storage_dropped,
    "storage_element_type": _storage_element_type,
    "storage_misaligned": _storage_misaligned,
    "storage_short": _storage_short,
    "unknown_node": _unknown_node,
    "unknown_value": _unknown_value,
    "value_dropped": _value_dropped,
    "weight_binding_dropped": _weight_binding_dropped,
    "weight_component_grown": _weight_component_grown,
    "weight_format_changed": _weight_format_changed,
}


def break_resolutions(scenario: Scenario, operator: str) -> Scenario | None:
    """``scenario`` with its resolutions broken by ``operator``; ``None`` when the operator does not apply."""
    broken = copy.deepcopy(scenario)
    return broken if RESOLUTION_OPERATORS[operator](broken["resolutions"]) else None
