"""Catalog documents: the arguments of ``CapabilityCatalog::new`` as JSON (for generators and
out-of-process backends).

``{"device", "operations": [..], "providers": {op: [..]}, "engine_providers": [..],
"weight_materializers"?: {id: descriptor}}``. Shape errors are ``Serialization``; contract
violations keep their own kinds (duplicate ids in the lists are reachable here, unlike the
map-shaped wire).
"""

from __future__ import annotations

from typing import Any, Final

from reference.catalog.catalog import CapabilityCatalog
from reference.catalog.device import DeviceDescriptor
from reference.catalog.engine import EngineProviderDescriptor
from reference.catalog.operation import OperationDescriptor
from reference.catalog.provider import OperationProviderDescriptor
from reference.catalog.weight_materializer import WeightMaterializerDescriptor
from reference.errors import Serialization
from reference.ids import OperationId, WeightMaterializerId
from reference.wire import WireObject, read_list

__all__ = ["catalog_from_document", "catalog_to_document"]

_CONTEXT: Final = "decode catalog document"


def catalog_to_document(catalog: CapabilityCatalog) -> dict[str, Any]:
    """The constructor-shaped document of ``catalog`` (always carries its materializer map)."""
    return {
        "device": catalog.device.to_wire(),
        "operations": [op.to_wire() for op in catalog.operations.values()],
        "providers": {k.value: [p.to_wire() for p in v] for k, v in catalog.providers.items()},
        "engine_providers": [e.to_wire() for e in catalog.engine_providers.values()],
        "weight_materializers": {k.value: v.to_wire() for k, v in catalog.weight_materializers.items()},
    }


def catalog_from_document(doc: Any, *, context: str = _CONTEXT) -> CapabilityCatalog:
    """Decode, run ``CapabilityCatalog(...)`` (``new``), then replace materializers when given."""
    fields = ("device", "operations", "providers", "engine_providers", "weight_materializers")
    if isinstance(doc, dict) and "weight_materializers" not in doc:
        doc = {**doc, "weight_materializers": None}
    obj = WireObject(doc, fields, type_name="CatalogDocument", context=context)
    device = DeviceDescriptor.from_wire(obj.raw("device"), context=context, path=obj.at("device"))
    operations = [
        OperationDescriptor.from_wire(op, context=context, path=f"{obj.at('operations')}[{i}]")
        for i, op in enumerate(obj.array("operations"))
    ]
    raw_providers = obj.raw("providers")
    if not isinstance(raw_providers, dict):
        raise Serialization(  # rule: 01.5/struct_wrong_json_type
            context, f"{obj.at('providers')}: expected a JSON object"
        )
    providers: dict[OperationId, list[OperationProviderDescriptor]] = {}
    for key, items in raw_providers.items():
        at = f"{obj.at('providers')}.{key}"
        providers[OperationId.from_wire(key, context=context)] = [
            OperationProviderDescriptor.from_wire(item, context=context, path=f"{at}[{i}]")
            for i, item in enumerate(read_list(items, context=context, path=at))
        ]
    engines = [
        EngineProviderDescriptor.from_wire(e, context=context, path=f"{obj.at('engine_providers')}[{i}]")
        for i, e in enumerate(obj.array("engine_providers"))
    ]
    catalog = CapabilityCatalog(device, operations, providers, engines)
    raw_materializers = obj.raw("weight_materializers")
    if raw_materializers is None:
        return catalog
    if not isinstance(raw_materializers, dict):
        raise Serialization(  # rule: 01.5/struct_wrong_json_type
            context, f"{obj.at('weight_materializers')}: expected a JSON object"
        )
    materializers = {
        WeightMaterializerId.from_wire(k, context=context): WeightMaterializerDescriptor.from_wire(
            v, context=context, path=f"{obj.at('weight_materializers')}.{k}"
        )
        for k, v in raw_materializers.items()
    }
    return catalog.with_weight_materializer_descriptors(materializers)
