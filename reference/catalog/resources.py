"""``ResourcePresenceRequirement`` and ``ResourceRequirements`` (spec 03 §5.1).

``ResourceRequirements`` is a plain derived struct (deny_unknown_fields, all
fields required); its alignment is checked by ``OperationDescriptor.validate``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from reference.catalog._common import OrderedEnum
from reference.wire import WireObject

__all__ = ["ResourcePresenceRequirement", "ResourceRequirements"]


class ResourcePresenceRequirement(OrderedEnum):
    """``forbidden`` | ``optional`` | ``required``."""

    FORBIDDEN = "forbidden"
    OPTIONAL = "optional"
    REQUIRED = "required"

    def accepts(self, present: bool) -> bool:
        """forbidden <=> absent; optional accepts both; required <=> present."""
        if self is ResourcePresenceRequirement.OPTIONAL:
            return True
        return present == (self is ResourcePresenceRequirement.REQUIRED)


@dataclass(frozen=True, slots=True)
class ResourceRequirements:
    """Shape-independent resource contract of an operation."""

    minimum_value_alignment_bytes: int
    scratch: ResourcePresenceRequirement
    binding: ResourcePresenceRequirement
    persistent: ResourcePresenceRequirement

    def to_wire(self) -> dict[str, Any]:
        return {
            "minimum_value_alignment_bytes": self.minimum_value_alignment_bytes,
            "scratch": self.scratch.to_wire(),
            "binding": self.binding.to_wire(),
            "persistent": self.persistent.to_wire(),
        }

    @classmethod
    def from_wire(
        cls, raw: Any, *, context: str = "decode resource requirements", path: str = "$"
    ) -> ResourceRequirements:
        fields = ("minimum_value_alignment_bytes", "scratch", "binding", "persistent")
        obj = WireObject(
            raw,
            fields,
            # rule when 01.3.6/decode_unknown_field: 03.5.1/resource_requirements_strict
            type_name="ResourceRequirements",
            context=context,  # rule when 03.1/derived_struct_missing_field: 03.5.1/resource_requirements_strict
            path=path,
        )
        presence = {
            name: ResourcePresenceRequirement.from_wire(obj.raw(name), context=context, path=obj.at(name))
            for name in fields[1:]
        }
        return cls(
            obj.u64("minimum_value_alignment_bytes"), presence["scratch"], presence["binding"], presence["persistent"]
        )
