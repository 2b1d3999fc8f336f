"""Broken backend: an order-sensitive plan hash (sha256 of the *direct* bytes instead of the canonical ones).

``build_plan`` re-seals the reference's wire with ``sha256(direct_bytes(payload - plan_id))``;
``revalidate`` accepts its own seal (it re-seals canonically and lets the reference judge) and
answers with the direct-bytes hash. Caught by ``hash_stability`` (the harness's recomputed
hash, golden vectors, reference bytes).
"""

from __future__ import annotations

import json
from typing import Any

from reference.canonical import canonical_bytes, direct_bytes, sha256_hex
from tests.broken.base import ReferenceBackend, Scenario


def _seal(raw: dict[str, Any], hasher: Any) -> dict[str, Any]:
    payload = {k: v for k, v in raw["payload"].items() if k != "plan_id"}
    digest: str = sha256_hex(hasher(payload))
    return {"payload": {**raw["payload"], "plan_id": "plan/sha256/" + digest}, "plan_hash": digest}


class DirectBytesHash(ReferenceBackend):
    def build_plan(self, scenario: Scenario) -> bytes:
        return direct_bytes(_seal(json.loads(super().build_plan(scenario)), direct_bytes))

    def revalidate(self, scenario: Scenario, wire: bytes) -> str:
        try:
            raw = json.loads(wire)
            own = isinstance(raw, dict) and raw == _seal(raw, direct_bytes)
        except (ValueError, KeyError, TypeError, AttributeError):
            own = False
        if not own:
            return super().revalidate(scenario, wire)
        super().revalidate(scenario, direct_bytes(_seal(raw, canonical_bytes)))
        return str(raw["plan_hash"])


def make() -> DirectBytesHash:
    return DirectBytesHash()
