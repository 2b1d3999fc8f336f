"""``ProviderWorkspaceRequirement`` with its scope and reuse policy (spec 04 §7.2).

``from_formula`` rejects (``InvalidExecutionPlan``): an invalid formula; a zero or
non-power-of-two alignment; a non-fixed formula at ``plan`` scope; a formula not
valid for ``sequence`` scope there; a ``minimum_bytes`` that overflows. Reuse
policies add no rule at this level (decision D-04R-3); the estimate slots do.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Any

from reference.canonical import JsonValue
from reference.catalog._common import OrderedEnum
from reference.catalog.storage import DynamicStorageRequirement
from reference.errors import InvalidExecutionPlan, invalid_plan
from reference.ints import checked_align_up, fits_uint, is_power_of_two
from reference.resolution.formula import ProviderWorkspaceSizeFormula
from reference.resolution.work import ResourceWorkShape, WorkShape
from reference.wire import WireObject, decode_with

__all__ = ["ProviderWorkspaceRequirement", "ProviderWorkspaceReusePolicy", "ProviderWorkspaceScope", "align_up"]

_UNIT_SHAPE = WorkShape(1, 1, 1)


def align_up(value: int, alignment: int) -> int:
    """``value`` rounded up to a non-zero power-of-two ``alignment`` (checked u64), else ``InvalidExecutionPlan``."""
    if not is_power_of_two(alignment):
        raise invalid_plan(f"alignment {alignment} is not a non-zero power of two")  # rule: 05.7.2/align_up_checked
    return checked_align_up(  # rule: 04.0/align_up_overflow, 05.7.2/align_up_checked
        value, alignment, error=partial(invalid_plan, "aligned byte count overflows u64")
    )


class ProviderWorkspaceScope(OrderedEnum):
    """How long a workspace lives: ``plan`` | ``request`` | ``sequence`` | ``step`` | ``invocation``."""

    PLAN = "plan"
    REQUEST = "request"
    SEQUENCE = "sequence"
    STEP = "step"
    INVOCATION = "invocation"


class ProviderWorkspaceReusePolicy(OrderedEnum):
    """``overwrite_before_read`` | ``zero_before_use`` | ``preserve``."""

    OVERWRITE_BEFORE_READ = "overwrite_before_read"
    ZERO_BEFORE_USE = "zero_before_use"
    PRESERVE = "preserve"


@dataclass(frozen=True, slots=True)
class ProviderWorkspaceRequirement:
    """A provider workspace: size formula, alignment, scope, reuse policy and accepted storage."""

    size_formula: ProviderWorkspaceSizeFormula
    alignment_bytes: int
    scope: ProviderWorkspaceScope
    reuse_policy: ProviderWorkspaceReusePolicy
    storage: DynamicStorageRequirement

    def __post_init__(self) -> None:
        self.validate()

    @classmethod
    def new(
        cls,
        fixed_bytes: int,
        alignment_bytes: int,
        scope: ProviderWorkspaceScope,
        reuse_policy: ProviderWorkspaceReusePolicy,
        storage: DynamicStorageRequirement,
    ) -> ProviderWorkspaceRequirement:
        """``from_formula(fixed(fixed_bytes), ...)``."""
        return cls(ProviderWorkspaceSizeFormula.fixed(fixed_bytes), alignment_bytes, scope, reuse_policy, storage)

    @classmethod
    def from_formula(
        cls,
        size_formula: ProviderWorkspaceSizeFormula,
        alignment_bytes: int,
        scope: ProviderWorkspaceScope,
        reuse_policy: ProviderWorkspaceReusePolicy,
        storage: DynamicStorageRequirement,
    ) -> ProviderWorkspaceRequirement:
        return cls(size_formula, alignment_bytes, scope, reuse_policy, storage)

    def validate(self) -> None:
        """The ``from_formula`` checks, in order."""
        self.size_formula.validate()
        if not fits_uint(self.alignment_bytes, 64):
            raise InvalidExecutionPlan(  # rule: 04.7.2/workspace_alignment_fixed_width
                reason=f"workspace alignment {self.alignment_bytes!r} is not a u64"
            )
        if not is_power_of_two(self.alignment_bytes):
            raise InvalidExecutionPlan(  # rule: 04.7.2/alignment_power_of_two
                reason="workspace alignment must be a non-zero power of two"
            )
        if self.scope is ProviderWorkspaceScope.PLAN and not self.size_formula.is_fixed:
            raise InvalidExecutionPlan(  # rule: 04.7.2/plan_scope_fixed, 04.7.2/minimum_bytes_computable
                reason="plan-scoped workspaces must have a fixed size"
            )
        if self.scope is ProviderWorkspaceScope.SEQUENCE and not self.size_formula.valid_for_sequence_scope():
            raise InvalidExecutionPlan(  # rule: 04.7.2/sequence_scope_formula
                reason="sequence-scoped workspace formula depends on other sequences"
            )
        self.minimum_bytes()

    def minimum_bytes(self) -> int:
        """``align_up(formula((1, 1, 1)), alignment)``."""
        return align_up(self.size_formula.evaluate_shape(_UNIT_SHAPE), self.alignment_bytes)

    def evaluate_shape(self, shape: WorkShape | tuple[int, int, int]) -> int:
        return align_up(self.size_formula.evaluate_shape(shape), self.alignment_bytes)

    def evaluate_bytes(self, work: ResourceWorkShape) -> int:
        """Aligned bytes for the immediate shape."""
        return self.evaluate_shape(work.immediate_shape())

    def evaluate_fit_bytes(self, work: ResourceWorkShape) -> int:
        """Aligned bytes for the fit shape."""
        return self.evaluate_shape(work.fit_shape())

    def fixed_bytes(self) -> int | None:
        return self.size_formula.fixed_size()

    def to_wire(self) -> dict[str, JsonValue]:
        return {
            "size_formula": self.size_formula.to_wire(),
            "alignment_bytes": self.alignment_bytes,
            "scope": self.scope.to_wire(),
            "reuse_policy": self.reuse_policy.to_wire(),
            "storage": self.storage.to_wire(),
        }

    @classmethod
    def from_wire(
        cls, raw: Any, *, context: str = "decode provider workspace requirement", path: str = "$"
    ) -> ProviderWorkspaceRequirement:
        """deny_unknown_fields, then ``from_formula``."""
        fields = ("size_formula", "alignment_bytes", "scope", "reuse_policy", "storage")
        obj = WireObject(
            # rule when 01.3.6/decode_unknown_field: 04.7.2/requirement_deny_unknown_fields
            raw,
            fields,
            type_name="ProviderWorkspaceRequirement",
            context=context,
            path=path,
        )
        args = (
            ProviderWorkspaceSizeFormula.from_wire(
                obj.raw("size_formula"), context=context, path=obj.at("size_formula")
            ),
            obj.u64("alignment_bytes"),
            ProviderWorkspaceScope.from_wire(obj.raw("scope"), context=context, path=obj.at("scope")),
            ProviderWorkspaceReusePolicy.from_wire(
                obj.raw("reuse_policy"), context=context, path=obj.at("reuse_policy")
            ),
            DynamicStorageRequirement.from_wire(obj.raw("storage"), context=context, path=obj.at("storage")),
        )
        return decode_with(lambda: cls(*args), context=context, path=path)
