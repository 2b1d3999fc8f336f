"""The reference device runtime on numpy (spec 03 §13) and plan execution with exact oracles.

* ``types`` / ``commands`` / ``errors``: the DeviceRuntime data types (§13.1).
* ``permits``: ``PlanAllocationAuthority`` -> ``DeviceAllocationPermit`` (§13.2), tied to the memory plan.
* ``device``: ``ReferenceDeviceRuntime`` (§13.3) holding ``ReferenceBuffer`` numpy memory.
* ``ledger``: peak bytes held, per usage class, grants and refusals.
* ``oracle`` / ``program_oracle``: what ``OracleSpec::Exact`` computes (decision 08-runtime D4).
* ``executor``: static initialization, replays, teardown (``execute_plan``).
* ``execute`` / ``result``: the scenario-level ``execute`` operation and its result wire.
"""

from reference.runtime.device import REFERENCE_ERROR_CODE, ReferenceDeviceRuntime, ReferenceFence, ReferenceStream
from reference.runtime.errors import DefinitelyNotSubmitted, DeviceRuntimeError, FenceIndeterminate
from reference.runtime.executor import OUT_OF_PLAN_PROBES, ExecutionOutcome, PlanExecutor, execute_plan
from reference.runtime.ledger import LedgerReport, RuntimeLedger
from reference.runtime.permits import DeviceAllocationPermit, PlanAllocationAuthority
from reference.runtime.result import MAX_REPLAYS, ExecuteResult
from reference.runtime.types import (
    BufferDescriptor,
    BufferRequest,
    CopyRegion,
    DeviceErrorReport,
    HostTransferLayout,
    StreamState,
)

__all__ = [
    "MAX_REPLAYS",
    "OUT_OF_PLAN_PROBES",
    "REFERENCE_ERROR_CODE",
    "BufferDescriptor",
    "BufferRequest",
    "CopyRegion",
    "DefinitelyNotSubmitted",
    "DeviceAllocationPermit",
    "DeviceErrorReport",
    "DeviceRuntimeError",
    "ExecuteResult",
    "ExecutionOutcome",
    "FenceIndeterminate",
    "HostTransferLayout",
    "LedgerReport",
    "PlanAllocationAuthority",
    "PlanExecutor",
    "ReferenceDeviceRuntime",
    "ReferenceFence",
    "ReferenceStream",
    "RuntimeLedger",
    "StreamState",
    "execute_plan",
]
