"""Reference device commands and command batches (spec 03 §13.1).

A command is recorded by ``encode_*`` (or built by a reference operation provider
for a kernel launch) and executed at ``submit``, in batch order. Every command
carries the id of the runtime instance that encoded it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from reference.runtime.buffer import ReferenceBuffer
from reference.runtime.oracle import KernelLaunch
from reference.runtime.types import CopyRegion, DeviceCommandPhase, DeviceTimingMode

__all__ = [
    "CopyCommand",
    "DeviceCommand",
    "DeviceCommandBatch",
    "DeviceCommandEntry",
    "KernelCommand",
    "UploadCommand",
    "ZeroCommand",
]


@dataclass(frozen=True, slots=True, eq=False)
class CopyCommand:
    runtime_id: int
    source: ReferenceBuffer
    destination: ReferenceBuffer
    region: CopyRegion


@dataclass(frozen=True, slots=True, eq=False)
class UploadCommand:
    """Host bytes snapshotted at encode time."""

    runtime_id: int
    data: bytes
    destination: ReferenceBuffer
    offset_bytes: int


@dataclass(frozen=True, slots=True, eq=False)
class ZeroCommand:
    runtime_id: int
    destination: ReferenceBuffer
    offset_bytes: int
    length_bytes: int


@dataclass(frozen=True, slots=True, eq=False)
class KernelCommand:
    """One node invocation of an exact reference operation over bound buffer ranges."""

    runtime_id: int
    launch: KernelLaunch
    requires_replay: bool = False


DeviceCommand = CopyCommand | UploadCommand | ZeroCommand | KernelCommand


@dataclass(frozen=True, slots=True)
class DeviceCommandEntry:
    phase: DeviceCommandPhase
    node_index: int | None
    command: DeviceCommand


@dataclass(frozen=True, slots=True)
class DeviceCommandBatch:
    """Ordered entries plus a timing mode; one batch is one submission and one fence."""

    entries: tuple[DeviceCommandEntry, ...]
    timing_mode: DeviceTimingMode = DeviceTimingMode.OFF

    @classmethod
    def of(
        cls,
        phase: DeviceCommandPhase,
        commands: Iterable[DeviceCommand],
        node_index: int | None = None,
        timing_mode: DeviceTimingMode = DeviceTimingMode.OFF,
    ) -> DeviceCommandBatch:
        return cls(tuple(DeviceCommandEntry(phase, node_index, c) for c in commands), timing_mode)

    def __len__(self) -> int:
        return len(self.entries)

    def is_empty(self) -> bool:
        return not self.entries

    def into_commands(self) -> tuple[DeviceCommand, ...]:
        return tuple(entry.command for entry in self.entries)
