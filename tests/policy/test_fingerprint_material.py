"""The ``ResolvedRuntimePolicy`` fingerprint material (01 UNRESOLVED 9, 04 §3.3; decision D-04-13).

The material is the policy's wire object without ``fingerprint``: all eight fields, the 0.12.2
ones (``attention_execution``, ``execution_determinism``, ``memory.checkpoint_capacity``)
included, ``reusable_execution`` written as ``null`` when absent and ``checkpoint_capacity``
omitted when absent.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given

from reference.canonical import fingerprint
from reference.policy.resolved import FINGERPRINT_CONTEXT
from seeds.policies import policy
from tests.policy.helpers import build
from tests.policy.strategies import policy_fields

MATERIAL_FIELDS = {
    "policy_id",
    "version",
    "scheduling",
    "memory",
    "admission",
    "attention_execution",
    "execution_determinism",
    "reusable_execution",
}


@given(policy_fields(valid=True))
def test_fingerprint_is_the_wire_minus_fingerprint(fields: dict[str, Any]) -> None:
    built = build(fields)
    wire = built.to_wire()
    material = {k: v for k, v in wire.items() if k != "fingerprint"}
    assert set(material) == MATERIAL_FIELDS == set(built.material())
    assert built.material() == material
    assert built.fingerprint_str() == fingerprint(material, context=FINGERPRINT_CONTEXT)
    if built.memory().checkpoint_capacity is None:
        assert "checkpoint_capacity" not in material["memory"]


def test_the_seed_policy_material_and_vector() -> None:
    material = policy(4096).material()
    assert material["reusable_execution"] is None and "checkpoint_capacity" not in material["memory"]
    assert fingerprint(material, context=FINGERPRINT_CONTEXT) == (
        "59a39ad6374e90e3ea6fd2dc3fc6ba9f498109e9e70cf42c85fa0e4d1592c4b1"
    )
