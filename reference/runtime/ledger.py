"""The runtime accounting ledger: bytes actually held, per usage class, with peaks and refusals.

The ledger never trusts descriptors: after each allocation or release it sums
``held_bytes`` of the buffers the runtime still holds. ``LedgerReport`` is the
wire summary the ``execute`` operation returns.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from reference.canonical import JsonValue
from reference.errors import Serialization
from reference.resolution.usage import BufferUsage
from reference.runtime.buffer import ReferenceBuffer
from reference.wire import WireObject, read_uint

__all__ = ["LedgerReport", "RuntimeLedger"]

_USAGES = tuple(BufferUsage)


@dataclass(frozen=True, slots=True)
class LedgerReport:
    """Peak held bytes (total and per usage), grants, refusals and bytes still held at the end."""

    peak_bytes: int
    peak_bytes_by_usage: Mapping[BufferUsage, int]
    granted_allocations: int
    refused_allocations: int
    final_resident_bytes: int

    def to_wire(self) -> dict[str, JsonValue]:
        return {
            "peak_bytes": self.peak_bytes,
            "peak_bytes_by_usage": {u.value: self.peak_bytes_by_usage.get(u, 0) for u in sorted(_USAGES, key=str)},
            "granted_allocations": self.granted_allocations,
            "refused_allocations": self.refused_allocations,
            "final_resident_bytes": self.final_resident_bytes,
        }

    @classmethod
    def from_wire(cls, raw: Any, *, context: str, path: str = "$") -> LedgerReport:
        fields = (
            "peak_bytes",
            "peak_bytes_by_usage",
            "granted_allocations",
            "refused_allocations",
            "final_resident_bytes",
        )
        obj = WireObject(raw, fields, type_name="LedgerReport", context=context, path=path)
        usages = WireObject(
            obj.raw("peak_bytes_by_usage"),
            [u.value for u in _USAGES],
            type_name="PeakBytesByUsage",
            context=context,
            path=obj.at("peak_bytes_by_usage"),
        )
        by_usage = {
            u: read_uint(usages.raw(u.value), bits=64, context=context, path=usages.at(u.value)) for u in _USAGES
        }
        report = cls(
            obj.u64("peak_bytes"),
            by_usage,
            obj.u64("granted_allocations"),
            obj.u64("refused_allocations"),
            obj.u64("final_resident_bytes"),
        )
        if any(v > report.peak_bytes for v in by_usage.values()):
            raise Serialization(  # rule: 03.13.2/execute_result_decode
                context, f"{path}: a per-usage peak exceeds the total peak"
            )
        return report


@dataclass
class RuntimeLedger:
    """Mutable accounting of one execution (owned by the executor)."""

    current_bytes: int = 0
    peak_bytes: int = 0
    current_by_usage: dict[BufferUsage, int] = field(default_factory=dict)
    peak_by_usage: dict[BufferUsage, int] = field(default_factory=dict)
    granted: int = 0
    refused: int = 0

    def observe(self, live: Iterable[ReferenceBuffer]) -> None:
        """Recount what the runtime holds now and raise the peaks."""
        total = 0
        by_usage: dict[BufferUsage, int] = {}
        for buffer in live:
            total += buffer.held_bytes
            usage = buffer.descriptor.usage
            by_usage[usage] = by_usage.get(usage, 0) + buffer.held_bytes
        self.current_bytes = total
        self.current_by_usage = by_usage
        self.peak_bytes = max(self.peak_bytes, total)
        for usage, held in by_usage.items():
            self.peak_by_usage[usage] = max(self.peak_by_usage.get(usage, 0), held)

    def record_grant(self) -> None:
        self.granted += 1

    def record_refusal(self) -> None:
        self.refused += 1

    def report(self) -> LedgerReport:
        return LedgerReport(
            self.peak_bytes,
            {u: self.peak_by_usage.get(u, 0) for u in _USAGES},
            self.granted,
            self.refused,
            self.current_bytes,
        )
