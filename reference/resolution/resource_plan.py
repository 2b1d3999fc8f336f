"""The trusted ``ProviderResourcePlan`` and workspace resource identities (spec 04 §8.3).

``from_provider_output`` checks the estimate's identity and input claim against
the catalog descriptor, copies identity from the descriptor, runs
``validate_fields`` and stamps ``estimate_fingerprint``. ``validate_shape`` =
``validate_fields`` + fingerprint recomputation; the plan builder re-runs it.
Every failure is ``InvalidExecutionPlan``; decoding failures are ``Serialization``.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any, Final

from reference.canonical import JsonValue, fingerprint, is_canonical_sha256
from reference.catalog.provider import OperationProviderDescriptor
from reference.errors import InvalidExecutionPlan
from reference.ids import NodeId, ProviderId, ResourceId, check_portable_string
from reference.ints import fits_uint, is_power_of_two
from reference.recomputation import ValidByIdentity
from reference.resolution.estimate import OperationResourceEstimate
from reference.resolution.workspace import (
    ProviderWorkspaceRequirement,
    ProviderWorkspaceReusePolicy,
    ProviderWorkspaceScope,
)
from reference.versions import ContractVersion
from reference.wire import WireObject, decode_with

__all__ = [
    "ESTIMATE_FINGERPRINT_CONTEXT",
    "WORKSPACE_KINDS",
    "ProviderResourcePlan",
    "workspace_base_id",
]

ESTIMATE_FINGERPRINT_CONTEXT: Final = "fingerprint provider resource estimate"
#: The three provider workspace kinds, in the order resolution inspects them.
WORKSPACE_KINDS: Final = ("scratch", "binding", "persistent")


def workspace_base_id(node_id: NodeId, kind: str, estimate_fingerprint: str) -> ResourceId:
    """``resource/<kind>/sha256/<sha256(kind NUL node_id NUL estimate_fingerprint)>``."""
    if kind not in WORKSPACE_KINDS:
        raise InvalidExecutionPlan(  # rule: 04.8.3/workspace_base_id_needs_canonical_fingerprint
            reason=f"unknown workspace kind `{kind}`"
        )
    if not is_canonical_sha256(estimate_fingerprint):
        raise InvalidExecutionPlan(  # rule: 04.8.3/workspace_base_id_needs_canonical_fingerprint
            reason="workspace estimate fingerprint is not a canonical sha256"
        )
    material = f"{kind}\x00{node_id.value}\x00{estimate_fingerprint}".encode()
    return ResourceId(f"resource/{kind}/sha256/{hashlib.sha256(material).hexdigest()}")


def _workspace_wire(requirement: ProviderWorkspaceRequirement | None) -> JsonValue:
    return None if requirement is None else requirement.to_wire()


#: Resource plans whose shape was found valid.
_VALID_SHAPES: Final = ValidByIdentity(65536)


@dataclass(frozen=True, slots=True)
class ProviderResourcePlan:
    """One provider's validated resource plan for one node.

    Trusted instances come from ``from_provider_output`` or ``from_wire``; a plan
    assembled by hand is checked with ``validate_shape``.
    """

    provider_id: ProviderId
    estimator_id: str
    estimator_version: ContractVersion
    estimator_implementation_fingerprint: str
    estimator_input_fingerprint: str
    estimate_fingerprint: str
    value_alignment_bytes: int
    scratch: ProviderWorkspaceRequirement | None
    binding: ProviderWorkspaceRequirement | None
    persistent: ProviderWorkspaceRequirement | None

    @classmethod
    def from_provider_output(
        cls,
        descriptor: OperationProviderDescriptor,
        expected_input_fingerprint: str,
        estimate: OperationResourceEstimate,
    ) -> ProviderResourcePlan:
        """Identity and input claim, copy, ``validate_fields``, stamp the estimate fingerprint."""
        # One combined check upstream: the four mismatches have the same error.
        mismatch = f"provider `{descriptor.provider_id}` estimate does not match its registration or input"
        if estimate.estimator_id != descriptor.resource_estimator_id:
            raise InvalidExecutionPlan(reason=mismatch)  # rule: 04.8.3/estimator_id_matches
        if estimate.estimator_version != descriptor.resource_estimator_version:
            raise InvalidExecutionPlan(reason=mismatch)  # rule: 04.8.3/estimator_version_matches
        if estimate.estimator_implementation_fingerprint != descriptor.resource_estimator_implementation_fingerprint:
            raise InvalidExecutionPlan(reason=mismatch)  # rule: 04.8.3/estimator_implementation_matches
        if estimate.claimed_input_fingerprint != expected_input_fingerprint:
            raise InvalidExecutionPlan(reason=mismatch)  # rule: 04.8.3/claimed_input_matches
        draft = cls(
            descriptor.provider_id,
            descriptor.resource_estimator_id,
            descriptor.resource_estimator_version,
            descriptor.resource_estimator_implementation_fingerprint,
            expected_input_fingerprint,
            "",
            estimate.value_alignment_bytes,
            estimate.scratch,
            estimate.binding,
            estimate.persistent,
        )
        draft.validate_fields()
        return cls(**{**draft._fields(), "estimate_fingerprint": draft.compute_estimate_fingerprint()})

    def _fields(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.__dataclass_fields__}

    def validate_fields(self) -> None:
        """Estimator identity, canonical fingerprints, alignment, and the three workspace slot rules."""
        if check_portable_string(self.estimator_id) is not None:
            raise InvalidExecutionPlan(  # rule: 04.8.3/estimator_id_portable
                reason="provider resource plan has an invalid estimator id"
            )
        if self.estimator_version.major == 0:
            raise InvalidExecutionPlan(  # rule: 04.8.3/estimator_version_major_nonzero
                reason="provider resource plan has a zero estimator major version"
            )
        if not is_canonical_sha256(self.estimator_implementation_fingerprint) or not is_canonical_sha256(
            self.estimator_input_fingerprint
        ):
            raise InvalidExecutionPlan(  # rule: 04.8.3/fingerprints_canonical
                reason="provider resource plan fingerprints must be canonical sha256"
            )
        alignment = self.value_alignment_bytes
        if not fits_uint(alignment, 64) or not is_power_of_two(alignment):
            raise InvalidExecutionPlan(  # rule: 04.8.3/value_alignment_power_of_two
                reason="provider value alignment must be a non-zero power of two"
            )
        invocation, preserve = ProviderWorkspaceScope.INVOCATION, ProviderWorkspaceReusePolicy.PRESERVE
        scratch, binding, persistent = self.scratch, self.binding, self.persistent
        if scratch is not None and (scratch.scope is not invocation or scratch.reuse_policy is preserve):
            raise InvalidExecutionPlan(  # rule: 04.8.3/scratch_slot_rules
                reason="scratch workspace must be invocation-scoped and not preserved"
            )
        if binding is not None and (
            binding.scope is not invocation
            or binding.reuse_policy is not ProviderWorkspaceReusePolicy.OVERWRITE_BEFORE_READ
        ):
            raise InvalidExecutionPlan(  # rule: 04.8.3/binding_slot_rules
                reason="binding workspace must be invocation-scoped and overwritten before read"
            )
        if persistent is not None and (persistent.scope is invocation or persistent.reuse_policy is not preserve):
            raise InvalidExecutionPlan(  # rule: 04.8.3/persistent_slot_rules
                reason="persistent workspace must outlive the invocation and be preserved"
            )
        for requirement in (scratch, binding, persistent):
            if requirement is not None:
                requirement.validate()

    def estimate_material(self) -> dict[str, JsonValue]:
        return {
            "provider_id": self.provider_id.value,
            "estimator_id": self.estimator_id,
            "estimator_version": self.estimator_version.to_wire(),
            "estimator_implementation_fingerprint": self.estimator_implementation_fingerprint,
            "estimator_input_fingerprint": self.estimator_input_fingerprint,
            "value_alignment_bytes": self.value_alignment_bytes,
            "scratch": _workspace_wire(self.scratch),
            "binding": _workspace_wire(self.binding),
            "persistent": _workspace_wire(self.persistent),
        }

    def compute_estimate_fingerprint(self) -> str:
        """Canonical fingerprint of the estimate material (absent workspaces as ``null``)."""
        return fingerprint(self.estimate_material(), context=ESTIMATE_FINGERPRINT_CONTEXT)

    def validate_shape(self) -> None:
        """``validate_fields`` and a canonical fingerprint equal to its recomputation (an immutable plan found
        valid once is valid: it is remembered by identity, and checked afresh inside ``computed_directly()``)."""
        if _VALID_SHAPES.known(self):
            return
        self.validate_fields()
        if not is_canonical_sha256(self.estimate_fingerprint) or (
            self.estimate_fingerprint != self.compute_estimate_fingerprint()
        ):
            raise InvalidExecutionPlan(  # rule: 04.8.3/validate_shape_fingerprint
                reason="provider resource plan estimate fingerprint does not match"
            )
        _VALID_SHAPES.add(self)

    def workspaces(self) -> tuple[tuple[str, ProviderWorkspaceRequirement], ...]:
        """Present workspaces as ``(kind, requirement)`` in scratch, binding, persistent order."""
        slots = (("scratch", self.scratch), ("binding", self.binding), ("persistent", self.persistent))
        return tuple((kind, req) for kind, req in slots if req is not None)

    def workspace_resource_id(self, node_id: NodeId, kind: str) -> ResourceId:
        return workspace_base_id(node_id, kind, self.estimate_fingerprint)

    def to_wire(self) -> dict[str, JsonValue]:
        return {
            "provider_id": self.provider_id.value,
            "estimator_id": self.estimator_id,
            "estimator_version": self.estimator_version.to_wire(),
            "estimator_implementation_fingerprint": self.estimator_implementation_fingerprint,
            "estimator_input_fingerprint": self.estimator_input_fingerprint,
            "estimate_fingerprint": self.estimate_fingerprint,
            "value_alignment_bytes": self.value_alignment_bytes,
            "scratch": _workspace_wire(self.scratch),
            "binding": _workspace_wire(self.binding),
            "persistent": _workspace_wire(self.persistent),
        }

    @classmethod
    def from_wire(
        cls, raw: Any, *, context: str = "decode provider resource plan", path: str = "$"
    ) -> ProviderResourcePlan:
        """deny_unknown_fields, then ``validate_shape`` (plan decoding re-checks every plan)."""
        fields = (
            "provider_id",
            "estimator_id",
            "estimator_version",
            "estimator_implementation_fingerprint",
            "estimator_input_fingerprint",
            "estimate_fingerprint",
            "value_alignment_bytes",
            "scratch",
            "binding",
            "persistent",
        )
        obj = WireObject(raw, fields, type_name="ProviderResourcePlan", context=context, path=path)

        def workspace(name: str) -> ProviderWorkspaceRequirement | None:
            value = obj.raw(name)
            if value is None:
                return None
            return ProviderWorkspaceRequirement.from_wire(value, context=context, path=obj.at(name))

        plan = cls(
            obj.identity("provider_id", ProviderId),
            obj.string("estimator_id"),
            ContractVersion.from_wire(obj.raw("estimator_version"), context=context),
            obj.string("estimator_implementation_fingerprint"),
            obj.string("estimator_input_fingerprint"),
            obj.string("estimate_fingerprint"),
            obj.u64("value_alignment_bytes"),
            workspace("scratch"),
            workspace("binding"),
            workspace("persistent"),
        )
        decode_with(plan.validate_shape, context=context, path=path)
        return plan
