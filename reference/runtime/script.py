"""A scripted DeviceRuntime call sequence and each step's outcome (spec 03 §13.1, §13.3; harness/PROTOCOL.md §5.9).

A script is a JSON array of steps, each an object tagged ``op``. The whole script is
decoded before any step runs (``Serialization("decode device runtime script", ...)``
for a malformed one); then every step runs in order and answers either a value or the
contract error its call raised. A failed step does not stop the script.

Value steps (no runtime): ``copy_region``, ``copy_region_bounds``, ``host_transfer_layout``,
``host_layout_bytes``, ``device_error_report``, ``runtime_enums``, ``device_terminal``,
``fence_query``. Runtime steps run on one runtime of the scenario's catalog device, built at
the first runtime step, with permits from the scenario plan's memory plan: ``create_stream``,
``stream_state``, ``synchronize``, ``allocate``, ``encode_zero``, ``encode_upload``,
``encode_copy``, ``submit``, ``query_fence``, ``wait_fence``, ``readback``, ``describe_error``
(of the runtime error an earlier step was refused with). A stream, buffer,
command or fence is named by the index of the step that made it (checked when decoding); a
command joins at most one batch. A runtime step may name the ``runtime`` instance it calls, 0
(the default) or 1: handles made by one instance are foreign to the other. A runtime call's
own refusal (the runtime ``Error``, ``DefinitelyNotSubmitted``, ``FenceIndeterminate``) is a
``refused`` answer; so is a step naming the handle of an earlier step that failed
(``no_handle``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final

from reference.canonical import JsonValue
from reference.catalog.device import DeviceDescriptor
from reference.catalog.element_type import element_type_from_wire
from reference.errors import Serialization, VNextError
from reference.fast_base64 import write_base64
from reference.ids import ResourceId
from reference.plan.memory import MemoryPlan
from reference.runtime.commands import DeviceCommandBatch
from reference.runtime.device import ReferenceDeviceRuntime, ReferenceStream
from reference.runtime.errors import DefinitelyNotSubmitted, DeviceRuntimeError, FenceIndeterminate
from reference.runtime.ledger import RuntimeLedger
from reference.runtime.permits import PlanAllocationAuthority
from reference.runtime.types import (
    BufferDescriptor,
    CopyRegion,
    DeviceCommandPhase,
    DeviceErrorReport,
    DeviceTerminal,
    DeviceTerminalReceipt,
    DeviceTimingMode,
    FenceQuery,
    HostTransferLayout,
    StreamState,
)
from reference.wire import WireObject, read_base64, read_list, read_str

__all__ = ["MAX_SCRIPT_STEPS", "REFUSALS", "SCRIPT_CONTEXT", "SCRIPT_OPS", "StepAnswer", "decode_script", "run_script"]

SCRIPT_CONTEXT: Final = "decode device runtime script"
MAX_SCRIPT_STEPS: Final = 256
#: Runtime steps call instance ``runtime`` (0, the default, or 1) of the device's runtime: handles made by one
#: instance are foreign to the other.
RUNTIME_INSTANCES: Final = 2
_REGION: Final = ("source_offset_bytes", "destination_offset_bytes", "length_bytes")
_LAYOUT: Final = ("element_type", "element_count")


#: How a runtime call refused a step without a contract error (``refused.as``).
REFUSALS: Final = ("runtime_error", "definitely_not_submitted", "fence_indeterminate", "no_handle")


@dataclass(frozen=True, slots=True)
class StepAnswer:
    """One step's outcome: ``{"value": ...}``, ``{"error": <contract error object>}`` or
    ``{"refused": {"as": <one of REFUSALS>, "message": <the implementation's text>}}``."""

    value: JsonValue = None
    error: VNextError | None = None
    refused: str | None = None
    message: str = ""

    def to_wire(self) -> dict[str, Any]:
        if self.error is not None:
            return {"error": self.error.to_dict()}
        if self.refused is not None:
            return {"refused": {"as": self.refused, "message": self.message}}
        return {"value": self.value}


@dataclass(frozen=True, slots=True)
class _Step:
    op: str
    run: Callable[[_Session], JsonValue]
    runtime: int = 0


class _NoHandle(Exception):
    """A step names the handle of an earlier step that failed."""


class _Session:
    """The runtime and the plan's allocation authority (built on first use) and the handles the steps made
    (streams, buffers, commands, fences), by step index."""

    def __init__(self, device: DeviceDescriptor, memory: Callable[[], MemoryPlan]) -> None:
        self._device = device
        self._memory = memory
        self._runtimes: dict[int, ReferenceDeviceRuntime] = {}
        self._authority: PlanAllocationAuthority | None = None
        self.handles: dict[int, Any] = {}
        self.errors: dict[int, DeviceRuntimeError] = {}
        self.current = 0

    @property
    def runtime(self) -> ReferenceDeviceRuntime:
        """The runtime instance the running step calls (instance 0 or 1, each built at its first step)."""
        found = self._runtimes.get(self.current)
        if found is None:
            found = self._runtimes[self.current] = ReferenceDeviceRuntime(self._device)
        return found

    @property
    def authority(self) -> PlanAllocationAuthority:
        if self._authority is None:
            self._authority = PlanAllocationAuthority(self._memory(), RuntimeLedger())
        return self._authority

    def handle(self, index: int) -> Any:
        if index not in self.handles:
            raise _NoHandle(f"step {index} failed and made no handle")
        return self.handles[index]


# --------------------------------------------------------------------------- value steps


def _region(obj: WireObject) -> Callable[[], CopyRegion]:
    src, dst, length = (obj.u64(name) for name in _REGION)
    return lambda: CopyRegion(src, dst, length)


def _region_wire(region: CopyRegion) -> JsonValue:
    return {
        "source_offset_bytes": region.source_offset_bytes,
        "destination_offset_bytes": region.destination_offset_bytes,
        "length_bytes": region.length_bytes,
    }


def _layout(obj: WireObject) -> Callable[[], HostTransferLayout]:
    element_type = element_type_from_wire(obj.raw("element_type"), context=obj.context, path=obj.at("element_type"))
    count = obj.u64("element_count")
    return lambda: HostTransferLayout(element_type, count)


def _nested(obj: WireObject, name: str, fields: Sequence[str], type_name: str) -> WireObject:
    return WireObject(obj.raw(name), fields, type_name=type_name, context=obj.context, path=obj.at(name))


def _copy_region(obj: WireObject) -> Callable[[_Session], JsonValue]:
    region = _region(obj)
    return lambda _: _region_wire(region())


def _copy_region_bounds(obj: WireObject) -> Callable[[_Session], JsonValue]:
    region = _region(_nested(obj, "region", _REGION, "CopyRegion"))
    source = BufferDescriptor.from_wire(obj.raw("source"), context=obj.context, path=obj.at("source"))
    destination = BufferDescriptor.from_wire(obj.raw("destination"), context=obj.context, path=obj.at("destination"))

    def run(_: _Session) -> JsonValue:
        region().validate_bounds(source, destination)
        return {}

    return run


def _host_transfer_layout(obj: WireObject) -> Callable[[_Session], JsonValue]:
    layout = _layout(obj)

    def run(_: _Session) -> JsonValue:
        built = layout()
        return {
            "element_type": built.element_type.to_wire(),
            "element_count": built.element_count,
            "byte_len": built.byte_len(),
        }

    return run


def _host_layout_bytes(obj: WireObject) -> Callable[[_Session], JsonValue]:
    layout = _layout(_nested(obj, "layout", _LAYOUT, "HostTransferLayout"))
    length = obj.u64("length_bytes")

    def run(_: _Session) -> JsonValue:
        layout().validate_bytes(length)
        return {}

    return run


def _device_error_report(obj: WireObject) -> Callable[[_Session], JsonValue]:
    code, message, retryable = obj.string("code"), obj.string("message"), obj.boolean("retryable")
    return lambda _: DeviceErrorReport.new(code, message, retryable).to_wire()


def _runtime_enums(obj: WireObject) -> Callable[[_Session], JsonValue]:
    def run(_: _Session) -> JsonValue:
        return {
            "stream_states": [s.value for s in StreamState],
            "timing_modes": [m.value for m in DeviceTimingMode],
            "default_timing_mode": DeviceTimingMode.OFF.value,
            "command_phases": [p.value for p in DeviceCommandPhase],
        }

    return run


def _terminal(obj: WireObject) -> DeviceTerminal:
    return DeviceTerminal(obj.optional("error", lambda raw, context, path: read_str(raw, context=context, path=path)))


def _device_terminal(obj: WireObject) -> Callable[[_Session], JsonValue]:
    terminal = _terminal(obj)
    return lambda _: terminal.to_wire()


def _fence_query(obj: WireObject) -> Callable[[_Session], JsonValue]:
    status = obj.enum("status", ("pending", "terminal", "indeterminate"))
    error = _terminal(obj).error
    if status == "pending" and error is not None:
        raise Serialization(  # rule: 01.5/enum_variant_shape
            SCRIPT_CONTEXT, f"{obj.at('error')}: a pending fence query carries no error"
        )
    if status == "indeterminate" and error is None:
        raise Serialization(  # rule: 01.5/enum_variant_shape
            SCRIPT_CONTEXT, f"{obj.at('error')}: an indeterminate fence query needs its error"
        )

    def run(_: _Session) -> JsonValue:
        if status == "pending":
            query = FenceQuery("pending")
        elif status == "terminal":
            query = FenceQuery("terminal", receipt=DeviceTerminalReceipt.unprofiled(DeviceTerminal(error)))
        else:
            query = FenceQuery("indeterminate", error=error)
        return {"wire": _fence_wire(query), "is_terminal": query.is_terminal}

    return run


# --------------------------------------------------------------------------- runtime steps
#: Which handle kind each runtime step makes.
_MAKES: Final = {
    "create_stream": "stream",
    "allocate": "buffer",
    "encode_zero": "command",
    "encode_upload": "command",
    "encode_copy": "command",
    "submit": "fence",
}


class _Handles:
    """Decode-time bookkeeping: the kind of every handle-making step, and the commands already submitted."""

    def __init__(self) -> None:
        self.kinds: dict[int, str] = {}
        self.submitted: set[int] = set()
        self.runtime_steps: set[int] = set()

    def ref(self, obj: WireObject, name: str, kind: str) -> int:
        index = obj.u32(name)
        return self.check(index, obj.at(name), kind)

    def check(self, index: int, path: str, kind: str) -> int:
        if self.kinds.get(index) != kind:
            raise Serialization(  # rule: 01.5/struct_wrong_json_type
                SCRIPT_CONTEXT, f"{path}: step {index} is not an earlier step that makes a {kind}"
            )
        return index


def _state(session: _Session, stream: ReferenceStream) -> JsonValue:
    return {"state": session.runtime.stream_state(stream).value}


def _create_stream(obj: WireObject, index: int, handles: _Handles) -> Callable[[_Session], JsonValue]:
    def run(session: _Session) -> JsonValue:
        stream = session.runtime.create_stream()
        session.handles[index] = stream
        return _state(session, stream)

    return run


def _stream_state(obj: WireObject, index: int, handles: _Handles) -> Callable[[_Session], JsonValue]:
    stream = handles.ref(obj, "stream", "stream")
    return lambda session: _state(session, session.handle(stream))


def _synchronize(obj: WireObject, index: int, handles: _Handles) -> Callable[[_Session], JsonValue]:
    ref = handles.ref(obj, "stream", "stream")

    def run(session: _Session) -> JsonValue:
        stream = session.handle(ref)
        session.runtime.synchronize(stream)
        return _state(session, stream)

    return run


def _allocate(obj: WireObject, index: int, handles: _Handles) -> Callable[[_Session], JsonValue]:
    resource = obj.identity("resource_id", ResourceId)

    def run(session: _Session) -> JsonValue:
        runtime = session.runtime
        buffer = runtime.allocate(session.authority.permit_for(resource))
        session.handles[index] = buffer
        return runtime.buffer_descriptor(buffer).to_wire()

    return run


def _encode_zero(obj: WireObject, index: int, handles: _Handles) -> Callable[[_Session], JsonValue]:
    ref, offset, length = handles.ref(obj, "buffer", "buffer"), obj.u64("offset_bytes"), obj.u64("length_bytes")

    def run(session: _Session) -> JsonValue:
        session.handles[index] = session.runtime.encode_zero(session.handle(ref), offset, length)
        return {}

    return run


def _encode_upload(obj: WireObject, index: int, handles: _Handles) -> Callable[[_Session], JsonValue]:
    ref, offset = handles.ref(obj, "buffer", "buffer"), obj.u64("offset_bytes")
    layout = _layout(_nested(obj, "layout", _LAYOUT, "HostTransferLayout"))
    data = read_base64(obj.raw("data_base64"), context=obj.context, path=obj.at("data_base64"))

    def run(session: _Session) -> JsonValue:
        built = layout()
        destination = session.handle(ref)
        session.handles[index] = session.runtime.encode_upload(data, built, destination, offset)
        return {}

    return run


def _encode_copy(obj: WireObject, index: int, handles: _Handles) -> Callable[[_Session], JsonValue]:
    source, destination = handles.ref(obj, "source", "buffer"), handles.ref(obj, "destination", "buffer")
    region = _region(_nested(obj, "region", _REGION, "CopyRegion"))

    def run(session: _Session) -> JsonValue:
        built = region()
        src, dst = session.handle(source), session.handle(destination)
        session.handles[index] = session.runtime.encode_copy(src, dst, built)
        return {}

    return run


def _submit(obj: WireObject, index: int, handles: _Handles) -> Callable[[_Session], JsonValue]:
    ref = handles.ref(obj, "stream", "stream")
    commands = obj.uints("commands", 32)
    for position, command in enumerate(commands):
        path = f"{obj.at('commands')}[{position}]"
        handles.check(command, path, "command")
        if command in handles.submitted:
            raise Serialization(  # rule: 01.5/struct_wrong_json_type
                SCRIPT_CONTEXT, f"{path}: the command of step {command} is already in a batch"
            )
        handles.submitted.add(command)

    def run(session: _Session) -> JsonValue:
        stream = session.handle(ref)
        batch = DeviceCommandBatch.of(DeviceCommandPhase.INITIALIZATION, [session.handle(c) for c in commands])
        session.handles[index] = session.runtime.submit(stream, batch)
        return _state(session, stream)

    return run


def _query_fence(obj: WireObject, index: int, handles: _Handles) -> Callable[[_Session], JsonValue]:
    ref = handles.ref(obj, "fence", "fence")

    def run(session: _Session) -> JsonValue:
        query = session.runtime.query_fence(session.handle(ref))
        receipt = None if query.receipt is None else query.receipt.to_wire()
        return {"status": query.status, "is_terminal": query.is_terminal, "receipt": receipt}

    return run


def _wait_fence(obj: WireObject, index: int, handles: _Handles) -> Callable[[_Session], JsonValue]:
    ref = handles.ref(obj, "fence", "fence")
    return lambda session: session.runtime.wait_fence(session.handle(ref)).to_wire()


def _readback(obj: WireObject, index: int, handles: _Handles) -> Callable[[_Session], JsonValue]:
    stream, source = handles.ref(obj, "stream", "stream"), handles.ref(obj, "buffer", "buffer")
    region = _region(_nested(obj, "region", _REGION, "CopyRegion"))
    layout = _layout(_nested(obj, "layout", _LAYOUT, "HostTransferLayout"))

    def run(session: _Session) -> JsonValue:
        built_region, built_layout = region(), layout()
        data = session.runtime.readback(session.handle(stream), session.handle(source), built_region, built_layout)
        return {"data_base64": write_base64(data)}

    return run


def _describe_error(obj: WireObject, index: int, handles: _Handles) -> Callable[[_Session], JsonValue]:
    ref = obj.u32("error")
    if ref >= index or ref not in handles.runtime_steps:
        raise Serialization(  # rule: 01.5/struct_wrong_json_type
            SCRIPT_CONTEXT, f"{obj.at('error')}: step {ref} is not an earlier runtime step"
        )

    def run(session: _Session) -> JsonValue:
        error = session.errors.get(ref)
        if error is None:
            raise _NoHandle(f"step {ref} was not refused by the runtime")
        return session.runtime.describe_error(error).to_wire()

    return run


def _fence_wire(query: FenceQuery) -> JsonValue:
    if query.receipt is not None:
        return {"status": "terminal", "detail": query.receipt.to_wire()}
    if query.error is not None:
        return {"status": "indeterminate", "detail": query.error}
    return {"status": "pending"}


_VALUE_STEPS: Final[dict[str, tuple[tuple[str, ...], Callable[[WireObject], Callable[[_Session], JsonValue]]]]] = {
    "copy_region": (_REGION, _copy_region),
    "copy_region_bounds": (("region", "source", "destination"), _copy_region_bounds),
    "host_transfer_layout": (_LAYOUT, _host_transfer_layout),
    "host_layout_bytes": (("layout", "length_bytes"), _host_layout_bytes),
    "device_error_report": (("code", "message", "retryable"), _device_error_report),
    "runtime_enums": ((), _runtime_enums),
    "device_terminal": (("error",), _device_terminal),
    "fence_query": (("status", "error"), _fence_query),
}
_RUNTIME_STEPS: Final[
    dict[str, tuple[tuple[str, ...], Callable[[WireObject, int, _Handles], Callable[[_Session], JsonValue]]]]
] = {
    "create_stream": ((), _create_stream),
    "stream_state": (("stream",), _stream_state),
    "synchronize": (("stream",), _synchronize),
    "allocate": (("resource_id",), _allocate),
    "encode_zero": (("buffer", "offset_bytes", "length_bytes"), _encode_zero),
    "encode_upload": (("buffer", "layout", "data_base64", "offset_bytes"), _encode_upload),
    "encode_copy": (("source", "destination", "region"), _encode_copy),
    "submit": (("stream", "commands"), _submit),
    "query_fence": (("fence",), _query_fence),
    "wait_fence": (("fence",), _wait_fence),
    "readback": (("stream", "buffer", "region", "layout"), _readback),
    "describe_error": (("error",), _describe_error),
}

#: Every step ``op``, in documentation order.
SCRIPT_OPS: Final = (*_VALUE_STEPS, *_RUNTIME_STEPS)


def decode_script(raw: Any) -> tuple[_Step, ...]:
    """The typed steps of a script document; ``Serialization`` (``decode device runtime script``) otherwise."""
    items = read_list(raw, context=SCRIPT_CONTEXT, path="$", max_items=MAX_SCRIPT_STEPS)
    steps: list[_Step] = []
    handles = _Handles()
    for index, item in enumerate(items):
        path = f"$[{index}]"
        op = item.get("op") if isinstance(item, dict) else None
        if not isinstance(op, str) or op not in SCRIPT_OPS:
            raise Serialization(  # rule: 01.5/enum_variant_shape
                SCRIPT_CONTEXT, f"{path}.op: unknown step {str(op)[:60]!r}, expected one of {list(SCRIPT_OPS)}"
            )
        if op in _VALUE_STEPS:
            fields, build = _VALUE_STEPS[op]
            obj = WireObject(item, ("op", *fields), type_name=op, context=SCRIPT_CONTEXT, path=path)
            steps.append(_Step(op, build(obj)))
            continue
        fields, build_runtime = _RUNTIME_STEPS[op]
        obj = WireObject(item, ("op", *fields), ("runtime",), type_name=op, context=SCRIPT_CONTEXT, path=path)
        runtime = obj.u32("runtime") if obj.has("runtime") else 0
        if runtime >= RUNTIME_INSTANCES:
            raise Serialization(  # rule: 01.5/struct_wrong_json_type
                SCRIPT_CONTEXT, f"{obj.at('runtime')}: a script has runtime instances 0 and 1, got {runtime}"
            )
        steps.append(_Step(op, build_runtime(obj, index, handles), runtime))
        handles.runtime_steps.add(index)
        if op in _MAKES:
            handles.kinds[index] = _MAKES[op]
    return tuple(steps)


def run_script(
    steps: Sequence[_Step], device: DeviceDescriptor, memory: Callable[[], MemoryPlan]
) -> tuple[StepAnswer, ...]:
    """Run every decoded step in order against one session (the runtime of ``device``, permits from the memory
    plan ``memory()`` returns); each step's value, contract error or refusal."""
    session = _Session(device, memory)
    answers: list[StepAnswer] = []
    for index, step in enumerate(steps):
        session.current = step.runtime
        try:
            answers.append(StepAnswer(value=step.run(session)))
        except VNextError as exc:
            answers.append(StepAnswer(error=exc))
        except DeviceRuntimeError as exc:
            session.errors[index] = exc
            answers.append(StepAnswer(refused="runtime_error", message=exc.message))
        except DefinitelyNotSubmitted as exc:
            session.errors[index] = exc.error
            answers.append(StepAnswer(refused="definitely_not_submitted", message=exc.error.message))
        except FenceIndeterminate as exc:
            session.errors[index] = exc.error
            answers.append(StepAnswer(refused="fence_indeterminate", message=exc.error.message))
        except _NoHandle as exc:
            answers.append(StepAnswer(refused="no_handle", message=str(exc)))
    return tuple(answers)
