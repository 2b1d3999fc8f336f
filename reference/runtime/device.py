"""``ReferenceDeviceRuntime``: the synchronous numpy device runtime (spec 03 §13.3).

Buffers are real aligned, zero-filled numpy byte arrays obtained only through a
``DeviceAllocationPermit``; every buffer, stream, fence and command carries the
runtime's instance id. Commands run at ``submit``, in batch order, one fence
per batch. ``release`` is the Python stand-in for dropping a Rust buffer.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final, TypeVar

import numpy as np

from reference.catalog.device import DeviceClass, DeviceDescriptor
from reference.errors import InvalidExecutionPlan, VNextError
from reference.runtime.buffer import ReferenceBuffer, aligned_zeros
from reference.runtime.commands import (
    CopyCommand,
    DeviceCommand,
    DeviceCommandBatch,
    KernelCommand,
    UploadCommand,
    ZeroCommand,
)
from reference.runtime.errors import DefinitelyNotSubmitted, DeviceRuntimeError, FenceIndeterminate
from reference.runtime.oracle import KernelLaunch
from reference.runtime.permits import DeviceAllocationPermit
from reference.runtime.types import (
    MAX_ERROR_MESSAGE_BYTES,
    BufferDescriptor,
    CopyRegion,
    DeviceErrorReport,
    DeviceTerminal,
    DeviceTerminalReceipt,
    DeviceTimingMode,
    FenceQuery,
    HostTransferLayout,
    StreamState,
    checked_range,
)

__all__ = ["REFERENCE_ERROR_CODE", "ReferenceDeviceRuntime", "ReferenceFence", "ReferenceStream"]

REFERENCE_ERROR_CODE: Final = "reference_runtime"
ATTENTION_EXECUTION_POLICY: Final = "portable"
_INSTANCES = itertools.count(1)
T = TypeVar("T")


@dataclass(slots=True)
class ReferenceStream:
    runtime_id: int
    serial: int
    state: StreamState = StreamState.READY


@dataclass(frozen=True, slots=True)
class ReferenceFence:
    runtime_id: int
    serial: int
    terminal: DeviceTerminal


def _wrap(call: Callable[[], T]) -> T:
    """Contract-type rule failures surface as the runtime's own error."""
    try:
        return call()
    except VNextError as exc:
        raise DeviceRuntimeError(str(exc)) from None


def _report_message(text: str) -> str:
    cleaned = "".join(" " if (ord(c) < 0x20 and c not in "\n\t") or ord(c) == 0x7F else c for c in text)
    data = cleaned.encode("utf-8")[:MAX_ERROR_MESSAGE_BYTES]
    cleaned = data.decode("utf-8", errors="ignore")
    return cleaned if cleaned.strip() else "reference runtime error"


class ReferenceDeviceRuntime:
    """A valid, reference-class device holding its memory in numpy buffers."""

    def __init__(self, descriptor: DeviceDescriptor) -> None:
        descriptor.validate()
        if descriptor.device_class is DeviceClass.ACCELERATOR:
            raise InvalidExecutionPlan(  # rule: 03.13.3/refuses_overclaiming
                reason=f"reference runtime cannot claim accelerator device `{descriptor.id}`"
            )
        self._descriptor = descriptor
        self.runtime_id = next(_INSTANCES)
        self._serials = itertools.count(1)
        self._live: dict[int, ReferenceBuffer] = {}

    # ------------------------------------------------------------------ identity
    def descriptor(self) -> DeviceDescriptor:
        return self._descriptor

    def attention_execution_policy(self) -> str:
        return ATTENTION_EXECUTION_POLICY

    # ------------------------------------------------------------------ memory
    def allocate(self, permit: DeviceAllocationPermit) -> ReferenceBuffer:
        """Exactly the permit's request: ``size_bytes`` zero bytes at ``alignment_bytes``."""
        request = _wrap(permit.into_request)
        data = aligned_zeros(request.size_bytes, request.alignment_bytes)
        buffer = ReferenceBuffer(self.runtime_id, next(self._serials), BufferDescriptor.of(request), data)
        self._live[buffer.serial] = buffer
        return buffer

    def release(self, buffer: ReferenceBuffer) -> None:
        """Drop ``buffer``: its bytes are no longer held."""
        self._own_buffer(buffer)
        buffer.alive = False
        del self._live[buffer.serial]

    def live_buffers(self) -> tuple[ReferenceBuffer, ...]:
        """Every buffer this runtime still holds, in allocation order."""
        return tuple(self._live[k] for k in sorted(self._live))

    def buffer_descriptor(self, buffer: ReferenceBuffer) -> BufferDescriptor:
        return buffer.descriptor

    # ------------------------------------------------------------------ streams and commands
    def create_stream(self) -> ReferenceStream:
        return ReferenceStream(self.runtime_id, next(self._serials))

    def stream_state(self, stream: ReferenceStream) -> StreamState:
        return stream.state if stream.runtime_id == self.runtime_id else StreamState.FAILED

    def encode_copy(self, source: ReferenceBuffer, destination: ReferenceBuffer, region: CopyRegion) -> CopyCommand:
        self._own_buffer(source)
        self._own_buffer(destination)
        _wrap(lambda: region.validate_bounds(source.descriptor, destination.descriptor))
        if source.descriptor.element_type is not destination.descriptor.element_type:
            raise DeviceRuntimeError("copy between buffers of different element types")
        return CopyCommand(self.runtime_id, source, destination, region)

    def encode_upload(
        self, data: bytes, layout: HostTransferLayout, destination: ReferenceBuffer, offset_bytes: int
    ) -> UploadCommand:
        self._own_buffer(destination)
        _wrap(lambda: layout.validate_bytes(len(data)))
        if layout.element_type is not destination.descriptor.element_type:
            raise DeviceRuntimeError("upload layout element type differs from the destination buffer's")
        _wrap(lambda: checked_range(offset_bytes, layout.byte_len(), destination.descriptor.size_bytes, "upload"))
        return UploadCommand(self.runtime_id, bytes(data), destination, offset_bytes)

    def encode_zero(self, destination: ReferenceBuffer, offset_bytes: int, length_bytes: int) -> ZeroCommand:
        self._own_buffer(destination)
        _wrap(lambda: checked_range(offset_bytes, length_bytes, destination.descriptor.size_bytes, "zero"))
        return ZeroCommand(self.runtime_id, destination, offset_bytes, length_bytes)

    def encode_kernel(self, launch: KernelLaunch) -> KernelCommand:
        """A compute command (what a reference operation provider records)."""
        for buffer in launch.buffers():
            self._own_buffer(buffer)
        return KernelCommand(self.runtime_id, launch)

    def submit(self, stream: ReferenceStream, batch: DeviceCommandBatch) -> ReferenceFence:
        """Check everything first (``DefinitelyNotSubmitted``), then run every entry in order."""
        reason = self._submit_refusal(stream, batch)
        if reason is not None:
            raise DefinitelyNotSubmitted(DeviceRuntimeError(reason))
        terminal = DeviceTerminal()
        try:
            for command in batch.into_commands():
                self._execute(command)
        except (DeviceRuntimeError, VNextError) as exc:  # pragma: no cover - checked before submission
            terminal = DeviceTerminal(str(exc))
            stream.state = StreamState.FAILED
        else:
            stream.state = StreamState.SUBMITTED
        return ReferenceFence(self.runtime_id, next(self._serials), terminal)

    def query_fence(self, fence: ReferenceFence) -> FenceQuery:
        if fence.runtime_id != self.runtime_id:
            return FenceQuery("indeterminate", error="fence belongs to another runtime instance")
        return FenceQuery("terminal", receipt=DeviceTerminalReceipt.unprofiled(fence.terminal))

    def wait_fence(self, fence: ReferenceFence) -> DeviceTerminalReceipt:
        if fence.runtime_id != self.runtime_id:
            raise FenceIndeterminate(DeviceRuntimeError("fence belongs to another runtime instance"))
        return DeviceTerminalReceipt.unprofiled(fence.terminal)

    def synchronize(self, stream: ReferenceStream) -> None:
        if stream.runtime_id != self.runtime_id:
            raise DeviceRuntimeError("stream belongs to another runtime instance")
        stream.state = StreamState.READY

    def readback(
        self, stream: ReferenceStream, source: ReferenceBuffer, region: CopyRegion, layout: HostTransferLayout
    ) -> bytes:
        """``layout.byte_len()`` host bytes: the source window at the host offset, zeros elsewhere."""
        if stream.runtime_id != self.runtime_id:
            raise DeviceRuntimeError("stream belongs to another runtime instance")
        self._own_buffer(source)
        if layout.element_type is not source.descriptor.element_type:
            raise DeviceRuntimeError("readback layout element type differs from the source buffer's")
        src, dst, length = region.source_offset_bytes, region.destination_offset_bytes, region.length_bytes
        if src + length > source.descriptor.size_bytes:
            raise DeviceRuntimeError("readback source window exceeds the buffer")
        if dst + length > layout.byte_len():
            raise DeviceRuntimeError("readback host window exceeds the host layout")
        self.synchronize(stream)
        out = bytearray(layout.byte_len())
        out[dst : dst + length] = source.data[src : src + length].tobytes()
        return bytes(out)

    def describe_error(self, error: Exception) -> DeviceErrorReport:
        """Always a valid report with code ``reference_runtime``, not retryable."""
        return DeviceErrorReport.new(REFERENCE_ERROR_CODE, _report_message(str(error)), False)

    # ------------------------------------------------------------------ internals
    def _own_buffer(self, buffer: ReferenceBuffer) -> None:
        if buffer.runtime_id != self.runtime_id:
            raise DeviceRuntimeError(f"buffer `{buffer.descriptor.resource_id}` belongs to another runtime instance")
        if not buffer.alive:
            raise DeviceRuntimeError(f"buffer `{buffer.descriptor.resource_id}` was released")

    def _submit_refusal(self, stream: ReferenceStream, batch: DeviceCommandBatch) -> str | None:
        if stream.runtime_id != self.runtime_id:
            return "stream belongs to another runtime instance"
        if batch.is_empty():
            return "command batch is empty"
        if batch.timing_mode is not DeviceTimingMode.OFF:
            return "the reference runtime does not measure device timing"
        for command in batch.into_commands():
            if command.runtime_id != self.runtime_id:
                return "command was encoded by another runtime instance"
            if isinstance(command, KernelCommand) and command.requires_replay:
                return "the reference runtime has no replay-required compute path"
            for buffer in _command_buffers(command):
                if buffer.runtime_id != self.runtime_id or not buffer.alive:
                    return f"command references foreign or released buffer `{buffer.descriptor.resource_id}`"
        return None

    def _execute(self, command: DeviceCommand) -> None:
        if isinstance(command, CopyCommand):
            r = command.region
            window = command.source.data[r.source_offset_bytes : r.source_offset_bytes + r.length_bytes].copy()
            command.destination.data[r.destination_offset_bytes : r.destination_offset_bytes + r.length_bytes] = window
        elif isinstance(command, UploadCommand):
            end = command.offset_bytes + len(command.data)
            command.destination.data[command.offset_bytes : end] = np.frombuffer(command.data, dtype=np.uint8)
        elif isinstance(command, ZeroCommand):
            command.destination.data[command.offset_bytes : command.offset_bytes + command.length_bytes] = 0
        else:
            self._run_kernel(command.launch)

    def _run_kernel(self, launch: KernelLaunch) -> None:
        launch.run()


def _command_buffers(command: DeviceCommand) -> tuple[ReferenceBuffer, ...]:
    if isinstance(command, CopyCommand):
        return (command.source, command.destination)
    if isinstance(command, UploadCommand | ZeroCommand):
        return (command.destination,)
    return command.launch.buffers()
