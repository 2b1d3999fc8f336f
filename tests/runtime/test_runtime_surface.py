"""The reference runtime's surface (03 §13.3-§13.4; 08-runtime D12, D13).

``DeviceTimingMode`` has upstream's four modes in declaration order and the reference runtime
refuses every one but ``off``; the runtime exposes exactly the 15 required ``DeviceRuntime``
members and none of the ten defaulted ones (it keeps every default: the portable path).
"""

from __future__ import annotations

import inspect

import pytest

from reference.ids import ResourceId
from reference.model.element import ElementType
from reference.runtime.commands import DeviceCommandBatch
from reference.runtime.device import ReferenceDeviceRuntime
from reference.runtime.errors import DefinitelyNotSubmitted
from reference.runtime.ledger import RuntimeLedger
from reference.runtime.permits import PlanAllocationAuthority
from reference.runtime.types import DeviceCommandPhase, DeviceTimingMode, HostTransferLayout, StreamState

from .conftest import built_plan_fixture

#: 03 §13.3: the required members (14 of upstream's trait plus ``attention_execution_policy`` of seed 000).
REQUIRED = {
    "descriptor",
    "attention_execution_policy",
    "allocate",
    "buffer_descriptor",
    "create_stream",
    "stream_state",
    "encode_copy",
    "encode_upload",
    "encode_zero",
    "submit",
    "query_fence",
    "wait_fence",
    "synchronize",
    "readback",
    "describe_error",
}
#: 03 §13.4 plus the two the sheet could not name (upstream ``device.rs``): 15 + 10 = docs.rs 0.8.2's 25.
DEFAULTED = {
    "begin_static_weight_import",
    "configure_reusable_executables",
    "seal_reusable_executables",
    "reusable_executable_preparation",
    "reusable_execution_catalog",
    "encode_reusable_execution",
    "trim_reusable_executables",
    "coalesce_program_bindings",
    "submit_with_timing",
    "submission_attribution",
}
#: Members of the Python runtime that are not ``DeviceRuntime`` trait members.
PYTHON_ONLY = {"release", "live_buffers", "encode_kernel"}


def test_timing_modes_and_their_order() -> None:
    assert [m.value for m in DeviceTimingMode] == ["off", "completion", "replay", "kernel"]
    assert sorted(DeviceTimingMode, reverse=True)[0] is DeviceTimingMode.KERNEL
    assert DeviceTimingMode.OFF < DeviceTimingMode.COMPLETION < DeviceTimingMode.REPLAY < DeviceTimingMode.KERNEL
    assert DeviceCommandBatch(()).timing_mode is DeviceTimingMode.OFF
    table = {m: (m.completion_enabled(), m.physical_span_attribution_enabled(), m.kernel_attribution_enabled())
             for m in DeviceTimingMode}  # fmt: skip
    assert table == {
        DeviceTimingMode.OFF: (False, False, False),
        DeviceTimingMode.COMPLETION: (True, False, False),
        DeviceTimingMode.REPLAY: (True, True, False),
        DeviceTimingMode.KERNEL: (True, True, True),
    }


@pytest.mark.parametrize("mode", [m for m in DeviceTimingMode if m is not DeviceTimingMode.OFF])
def test_submit_refuses_every_timing_mode_but_off(mode: DeviceTimingMode) -> None:
    built = built_plan_fixture()
    runtime = ReferenceDeviceRuntime(built.catalog.device)
    authority = PlanAllocationAuthority(built.plan.memory, RuntimeLedger())
    scratch = built.plan.nodes[0].scratch_resource
    assert isinstance(scratch, ResourceId)
    buffer = runtime.allocate(authority.permit_for(scratch))
    stream = runtime.create_stream()
    upload = runtime.encode_upload(b"\x07", HostTransferLayout(ElementType.U8, 1), buffer, 0)
    with pytest.raises(DefinitelyNotSubmitted):
        runtime.submit(stream, DeviceCommandBatch.of(DeviceCommandPhase.COMPUTE, [upload], timing_mode=mode))
    assert not buffer.data.any() and runtime.stream_state(stream) is StreamState.READY
    runtime.submit(stream, DeviceCommandBatch.of(DeviceCommandPhase.COMPUTE, [upload]))
    assert buffer.data[0] == 7


def test_the_runtime_exposes_the_required_members_and_keeps_every_default() -> None:
    public = {name for name, _ in inspect.getmembers(ReferenceDeviceRuntime) if not name.startswith("_")}
    public.discard("runtime_id")
    assert len(REQUIRED) == 15 and len(DEFAULTED) == 10 and not REQUIRED & DEFAULTED
    assert public >= REQUIRED
    assert not DEFAULTED & public  # every default kept: no defaulted member is overridden
    assert public - REQUIRED == PYTHON_ONLY
