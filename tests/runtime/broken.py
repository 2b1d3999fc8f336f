"""Deliberately broken device runtimes: each must be caught by the runtime-memory suite's checks."""

from __future__ import annotations

from reference.resolution.usage import BufferUsage
from reference.runtime.buffer import ReferenceBuffer, aligned_zeros
from reference.runtime.device import ReferenceDeviceRuntime
from reference.runtime.oracle import KernelLaunch
from reference.runtime.permits import DeviceAllocationPermit

PAGE = 4096


class OverAllocatingRuntime(ReferenceDeviceRuntime):
    """Reports the requested descriptor but holds every buffer rounded up to a 4 KiB page."""

    def allocate(self, permit: DeviceAllocationPermit) -> ReferenceBuffer:
        buffer = super().allocate(permit)
        size = -(-buffer.descriptor.size_bytes // PAGE) * PAGE
        buffer.data = aligned_zeros(size, buffer.descriptor.alignment_bytes)
        return buffer


class SlightlyOverAllocatingRuntime(ReferenceDeviceRuntime):
    """Holds one extra alignment unit per buffer: within capacity, above the one-request envelope."""

    def allocate(self, permit: DeviceAllocationPermit) -> ReferenceBuffer:
        buffer = super().allocate(permit)
        d = buffer.descriptor
        buffer.data = aligned_zeros(d.size_bytes + d.alignment_bytes, d.alignment_bytes)
        return buffer


class LeakyRuntime(ReferenceDeviceRuntime):
    """Never frees scratch buffers: releasing one marks it dead but keeps its bytes."""

    def release(self, buffer: ReferenceBuffer) -> None:
        if buffer.descriptor.usage is BufferUsage.SCRATCH:
            self._own_buffer(buffer)
            buffer.alive = False
            return
        super().release(buffer)


class NondeterministicRuntime(ReferenceDeviceRuntime):
    """Perturbs the first output byte of every kernel with a per-runtime launch counter."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.launches = 0

    def _run_kernel(self, launch: KernelLaunch) -> None:
        super()._run_kernel(launch)
        self.launches += 1
        buffer, offset, _ = launch.outputs[0].ranges[0]
        buffer.data[offset] ^= self.launches & 0xFF


class PlanObliviousRuntime(ReferenceDeviceRuntime):
    """Allocates a private staging buffer next to every planned buffer (memory the plan never granted)."""

    def allocate(self, permit: DeviceAllocationPermit) -> ReferenceBuffer:
        buffer = super().allocate(permit)
        extra = ReferenceBuffer(self.runtime_id, -buffer.serial, buffer.descriptor, aligned_zeros(64, 16))
        self._live[extra.serial] = extra
        return buffer
