"""``ContractVersion`` and ``PlanSchemaVersion`` (spec 01 §2).

Wire form ``{"major": u16, "minor": u16}``. Standalone decoding ignores extra
keys (serde has no ``deny_unknown_fields`` here); whole-wire re-serialisation
checks reject them. ``satisfies`` means same major and minor >= required.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from reference.errors import Serialization
from reference.ints import check_uint, fits_uint

__all__ = ["ContractVersion", "PlanSchemaVersion"]


def _u16(raw: Any, name: str, context: str) -> int:
    """A ``u16`` field; each way of not being one is refused at its own site, all with the same message."""
    if fits_uint(raw, 16):
        return raw
    message = f"{name} must be an integer in 0..=65535, got {raw!r}"
    if type(raw) is float:
        if raw == 0.0 and math.copysign(1.0, raw) < 0:  # the decoder reads the literal -0 as a float, as serde does
            raise Serialization(context, message)  # rule: 01.2/contract_version_minus_zero
        raise Serialization(context, message)  # rule: 01.2/contract_version_float
    if type(raw) is int and raw < 0:
        raise Serialization(context, message)  # rule: 01.2/contract_version_negative
    if type(raw) is int:
        raise Serialization(context, message)  # rule: 01.2/contract_version_above_u16
    raise Serialization(context, message)  # rule: 01.5/struct_wrong_json_type


@dataclass(frozen=True, order=True, slots=True)
class ContractVersion:
    """A ``major.minor`` version; ordering is lexicographic on (major, minor)."""

    major: int
    minor: int

    def __post_init__(self) -> None:
        for name in ("major", "minor"):
            check_uint(getattr(self, name), 16, f"{type(self).__name__}.{name}")

    def satisfies(self, required: ContractVersion) -> bool:
        """True iff the majors are equal and this minor is at least the required one."""
        return self.major == required.major and self.minor >= required.minor

    def __str__(self) -> str:
        return f"{self.major}.{self.minor}"

    def to_wire(self) -> dict[str, int]:
        return {"major": self.major, "minor": self.minor}

    @classmethod
    def from_wire(cls, raw: Any, *, context: str = "decode contract version") -> ContractVersion:
        """Lenient about extra keys, strict about the two fields' types and ranges."""
        if not isinstance(raw, dict):
            raise Serialization(  # rule: 01.5/struct_wrong_json_type
                context, f"{cls.__name__} must be a JSON object"
            )
        for name in ("major", "minor"):
            if name not in raw:
                raise Serialization(context, f"missing field `{name}`")  # rule: 01.2/contract_version_missing_key
        return cls(_u16(raw["major"], "major", context), _u16(raw["minor"], "minor", context))


@dataclass(frozen=True, order=True, slots=True)
class PlanSchemaVersion(ContractVersion):
    """The plan wire schema version. Only exact equality matters; there is no ``satisfies``."""

    def satisfies(self, required: ContractVersion) -> bool:
        raise TypeError("PlanSchemaVersion has no satisfies relation; compare for equality")
