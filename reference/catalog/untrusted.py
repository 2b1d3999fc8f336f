"""An untrusted ``CapabilityCatalog`` wire read as ``serde_json::from_slice`` reads it (03 §1, §11.1).

Derived structs deny unknown fields and refuse a repeated field; a ``BTreeMap`` keeps the last value of a
repeated key, after decoding the earlier ones; a missing ``weight_materializers`` is the identity-only map;
then ``CapabilityCatalog::from_maps``. Every refusal is ``Serialization`` in ``CATALOG_WIRE_CONTEXT``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final

from reference.canonical import Shadowed, loads_last_wins
from reference.catalog.attributes import AttributeSpec
from reference.catalog.catalog import CapabilityCatalog
from reference.catalog.device import DEVICE_WIRE_FIELDS
from reference.catalog.engine import EngineProviderDescriptor
from reference.catalog.operation import OPERATION_WIRE_FIELDS, OperationDescriptor
from reference.catalog.provider import OperationProviderDescriptor
from reference.catalog.weight_materializer import WeightMaterializerDescriptor
from reference.errors import Serialization, clip
from reference.wire import read_list

__all__ = ["CATALOG_WIRE_CONTEXT", "decode_catalog_wire"]

#: The context of every rejection of an untrusted ``CapabilityCatalog`` wire (03 §11.1).
CATALOG_WIRE_CONTEXT: Final = "decode capability catalog"


def decode_catalog_wire(data: bytes) -> CapabilityCatalog:
    """The catalog of an untrusted wire: its JSON with the last value of a repeated map key, the repeated
    fields of derived structs refused, then ``CapabilityCatalog.from_wire``."""
    shadowed: Shadowed = {}
    raw = loads_last_wins(data, context=CATALOG_WIRE_CONTEXT, shadowed=shadowed)
    if shadowed:
        _catalog_duplicates(raw, (), shadowed)
    return CapabilityCatalog.from_wire(raw, context=CATALOG_WIRE_CONTEXT)


#: Where a catalog wire holds a ``BTreeMap`` (``*``: any key of the map above), and how serde decodes
#: each value of it (a repeated key's earlier values are decoded too, then dropped).
_CATALOG_MAPS: Final[Mapping[tuple[str, ...], Callable[[Any, str], Any]]] = {
    ("operations",): lambda raw, at: OperationDescriptor.from_wire(raw, context=CATALOG_WIRE_CONTEXT, path=at),
    ("providers",): lambda raw, at: [
        OperationProviderDescriptor.from_wire(item, context=CATALOG_WIRE_CONTEXT, path=f"{at}[{i}]")
        for i, item in enumerate(read_list(raw, context=CATALOG_WIRE_CONTEXT, path=at))
    ],
    ("engine_providers",): lambda raw, at: EngineProviderDescriptor.from_wire(
        raw, context=CATALOG_WIRE_CONTEXT, path=at
    ),
    ("weight_materializers",): lambda raw, at: WeightMaterializerDescriptor.from_wire(
        raw, context=CATALOG_WIRE_CONTEXT, path=at
    ),
    ("operations", "*", "attributes", "entries"): lambda raw, at: AttributeSpec.from_wire(
        raw, context=CATALOG_WIRE_CONTEXT, path=at
    ),
}


#: The structs of a catalog wire without ``deny_unknown_fields`` and their fields: serde skips an unknown
#: field's value unread, so a repeated unknown field passes (a ``...version`` member is a ContractVersion).
_CATALOG_LENIENT: Final[Mapping[tuple[str, ...], frozenset[str]]] = {
    ("device",): frozenset(DEVICE_WIRE_FIELDS),
    ("operations", "*"): frozenset(OPERATION_WIRE_FIELDS),
    ("operations", "*", "provider"): frozenset(("minimum_version", "required_capabilities")),
}


def _catalog_fields(path: tuple[str, ...]) -> frozenset[str] | None:
    """The fields of the lenient struct at ``path``; ``None`` for a struct that knows every key it keeps."""
    known = _CATALOG_LENIENT.get(path)
    if known is None and path and path[-1].endswith("version"):
        return frozenset(("major", "minor"))
    return known


def _catalog_duplicates(node: Any, path: tuple[str, ...], shadowed: Mapping[int, list[tuple[str, Any]]]) -> None:
    """Derived structs (and enums) refuse a repeated field; a ``BTreeMap`` keeps the last value, after
    decoding the earlier ones (03 §1)."""
    if isinstance(node, list):
        for item in node:
            _catalog_duplicates(item, (*path, "[]"), shadowed)
        return
    if not isinstance(node, dict):
        return
    decode = _CATALOG_MAPS.get(path)
    known = None if decode is not None else _catalog_fields(path)
    at = "$" + "".join(f".{part}" for part in path)
    for key, earlier in shadowed.get(id(node), ()):
        if decode is not None:
            _catalog_duplicates(earlier, (*path, "*"), shadowed)
            decode(earlier, f"{at}.{key}")
        elif known is None or key in known:
            raise Serialization(  # rule: 03.1/derived_struct_duplicate_field
                CATALOG_WIRE_CONTEXT, f"{at}: duplicate field `{clip(key, 80)}`"
            )
    for key, value in node.items():
        if known is None or key in known:
            _catalog_duplicates(value, (*path, "*" if decode is not None else key), shadowed)
