"""DeviceRuntime data types (spec 03 §13.1): descriptors, regions, layouts, states, receipts, reports.

Every constructor rule raises ``InvalidExecutionPlan``. ``BufferRequest`` is the
memory plan's (``reference.plan.memory.allocation``); ``BufferDescriptor`` has
the same five fields and a derived wire form.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Final

from reference.canonical import JsonValue
from reference.catalog._common import OrderedEnum
from reference.catalog.element_type import element_type_from_wire
from reference.errors import InvalidExecutionPlan
from reference.ids import ResourceId
from reference.ints import U64_MAX, fits_uint, rust_trim
from reference.model.element import ElementType
from reference.plan.memory.allocation import BufferRequest
from reference.resolution.usage import BufferUsage
from reference.wire import WireObject

__all__ = [
    "MAX_ERROR_MESSAGE_BYTES",
    "BufferDescriptor",
    "BufferRequest",
    "CopyRegion",
    "DeviceCommandPhase",
    "DeviceErrorReport",
    "DeviceTerminal",
    "DeviceTerminalReceipt",
    "DeviceTimingMode",
    "FenceQuery",
    "HostTransferLayout",
    "StreamState",
    "checked_range",
]

MAX_ERROR_MESSAGE_BYTES: Final = 4096
_CODE: Final = re.compile(r"[A-Za-z0-9._-]{1,64}")


def _u64(value: Any, name: str) -> int:
    if not fits_uint(value, 64):
        raise InvalidExecutionPlan(reason=f"{name} must be a u64, got {value!r}")  # rule: 03.13.1/copy_region_overflow
    return value


def checked_range(offset: int, length: int, size: int, what: str) -> None:
    """``[offset, offset + length)`` is non-empty, does not overflow u64 and fits ``size`` bytes."""
    _u64(offset, f"{what} offset")
    _u64(length, f"{what} length")
    if length == 0:
        raise InvalidExecutionPlan(reason=f"{what} range is empty")  # rule: 03.13.1/copy_region_length
    end = offset + length
    if end > U64_MAX:
        raise InvalidExecutionPlan(reason=f"{what} range overflows u64")  # rule: 03.13.1/copy_region_overflow
    if end > size:
        raise InvalidExecutionPlan(  # rule: 03.13.1/copy_region_overflow
            reason=f"{what} range [{offset}, {end}) exceeds {size} bytes"
        )


class StreamState(OrderedEnum):
    READY = "ready"
    RECORDING = "recording"
    SUBMITTED = "submitted"
    FAILED = "failed"


class DeviceTimingMode(OrderedEnum):
    """``off`` (default) < ``completion`` < ``replay`` < ``kernel``; the reference runtime accepts only ``off``
    (08-runtime D12)."""

    OFF = "off"
    COMPLETION = "completion"
    REPLAY = "replay"
    KERNEL = "kernel"

    def completion_enabled(self) -> bool:
        """Every mode but ``off`` times completion."""
        return self is not DeviceTimingMode.OFF

    def physical_span_attribution_enabled(self) -> bool:
        """``replay`` and ``kernel`` attribute physical spans."""
        return self in (DeviceTimingMode.REPLAY, DeviceTimingMode.KERNEL)

    def kernel_attribution_enabled(self) -> bool:
        """Only ``kernel`` attributes native kernels."""
        return self is DeviceTimingMode.KERNEL


class DeviceCommandPhase(OrderedEnum):
    INITIALIZATION = "initialization"
    DYNAMIC_BINDING = "dynamic_binding"
    COMPUTE = "compute"
    RESULT_BINDING = "result_binding"


@dataclass(frozen=True, slots=True)
class BufferDescriptor:
    """What an allocated buffer is: equal, field for field, to the request it was allocated for."""

    resource_id: ResourceId
    size_bytes: int
    alignment_bytes: int
    usage: BufferUsage
    element_type: ElementType

    @classmethod
    def of(cls, request: BufferRequest) -> BufferDescriptor:
        return cls(
            request.resource_id, request.size_bytes, request.alignment_bytes, request.usage, request.element_type
        )

    def matches(self, request: BufferRequest) -> bool:
        return self == BufferDescriptor.of(request)

    def to_wire(self) -> dict[str, JsonValue]:
        return {
            "resource_id": self.resource_id.value,
            "size_bytes": self.size_bytes,
            "alignment_bytes": self.alignment_bytes,
            "usage": self.usage.to_wire(),
            "element_type": self.element_type.to_wire(),
        }

    @classmethod
    def from_wire(cls, raw: Any, *, context: str = "decode buffer descriptor", path: str = "$") -> BufferDescriptor:
        """Derived serde: every field typed, unknown fields ignored, no semantic check."""
        fields = ("resource_id", "size_bytes", "alignment_bytes", "usage", "element_type")
        obj = WireObject(raw, fields, type_name="BufferDescriptor", context=context, path=path, lenient=True)
        return cls(
            obj.identity("resource_id", ResourceId),
            obj.u64("size_bytes"),
            obj.u64("alignment_bytes"),
            BufferUsage.from_wire(obj.raw("usage"), context=context, path=obj.at("usage")),
            element_type_from_wire(obj.raw("element_type"), context=context, path=obj.at("element_type")),
        )


@dataclass(frozen=True, slots=True)
class CopyRegion:
    """``length > 0``; ``source + length`` and ``destination + length`` fit u64."""

    source_offset_bytes: int
    destination_offset_bytes: int
    length_bytes: int

    def __post_init__(self) -> None:
        src = _u64(self.source_offset_bytes, "copy source offset")
        dst = _u64(self.destination_offset_bytes, "copy destination offset")
        length = _u64(self.length_bytes, "copy length")
        if length == 0:
            raise InvalidExecutionPlan(reason="copy region length must be non-zero")  # rule: 03.13.1/copy_region_length
        if src + length > U64_MAX or dst + length > U64_MAX:
            raise InvalidExecutionPlan(reason="copy region end overflows u64")  # rule: 03.13.1/copy_region_overflow

    def validate_bounds(self, source: BufferDescriptor, destination: BufferDescriptor) -> None:
        """Both windows fit their buffers."""
        if self.source_offset_bytes + self.length_bytes > source.size_bytes:
            raise InvalidExecutionPlan(  # rule: 03.13.1/copy_region_bounds
                reason=f"copy source window exceeds buffer `{source.resource_id}`"
            )
        if self.destination_offset_bytes + self.length_bytes > destination.size_bytes:
            raise InvalidExecutionPlan(  # rule: 03.13.1/copy_region_bounds
                reason=f"copy destination window exceeds buffer `{destination.resource_id}`"
            )


@dataclass(frozen=True, slots=True)
class HostTransferLayout:
    """Host bytes of ``element_count > 0`` elements; ``byte_len`` fits u64."""

    element_type: ElementType
    element_count: int

    def __post_init__(self) -> None:
        count = _u64(self.element_count, "host transfer element count")
        if count == 0:
            raise InvalidExecutionPlan(  # rule: 03.13.1/host_layout_count
                reason="host transfer layout element count must be non-zero"
            )
        if count * self.element_type.size_bytes > U64_MAX:
            raise InvalidExecutionPlan(  # rule: 03.13.1/host_layout_overflow
                reason="host transfer layout byte length overflows u64"
            )

    def byte_len(self) -> int:
        return self.element_count * self.element_type.size_bytes

    def validate_bytes(self, length: int) -> None:
        if length != self.byte_len():
            raise InvalidExecutionPlan(  # rule: 03.13.1/host_layout_bytes
                reason=f"host transfer has {length} bytes, its layout describes {self.byte_len()}"
            )


@dataclass(frozen=True, slots=True)
class DeviceTerminal:
    """``Succeeded`` (``error is None``) or ``FailedButQuiescent(error)``; tag ``status``, content ``error``."""

    error: str | None = None

    @property
    def succeeded(self) -> bool:
        return self.error is None

    def to_wire(self) -> dict[str, JsonValue]:
        if self.error is None:
            return {"status": "succeeded"}
        return {"status": "failed_but_quiescent", "error": self.error}


@dataclass(frozen=True, slots=True)
class DeviceTerminalReceipt:
    """A terminal plus its timing; the reference never measures (``not_requested``)."""

    terminal: DeviceTerminal
    execution_timing: str = "not_requested"

    @classmethod
    def unprofiled(cls, terminal: DeviceTerminal) -> DeviceTerminalReceipt:
        return cls(terminal, "not_requested")

    def to_wire(self) -> dict[str, JsonValue]:
        return {"terminal": self.terminal.to_wire(), "execution_timing": {"status": self.execution_timing}}


@dataclass(frozen=True, slots=True)
class FenceQuery:
    """``pending`` | ``terminal`` (with a receipt) | ``indeterminate`` (with an error; not terminal)."""

    status: str
    receipt: DeviceTerminalReceipt | None = None
    error: str | None = None

    def __post_init__(self) -> None:
        if (self.status == "terminal") != (self.receipt is not None) or (self.status == "indeterminate") != (
            self.error is not None
        ):
            raise TypeError("FenceQuery fields do not match its status")
        if self.status not in ("pending", "terminal", "indeterminate"):
            raise TypeError(f"unknown fence status {self.status!r}")

    @property
    def is_terminal(self) -> bool:
        return self.status == "terminal"


@dataclass(frozen=True, slots=True)
class DeviceErrorReport:
    """``FailureEnvelope{domain: device, code, message, retryable}`` built only through ``new``."""

    code: str
    message: str
    retryable: bool

    def __post_init__(self) -> None:
        if not isinstance(self.code, str) or _CODE.fullmatch(self.code) is None:
            raise InvalidExecutionPlan(  # rule: 03.13.1/error_report_code
                reason="device error code must be 1-64 bytes of [A-Za-z0-9._-]"
            )
        if not isinstance(self.message, str) or not rust_trim(self.message):
            raise InvalidExecutionPlan(  # rule: 03.13.1/error_report_message_blank
                reason="device error message must not be blank"
            )
        if len(self.message.encode("utf-8")) > MAX_ERROR_MESSAGE_BYTES:
            raise InvalidExecutionPlan(  # rule: 03.13.1/error_report_message_length
                reason=f"device error message exceeds {MAX_ERROR_MESSAGE_BYTES} bytes"
            )
        if any((ord(ch) < 0x20 and ch not in "\n\t") or ord(ch) == 0x7F for ch in self.message):
            raise InvalidExecutionPlan(  # rule: 03.13.1/error_report_message_controls
                reason="device error message contains an ASCII control byte"
            )

    @classmethod
    def new(cls, code: str, message: str, retryable: bool) -> DeviceErrorReport:
        return cls(code, message, retryable)

    def to_wire(self) -> dict[str, JsonValue]:
        return {"domain": "device", "code": self.code, "message": self.message, "retryable": self.retryable}
