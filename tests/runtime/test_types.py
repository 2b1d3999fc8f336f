"""DeviceRuntime data types (03 §13.1): constructor rules and wire forms."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reference.errors import InvalidExecutionPlan
from reference.ids import ResourceId
from reference.ints import U64_MAX
from reference.model.element import ElementType
from reference.resolution.usage import BufferUsage
from reference.runtime.types import (
    BufferDescriptor,
    BufferRequest,
    CopyRegion,
    DeviceErrorReport,
    DeviceTerminal,
    DeviceTerminalReceipt,
    HostTransferLayout,
    checked_range,
)

RID = ResourceId("resource.test")


@pytest.mark.parametrize(("size", "alignment"), [(0, 16), (16, 0), (16, 3), (16, 24)])
def test_buffer_request_rejects_zero_size_and_bad_alignment(size: int, alignment: int) -> None:
    with pytest.raises(InvalidExecutionPlan):
        BufferRequest(RID, size, alignment, BufferUsage.SCRATCH, ElementType.U8)


@given(size=st.integers(1, U64_MAX), exp=st.integers(0, 63), usage=st.sampled_from(list(BufferUsage)))
def test_buffer_descriptor_of_request_roundtrips(size: int, exp: int, usage: BufferUsage) -> None:
    request = BufferRequest(RID, size, 1 << exp, usage, ElementType.F32)
    descriptor = BufferDescriptor.of(request)
    assert descriptor.matches(request)
    assert BufferDescriptor.from_wire({**descriptor.to_wire(), "unknown": 1}) == descriptor
    assert list(descriptor.to_wire()) == ["resource_id", "size_bytes", "alignment_bytes", "usage", "element_type"]
    assert not BufferDescriptor(RID, size, 1 << exp, usage, ElementType.U8).matches(request)


@pytest.mark.parametrize(
    ("src", "dst", "length"), [(0, 0, 0), (U64_MAX, 0, 1), (0, U64_MAX - 1, 2), (2**64 - 4, 0, 4), (-1, 0, 1)]
)
def test_copy_region_rejects_empty_and_overflowing_windows(src: int, dst: int, length: int) -> None:
    with pytest.raises(InvalidExecutionPlan):
        CopyRegion(src, dst, length)


def test_copy_region_bounds_are_checked_against_both_buffers() -> None:
    small = BufferDescriptor(RID, 4, 4, BufferUsage.SCRATCH, ElementType.U8)
    big = BufferDescriptor(RID, 8, 4, BufferUsage.SCRATCH, ElementType.U8)
    CopyRegion(0, 4, 4).validate_bounds(small, big)
    with pytest.raises(InvalidExecutionPlan):
        CopyRegion(1, 0, 4).validate_bounds(small, big)
    with pytest.raises(InvalidExecutionPlan):
        CopyRegion(0, 5, 4).validate_bounds(small, big)


def test_host_transfer_layout_rules() -> None:
    layout = HostTransferLayout(ElementType.F32, 3)
    assert layout.byte_len() == 12
    layout.validate_bytes(12)
    with pytest.raises(InvalidExecutionPlan):
        layout.validate_bytes(11)
    with pytest.raises(InvalidExecutionPlan):
        HostTransferLayout(ElementType.U8, 0)
    with pytest.raises(InvalidExecutionPlan):
        HostTransferLayout(ElementType.F32, 2**62)
    HostTransferLayout(ElementType.U8, U64_MAX)


def test_checked_range() -> None:
    checked_range(4, 4, 8, "x")
    for offset, length in [(0, 0), (5, 4), (U64_MAX, 1)]:
        with pytest.raises(InvalidExecutionPlan):
            checked_range(offset, length, 8, "x")


@pytest.mark.parametrize(
    ("code", "message"),
    [
        ("", "m"),
        ("c" * 65, "m"),
        ("bad code", "m"),
        ("ok", ""),
        ("ok", " \u3000\n"),
        ("ok", "x" * 4097),
        ("ok", "a\rb"),
        ("ok", "a\x00b"),
        ("ok", "a\x7fb"),
    ],
)
def test_device_error_report_rejections(code: str, message: str) -> None:
    with pytest.raises(InvalidExecutionPlan):
        DeviceErrorReport.new(code, message, False)


def test_device_error_report_accepts_the_limits() -> None:
    report = DeviceErrorReport.new("c" * 64, "x" * 4096, True)
    assert report.to_wire()["domain"] == "device"
    DeviceErrorReport.new("a.b-c_D9", "line\n\ttab", False)


def test_terminal_receipt_wire() -> None:
    receipt = DeviceTerminalReceipt.unprofiled(DeviceTerminal())
    assert receipt.to_wire() == {"terminal": {"status": "succeeded"}, "execution_timing": {"status": "not_requested"}}
    assert DeviceTerminal("boom").to_wire() == {"status": "failed_but_quiescent", "error": "boom"}
