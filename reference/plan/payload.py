"""``ExecutionPlanPayload`` (spec 05 §8.1) and the plan hash / plan id (§8.2).

Field order: schema, plan_id, family_id, device_id,
device_runtime_implementation_fingerprint, prepared_family_fingerprint,
program_fingerprint, capability_catalog_fingerprint, policy_version, policy_fingerprint,
maximum_scheduled_tokens, execution_weights, weight_format, quantization_formats,
retained_completion_values, nodes, memory. The hash material is the payload wire
without ``plan_id``; ``plan_hash`` = sha256 of its canonical bytes.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Final

from reference.canonical import JsonValue, canonical_bytes, sha256_hex
from reference.errors import Serialization
from reference.ids import DeviceId, ModelFamilyId, PlanHash, PlanId, QuantizationFormatId, WeightFormatId
from reference.plan.memory import MemoryPlan
from reference.plan.node import PlanNode
from reference.plan.retained import RetainedCompletionValue
from reference.versions import ContractVersion, PlanSchemaVersion
from reference.weights.plan import ExecutionWeightPlan
from reference.wire import WireObject

__all__ = [
    "EXECUTION_PLAN_SCHEMA",
    "MAX_EXECUTION_PLAN_WIRE_BYTES",
    "PAYLOAD_FIELDS",
    "ExecutionPlanPayload",
    "plan_hash_of_material",
]

EXECUTION_PLAN_SCHEMA: Final = PlanSchemaVersion(8, 1)
MAX_EXECUTION_PLAN_WIRE_BYTES: Final = 16 * 1024 * 1024
HASH_CONTEXT: Final = "hash execution plan payload"
PAYLOAD_FIELDS: Final = (
    "schema",
    "plan_id",
    "family_id",
    "device_id",
    "device_runtime_implementation_fingerprint",
    "prepared_family_fingerprint",
    "program_fingerprint",
    "capability_catalog_fingerprint",
    "policy_version",
    "policy_fingerprint",
    "maximum_scheduled_tokens",
    "execution_weights",
    "weight_format",
    "quantization_formats",
    "retained_completion_values",
    "nodes",
    "memory",
)


def plan_hash_of_material(payload_wire: dict[str, JsonValue]) -> tuple[PlanHash, bytes]:
    """sha256 of the canonical bytes of the payload wire without ``plan_id``, and those bytes."""
    material = {k: v for k, v in payload_wire.items() if k != "plan_id"}
    encoded = canonical_bytes(material, context=HASH_CONTEXT, trusted=True)
    return PlanHash(sha256_hex(encoded)), encoded


@dataclass(frozen=True, slots=True, eq=False)
class ExecutionPlanPayload:
    """Everything the plan hash covers (plus the ``plan_id`` derived from it)."""

    schema: PlanSchemaVersion
    plan_id: PlanId
    family_id: ModelFamilyId
    device_id: DeviceId
    device_runtime_implementation_fingerprint: str
    prepared_family_fingerprint: str
    program_fingerprint: str
    capability_catalog_fingerprint: str
    policy_version: ContractVersion
    policy_fingerprint: str
    maximum_scheduled_tokens: int
    execution_weights: ExecutionWeightPlan
    weight_format: WeightFormatId
    quantization_formats: tuple[QuantizationFormatId, ...]
    retained_completion_values: tuple[RetainedCompletionValue, ...]
    nodes: tuple[PlanNode, ...]
    memory: MemoryPlan

    def with_plan_id(self, plan_id: PlanId) -> ExecutionPlanPayload:
        return replace(self, plan_id=plan_id)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ExecutionPlanPayload):
            return NotImplemented
        return self.to_wire() == other.to_wire()

    def __hash__(self) -> int:
        return hash(self.plan_id)

    def to_wire(self) -> dict[str, JsonValue]:
        return {
            "schema": self.schema.to_wire(),
            "plan_id": self.plan_id.value,
            "family_id": self.family_id.value,
            "device_id": self.device_id.value,
            "device_runtime_implementation_fingerprint": self.device_runtime_implementation_fingerprint,
            "prepared_family_fingerprint": self.prepared_family_fingerprint,
            "program_fingerprint": self.program_fingerprint,
            "capability_catalog_fingerprint": self.capability_catalog_fingerprint,
            "policy_version": self.policy_version.to_wire(),
            "policy_fingerprint": self.policy_fingerprint,
            "maximum_scheduled_tokens": self.maximum_scheduled_tokens,
            "execution_weights": self.execution_weights.to_wire(),
            "weight_format": self.weight_format.value,
            "quantization_formats": [q.value for q in self.quantization_formats],
            "retained_completion_values": [r.to_wire() for r in self.retained_completion_values],
            "nodes": [n.to_wire() for n in self.nodes],
            "memory": self.memory.to_wire(),
        }

    @classmethod
    def from_wire(cls, raw: Any, *, context: str, path: str = "$") -> ExecutionPlanPayload:
        """deny_unknown_fields; nested typed decoders (memory: ``MemoryPlan.from_wire``); ``Serialization``."""
        obj = WireObject(raw, PAYLOAD_FIELDS, type_name="ExecutionPlanPayload", context=context, path=path)
        schema_raw = obj.raw("schema")
        schema_obj = WireObject(
            schema_raw, ("major", "minor"), type_name="PlanSchemaVersion", context=context, path=obj.at("schema")
        )
        formats = obj.array("quantization_formats")
        return cls(
            PlanSchemaVersion(schema_obj.u16("major"), schema_obj.u16("minor")),
            obj.identity("plan_id", PlanId),
            obj.identity("family_id", ModelFamilyId),
            obj.identity("device_id", DeviceId),
            obj.string("device_runtime_implementation_fingerprint"),
            obj.string("prepared_family_fingerprint"),
            obj.string("program_fingerprint"),
            obj.string("capability_catalog_fingerprint"),
            ContractVersion.from_wire(obj.raw("policy_version"), context=context),
            obj.string("policy_fingerprint"),
            obj.u64("maximum_scheduled_tokens"),
            ExecutionWeightPlan.from_wire(
                obj.raw("execution_weights"), context=context, path=obj.at("execution_weights")
            ),
            obj.identity("weight_format", WeightFormatId),
            # a BTreeSet: decoding sorts and deduplicates, so a non-canonical array fails the round trip
            tuple(
                sorted({_format(f, context, f"{obj.at('quantization_formats')}[{i}]") for i, f in enumerate(formats)})
            ),
            tuple(
                RetainedCompletionValue.from_wire(
                    r, context=context, path=f"{obj.at('retained_completion_values')}[{i}]"
                )
                for i, r in enumerate(obj.array("retained_completion_values"))
            ),
            tuple(
                PlanNode.from_wire(n, context=context, path=f"{obj.at('nodes')}[{i}]")
                for i, n in enumerate(obj.array("nodes"))
            ),
            MemoryPlan.from_wire(obj.raw("memory"), context=context, path=obj.at("memory")),
        )


def _format(raw: Any, context: str, path: str) -> QuantizationFormatId:

    if not isinstance(raw, str):
        raise Serialization(context, f"{path}: expected a quantization format id")  # rule: 01.5/struct_wrong_json_type
    try:
        return QuantizationFormatId(raw)
    except Exception as exc:
        raise Serialization(  # rule: 05.9.1/step4_typed_parse
            context, f"{path}: invalid quantization format id {raw!r}: {exc}"
        ) from None
