"""Broken backend: a planner whose hash material leaves out ``policy_fingerprint``.

``build_plan`` re-seals the reference's wire with the hash of the payload minus ``plan_id``
*and* ``policy_fingerprint``; ``revalidate`` accepts that seal. A policy change that moves only
the policy fingerprint then keeps the hash. Caught by ``hash_stability`` (sensitivity matrix,
semantic changes, recomputed hash).
"""

from __future__ import annotations

import json
from typing import Any

from reference.canonical import canonical_bytes, direct_bytes, sha256_hex
from tests.broken.base import ReferenceBackend, Scenario

_IGNORED = ("plan_id", "policy_fingerprint")


def _seal(raw: dict[str, Any], ignored: tuple[str, ...]) -> dict[str, Any]:
    digest = sha256_hex(canonical_bytes({k: v for k, v in raw["payload"].items() if k not in ignored}))
    return {"payload": {**raw["payload"], "plan_id": "plan/sha256/" + digest}, "plan_hash": digest}


class HashIgnoresPolicy(ReferenceBackend):
    def build_plan(self, scenario: Scenario) -> bytes:
        return direct_bytes(_seal(json.loads(super().build_plan(scenario)), _IGNORED))

    def revalidate(self, scenario: Scenario, wire: bytes) -> str:
        try:
            raw = json.loads(wire)
            own = isinstance(raw, dict) and raw == _seal(raw, _IGNORED)
        except (ValueError, KeyError, TypeError, AttributeError):
            own = False
        if not own:
            return super().revalidate(scenario, wire)
        super().revalidate(scenario, direct_bytes(_seal(raw, ("plan_id",))))
        return str(raw["plan_hash"])


def make() -> HashIgnoresPolicy:
    return HashIgnoresPolicy()
