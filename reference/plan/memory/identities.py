"""Resource identities that belong to the memory plan (spec 05 §7.3).

* ``workspace_base_id(node, kind, estimate_fingerprint)``: ``resource/<kind>/sha256/`` +
  hex SHA-256 of ``kind \\0 node \\0 estimate_fingerprint``; re-exported from the
  resolution layer, which owns it.
* ``compiler_resource_id(kind, prepared_family_fingerprint, semantic)``: weight probes,
  weight arenas (semantic = JSON of the physical element type, quotes included), states and
  activations of ``ProgramPlanCompiler``.
* ``pool_id_for(key_wire)``: ``dynamic-pool/sha256/`` + canonical fingerprint of the
  ``PoolCompatibilityKey`` wire.
"""

from __future__ import annotations

import hashlib
from typing import Any, Final

from reference.canonical import fingerprint
from reference.ids import DynamicBackingPoolId, ResourceId
from reference.model.element import ElementType
from reference.resolution.resource_plan import workspace_base_id

__all__ = [
    "COMPILER_RESOURCE_KINDS",
    "WORKSPACE_KINDS",
    "compiler_resource_id",
    "pool_id_for",
    "weight_arena_resource_id",
    "workspace_base_id",
]

WORKSPACE_KINDS: Final = ("scratch", "binding", "persistent")
COMPILER_RESOURCE_KINDS: Final = ("weight-probe", "weight-arena", "state", "activation")


def _derived(kind: str, first: str, second: str) -> ResourceId:
    digest = hashlib.sha256(f"{kind}\0{first}\0{second}".encode()).hexdigest()
    return ResourceId(f"resource/{kind}/sha256/{digest}")


def compiler_resource_id(kind: str, prepared_family_fingerprint: str, semantic: str) -> ResourceId:
    """A ``ProgramPlanCompiler`` storage id (weight probe, weight arena, state, activation)."""
    if kind not in COMPILER_RESOURCE_KINDS:
        raise ValueError(f"unknown compiler resource kind {kind!r}")
    return _derived(kind, prepared_family_fingerprint, semantic)


def weight_arena_resource_id(prepared_family_fingerprint: str, element_type: ElementType) -> ResourceId:
    """One arena per physical element type; the semantic part is the JSON string, e.g. ``"f32"``."""
    return compiler_resource_id("weight-arena", prepared_family_fingerprint, f'"{element_type.value}"')


def pool_id_for(key_wire: Any) -> DynamicBackingPoolId:
    """``dynamic-pool/sha256/<canonical fingerprint of the compatibility key>``."""
    digest = fingerprint(key_wire, context="fingerprint dynamic pool compatibility", trusted=True)
    return DynamicBackingPoolId(DynamicBackingPoolId.PREFIX + digest)
