"""Estimates described as data: a declared estimator's value alignment and its three workspaces
(04 §7-§8), each with any size formula, alignment, scope, reuse policy and storage.

Wire form (the ``estimate`` member of a registry document's estimator; every key required)::

    {"value_alignment_bytes": <u64>,
     "scratch": null | <workspace>, "persistent": null | <workspace>, "binding": null | <workspace>}

where ``<workspace>`` is spelled like a ``ProviderWorkspaceRequirement`` wire (``size_formula``,
``alignment_bytes``, ``scope``, ``reuse_policy``, ``storage``). Decoding checks only the shape
(``Serialization``: unknown variant or key, a number that is not a u64/u32, an unknown scope or
reuse policy, a malformed storage requirement). The formula and requirement *constructors* run
when the estimator answers, as a provider's estimator runs them, so their rules (04 §7.1-§7.2)
surface as the constructors' ``InvalidExecutionPlan``, and the slot rules of the estimate (04 §8.3,
§9 step 13) as the resolution's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from reference.canonical import JsonValue
from reference.catalog.storage import DynamicStorageRequirement
from reference.resolution.formula import DynamicResourceShapeBucket, ProviderWorkspaceSizeFormula
from reference.resolution.workspace import (
    ProviderWorkspaceRequirement,
    ProviderWorkspaceReusePolicy,
    ProviderWorkspaceScope,
)
from reference.wire import WireObject, read_list, read_tagged

__all__ = ["FORMULA_FIELDS", "SLOTS", "EstimateDocument", "FormulaDocument", "WorkspaceDocument"]

#: Formula variant -> its payload fields, in wire order (04 §7.1).
FORMULA_FIELDS: Final[dict[str, tuple[str, ...]]] = {
    "fixed": ("bytes",),
    "actual_sequences": ("bytes_per_sequence",),
    "tokens": ("bytes_per_token",),
    "affine": ("fixed_bytes", "bytes_per_sequence", "bytes_per_token"),
    "pages": ("bytes_per_page", "maximum_pages"),
    "bounded_shape_buckets": ("buckets",),
}
_BUCKET_FIELDS: Final = ("maximum_sequences", "maximum_tokens", "maximum_pages", "bytes")
_WORKSPACE_FIELDS: Final = ("size_formula", "alignment_bytes", "scope", "reuse_policy", "storage")
_ESTIMATE_FIELDS: Final = ("value_alignment_bytes", "scratch", "persistent", "binding")
SLOTS: Final = ("scratch", "persistent", "binding")


@dataclass(frozen=True, slots=True)
class FormulaDocument:
    """A size formula's variant and numbers, not yet validated (buckets: four numbers each)."""

    variant: str
    values: tuple[int, ...] = ()
    buckets: tuple[tuple[int, int, int, int], ...] = ()

    def build(self) -> ProviderWorkspaceSizeFormula:
        """The formula constructor of the variant (``InvalidExecutionPlan`` when invalid)."""
        if self.variant == "bounded_shape_buckets":
            return ProviderWorkspaceSizeFormula.bounded_shape_buckets(
                DynamicResourceShapeBucket(*bucket) for bucket in self.buckets
            )
        constructor = getattr(ProviderWorkspaceSizeFormula, self.variant)
        formula: ProviderWorkspaceSizeFormula = constructor(*self.values)
        return formula

    def to_wire(self) -> dict[str, JsonValue]:
        if self.variant == "bounded_shape_buckets":
            payload: dict[str, JsonValue] = {
                "buckets": [dict(zip(_BUCKET_FIELDS, b, strict=True)) for b in self.buckets]
            }
        else:
            payload = dict(zip(FORMULA_FIELDS[self.variant], self.values, strict=True))
        return {self.variant: payload}

    @classmethod
    def from_wire(cls, raw: Any, context: str, path: str) -> FormulaDocument:
        variant, content = read_tagged(raw, FORMULA_FIELDS, context=context, path=path)
        at = f"{path}.{variant}"
        obj = WireObject(content, FORMULA_FIELDS[variant], type_name=variant, context=context, path=at)
        if variant != "bounded_shape_buckets":
            return cls(variant, tuple(obj.u64(name) for name in FORMULA_FIELDS[variant]))
        buckets = []
        for i, item in enumerate(read_list(obj.raw("buckets"), context=context, path=obj.at("buckets"))):
            b = WireObject(
                item, _BUCKET_FIELDS, type_name="DynamicResourceShapeBucket", context=context, path=f"{at}.buckets[{i}]"
            )
            buckets.append(
                (b.u32("maximum_sequences"), b.u64("maximum_tokens"), b.u64("maximum_pages"), b.u64("bytes"))
            )
        return cls(variant, buckets=tuple(buckets))


@dataclass(frozen=True, slots=True)
class WorkspaceDocument:
    """One workspace of an estimate: the ``ProviderWorkspaceRequirement::from_formula`` arguments."""

    size_formula: FormulaDocument
    alignment_bytes: int
    scope: ProviderWorkspaceScope
    reuse_policy: ProviderWorkspaceReusePolicy
    storage: DynamicStorageRequirement

    def build(self) -> ProviderWorkspaceRequirement:
        """``from_formula`` (``InvalidExecutionPlan`` when the formula or the requirement is invalid)."""
        return ProviderWorkspaceRequirement.from_formula(
            self.size_formula.build(), self.alignment_bytes, self.scope, self.reuse_policy, self.storage
        )

    def to_wire(self) -> dict[str, JsonValue]:
        return {
            "size_formula": self.size_formula.to_wire(),
            "alignment_bytes": self.alignment_bytes,
            "scope": self.scope.to_wire(),
            "reuse_policy": self.reuse_policy.to_wire(),
            "storage": self.storage.to_wire(),
        }

    @classmethod
    def from_wire(cls, raw: Any, context: str, path: str) -> WorkspaceDocument:
        obj = WireObject(raw, _WORKSPACE_FIELDS, type_name="WorkspaceDocument", context=context, path=path)
        return cls(
            FormulaDocument.from_wire(obj.raw("size_formula"), context, obj.at("size_formula")),
            obj.u64("alignment_bytes"),
            ProviderWorkspaceScope.from_wire(obj.raw("scope"), context=context, path=obj.at("scope")),
            ProviderWorkspaceReusePolicy.from_wire(
                obj.raw("reuse_policy"), context=context, path=obj.at("reuse_policy")
            ),
            DynamicStorageRequirement.from_wire(obj.raw("storage"), context=context, path=obj.at("storage")),
        )


@dataclass(frozen=True, slots=True)
class EstimateDocument:
    """The value alignment and the scratch, persistent and binding workspaces an estimator answers with."""

    value_alignment_bytes: int
    scratch: WorkspaceDocument | None = None
    persistent: WorkspaceDocument | None = None
    binding: WorkspaceDocument | None = None

    def workspaces(
        self,
    ) -> tuple[
        ProviderWorkspaceRequirement | None, ProviderWorkspaceRequirement | None, ProviderWorkspaceRequirement | None
    ]:
        """Scratch, persistent and binding built in that order (first constructor failure wins)."""
        scratch, persistent, binding = (
            None if ws is None else ws.build() for ws in (self.scratch, self.persistent, self.binding)
        )
        return scratch, persistent, binding

    def to_wire(self) -> dict[str, JsonValue]:
        out: dict[str, JsonValue] = {"value_alignment_bytes": self.value_alignment_bytes}
        for slot in SLOTS:
            workspace = getattr(self, slot)
            out[slot] = None if workspace is None else workspace.to_wire()
        return out

    @classmethod
    def from_wire(cls, raw: Any, context: str, path: str) -> EstimateDocument:
        obj = WireObject(raw, _ESTIMATE_FIELDS, type_name="EstimateDocument", context=context, path=path)
        slots = [obj.optional(slot, WorkspaceDocument.from_wire) for slot in SLOTS]
        return cls(obj.u64("value_alignment_bytes"), *slots)
