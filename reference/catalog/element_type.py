"""``ElementType`` (spec 03 §2) for the catalog.

The one ``ElementType`` class lives in ``reference.model.element`` (declaration
``Ord``, ``size_bytes``); it is re-exported here so tensor contracts and program
tensors compare equal. This module adds the ``BTreeSet<ElementType>`` wire helpers.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from reference.catalog._common import read_unit_or_tagged
from reference.errors import Serialization
from reference.model.element import ElementType
from reference.wire import read_list

__all__ = ["ElementType", "element_type_from_wire", "element_types_from_wire", "element_types_to_wire"]

_NAMES = tuple(member.value for member in ElementType)


def element_type_from_wire(raw: Any, *, context: str, path: str) -> ElementType:
    """A unit-variant string (or ``{"f32": null}``)."""
    tag, content = read_unit_or_tagged(raw, _NAMES, context=context, path=path)
    if content is not None:
        raise Serialization(context, f"{path}: unit variant `{tag}` takes no content")  # rule: 01.5/enum_variant_shape
    return ElementType(tag)


def element_types_to_wire(values: Iterable[ElementType]) -> list[str]:
    """A ``BTreeSet<ElementType>``: declaration order, unique (``{f32,u8}`` -> ``["u8","f32"]``)."""
    return [v.to_wire() for v in sorted(set(values))]


def element_types_from_wire(raw: Any, *, context: str, path: str) -> frozenset[ElementType]:
    """Any order; duplicates collapse."""
    items = read_list(raw, context=context, path=path)
    return frozenset(element_type_from_wire(item, context=context, path=f"{path}[{i}]") for i, item in enumerate(items))
