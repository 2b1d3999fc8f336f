"""Declarative runtime-policy documents: policies as JSON, for generators and out-of-process backends.

A document is one JSON object tagged by ``kind`` (schema:
``schemas/policy/document.json``):

* ``{"kind": "resolved", "wire": <ResolvedRuntimePolicy wire>}``: decoded exactly
  as the contract decodes a policy (every failure is ``Serialization``).
* ``{"kind": "resolved_fields", "fields": <the eight fields, no fingerprint>}``:
  the shape is decoded strictly (``Serialization``), then
  ``ResolvedRuntimePolicy.new`` runs and its contract error propagates
  unchanged (``invalid_resolved_model_plan`` / ``invalid_execution_plan``).
* ``{"kind": "adversarial", "serde": {maximum_active_sequences,
  maximum_scheduled_tokens, dynamic_storage_profile_order}}``: seed 000's
  ``AdversarialRuntimePolicy``.
* ``{"kind": "declared", "serialized": <any JSON>, "reported": {<member values>},
  "validate_error": null | <error object>}``: a ``DeclaredRuntimePolicy``;
  reported values may disagree with the serialized form.
"""

from __future__ import annotations

from typing import Any, Final

from reference.canonical import JsonValue, canonical_bytes
from reference.documents.custom_policy import AdversarialRuntimePolicy, DeclaredRuntimePolicy, ReportedPolicyValues
from reference.errors import Serialization, VNextError, error_from_dict
from reference.policy.enums import AttentionExecutionPolicy, ExecutionDeterminismRequirement
from reference.policy.memory import CheckpointCapacityPolicy
from reference.policy.resolved import WIRE_FIELDS, ResolvedRuntimePolicy, decode_policy_fields
from reference.policy.reusable import ReusableExecutionPolicy
from reference.policy.runtime_policy import RuntimePolicy
from reference.policy.storage import decode_storage_profile
from reference.versions import ContractVersion
from reference.wire import WireObject, decode_with, read_enum, read_list

__all__ = [
    "DOCUMENT_CONTEXT",
    "DOCUMENT_KINDS",
    "REPORTED_FIELDS",
    "declared_policy_of",
    "policy_from_document",
    "policy_to_document",
    "reported_from_wire",
    "reported_to_wire",
]

DOCUMENT_CONTEXT: Final = "decode runtime policy document"
DOCUMENT_KINDS: Final = ("resolved", "resolved_fields", "adversarial", "declared")
REPORTED_FIELDS: Final = (
    "version",
    "memory_capacity_bytes",
    "memory_reserve_bytes",
    "maximum_active_sequences",
    "maximum_scheduled_tokens",
    "attention_execution_policy",
    "execution_determinism_requirement",
    "dynamic_storage_profile_order",
    "reusable_execution_policy",
    "checkpoint_capacity_policy",
)
_BODY: Final = {
    "resolved": ("wire",),
    "resolved_fields": ("fields",),
    "adversarial": ("serde",),
    "declared": ("serialized", "reported", "validate_error"),
}


def reported_to_wire(reported: ReportedPolicyValues) -> dict[str, JsonValue]:
    reusable = reported.reusable_execution_policy
    checkpoint = reported.checkpoint_capacity_policy
    return {
        "version": reported.version.to_wire(),
        "memory_capacity_bytes": reported.memory_capacity_bytes,
        "memory_reserve_bytes": reported.memory_reserve_bytes,
        "maximum_active_sequences": reported.maximum_active_sequences,
        "maximum_scheduled_tokens": reported.maximum_scheduled_tokens,
        "attention_execution_policy": reported.attention_execution_policy.to_wire(),
        "execution_determinism_requirement": reported.execution_determinism_requirement.to_wire(),
        "dynamic_storage_profile_order": [profile.to_wire() for profile in reported.dynamic_storage_profile_order],
        "reusable_execution_policy": None if reusable is None else reusable.to_wire(),
        "checkpoint_capacity_policy": None if checkpoint is None else checkpoint.to_wire(),
    }


def reported_from_wire(raw: Any, *, context: str = DOCUMENT_CONTEXT, path: str = "$") -> ReportedPolicyValues:
    obj = WireObject(raw, REPORTED_FIELDS, type_name="ReportedPolicyValues", context=context, path=path)
    version = decode_with(
        lambda: ContractVersion.from_wire(obj.raw("version"), context=context), context=context, path=obj.at("version")
    )
    order_path = obj.at("dynamic_storage_profile_order")
    profiles = tuple(
        decode_storage_profile(item, context=context, path=f"{order_path}[{i}]")
        for i, item in enumerate(read_list(obj.raw("dynamic_storage_profile_order"), context=context, path=order_path))
    )
    return ReportedPolicyValues(
        version,
        obj.u64("memory_capacity_bytes"),
        obj.u64("memory_reserve_bytes"),
        obj.u32("maximum_active_sequences"),
        obj.u64("maximum_scheduled_tokens"),
        AttentionExecutionPolicy.from_wire(
            obj.raw("attention_execution_policy"), context=context, path=obj.at("attention_execution_policy")
        ),
        ExecutionDeterminismRequirement.from_wire(
            obj.raw("execution_determinism_requirement"),
            context=context,
            path=obj.at("execution_determinism_requirement"),
        ),
        profiles,
        obj.optional(
            "reusable_execution_policy",
            lambda value, ctx, at: ReusableExecutionPolicy.from_wire(value, context=ctx, path=at),
        ),
        obj.optional(
            "checkpoint_capacity_policy",
            lambda value, ctx, at: CheckpointCapacityPolicy.from_wire(value, context=ctx, path=at),
        ),
    )


def _resolved_from_fields(raw: Any, context: str, path: str) -> ResolvedRuntimePolicy:
    if isinstance(raw, dict) and "reusable_execution" not in raw:
        raw = {**raw, "reusable_execution": None}
    obj = WireObject(raw, WIRE_FIELDS[:-1], type_name="ResolvedRuntimePolicy fields", context=context, path=path)
    # Contract errors of ``new`` propagate with their own kind.
    return ResolvedRuntimePolicy.new(*decode_policy_fields(obj))


def policy_from_document(raw: Any, *, context: str = DOCUMENT_CONTEXT, path: str = "$") -> RuntimePolicy:
    """Build the policy a document describes (see the module docstring for error kinds)."""
    if not isinstance(raw, dict):
        raise Serialization(  # rule: 01.5/policy_document_object_prechecked
            context, f"{path}: a runtime policy document must be a JSON object"
        )
    kind = read_enum(raw.get("kind"), DOCUMENT_KINDS, context=context, path=f"{path}.kind")
    obj = WireObject(raw, ("kind", *_BODY[kind]), type_name=f"{kind} policy document", context=context, path=path)
    if kind == "resolved":
        return ResolvedRuntimePolicy.from_wire(obj.raw("wire"), context=context, path=obj.at("wire"))
    if kind == "resolved_fields":
        return _resolved_from_fields(obj.raw("fields"), context, obj.at("fields"))
    if kind == "adversarial":
        return AdversarialRuntimePolicy.from_wire(obj.raw("serde"), context=context, path=obj.at("serde"))
    serialized = obj.raw("serialized")
    canonical_bytes(serialized, context=context)
    reported = reported_from_wire(obj.raw("reported"), context=context, path=obj.at("reported"))
    error_raw = obj.raw("validate_error")
    error = None
    if error_raw is not None:
        try:
            error = error_from_dict(error_raw)
        except Serialization as exc:
            raise Serialization(  # rule: 01.5/document_format_refused
                context, f"{obj.at('validate_error')}: {exc.message_text}"
            ) from None
    return DeclaredRuntimePolicy(serialized, reported, error)


def declared_policy_of(policy: RuntimePolicy) -> DeclaredRuntimePolicy:
    """Capture any policy as data: its serde form, its member values and its ``validate`` outcome."""
    try:
        policy.validate()
        error: VNextError | None = None
    except VNextError as exc:
        error = exc
    return DeclaredRuntimePolicy(policy.to_wire(), ReportedPolicyValues.of(policy), error)


def policy_to_document(policy: RuntimePolicy) -> dict[str, JsonValue]:
    """The document of ``policy``; any other class (subclasses included) is captured as ``declared``."""
    if type(policy) is ResolvedRuntimePolicy:
        return {"kind": "resolved", "wire": policy.to_wire()}
    if type(policy) is AdversarialRuntimePolicy:
        return {"kind": "adversarial", "serde": policy.to_wire()}
    declared = policy if isinstance(policy, DeclaredRuntimePolicy) else declared_policy_of(policy)
    error = declared.validate_error
    return {
        "kind": "declared",
        "serialized": declared.to_wire(),
        "reported": reported_to_wire(declared.reported),
        "validate_error": None if error is None else error.to_dict(),
    }
