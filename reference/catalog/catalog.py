"""``CapabilityCatalog`` (spec 03 §11): the device, its operations, providers, engines and materializers.

``CapabilityCatalog(device, operations, providers, engine_providers)`` is the
seed's ``new``: duplicate operation or engine ids are refused, the
materializer map defaults to identity-only, then ``from_maps`` runs steps a-i
of §11.2 in order (first failure wins). The fingerprint is sha256 of the
struct-order JSON of the whole catalog.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import Any, Final

from reference.canonical import direct_fingerprint
from reference.catalog.compatibility import (
    CompatibilityReason,
    ProviderCompatibilityReport,
    ProviderCompatibilityRequest,
    ProviderRejection,
)
from reference.catalog.device import DeviceDescriptor
from reference.catalog.engine import EngineProviderDescriptor
from reference.catalog.operation import OperationDescriptor
from reference.catalog.oracle_graph import validate_reference_oracles
from reference.catalog.provider import OperationProviderDescriptor, sorted_providers
from reference.catalog.weight_materializer import (
    WeightMaterializerDescriptor,
    identity_materializer_map,
    validate_weight_materializer_descriptors,
)
from reference.errors import IncompatibleOperationVersion, Serialization, UnsupportedOperation, invalid_plan
from reference.ids import NodeId, OperationId, ProviderId, WeightMaterializerId
from reference.ints import USIZE_MAX
from reference.versions import ContractVersion
from reference.wire import WireObject, decode_with

__all__ = [
    "MAX_ENGINE_PROVIDER_ROWS",
    "MAX_OPERATION_CATALOG_ROWS",
    "MAX_OPERATION_PROVIDER_ROWS",
    "CapabilityCatalog",
]

MAX_OPERATION_CATALOG_ROWS: Final = 4096
MAX_OPERATION_PROVIDER_ROWS: Final = 16384
MAX_ENGINE_PROVIDER_ROWS: Final = 4096


@dataclass(frozen=True, slots=True, init=False, eq=False)
class CapabilityCatalog:
    """Validated, immutable catalog. Maps are key-sorted; provider lists sorted by (id, version)."""

    device: DeviceDescriptor
    operations: Mapping[OperationId, OperationDescriptor]
    providers: Mapping[OperationId, tuple[OperationProviderDescriptor, ...]]
    engine_providers: Mapping[ProviderId, EngineProviderDescriptor]
    weight_materializers: Mapping[WeightMaterializerId, WeightMaterializerDescriptor]

    def __init__(
        self,
        device: DeviceDescriptor,
        operations: Sequence[OperationDescriptor],
        providers: Mapping[OperationId, Sequence[OperationProviderDescriptor]],
        engine_providers: Sequence[EngineProviderDescriptor],
    ) -> None:
        """``CapabilityCatalog::new``: steps 1-4 of §11.2."""
        operation_map: dict[OperationId, OperationDescriptor] = {}
        for operation in operations:
            if operation.id in operation_map:
                raise invalid_plan(  # rule: 03.11.2/duplicate_operation_id
                    f"duplicate operation `{operation.id}` in capability catalog"
                )
            operation_map[operation.id] = operation
        engine_map: dict[ProviderId, EngineProviderDescriptor] = {}
        for engine in engine_providers:
            if engine.provider_id in engine_map:
                raise invalid_plan(  # rule: 03.11.2/duplicate_engine_id
                    f"duplicate engine provider `{engine.provider_id}` in capability catalog"
                )
            engine_map[engine.provider_id] = engine
        self._assign(device, operation_map, providers, engine_map, identity_materializer_map())

    @classmethod
    def from_maps(
        cls,
        device: DeviceDescriptor,
        operations: Mapping[OperationId, OperationDescriptor],
        providers: Mapping[OperationId, Sequence[OperationProviderDescriptor]],
        engine_providers: Mapping[ProviderId, EngineProviderDescriptor],
        weight_materializers: Mapping[WeightMaterializerId, WeightMaterializerDescriptor] | None = None,
    ) -> CapabilityCatalog:
        """The wire path: caller-supplied maps go straight to steps a-i."""
        catalog = object.__new__(cls)
        materializers = identity_materializer_map() if weight_materializers is None else weight_materializers
        catalog._assign(device, operations, providers, engine_providers, materializers)
        return catalog

    def _assign(
        self,
        device: DeviceDescriptor,
        operations: Mapping[OperationId, OperationDescriptor],
        providers: Mapping[OperationId, Sequence[OperationProviderDescriptor]],
        engines: Mapping[ProviderId, EngineProviderDescriptor],
        materializers: Mapping[WeightMaterializerId, WeightMaterializerDescriptor],
    ) -> None:
        sorted_lists = _from_maps(device, operations, providers, engines, materializers)
        object.__setattr__(self, "device", device)
        object.__setattr__(self, "operations", MappingProxyType(dict(sorted(operations.items()))))
        object.__setattr__(self, "providers", MappingProxyType(sorted_lists))
        object.__setattr__(self, "engine_providers", MappingProxyType(dict(sorted(engines.items()))))
        object.__setattr__(self, "weight_materializers", MappingProxyType(dict(sorted(materializers.items()))))

    # ------------------------------------------------------------------ equality and hashing

    def _key(self) -> tuple[Any, ...]:
        return (
            self.device,
            tuple(self.operations.items()),
            tuple(self.providers.items()),
            tuple(self.engine_providers.items()),
            tuple(self.weight_materializers.items()),
        )

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CapabilityCatalog) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self.fingerprint())

    # ------------------------------------------------------------------ lookups

    def _unsupported(self, operation_id: OperationId, reason: str) -> UnsupportedOperation:
        return UnsupportedOperation(
            node_id=None, operation_id=operation_id.value, device_id=self.device.id.value, reason=reason
        )

    def operation(self, operation_id: OperationId) -> OperationDescriptor:
        """Absent -> ``UnsupportedOperation{node_id: None}``."""
        found = self.operations.get(operation_id)
        if found is None:
            raise self._unsupported(  # rule: 03.11.4/operation_lookup_absent
                operation_id, "operation is not registered in the capability catalog"
            )
        return found

    def providers_for(self, operation_id: OperationId) -> tuple[OperationProviderDescriptor, ...]:
        """Absent -> ``UnsupportedOperation{node_id: None}``."""
        found = self.providers.get(operation_id)
        if found is None:
            raise self._unsupported(  # rule: 03.11.4/providers_lookup_absent
                operation_id, "operation has no providers in the capability catalog"
            )
        return found

    def operation_for_node(self, node_id: NodeId, operation_id: OperationId) -> OperationDescriptor:
        """``operation`` with a node-less error rewritten to carry ``node_id``."""
        try:
            return self.operation(operation_id)
        except (UnsupportedOperation, IncompatibleOperationVersion) as exc:
            raise with_node(exc, node_id) from None  # rule: 03.11.4/node_lookup_sets_node_id

    def providers_for_node(self, node_id: NodeId, operation_id: OperationId) -> tuple[OperationProviderDescriptor, ...]:
        try:
            return self.providers_for(operation_id)
        except (UnsupportedOperation, IncompatibleOperationVersion) as exc:
            raise with_node(exc, node_id) from None  # rule: 03.11.4/providers_node_lookup_after_operation

    def engine_provider(self, provider_id: ProviderId, required_version: ContractVersion) -> EngineProviderDescriptor:
        """Absent or not satisfying ``required_version`` -> ``InvalidExecutionPlan``."""
        engine = self.engine_providers.get(provider_id)
        if engine is None:
            raise invalid_plan(  # rule: 03.11.4/engine_lookup_absent
                f"engine provider `{provider_id}` is not registered"
            )
        if not engine.contract_version.satisfies(required_version):
            raise invalid_plan(  # rule: 03.11.4/engine_lookup_version
                f"engine provider `{provider_id}` does not satisfy version {required_version}"
            )
        return engine

    def weight_materializer(self, materializer_id: WeightMaterializerId) -> WeightMaterializerDescriptor:
        found = self.weight_materializers.get(materializer_id)
        if found is None:
            raise invalid_plan(  # rule: 03.11.4/materializer_lookup_absent
                f"weight materializer `{materializer_id}` is not registered in the capability catalog"
            )
        return found

    def with_weight_materializer_descriptors(
        self, descriptors: Mapping[WeightMaterializerId, WeightMaterializerDescriptor]
    ) -> CapabilityCatalog:
        """Validate ``descriptors`` against the device and REPLACE the whole map (no merge)."""
        validate_weight_materializer_descriptors(self.device, descriptors)
        out = object.__new__(type(self))
        for name in ("device", "operations", "providers", "engine_providers"):
            object.__setattr__(out, name, getattr(self, name))
        object.__setattr__(out, "weight_materializers", MappingProxyType(dict(sorted(descriptors.items()))))
        return out

    def provider_compatibility(self, request: ProviderCompatibilityRequest) -> ProviderCompatibilityReport:
        """The catalog half of resolution (§11.4 steps 1-5); the report carries the request as step 2 extends it
        (the operation's provider capabilities added)."""
        operation = self.operation(  # rule when 03.11.4/operation_lookup_absent: 03.11.4/compat_unknown_operation
            request.operation_id
        )
        required_capabilities = request.required_capabilities | operation.provider.required_capabilities
        request = replace(request, required_capabilities=required_capabilities)
        compatible: list[ProviderId] = []
        rejected: list[ProviderRejection] = []
        for provider in self.providers_for(request.operation_id):
            reasons: list[CompatibilityReason] = []
            if not operation.version.satisfies(request.required_version):
                reasons.append(
                    CompatibilityReason("operation_version_mismatch", request.required_version, operation.version)
                )
            if not provider.version.satisfies(request.required_version):
                reasons.append(
                    CompatibilityReason("provider_version_mismatch", request.required_version, provider.version)
                )
            missing = required_capabilities - provider.capabilities
            if missing:
                reasons.append(CompatibilityReason("missing_capabilities", identities=tuple(sorted(missing))))
            weights = request.required_weight_formats - provider.accepted_weight_formats
            if weights:
                reasons.append(CompatibilityReason("unsupported_weight_formats", identities=tuple(sorted(weights))))
            quantization = request.required_quantization_formats - provider.accepted_quantization_formats
            if quantization:
                reasons.append(
                    CompatibilityReason("unsupported_quantization_formats", identities=tuple(sorted(quantization)))
                )
            if not request.execution_determinism.accepts(provider.execution_semantics):
                reasons.append(
                    CompatibilityReason(
                        "insufficient_execution_determinism",
                        determinism=request.execution_determinism,
                        semantics=provider.execution_semantics,
                    )
                )
            if reasons:
                rejected.append(ProviderRejection(provider.provider_id, tuple(reasons)))
            else:
                compatible.append(provider.provider_id)
        return ProviderCompatibilityReport(request, tuple(compatible), tuple(rejected))

    # ------------------------------------------------------------------ wire and fingerprint

    def to_wire(self) -> dict[str, Any]:
        """Struct order: device, operations, providers, engine_providers, weight_materializers."""
        return {
            "device": self.device.to_wire(),
            "operations": {k.value: v.to_wire() for k, v in self.operations.items()},
            "providers": {k.value: [p.to_wire() for p in v] for k, v in self.providers.items()},
            "engine_providers": {k.value: v.to_wire() for k, v in self.engine_providers.items()},
            "weight_materializers": {k.value: v.to_wire() for k, v in self.weight_materializers.items()},
        }

    def fingerprint(self) -> str:
        """sha256 of the struct-order compact JSON of the whole catalog."""
        return direct_fingerprint(self.to_wire(), context="serialize capability catalog")

    @classmethod
    def from_wire(cls, raw: Any, *, context: str = "decode capability catalog", path: str = "$") -> CapabilityCatalog:
        """deny_unknown_fields; a missing ``weight_materializers`` means identity-only; then ``from_maps``."""
        fields = ("device", "operations", "providers", "engine_providers", "weight_materializers")
        defaulted = isinstance(raw, dict) and "weight_materializers" not in raw
        if defaulted:
            raw = {**raw, "weight_materializers": {}}
        obj = WireObject(raw, fields, type_name="CapabilityCatalog", context=context, path=path)
        device = DeviceDescriptor.from_wire(obj.raw("device"), context=context, path=obj.at("device"))
        operations = {
            OperationId.from_wire(k, context=context): OperationDescriptor.from_wire(
                v, context=context, path=f"{obj.at('operations')}.{k}"
            )
            for k, v in _object(obj, "operations").items()
        }
        providers: dict[OperationId, list[OperationProviderDescriptor]] = {}
        for key, items in _object(obj, "providers").items():
            at = f"{obj.at('providers')}.{key}"
            if not isinstance(items, list):
                raise Serialization(context, f"{at}: expected an array")  # rule: 01.5/struct_wrong_json_type
            providers[OperationId.from_wire(key, context=context)] = [
                OperationProviderDescriptor.from_wire(item, context=context, path=f"{at}[{i}]")
                for i, item in enumerate(items)
            ]
        engines = {
            ProviderId.from_wire(k, context=context): EngineProviderDescriptor.from_wire(
                v, context=context, path=f"{obj.at('engine_providers')}.{k}"
            )
            for k, v in _object(obj, "engine_providers").items()
        }
        materializers: dict[WeightMaterializerId, WeightMaterializerDescriptor] | None = None
        if not defaulted:
            materializers = {
                WeightMaterializerId.from_wire(k, context=context): WeightMaterializerDescriptor.from_wire(
                    v, context=context, path=f"{obj.at('weight_materializers')}.{k}"
                )
                for k, v in _object(obj, "weight_materializers").items()
            }
        return decode_with(
            lambda: cls.from_maps(device, operations, providers, engines, materializers), context=context, path=path
        )


def _object(obj: WireObject, name: str) -> dict[str, Any]:
    value = obj.raw(name)
    if not isinstance(value, dict):
        raise Serialization(obj.context, f"{obj.at(name)}: expected a JSON object")  # rule: 01.5/struct_wrong_json_type
    return value


def with_node(
    exc: UnsupportedOperation | IncompatibleOperationVersion, node_id: NodeId
) -> UnsupportedOperation | IncompatibleOperationVersion:
    """Rewrite a node-less error to carry ``node_id``; errors that already name a node pass through."""
    if exc.node_id is not None:
        return exc
    values = exc.field_values()
    values["node_id"] = node_id.value
    return type(exc)(**values)


def _from_maps(
    device: DeviceDescriptor,
    operations: Mapping[OperationId, OperationDescriptor],
    providers: Mapping[OperationId, Sequence[OperationProviderDescriptor]],
    engines: Mapping[ProviderId, EngineProviderDescriptor],
    materializers: Mapping[WeightMaterializerId, WeightMaterializerDescriptor],
) -> dict[OperationId, tuple[OperationProviderDescriptor, ...]]:
    """Steps a-i of §11.2; returns the sorted provider lists."""
    device.validate()  # a
    validate_weight_materializer_descriptors(device, materializers)  # b
    provider_rows = 0  # c
    for entries in providers.values():
        provider_rows += len(entries)
        if provider_rows > USIZE_MAX:
            raise invalid_plan("operation provider row count overflows")  # rule: 03.11.2/provider_row_count_checked
    rows_message = "capability catalog is empty or exceeds its row limits"  # d
    if not operations:
        raise invalid_plan(rows_message)  # rule: 03.11.2/operations_empty
    if not providers:
        raise invalid_plan(rows_message)  # rule: 03.11.2/providers_empty
    if not engines:
        raise invalid_plan(rows_message)  # rule: 03.11.2/engines_empty
    if len(operations) > MAX_OPERATION_CATALOG_ROWS:
        raise invalid_plan(rows_message)  # rule: 03.11.1/max_operation_rows
    if provider_rows > MAX_OPERATION_PROVIDER_ROWS:
        raise invalid_plan(rows_message)  # rule: 03.11.1/max_provider_rows
    if len(engines) > MAX_ENGINE_PROVIDER_ROWS:
        raise invalid_plan(rows_message)  # rule: 03.11.1/max_engine_rows
    if set(operations) != set(providers):  # e
        differ = "capability catalog operations and provider entries differ"
        if set(operations) - set(providers):
            raise invalid_plan(differ)  # rule: 03.11.2/operation_without_provider_entry
        raise invalid_plan(differ)  # rule: 03.11.2/provider_entry_without_operation
    device_id = device.id.value

    def unsupported(operation_id: OperationId, reason: str) -> UnsupportedOperation:
        return UnsupportedOperation(node_id=None, operation_id=operation_id.value, device_id=device_id, reason=reason)

    for operation_id in sorted(operations):  # f
        operation = operations[operation_id]
        if operation.id != operation_id:
            raise invalid_plan(  # rule: 03.11.2/operation_key_mismatch
                f"operation key `{operation_id}` does not match descriptor `{operation.id}`"
            )
        operation.validate()
        if not operation.provider.required_capabilities <= device.capabilities:
            raise unsupported(  # rule: 03.11.2/operation_capabilities_device
                operation_id, "device lacks capabilities the operation requires"
            )
    validate_reference_oracles(operations)  # g
    sorted_lists: dict[OperationId, tuple[OperationProviderDescriptor, ...]] = {}
    for operation_id in sorted(providers):  # h
        entries = providers[operation_id]
        if not entries:
            raise unsupported(operation_id, "operation has no providers")  # rule: 03.11.2/empty_provider_list
        operation = operations[operation_id]
        fingerprint = operation.fingerprint()
        for entry in entries:
            if entry.operation_id != operation_id or entry.operation_fingerprint != fingerprint:
                raise unsupported(  # rule: 03.11.2/provider_operation_fingerprint
                    operation_id, f"provider `{entry.provider_id}` does not match the operation fingerprint"
                )
            if entry.device_id != device.id:
                raise unsupported(  # rule: 03.11.2/provider_device
                    operation_id, f"provider `{entry.provider_id}` targets another device"
                )
            if not (
                entry.version.satisfies(operation.version)
                and entry.version.satisfies(operation.provider.minimum_version)
            ):
                raise unsupported(  # rule: 03.11.2/provider_version_satisfies
                    operation_id, f"provider `{entry.provider_id}` has an incompatible version"
                )
            if not (
                entry.capabilities <= device.capabilities
                and operation.provider.required_capabilities <= entry.capabilities
            ):
                raise unsupported(  # rule: 03.11.2/provider_capabilities
                    operation_id, f"provider `{entry.provider_id}` has incompatible capabilities"
                )
        ordered = tuple(sorted_providers(entries))
        for previous, current in itertools.pairwise(ordered):
            if previous.provider_id == current.provider_id:
                raise unsupported(  # rule: 03.11.2/duplicate_provider_in_list
                    operation_id, f"provider `{current.provider_id}` is listed twice"
                )
        sorted_lists[operation_id] = ordered
    for provider_id in sorted(engines):  # i
        engine = engines[provider_id]
        if engine.provider_id != provider_id:
            raise invalid_plan(  # rule: 03.11.2/engine_key_mismatch
                f"engine key `{provider_id}` does not match descriptor `{engine.provider_id}`"
            )
        if engine.device_id != device.id:
            raise invalid_plan(f"engine provider `{provider_id}` targets another device")  # rule: 03.11.2/engine_device
        if not engine.capabilities <= device.capabilities:
            raise invalid_plan(  # rule: 03.11.2/engine_capabilities
                f"engine provider `{provider_id}` claims capabilities beyond the device"
            )
    return sorted_lists


def catalog_operations(catalog: CapabilityCatalog) -> Iterable[OperationDescriptor]:
    """The catalog's operations in ascending id order."""
    return catalog.operations.values()
