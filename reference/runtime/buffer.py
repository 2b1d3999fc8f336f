"""``ReferenceBuffer``: real device memory of the reference runtime, a numpy byte buffer.

The bytes are an aligned, zero-filled ``uint8`` view of ``size_bytes`` bytes;
``held_bytes`` is what the buffer actually occupies (what the ledger counts).
"""

from __future__ import annotations

from typing import Any, Final

import numpy as np

from reference.runtime.errors import DeviceRuntimeError
from reference.runtime.types import BufferDescriptor

__all__ = ["MAX_HOST_ALIGNMENT_BYTES", "ReferenceBuffer", "aligned_zeros"]

#: Alignments up to this are honoured by host addresses; larger ones are refused by the runtime.
MAX_HOST_ALIGNMENT_BYTES: Final = 1 << 20


def aligned_zeros(size: int, alignment: int) -> np.ndarray[Any, np.dtype[np.uint8]]:
    """``size`` zero bytes whose first byte's host address is a multiple of ``alignment``."""
    if alignment > MAX_HOST_ALIGNMENT_BYTES:
        raise DeviceRuntimeError(f"alignment {alignment} exceeds the host limit {MAX_HOST_ALIGNMENT_BYTES}")
    raw = np.zeros(size + alignment, dtype=np.uint8)
    start = (-raw.ctypes.data) % alignment
    view = raw[start : start + size]
    assert view.ctypes.data % alignment == 0
    return view


class ReferenceBuffer:
    """One allocation: owning runtime id, serial, descriptor and bytes; ``alive`` until released."""

    __slots__ = ("alive", "data", "descriptor", "runtime_id", "serial")

    def __init__(
        self, runtime_id: int, serial: int, descriptor: BufferDescriptor, data: np.ndarray[Any, np.dtype[np.uint8]]
    ) -> None:
        self.runtime_id = runtime_id
        self.serial = serial
        self.descriptor = descriptor
        self.data = data
        self.alive = True

    @property
    def held_bytes(self) -> int:
        return int(self.data.nbytes)

    def __repr__(self) -> str:
        return f"ReferenceBuffer({self.descriptor.resource_id}, {self.descriptor.size_bytes} B, serial={self.serial})"
