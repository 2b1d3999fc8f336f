"""Running an execution plan on a device runtime: static initialization, then replays of one request.

``PlanExecutor`` plays core's part: it checks the runtime against the plan
(preflight), obtains every buffer through the plan's ``PlanAllocationAuthority``
and checks each descriptor against its reservation, and keeps the ledger.

* **Static initialization** (phase ``initialization``): allocate every static row
  (ascending id), zero it, then upload every placed weight component through the
  trusted weight plan's materializer (identity by default), grouped by ordered
  source list in execution-schema order.
* **Out-of-plan probes**: three requests the plan does not reserve (an unknown
  resource, the first reservation one alignment larger, the first reservation
  with another alignment) must each be refused (``OUT_OF_PLAN_PROBES``).
* **One replay** = one new sequence and one request at the minimum shape (one
  sequence, one token, one page): allocate sequence rows and zero the states
  declaring ``zero``; allocate request rows and upload the program inputs
  (``dynamic_binding``); per node in plan order allocate the step rows it uses
  first and its invocation rows, submit one ``compute`` batch, wait, release its
  invocation rows and the step rows it uses last; read every program output back
  (``result_binding``); release request then sequence rows.
* **Teardown** releases the static rows; the ledger must then hold 0 bytes.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from reference.catalog.catalog import CapabilityCatalog
from reference.catalog.storage import ResolvedValueRole
from reference.errors import InvalidExecutionPlan
from reference.ids import ProgramValueId, ResourceId, WeightId
from reference.model.prepared import PreparedModelFamily
from reference.model.state import StateInitialization
from reference.plan.execution_plan import ExecutionPlan
from reference.plan.memory import AllocationLifetime, MemoryPlan
from reference.plan.memory.allocation import BufferRequest
from reference.plan.node import PlanNode
from reference.resolution.binding import ResolvedValueBinding
from reference.runtime.buffer import ReferenceBuffer
from reference.runtime.commands import DeviceCommand, DeviceCommandBatch
from reference.runtime.device import ReferenceDeviceRuntime, ReferenceStream
from reference.runtime.ledger import LedgerReport, RuntimeLedger
from reference.runtime.oracle import KernelLaunch, KernelOperand, operation_salt, oracle_operation_id
from reference.runtime.permits import PlanAllocationAuthority
from reference.runtime.types import CopyRegion, DeviceCommandPhase, HostTransferLayout
from reference.runtime.weights import deterministic_weight_source
from reference.weights.payload import WeightComponentSource

__all__ = ["OUT_OF_PLAN_PROBES", "ExecutionOutcome", "PlanExecutor", "execute_plan", "replay_digest"]

OUT_OF_PLAN_PROBES: Final = 3
PROBE_RESOURCE_ID: Final = ResourceId("resource/runtime-probe/outside-plan")


@dataclass(frozen=True, slots=True)
class ExecutionOutcome:
    """Program outputs of the first replay (program order), one digest per replay, and the ledger."""

    outputs: tuple[tuple[ProgramValueId, bytes], ...]
    replay_digests: tuple[str, ...]
    ledger: LedgerReport


def replay_digest(outputs: Sequence[tuple[ProgramValueId, bytes]]) -> str:
    """SHA-256 over ``id \\0 u64_le(len) bytes`` of every output in program order."""
    h = hashlib.sha256()
    for value_id, data in outputs:
        h.update(value_id.value.encode("utf-8") + b"\x00" + len(data).to_bytes(8, "little") + data)
    return h.hexdigest()


def _range(buffers: Mapping[ResourceId, ReferenceBuffer], binding: ResolvedValueBinding) -> KernelOperand:
    ranges = []
    for component in binding.storage.components:
        buffer = buffers.get(component.resource_id)
        if buffer is None:
            raise InvalidExecutionPlan(  # rule: 03.13.2/executor_bound_resources_live
                reason=f"value `{binding.value_id}` is bound to `{component.resource_id}`, which is not live"
            )
        ranges.append((buffer, component.offset_bytes, component.length_bytes))
    return KernelOperand(binding.tensor.element_type, binding.access, tuple(ranges))


class PlanExecutor:
    """Executes one plan on one runtime; use ``initialize``, ``run`` (any number of times), ``teardown``."""

    def __init__(
        self,
        runtime: ReferenceDeviceRuntime,
        plan: ExecutionPlan,
        family: PreparedModelFamily,
        catalog: CapabilityCatalog,
        weight_source: WeightComponentSource | None = None,
    ) -> None:
        self.runtime = runtime
        self.plan = plan
        self.family = family
        self.catalog = catalog
        self.memory: MemoryPlan = plan.memory
        self.ledger = RuntimeLedger()
        self.authority = PlanAllocationAuthority(self.memory, self.ledger)
        self._source = weight_source if weight_source is not None else deterministic_weight_source(family)
        self._buffers: dict[ResourceId, ReferenceBuffer] = {}
        self._stream: ReferenceStream | None = None
        self.weight_payloads: dict[WeightId, bytes] = {}
        nodes = plan.nodes
        self._salts = [operation_salt(oracle_operation_id(catalog, n.operation_id)) for n in nodes]
        users: dict[ResourceId, list[int]] = {}
        for index, node in enumerate(nodes):
            for rid in node.resources:
                users.setdefault(rid, []).append(index)
        self._first_users = {rid: idx[0] for rid, idx in users.items()}
        self._last_users = {rid: idx[-1] for rid, idx in users.items()}

    # ------------------------------------------------------------------ preflight and buffers
    def preflight(self) -> None:
        """The runtime's descriptor is valid and is the device the plan was built for (§13.2 step 1)."""
        device = self.runtime.descriptor()
        device.validate()
        payload = self.plan.payload
        if (
            device.id != payload.device_id
            or device.runtime_implementation_fingerprint != payload.device_runtime_implementation_fingerprint
            or device.total_memory_bytes != self.memory.device_capacity_bytes
        ):
            raise InvalidExecutionPlan(  # rule: 03.13.2/preflight_runtime_over_plan_device
                reason=f"device runtime `{device.id}` is not the plan's admission device"
            )

    def _allocate(self, resource_id: ResourceId) -> ReferenceBuffer:
        permit = self.authority.permit_for(resource_id)
        expected = permit.reservation()
        buffer = self.runtime.allocate(permit)
        self.ledger.observe(self.runtime.live_buffers())
        if not self.runtime.buffer_descriptor(buffer).matches(expected):
            raise InvalidExecutionPlan(  # rule: 03.13.2/executor_requests_own_reservations
                reason=f"buffer for `{resource_id}` does not match its reservation"
            )
        self._buffers[resource_id] = buffer
        return buffer

    def _release(self, resource_id: ResourceId) -> None:
        buffer = self._buffers.pop(resource_id)
        d = buffer.descriptor
        self.authority.release(BufferRequest(d.resource_id, d.size_bytes, d.alignment_bytes, d.usage, d.element_type))
        self.runtime.release(buffer)
        self.ledger.observe(self.runtime.live_buffers())

    def _submit(self, phase: DeviceCommandPhase, commands: Sequence[DeviceCommand], node: int | None = None) -> None:
        if not commands:
            return
        assert self._stream is not None
        fence = self.runtime.submit(self._stream, DeviceCommandBatch.of(phase, commands, node))
        receipt = self.runtime.wait_fence(fence)
        if not receipt.terminal.succeeded:
            raise InvalidExecutionPlan(  # rule: 03.13.2/executor_batches_succeed_on_the_reference_runtime
                reason=f"device batch failed: {receipt.terminal.error}"
            )

    def _dynamic(self, lifetime: AllocationLifetime) -> list[ResourceId]:
        return [d.base_resource_id for d in self.memory.dynamic_descriptors if d.lifetime is lifetime]

    # ------------------------------------------------------------------ phases
    def initialize(self) -> None:
        """Preflight, static rows, weight upload, out-of-plan probes."""
        self.preflight()
        self._stream = self.runtime.create_stream()
        commands: list[DeviceCommand] = []
        for row in self.memory.static_allocations:
            buffer = self._allocate(row.resource_id)
            commands.append(self.runtime.encode_zero(buffer, 0, row.size_bytes))
        commands.extend(self._weight_uploads())
        self._submit(DeviceCommandPhase.INITIALIZATION, commands)
        self._probe_outside_plan()

    def _weight_placements(self) -> dict[WeightId, list[tuple[ResourceId, int, int]]]:
        placements: dict[WeightId, list[tuple[ResourceId, int, int]]] = {}
        for node in self.plan.nodes:
            for binding in node.values:
                if binding.weight is None:
                    continue
                for c in binding.storage.components:
                    if c.component_id is None:
                        continue
                    spot = (c.resource_id, c.offset_bytes, c.length_bytes)
                    if spot not in placements.setdefault(c.component_id, []):
                        placements[c.component_id].append(spot)
        return placements

    def _weight_uploads(self) -> list[DeviceCommand]:
        trusted = self.plan.trusted_execution_weights()
        placements = self._weight_placements()
        sources = trusted.plan().component_sources()
        groups: dict[tuple[WeightId, ...], list[object]] = {}
        for spec in trusted.plan().schema().components:
            if spec.id in placements:
                groups.setdefault(tuple(sources.get(spec.id, ())), []).append(spec)
        commands: list[DeviceCommand] = []
        for specs in groups.values():
            for payload in trusted.materialize_components(self.family, self._source, specs):  # type: ignore[arg-type]
                data = payload.data.tobytes()
                self.weight_payloads[payload.component_id] = data
                for resource_id, offset, length in placements[payload.component_id]:
                    if length != len(data):
                        raise InvalidExecutionPlan(  # rule: 03.13.2/weight_placement_length_from_schema
                            reason=f"weight component `{payload.component_id}` has {len(data)} B, placed in {length}",
                        )
                    buffer = self._buffers[resource_id]
                    size = buffer.descriptor.element_type.size_bytes
                    layout = HostTransferLayout(buffer.descriptor.element_type, length // size)
                    commands.append(self.runtime.encode_upload(data, layout, buffer, offset))
        return commands

    def _probe_outside_plan(self) -> None:
        rows = [r.buffer_request() for r in self.memory.static_allocations]
        first = (
            rows[0] if rows else self.authority.reservation(self.memory.dynamic_descriptors[0].base_resource_id).request
        )
        other_alignment = first.alignment_bytes * 2 if first.alignment_bytes < 2**63 else first.alignment_bytes // 2
        probes = (
            BufferRequest(PROBE_RESOURCE_ID, first.size_bytes, first.alignment_bytes, first.usage, first.element_type),
            BufferRequest(
                first.resource_id,
                first.size_bytes + first.alignment_bytes,
                first.alignment_bytes,
                first.usage,
                first.element_type,
            ),
            BufferRequest(first.resource_id, first.size_bytes, other_alignment, first.usage, first.element_type),
        )
        for request in probes:
            try:
                permit = self.authority.permit(request)
            except InvalidExecutionPlan:
                continue
            self._buffers[ResourceId(f"{PROBE_RESOURCE_ID}/granted/{permit.generation()}")] = self.runtime.allocate(
                permit
            )
            self.ledger.observe(self.runtime.live_buffers())

    def run(self, inputs: Mapping[ProgramValueId, bytes]) -> tuple[tuple[ProgramValueId, bytes], ...]:
        """One sequence, one request: program outputs in program order."""
        assert self._stream is not None, "initialize() first"
        program = self.family.program
        zero: list[DeviceCommand] = []
        sequence = self._dynamic(AllocationLifetime.SEQUENCE)
        descriptors = {d.base_resource_id: d for d in self.memory.dynamic_descriptors}
        for rid in sequence:
            buffer = self._allocate(rid)
            if descriptors[rid].initialization is StateInitialization.ZERO:
                zero.append(self.runtime.encode_zero(buffer, 0, buffer.descriptor.size_bytes))
        self._submit(DeviceCommandPhase.INITIALIZATION, zero)
        request = self._dynamic(AllocationLifetime.REQUEST)
        for rid in request:
            self._allocate(rid)
        self._submit(DeviceCommandPhase.DYNAMIC_BINDING, self._input_uploads(inputs))
        step = set(self._dynamic(AllocationLifetime.STEP))
        invocation = set(self._dynamic(AllocationLifetime.INVOCATION))
        for index, node in enumerate(self.plan.nodes):
            opened = [r for r in node.resources if (r in step and self._first_users[r] == index) or r in invocation]
            for rid in opened:
                self._allocate(rid)
            self._submit(DeviceCommandPhase.COMPUTE, [self.runtime.encode_kernel(self._launch(index, node))], index)
            for rid in node.resources:
                if rid in invocation or (rid in step and self._last_users[rid] == index):
                    self._release(rid)
        outputs = tuple((value_id, self._read_output(value_id)) for value_id in program.outputs)
        for rid in (*request, *sequence):
            self._release(rid)
        return outputs

    def teardown(self) -> None:
        for rid in list(self._buffers):
            self._release(rid)

    # ------------------------------------------------------------------ bindings
    def _find_binding(self, value_id: ProgramValueId, role: ResolvedValueRole | None) -> ResolvedValueBinding | None:
        for node in self.plan.nodes:
            for binding in node.values:
                if binding.value_id == value_id and (role is None or binding.role is role):
                    return binding
        return None

    def _binding(self, value_id: ProgramValueId, role: ResolvedValueRole | None) -> ResolvedValueBinding:
        found = self._find_binding(value_id, role)
        if found is not None:
            return found
        raise InvalidExecutionPlan(  # rule: 03.13.2/execute_runtime_failure
            reason=f"program value `{value_id}` is not bound by any plan node"
        )

    def _input_uploads(self, inputs: Mapping[ProgramValueId, bytes]) -> list[DeviceCommand]:
        commands: list[DeviceCommand] = []
        for value_id in self.family.program.inputs:
            data = inputs.get(value_id)
            binding = self._binding(value_id, ResolvedValueRole.INPUT)
            expected = sum(c.length_bytes for c in binding.storage.components)
            if data is None or len(data) != expected:
                raise InvalidExecutionPlan(  # rule: 03.13.2/execute_request_checked
                    reason=f"program input `{value_id}` needs {expected} bytes, got "
                    f"{None if data is None else len(data)}"
                )
            cursor = 0
            for c in binding.storage.components:
                buffer = self._buffers[c.resource_id]
                layout = HostTransferLayout(c.element_type, c.length_bytes // c.element_type.size_bytes)
                chunk = data[cursor : cursor + c.length_bytes]
                commands.append(self.runtime.encode_upload(chunk, layout, buffer, c.offset_bytes))
                cursor += c.length_bytes
        return commands

    def _read_output(self, value_id: ProgramValueId) -> bytes:
        assert self._stream is not None
        # A program output may also be a program input, state or weight value (02 §10.3 step 7): its storage is
        # then the one the nodes read it from.
        binding = self._find_binding(value_id, ResolvedValueRole.OUTPUT) or self._binding(value_id, None)
        parts = []
        for c in binding.storage.components:
            layout = HostTransferLayout(c.element_type, c.length_bytes // c.element_type.size_bytes)
            region = CopyRegion(c.offset_bytes, 0, c.length_bytes)
            parts.append(self.runtime.readback(self._stream, self._buffers[c.resource_id], region, layout))
        return b"".join(parts)

    def _launch(self, index: int, node: PlanNode) -> KernelLaunch:
        inputs = sorted((b for b in node.values if b.role is ResolvedValueRole.INPUT), key=lambda b: b.ordinal)
        outputs = sorted((b for b in node.values if b.role is ResolvedValueRole.OUTPUT), key=lambda b: b.ordinal)
        return KernelLaunch(
            node.id,
            self._salts[index],
            tuple(_range(self._buffers, b) for b in inputs),
            tuple(_range(self._buffers, b) for b in outputs),
        )


def execute_plan(
    runtime: ReferenceDeviceRuntime,
    plan: ExecutionPlan,
    family: PreparedModelFamily,
    catalog: CapabilityCatalog,
    inputs: Mapping[ProgramValueId, bytes],
    replays: int,
    weight_source: WeightComponentSource | None = None,
) -> ExecutionOutcome:
    """Initialize, run ``replays`` (>= 1) requests, tear down; outputs of the first replay."""
    if type(replays) is not int or replays < 1:
        raise InvalidExecutionPlan(reason="execute needs at least one replay")  # rule: 03.13.2/replays_prechecked
    executor = PlanExecutor(runtime, plan, family, catalog, weight_source)
    executor.initialize()
    runs = [executor.run(inputs) for _ in range(replays)]
    executor.teardown()
    return ExecutionOutcome(runs[0], tuple(replay_digest(r) for r in runs), executor.ledger.report())
