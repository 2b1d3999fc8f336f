"""Provider-selection evidence on the wire (05 §9; decisions D-05P-1, D-05PW-12).

* ``storage_incompatible.resource_ids`` is a plain array in the typed decode: an empty,
  unsorted or duplicated list decodes, and revalidation refuses it because the payload
  differs from the semantic rebuild (``invalid_execution_plan``), re-hashed or not.
* The no-preference reason is spelled ``canonical_compatible``; the pre-8.1 spelling
  ``deterministic_compatible`` is not a variant, so the typed decode refuses it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from reference.plan.decode import decode_untrusted
from reference.scenario.plan import revalidate_scenario_wire

from .helpers import encode, raises_kind, rehash_plan_json, scenario, wire_value

EP = "invalid_execution_plan"
EDITS: dict[str, Callable[[list[str]], list[str]]] = {
    "empty": lambda ids: [],
    "unsorted": lambda ids: list(reversed(ids)),
    "duplicated": lambda ids: [ids[0], *ids],
}


def _rejection_ids(value: dict[str, Any]) -> dict[str, Any]:
    (rejected,) = value["payload"]["nodes"][0]["selection"]["rejected_providers"]
    reasons: dict[str, Any] = rejected["reasons"]["storage_incompatible"]
    return reasons


@pytest.mark.parametrize("rehash", [False, True], ids=["unsealed", "rehashed"])
@pytest.mark.parametrize("edit", sorted(EDITS))
def test_storage_incompatible_ids_decode_and_fail_revalidation(edit: str, rehash: bool) -> None:
    value = wire_value("paged_storage")
    reasons = _rejection_ids(value)
    assert len(reasons["resource_ids"]) == 3
    reasons["resource_ids"] = EDITS[edit](reasons["resource_ids"])
    if rehash:
        rehash_plan_json(value)
    data = encode(value)
    decoded = decode_untrusted(data)  # a plain Vec<ResourceId>: no validation at decode
    assert decoded.payload.nodes[0].selection.to_wire()["rejected_providers"][0]["reasons"] == {
        "storage_incompatible": {"resource_ids": reasons["resource_ids"]}
    }
    error = raises_kind(EP, lambda: revalidate_scenario_wire(scenario("paged_storage"), data))
    assert "semantic rebuild" in error.to_dict()["reason"]


@pytest.mark.parametrize("rehash", [False, True], ids=["unsealed", "rehashed"])
def test_the_pre_8_1_reason_spelling_is_refused_at_decode(rehash: bool) -> None:
    value = wire_value("plan_fixture_0")
    selection = value["payload"]["nodes"][0]["selection"]
    assert selection["selection_reason"] == "canonical_compatible"
    selection["selection_reason"] = "deterministic_compatible"
    if rehash:
        rehash_plan_json(value)
    raises_kind("serialization", lambda: decode_untrusted(encode(value)))
