"""A scripted DeviceRuntime call sequence and each step's outcome (spec 03 §13.1, §13.3; harness/PROTOCOL.md §5.6).

A script is a JSON array of steps, each an object tagged ``op``. The whole script is
decoded before any step runs (``Serialization("decode device runtime script", ...)``
for a malformed one); then every step runs in order and answers either a value or the
contract error its call raised. A failed step does not stop the script.

Value steps (no runtime): ``copy_region``, ``copy_region_bounds``, ``host_transfer_layout``,
``host_layout_bytes``, ``device_error_report``, ``runtime_enums``, ``device_terminal``,
``fence_query``. Runtime steps (the runtime of the scenario's catalog device, built at the
first runtime step): ``create_stream``, ``stream_state``, ``synchronize``; a stream is named
by the index of the ``create_stream`` step that made it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final

from reference.canonical import JsonValue
from reference.catalog.device import DeviceDescriptor
from reference.catalog.element_type import element_type_from_wire
from reference.errors import Serialization, VNextError
from reference.runtime.device import ReferenceDeviceRuntime, ReferenceStream
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
from reference.wire import WireObject, read_list

__all__ = ["MAX_SCRIPT_STEPS", "SCRIPT_CONTEXT", "SCRIPT_OPS", "StepAnswer", "decode_script", "run_script"]

SCRIPT_CONTEXT: Final = "decode device runtime script"
MAX_SCRIPT_STEPS: Final = 256
_REGION: Final = ("source_offset_bytes", "destination_offset_bytes", "length_bytes")
_LAYOUT: Final = ("element_type", "element_count")


@dataclass(frozen=True, slots=True)
class StepAnswer:
    """One step's outcome: ``{"value": ...}`` or ``{"error": <contract error object>}``."""

    value: JsonValue = None
    error: VNextError | None = None

    def to_wire(self) -> dict[str, Any]:
        if self.error is not None:
            return {"error": self.error.to_dict()}
        return {"value": self.value}


@dataclass(frozen=True, slots=True)
class _Step:
    op: str
    run: Callable[[_Session], JsonValue]


class _Session:
    """The runtime (built on first use) and the streams the script created, by step index."""

    def __init__(self, device: DeviceDescriptor | None) -> None:
        self._device = device
        self._runtime: ReferenceDeviceRuntime | None = None
        self.streams: dict[int, ReferenceStream] = {}

    @property
    def runtime(self) -> ReferenceDeviceRuntime:
        if self._runtime is None:
            if self._device is None:
                raise Serialization(SCRIPT_CONTEXT, "a runtime step needs the scenario's catalog device")
            self._runtime = ReferenceDeviceRuntime(self._device)
        return self._runtime


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
    return DeviceTerminal(obj.optional("error", lambda raw, _context, path: _string(raw, path)))


def _string(raw: Any, path: str) -> str:
    if not isinstance(raw, str):
        raise Serialization(SCRIPT_CONTEXT, f"{path}: expected a string or null")
    return raw


def _device_terminal(obj: WireObject) -> Callable[[_Session], JsonValue]:
    terminal = _terminal(obj)
    return lambda _: terminal.to_wire()


def _fence_query(obj: WireObject) -> Callable[[_Session], JsonValue]:
    status = obj.enum("status", ("pending", "terminal", "indeterminate"))
    error = _terminal(obj).error
    if status == "pending" and error is not None:
        raise Serialization(SCRIPT_CONTEXT, f"{obj.at('error')}: a pending fence query carries no error")
    if status == "indeterminate" and error is None:
        raise Serialization(SCRIPT_CONTEXT, f"{obj.at('error')}: an indeterminate fence query needs its error")

    def run(_: _Session) -> JsonValue:
        if status == "pending":
            query = FenceQuery("pending")
            wire: dict[str, JsonValue] = {"status": "pending"}
        elif status == "terminal":
            receipt = DeviceTerminalReceipt.unprofiled(DeviceTerminal(error))
            query = FenceQuery("terminal", receipt=receipt)
            wire = {"status": "terminal", "detail": receipt.to_wire()}
        else:
            query = FenceQuery("indeterminate", error=error)
            wire = {"status": "indeterminate", "detail": error}
        return {"wire": wire, "is_terminal": query.is_terminal}

    return run


# --------------------------------------------------------------------------- runtime steps


def _create_stream(obj: WireObject, index: int) -> Callable[[_Session], JsonValue]:
    def run(session: _Session) -> JsonValue:
        runtime = session.runtime
        stream = runtime.create_stream()
        session.streams[index] = stream
        return {"state": runtime.stream_state(stream).value}

    return run


def _stream(obj: WireObject, created: set[int]) -> int:
    index = obj.u32("stream")
    if index not in created:
        raise Serialization(SCRIPT_CONTEXT, f"{obj.at('stream')}: step {index} is not an earlier create_stream step")
    return index


def _stream_state(obj: WireObject, created: set[int]) -> Callable[[_Session], JsonValue]:
    index = _stream(obj, created)

    def run(session: _Session) -> JsonValue:
        runtime = session.runtime
        stream = session.streams.get(index)
        if stream is None:
            raise Serialization(SCRIPT_CONTEXT, f"stream of step {index} was not created")
        return {"state": runtime.stream_state(stream).value}

    return run


def _synchronize(obj: WireObject, created: set[int]) -> Callable[[_Session], JsonValue]:
    index = _stream(obj, created)
    state = _stream_state(obj, created)

    def run(session: _Session) -> JsonValue:
        runtime = session.runtime
        stream = session.streams.get(index)
        if stream is not None:
            runtime.synchronize(stream)
        return state(session)

    return run


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
_STREAM_STEPS: Final[dict[str, Callable[[WireObject, set[int]], Callable[[_Session], JsonValue]]]] = {
    "stream_state": _stream_state,
    "synchronize": _synchronize,
}

#: Every step ``op``, in documentation order.
SCRIPT_OPS: Final = (*_VALUE_STEPS, "create_stream", *_STREAM_STEPS)


def decode_script(raw: Any) -> tuple[_Step, ...]:
    """The typed steps of a script document; ``Serialization`` (``decode device runtime script``) otherwise."""
    items = read_list(raw, context=SCRIPT_CONTEXT, path="$", max_items=MAX_SCRIPT_STEPS)
    steps: list[_Step] = []
    created: set[int] = set()
    for index, item in enumerate(items):
        path = f"$[{index}]"
        if not isinstance(item, dict) or not isinstance(item.get("op"), str) or item["op"] not in SCRIPT_OPS:
            op = item.get("op") if isinstance(item, dict) else None
            raise Serialization(
                SCRIPT_CONTEXT, f"{path}.op: unknown step {str(op)[:60]!r}, expected one of {list(SCRIPT_OPS)}"
            )
        op = item["op"]
        if op in _VALUE_STEPS:
            fields, build = _VALUE_STEPS[op]
            obj = WireObject(item, ("op", *fields), type_name=op, context=SCRIPT_CONTEXT, path=path)
            steps.append(_Step(op, build(obj)))
        elif op == "create_stream":
            obj = WireObject(item, ("op",), type_name=op, context=SCRIPT_CONTEXT, path=path)
            steps.append(_Step(op, _create_stream(obj, index)))
            created.add(index)
        else:
            obj = WireObject(item, ("op", "stream"), type_name=op, context=SCRIPT_CONTEXT, path=path)
            steps.append(_Step(op, _STREAM_STEPS[op](obj, created)))
    return tuple(steps)


def run_script(steps: Sequence[_Step], device: DeviceDescriptor | None) -> tuple[StepAnswer, ...]:
    """Run every decoded step in order against one session; each step's value or contract error."""
    session = _Session(device)
    answers: list[StepAnswer] = []
    for step in steps:
        try:
            answers.append(StepAnswer(value=step.run(session)))
        except VNextError as exc:
            answers.append(StepAnswer(error=exc))
    return tuple(answers)
