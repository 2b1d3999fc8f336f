"""Broken backend: revalidation checks only the hash (no semantic rebuild, 05 §9.2 step 2-3 skipped).

``revalidate`` decodes the wire untrusted (size, schema, typed parse: those rejections stay
right), then accepts it iff ``plan_hash`` is the canonical hash of the payload and ``plan_id``
derives from it. A re-sealed forgery (seed ``rehash_plan_json``) or a plan replayed against
other dependencies is accepted. Caught by ``forged_plans``.
"""

from __future__ import annotations

from reference.canonical import canonical_bytes, sha256_hex
from reference.errors import InvalidExecutionPlan, PlanHashMismatch
from reference.plan.decode import decode_untrusted
from tests.broken.base import ReferenceBackend, Scenario


class HashOnlyRevalidation(ReferenceBackend):
    def revalidate(self, scenario: Scenario, wire: bytes) -> str:
        plan = decode_untrusted(wire)
        payload = plan.payload.to_wire()
        digest = sha256_hex(canonical_bytes({k: v for k, v in payload.items() if k != "plan_id"}))
        if digest != plan.plan_hash.value:
            raise PlanHashMismatch(expected=digest, actual=plan.plan_hash.value)
        if payload["plan_id"] != "plan/sha256/" + digest:
            raise InvalidExecutionPlan(reason="plan_id does not derive from the plan hash")
        return digest


def make() -> HashOnlyRevalidation:
    return HashOnlyRevalidation()
