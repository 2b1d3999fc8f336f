"""Storage helpers of the memory plan (spec 05 §7.2).

* ``quantize_storage_bytes`` / ``physical_allocation_quantum_bytes`` (with ``align_up`` of
  ``reference.resolution.workspace``): alignment must be a non-zero power of two; overflow is
  ``InvalidExecutionPlan``.
* Layout fingerprints: a tensor layout's *class* (contiguous, strided strides, blocked
  block/axis order/padding kind), the workspace class ``"opaque_bytes_v1"``, and the
  fingerprint of a *set* of layout fingerprints (sorted unique JSON array).
* ``DynamicStorageContract``: a profile plus a canonical SHA-256 logical layout fingerprint
  (deny_unknown_fields; constructor and decoder check the fingerprint).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from reference.canonical import JsonValue, fingerprint, is_canonical_sha256
from reference.catalog.storage import DynamicStorageProfile
from reference.errors import Serialization, invalid_plan
from reference.recomputation import remembered
from reference.resolution.workspace import align_up
from reference.wire import WireObject, decode_with, read_tagged

__all__ = [
    "DynamicStorageContract",
    "align_up",
    "layout_set_fingerprint",
    "physical_allocation_quantum_bytes",
    "quantize_storage_bytes",
    "static_contiguous_profile",
    "tensor_layout_fingerprint",
    "workspace_layout_fingerprint",
]


def quantize_storage_bytes(logical_bytes: int, alignment: int, profile: DynamicStorageProfile) -> int:
    """``align_up`` to the alignment, then (fixed-block arenas) to the block size."""
    aligned = align_up(logical_bytes, alignment)
    block = profile.allocator.block_bytes
    return aligned if block is None else align_up(aligned, block)


def physical_allocation_quantum_bytes(alignment: int, profile: DynamicStorageProfile) -> int:
    """``alignment`` for linear arenas, ``max(block_bytes, alignment)`` for fixed-block arenas."""
    block = profile.allocator.block_bytes
    return alignment if block is None else max(block, alignment)


def static_contiguous_profile() -> DynamicStorageProfile:
    """``{allocator: linear_arena, view: contiguous}``: the profile of every static value row."""
    return DynamicStorageProfile.linear_contiguous()


def _layout_class(layout: JsonValue, context: str) -> JsonValue:
    tag, content = read_tagged(layout, ("contiguous", "strided", "blocked"), context=context, path="$")
    if tag == "contiguous":
        return "contiguous"
    if not isinstance(content, dict):
        raise Serialization(  # rule: 01.5/memory_layout_class_variant_object
            context, f"$.{tag}: layout variant must be an object"
        )
    if tag == "strided":
        return {"strided": {"byte_strides": content.get("byte_strides")}}
    padding = content.get("padding")
    padding_tag, _ = read_tagged(padding, ("exact", "zero_fill"), context=context, path="$.blocked.padding")
    return {
        "blocked": {
            "block": content.get("block"),
            "axis_order": content.get("axis_order"),
            "padding": padding_tag,
        }
    }


def tensor_layout_fingerprint(layout: JsonValue) -> str:
    """Canonical fingerprint of the layout class of a ``ResolvedTensorLayout`` wire value.

    Zero-fill physical dimensions are dropped: only the padding kind is hashed.
    """
    context = "fingerprint tensor storage layout class"
    return fingerprint(_layout_class(layout, context), context=context)


@remembered
def workspace_layout_fingerprint() -> str:
    """Canonical fingerprint of the JSON string ``"opaque_bytes_v1"``."""
    return fingerprint("opaque_bytes_v1", context="fingerprint workspace storage layout class")


def layout_set_fingerprint(fingerprints: Iterable[str]) -> str:
    """Canonical fingerprint of the ``BTreeSet`` (sorted unique array) of layout fingerprints."""
    return fingerprint(sorted(set(fingerprints)), context="fingerprint resource layout set")


@dataclass(frozen=True, slots=True)
class DynamicStorageContract:
    """A storage profile and the logical layout fingerprint of what lives in the resource."""

    profile: DynamicStorageProfile
    logical_layout_fingerprint: str

    def __post_init__(self) -> None:
        if not isinstance(self.profile, DynamicStorageProfile):
            raise TypeError("DynamicStorageContract.profile must be a DynamicStorageProfile")
        if not is_canonical_sha256(self.logical_layout_fingerprint):
            raise invalid_plan(  # rule: 05.7.2/storage_contract_canonical_fingerprint
                "dynamic storage logical layout fingerprint is invalid"
            )

    def to_wire(self) -> dict[str, Any]:
        return {"profile": self.profile.to_wire(), "logical_layout_fingerprint": self.logical_layout_fingerprint}

    @classmethod
    def from_wire(
        cls, raw: Any, *, context: str = "decode dynamic storage contract", path: str = "$"
    ) -> DynamicStorageContract:
        """deny_unknown_fields, then the constructor."""
        obj = WireObject(
            raw,
            ("profile", "logical_layout_fingerprint"),
            type_name="DynamicStorageContract",
            context=context,
            path=path,
        )
        profile = DynamicStorageProfile.from_wire(obj.raw("profile"), context=context, path=obj.at("profile"))
        layout = obj.string("logical_layout_fingerprint")
        return decode_with(lambda: cls(profile, layout), context=context, path=path)
