"""ReferenceDeviceRuntime (03 §13.3, properties 40-45) through real permits of a seed plan."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reference.catalog.device import DeviceClass
from reference.errors import InvalidExecutionPlan
from reference.ids import ResourceId
from reference.model.element import ElementType
from reference.runtime.buffer import ReferenceBuffer
from reference.runtime.commands import DeviceCommandBatch
from reference.runtime.device import REFERENCE_ERROR_CODE, ReferenceDeviceRuntime
from reference.runtime.errors import DefinitelyNotSubmitted, DeviceRuntimeError, FenceIndeterminate
from reference.runtime.ledger import RuntimeLedger
from reference.runtime.permits import PlanAllocationAuthority
from reference.runtime.types import CopyRegion, DeviceCommandPhase, DeviceTimingMode, HostTransferLayout, StreamState

from .conftest import built_plan_fixture

INIT = DeviceCommandPhase.INITIALIZATION
#: The plan fixture's derived workspace ids (they hash the node's estimate, so they are read from the plan).
SCRATCH = built_plan_fixture().plan.nodes[0].scratch_resource
PERSISTENT = built_plan_fixture().plan.nodes[0].persistent_resource
assert SCRATCH is not None and PERSISTENT is not None


def _runtime() -> tuple[ReferenceDeviceRuntime, PlanAllocationAuthority]:
    built = built_plan_fixture()
    return ReferenceDeviceRuntime(built.catalog.device), PlanAllocationAuthority(built.plan.memory, RuntimeLedger())


def _buffer(runtime: ReferenceDeviceRuntime, authority: PlanAllocationAuthority, rid: str) -> ReferenceBuffer:
    return runtime.allocate(authority.permit_for(ResourceId(rid)))


def test_allocated_buffers_equal_their_request_and_are_zero_filled_and_aligned() -> None:
    runtime, authority = _runtime()
    for row in built_plan_fixture().plan.memory.static_allocations:
        permit = authority.permit_for(row.resource_id)
        buffer = runtime.allocate(permit)
        assert runtime.buffer_descriptor(buffer).matches(row.buffer_request())
        assert buffer.held_bytes == row.size_bytes and not buffer.data.any()
        assert buffer.data.ctypes.data % row.alignment_bytes == 0
    scratch = _buffer(runtime, authority, SCRATCH.value)
    assert scratch.descriptor.size_bytes == 64 and scratch.descriptor.element_type is ElementType.U8


def test_permit_is_single_use() -> None:
    runtime, authority = _runtime()
    permit = authority.permit_for(SCRATCH)
    runtime.allocate(permit)
    with pytest.raises(DeviceRuntimeError):
        runtime.allocate(permit)


def test_an_accelerator_or_invalid_descriptor_is_refused() -> None:
    import dataclasses

    device = built_plan_fixture().catalog.device
    with pytest.raises(InvalidExecutionPlan):
        ReferenceDeviceRuntime(dataclasses.replace(device, device_class=DeviceClass.ACCELERATOR))
    with pytest.raises(InvalidExecutionPlan):
        ReferenceDeviceRuntime(dataclasses.replace(device, total_memory_bytes=0))
    assert ReferenceDeviceRuntime(device).attention_execution_policy() == "portable"


def test_commands_in_one_batch_run_in_order_with_one_fence() -> None:
    runtime, authority = _runtime()
    src = _buffer(runtime, authority, SCRATCH.value)
    dst = _buffer(runtime, authority, PERSISTENT.value)
    stream = runtime.create_stream()
    assert runtime.stream_state(stream) is StreamState.READY
    batch = DeviceCommandBatch.of(
        INIT,
        [
            runtime.encode_upload(b"\x01\x02\x03\x04", HostTransferLayout(ElementType.U8, 4), src, 8),
            runtime.encode_copy(src, dst, CopyRegion(8, 0, 4)),
            runtime.encode_zero(src, 9, 1),
        ],
    )
    fence = runtime.submit(stream, batch)
    assert runtime.stream_state(stream) is StreamState.SUBMITTED
    assert runtime.wait_fence(fence).terminal.succeeded
    query = runtime.query_fence(fence)
    assert query.is_terminal and query.receipt is not None and query.receipt.terminal.succeeded
    assert bytes(dst.data[:4]) == b"\x01\x02\x03\x04"
    assert bytes(src.data[8:12]) == b"\x01\x00\x03\x04"
    runtime.synchronize(stream)
    assert runtime.stream_state(stream) is StreamState.READY


def test_upload_snapshots_bytes_at_encode_time() -> None:
    runtime, authority = _runtime()
    buf = _buffer(runtime, authority, SCRATCH.value)
    data = bytearray(b"\x07" * 4)
    command = runtime.encode_upload(bytes(data), HostTransferLayout(ElementType.U8, 4), buf, 0)
    data[0] = 9
    runtime.submit(runtime.create_stream(), DeviceCommandBatch.of(INIT, [command]))
    assert bytes(buf.data[:4]) == b"\x07" * 4


def test_submit_refusals_execute_nothing() -> None:
    runtime, authority = _runtime()
    other, other_authority = _runtime()
    mine = _buffer(runtime, authority, SCRATCH.value)
    foreign = _buffer(other, other_authority, SCRATCH.value)
    stream = runtime.create_stream()
    upload = runtime.encode_upload(b"\x05", HostTransferLayout(ElementType.U8, 1), mine, 0)
    foreign_upload = other.encode_upload(b"\x05", HostTransferLayout(ElementType.U8, 1), foreign, 0)
    cases = [
        (stream, DeviceCommandBatch(())),
        (other.create_stream(), DeviceCommandBatch.of(INIT, [upload])),
        (stream, DeviceCommandBatch.of(INIT, [upload, foreign_upload])),
        (stream, DeviceCommandBatch.of(INIT, [upload], timing_mode=DeviceTimingMode.COMPLETION)),
    ]
    for target, batch in cases:
        with pytest.raises(DefinitelyNotSubmitted):
            runtime.submit(target, batch)
    assert not mine.data.any() and runtime.stream_state(stream) is StreamState.READY
    runtime.release(mine)
    with pytest.raises(DefinitelyNotSubmitted):
        runtime.submit(stream, DeviceCommandBatch.of(INIT, [upload]))


def test_foreign_handles_are_never_succeeded() -> None:
    runtime, _ = _runtime()
    other, other_authority = _runtime()
    buf = _buffer(other, other_authority, SCRATCH.value)
    fence = other.submit(other.create_stream(), DeviceCommandBatch.of(INIT, [other.encode_zero(buf, 0, 1)]))
    assert runtime.query_fence(fence).status == "indeterminate"
    with pytest.raises(FenceIndeterminate):
        runtime.wait_fence(fence)
    foreign_stream = other.create_stream()
    assert runtime.stream_state(foreign_stream) is StreamState.FAILED
    with pytest.raises(DeviceRuntimeError):
        runtime.synchronize(foreign_stream)
    with pytest.raises(DeviceRuntimeError):
        runtime.encode_zero(buf, 0, 1)


def test_encode_rules() -> None:
    runtime, authority = _runtime()
    u8 = _buffer(runtime, authority, SCRATCH.value)
    f32 = _buffer(runtime, authority, "resource.input.0")
    bad = [
        lambda: runtime.encode_copy(u8, f32, CopyRegion(0, 0, 4)),
        lambda: runtime.encode_copy(u8, u8, CopyRegion(62, 0, 4)),
        lambda: runtime.encode_upload(b"\x00" * 4, HostTransferLayout(ElementType.U8, 4), f32, 0),
        lambda: runtime.encode_upload(b"\x00" * 3, HostTransferLayout(ElementType.U8, 4), u8, 0),
        lambda: runtime.encode_upload(b"\x00" * 4, HostTransferLayout(ElementType.U8, 4), u8, 61),
        lambda: runtime.encode_zero(u8, 0, 0),
        lambda: runtime.encode_zero(u8, 2**64 - 1, 2),
    ]
    for call in bad:
        with pytest.raises(DeviceRuntimeError):
            call()


def test_readback_layout_rules_match_the_worked_example() -> None:
    runtime, authority = _runtime()
    buf = _buffer(runtime, authority, SCRATCH.value)
    stream = runtime.create_stream()
    runtime.submit(
        stream,
        DeviceCommandBatch.of(
            INIT, [runtime.encode_upload(bytes([10, 11, 12, 13]), HostTransferLayout(ElementType.U8, 4), buf, 0)]
        ),
    )
    out = runtime.readback(stream, buf, CopyRegion(1, 2, 2), HostTransferLayout(ElementType.U8, 6))
    assert out == bytes([0, 0, 11, 12, 0, 0])
    assert runtime.stream_state(stream) is StreamState.READY
    for region, layout in [
        (CopyRegion(0, 0, 4), HostTransferLayout(ElementType.F32, 1)),
        (CopyRegion(62, 0, 4), HostTransferLayout(ElementType.U8, 8)),
        (CopyRegion(0, 5, 4), HostTransferLayout(ElementType.U8, 8)),
    ]:
        with pytest.raises(DeviceRuntimeError):
            runtime.readback(stream, buf, region, layout)


@given(message=st.text(max_size=6000))
def test_describe_error_always_yields_a_valid_report(message: str) -> None:
    runtime = ReferenceDeviceRuntime(built_plan_fixture().catalog.device)
    report = runtime.describe_error(DeviceRuntimeError(message))
    assert report.code == REFERENCE_ERROR_CODE and report.retryable is False
    assert len(report.message.encode("utf-8")) <= 4096
