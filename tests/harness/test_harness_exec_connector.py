"""The exec connector against fake protocol backends: every fault is reported and survived."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from harness.connection.client import Client
from harness.connection.exec import ExecConnection, ExecOptions
from harness.connection.faults import BackendFault, Fault
from reference.api import OperationNotSupported
from reference.errors import Serialization

from .helpers import ROOT, env, fake_argv

FAST = ExecOptions(call_timeout=5.0, handshake_timeout=60.0, max_restarts=2, env=env(), cwd=str(ROOT))


def backend(*mode: str, options: ExecOptions = FAST) -> Client:
    return Client(ExecConnection(fake_argv(*mode), options))


def fault_of(call: object) -> Fault:
    with pytest.raises(BackendFault) as info:
        call()  # type: ignore[operator]
    return info.value.fault


def test_ok_backend_answers_and_closes() -> None:
    b = backend("ok")
    try:
        description = b.open()
        assert description.implementation.name == "fake-exec"
        assert b.describe() == description
        with pytest.raises(Serialization):
            b.build_plan({})
        assert b.connection.restarts == 0 and b.connection.faults == []
    finally:
        b.close()


def test_crash_is_a_fault_with_exit_code_and_stderr_then_restart_recovers() -> None:
    b = backend("crash-on", "build_plan")
    try:
        fault = fault_of(lambda: b.build_plan({}))
        assert fault.kind == "crash" and fault.exit_code == 3 and fault.operation == "build_plan"
        assert "crashing on build_plan" in fault.stderr_tail
        assert b.describe().implementation.name == "fake-exec"
        assert b.connection.restarts == 1
    finally:
        b.close()


def test_hang_is_a_timeout_and_the_backend_is_killed_and_restarted() -> None:
    b = backend("hang-on", "build_plan")
    try:
        fault = fault_of(lambda: b.build_plan({}))
        assert fault.kind == "timeout"
        assert b.describe().implementation.name == "fake-exec"
    finally:
        b.close()


@pytest.mark.parametrize(
    ("mode", "kind"),
    [("garbage-on", "malformed_reply"), ("wrong-id-on", "wrong_reply_id"), ("bad-error-on", "malformed_reply")],
)
def test_bad_replies_are_faults_and_the_run_goes_on(mode: str, kind: str) -> None:
    b = backend(mode, "build_plan")
    try:
        assert fault_of(lambda: b.build_plan({})).kind == kind
        with pytest.raises(Serialization):
            b.revalidate({}, b"x")
    finally:
        b.close()


def test_100_mb_reply_is_rejected_at_the_default_cap() -> None:
    b = backend("huge-on", "build_plan", options=ExecOptions(call_timeout=30.0, env=env(), cwd=str(ROOT)))
    try:
        fault = fault_of(lambda: b.build_plan({}))
        assert fault.kind == "oversized_reply"
        assert b.describe().implementation.name == "fake-exec"
    finally:
        b.close()


def test_small_reply_cap_is_configurable() -> None:
    options = ExecOptions(call_timeout=10.0, max_reply_bytes=4096, env=env(), cwd=str(ROOT))
    b = backend("huge-on", "build_plan", options=options)
    try:
        assert fault_of(lambda: b.build_plan({})).kind == "oversized_reply"
    finally:
        b.close()


def test_exit_at_handshake_makes_the_backend_unavailable_without_respawning() -> None:
    b = backend("exit-at-handshake")
    try:
        first = fault_of(b.open)
        assert first.kind == "handshake_failed"
        assert "refusing the handshake" in first.stderr_tail
        second = fault_of(b.describe)
        assert second.kind == "unavailable"
        assert b.connection.restarts == 0
    finally:
        b.close()


def test_hang_at_handshake_times_out() -> None:
    options = ExecOptions(handshake_timeout=0.5, env=env(), cwd=str(ROOT))
    b = backend("hang-at-handshake", options=options)
    try:
        assert fault_of(b.open).kind == "handshake_failed"
    finally:
        b.close()


def test_wrong_protocol_version_is_a_protocol_mismatch() -> None:
    b = backend("wrong-protocol")
    try:
        fault = fault_of(b.open)
        assert fault.kind == "protocol_mismatch"
        assert "2" in fault.detail
    finally:
        b.close()


def test_restarts_are_bounded() -> None:
    b = backend("crash-on", "build_plan")
    try:
        kinds = [fault_of(lambda: b.build_plan({})).kind for _ in range(4)]
        assert kinds == ["crash", "crash", "crash", "restart_limit"]
        assert b.connection.restarts == FAST.max_restarts
    finally:
        b.close()


def test_crash_once_recovers_on_restart(tmp_path: Path) -> None:
    b = backend("crash-once", "build_plan", str(tmp_path / "crashed"))
    try:
        assert fault_of(lambda: b.build_plan({})).kind == "crash"
        with pytest.raises(Serialization):
            b.build_plan({})
    finally:
        b.close()


def test_not_implemented_failure_is_operation_not_supported() -> None:
    b = backend("not-implemented-on", "build_plan")
    try:
        with pytest.raises(OperationNotSupported):
            b.build_plan({})
    finally:
        b.close()


def test_stderr_is_captured_per_mark() -> None:
    b = backend("stderr-noise")
    try:
        b.open()
        log = b.connection.stderr
        deadline = time.monotonic() + 15.0  # the handshake's own line may still be in flight
        while "handshake" not in log.tail() and time.monotonic() < deadline:
            time.sleep(0.01)
        mark = log.mark()
        b.describe()
        deadline = time.monotonic() + 15.0  # generous: stderr is drained by a thread on a loaded machine
        while "describe" not in b.connection.stderr.since(mark) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert "serving describe" in b.connection.stderr.since(mark)
        assert "handshake" not in b.connection.stderr.since(mark)
    finally:
        b.close()


def test_replies_written_in_pieces_are_reassembled() -> None:
    b = backend("slow-reply")
    try:
        assert b.describe().implementation.name == "fake-exec"
    finally:
        b.close()


def test_request_over_the_cap_is_refused_without_killing_the_backend() -> None:
    options = ExecOptions(max_request_bytes=2048, env=env(), cwd=str(ROOT))
    b = backend("ok", options=options)
    try:
        b.open()
        fault = fault_of(lambda: b.build_plan({"pad": "x" * 4096}))
        assert fault.kind == "request_too_large"
        assert b.describe().implementation.name == "fake-exec"
        assert b.connection.restarts == 0
    finally:
        b.close()


def test_identity_change_after_restart_is_a_fault(tmp_path: Path) -> None:
    counter = tmp_path / "starts"
    b = Client(ExecConnection(fake_argv("identity-per-start", str(counter)), FAST))
    try:
        b.open()
        b.connection._discard()  # simulate a crash between calls
        assert fault_of(b.describe).kind == "identity_changed"
    finally:
        b.close()


def test_missing_command_is_spawn_failed() -> None:
    b = Client(ExecConnection(["/nonexistent/backend-binary"], FAST))
    assert fault_of(b.open).kind == "spawn_failed"
    assert fault_of(b.describe).kind == "unavailable"


def test_options_are_validated() -> None:
    with pytest.raises(ValueError):
        ExecOptions(call_timeout=0)
    with pytest.raises(ValueError):
        ExecOptions(max_restarts=-1)
    with pytest.raises(ValueError):
        ExecOptions(max_reply_bytes=10)
