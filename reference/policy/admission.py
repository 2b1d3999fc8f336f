"""``AdmissionPolicy`` (spec 04 §2.3): a plain struct checked only inside ``ResolvedRuntimePolicy``.

The decoder ignores unknown keys; all five fields are required.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from reference.canonical import JsonValue
from reference.ints import check_bool, check_uint
from reference.policy.enums import AdmissionFitPolicy
from reference.wire import WireObject

__all__ = ["AdmissionPolicy"]

_FIELDS = (
    "maximum_queue_depth",
    "maximum_scheduled_tokens",
    "sequence_fit_policy",
    "allow_defer",
    "cancellation_check_interval_steps",
)


@dataclass(frozen=True, slots=True)
class AdmissionPolicy:
    """Queue depth (u32), per-step token ceiling (u64), fit policy, deferral, cancellation interval (u32)."""

    maximum_queue_depth: int
    maximum_scheduled_tokens: int
    sequence_fit_policy: AdmissionFitPolicy
    allow_defer: bool
    cancellation_check_interval_steps: int

    def __post_init__(self) -> None:
        check_uint(self.maximum_queue_depth, 32, "AdmissionPolicy.maximum_queue_depth")
        check_uint(self.maximum_scheduled_tokens, 64, "AdmissionPolicy.maximum_scheduled_tokens")
        object.__setattr__(self, "sequence_fit_policy", AdmissionFitPolicy(self.sequence_fit_policy))
        check_bool(self.allow_defer, "AdmissionPolicy.allow_defer")
        check_uint(self.cancellation_check_interval_steps, 32, "AdmissionPolicy.cancellation_check_interval_steps")

    def to_wire(self) -> dict[str, JsonValue]:
        return {
            "maximum_queue_depth": self.maximum_queue_depth,
            "maximum_scheduled_tokens": self.maximum_scheduled_tokens,
            "sequence_fit_policy": self.sequence_fit_policy.to_wire(),
            "allow_defer": self.allow_defer,
            "cancellation_check_interval_steps": self.cancellation_check_interval_steps,
        }

    @classmethod
    def from_wire(cls, raw: Any, *, context: str, path: str = "$") -> AdmissionPolicy:
        obj = WireObject(
            raw,
            _FIELDS,
            # rule when 03.1/derived_struct_missing_field: 04.2.3/admission_policy_required_fields
            type_name="AdmissionPolicy",
            context=context,
            path=path,
            lenient=True,
        )
        return cls(
            obj.u32("maximum_queue_depth"),
            obj.u64("maximum_scheduled_tokens"),
            AdmissionFitPolicy.from_wire(
                # rule when 01.5/enum_variant_shape: 04.2/admission_fit_policy_spellings
                obj.raw("sequence_fit_policy"),
                context=context,
                path=obj.at("sequence_fit_policy"),
            ),
            obj.boolean("allow_defer"),
            obj.u32("cancellation_check_interval_steps"),
        )
