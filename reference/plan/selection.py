"""Provider selection evidence of a plan node (spec 05 §6.3, §8.3).

* ``ProviderSelectionReason``: ``preferred_compatible`` | ``canonical_compatible`` (no
  preference; decision U1) | ``fallback_from_preferred``.
* ``RejectedProvider {provider_id, reasons}`` with a ``PlanProviderRejectReason``.
* ``ProviderSelection {requested_provider, selected_provider, selection_reason,
  rejected_providers}`` and ``validate_evidence`` (the plan-level check).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from reference.canonical import JsonValue
from reference.catalog._common import OrderedEnum
from reference.errors import invalid_plan
from reference.ids import ProviderId
from reference.plan._util import strictly_ascending
from reference.resolution.rejection import PlanProviderRejectReason
from reference.wire import WireObject, read_list

__all__ = ["ProviderSelection", "ProviderSelectionReason", "RejectedProvider"]


class ProviderSelectionReason(OrderedEnum):
    """Why the selected provider was chosen."""

    PREFERRED_COMPATIBLE = "preferred_compatible"
    CANONICAL_COMPATIBLE = "canonical_compatible"
    FALLBACK_FROM_PREFERRED = "fallback_from_preferred"


@dataclass(frozen=True, slots=True)
class RejectedProvider:
    """One provider the node did not select, and why."""

    provider_id: ProviderId
    reasons: PlanProviderRejectReason

    def to_wire(self) -> dict[str, JsonValue]:
        return {"provider_id": self.provider_id.value, "reasons": self.reasons.to_wire()}

    @classmethod
    def from_wire(cls, raw: Any, *, context: str, path: str = "$") -> RejectedProvider:
        obj = WireObject(raw, ("provider_id", "reasons"), type_name="RejectedProvider", context=context, path=path)
        return cls(
            obj.identity("provider_id", ProviderId),
            PlanProviderRejectReason.from_wire(obj.raw("reasons"), context=context, path=obj.at("reasons")),
        )


@dataclass(frozen=True, slots=True)
class ProviderSelection:
    """The selection evidence recorded in every plan node."""

    requested_provider: ProviderId | None
    selected_provider: ProviderId
    selection_reason: ProviderSelectionReason
    rejected_providers: tuple[RejectedProvider, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "rejected_providers", tuple(self.rejected_providers))

    def validate_evidence(self) -> None:
        """``validate_provider_selection_evidence``: canonical rejections and a consistent reason."""
        ids = [r.provider_id for r in self.rejected_providers]
        if not strictly_ascending(ids):
            raise invalid_plan(  # rule: 05.6.3/plan_level_evidence_check
                "provider rejections are not strictly ascending by provider id"
            )
        if self.selected_provider in ids:
            raise invalid_plan(  # rule: 05.6.3/plan_level_evidence_check
                f"selected provider `{self.selected_provider}` is also rejected"
            )
        for rejected in self.rejected_providers:
            reason = rejected.reasons
            if reason.kind == "storage_incompatible" and not reason.is_resolution_local():
                raise invalid_plan(  # rule: 05.6.3/plan_level_evidence_check
                    "storage_incompatible evidence must list strictly ascending resource ids"
                )
        requested, why = self.requested_provider, self.selection_reason
        if requested is None:
            ok = why is ProviderSelectionReason.CANONICAL_COMPATIBLE
        elif why is ProviderSelectionReason.PREFERRED_COMPATIBLE:
            ok = requested == self.selected_provider
        elif why is ProviderSelectionReason.FALLBACK_FROM_PREFERRED:
            ok = requested != self.selected_provider and requested in ids
        else:
            ok = False
        if not ok:
            raise invalid_plan(  # rule: 05.6.3/plan_level_evidence_check
                "provider selection reason is inconsistent with the requested provider"
            )

    def to_wire(self) -> dict[str, JsonValue]:
        return {
            "requested_provider": None if self.requested_provider is None else self.requested_provider.value,
            "selected_provider": self.selected_provider.value,
            "selection_reason": self.selection_reason.to_wire(),
            "rejected_providers": [r.to_wire() for r in self.rejected_providers],
        }

    @classmethod
    def from_wire(cls, raw: Any, *, context: str, path: str = "$") -> ProviderSelection:
        """deny_unknown_fields; every field required (``requested_provider`` as explicit ``null``)."""
        fields = ("requested_provider", "selected_provider", "selection_reason", "rejected_providers")
        obj = WireObject(raw, fields, type_name="ProviderSelection", context=context, path=path)
        requested = None if obj.raw("requested_provider") is None else obj.identity("requested_provider", ProviderId)
        items = read_list(obj.raw("rejected_providers"), context=context, path=obj.at("rejected_providers"))
        return cls(
            requested,
            obj.identity("selected_provider", ProviderId),
            ProviderSelectionReason.from_wire(
                obj.raw("selection_reason"), context=context, path=obj.at("selection_reason")
            ),
            tuple(
                RejectedProvider.from_wire(item, context=context, path=f"{obj.at('rejected_providers')}[{i}]")
                for i, item in enumerate(items)
            ),
        )
