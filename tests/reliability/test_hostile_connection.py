"""Every hostile-backend mode through the exec connection: the typed outcome, the fault on the right request.

Each mode of ``hostile_backend.py`` is connected (handshake), sent the trigger (``build_plan``),
then a ``describe`` and a ``revalidate``. The table says what each step must give: a result or a
contract error (the backend behaved there), or a fault of one kind attributed to that step's
request; after a fault the connection recovers with a restarted backend unless the fault ends it.
Whatever the backend sent, the fault records and its stderr make a case record valid against
``schemas/protocol/report.json``, and once the connection is closed no process the backend became
(nor any grandchild it forked) is still running.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import pytest

import schemas
from harness.connection.client import Client
from harness.connection.exec import ExecConnection, ExecOptions
from harness.connection.faults import BackendFault, Fault, FaultKind
from harness.protocol.operations import OPERATIONS
from harness.reports.jsonl import CaseRecord
from reference.errors import Serialization, VNextError

from . import documents
from .hostile_backend import MODES
from .processes import HOSTILE, PYTHON, ROOT, child_env, recorded, survivors

#: Short budgets keep the hanging modes short; generous enough for a loaded machine to answer in time
#: (nothing asserts how long anything took).
OPTIONS: Final = ExecOptions(
    call_timeout=3.0, handshake_timeout=20.0, max_restarts=2, max_reply_bytes=4 * 1024 * 1024, cwd=str(ROOT)
)
#: The hang-at-handshake mode is the only one that needs the handshake budget to run out.
HANG_AT_HANDSHAKE_OPTIONS: Final = ExecOptions(
    call_timeout=3.0, handshake_timeout=3.0, max_restarts=2, max_reply_bytes=4 * 1024 * 1024, cwd=str(ROOT)
)

OK = "ok"  # a result (describe) or the contract error the hostile backend answers with
F = FaultKind


@dataclass(frozen=True)
class Expected:
    """Per step (handshake, trigger, describe, revalidate): ``OK`` or the fault kind of that step."""

    handshake: FaultKind | None
    trigger: FaultKind | str
    describe: FaultKind | str = OK
    revalidate: FaultKind | str = OK
    #: Processes the mode starts in all (each start, plus forked grandchildren).
    processes: int = 2


def _handshake_fails(kind: FaultKind) -> Expected:
    return Expected(kind, F.UNAVAILABLE, F.UNAVAILABLE, F.UNAVAILABLE, processes=1)


def _trigger_fault(kind: FaultKind, processes: int = 2) -> Expected:
    return Expected(None, kind, processes=processes)


BEHAVES = Expected(None, OK, processes=1)

EXPECTED: Final[dict[str, Expected]] = {
    "ok": BEHAVES,
    "crash": _trigger_fault(F.CRASH),
    "hang": _trigger_fault(F.TIMEOUT),
    "partial-exit": _trigger_fault(F.CRASH),
    "partial-hang": _trigger_fault(F.TIMEOUT),
    "garbage": _trigger_fault(F.MALFORMED_REPLY),
    "wrong-id": _trigger_fault(F.WRONG_REPLY_ID),
    "double-immediate": _trigger_fault(F.UNEXPECTED_REPLY),
    # the second reply comes late: blamed on the trigger's request, the describe after it still answered
    "double-late": Expected(None, OK, OK, processes=2),
    "deep-result": _trigger_fault(F.MALFORMED_REPLY),
    "deep-error": _trigger_fault(F.MALFORMED_REPLY),
    "deep-describe": _handshake_fails(F.HANDSHAKE_FAILED),
    "fork-holder": _trigger_fault(F.CRASH, processes=3),
    "fork-at-start": Expected(None, OK, processes=2),
    "sigterm-ignored": _trigger_fault(F.TIMEOUT),
    "stdout-closed": _trigger_fault(F.CRASH),
    "exit-at-handshake": _handshake_fails(F.HANDSHAKE_FAILED),
    "exit-at-start": _handshake_fails(F.HANDSHAKE_FAILED),
    "hang-at-handshake": _handshake_fails(F.HANDSHAKE_FAILED),
    "banner": _handshake_fails(F.HANDSHAKE_FAILED),
    "handshake-failure": _handshake_fails(F.HANDSHAKE_FAILED),
    "wrong-protocol": _handshake_fails(F.PROTOCOL_MISMATCH),
    "describe-varying": BEHAVES,
    # the restarted backend describes itself differently: the backend is done for
    "identity-per-start": Expected(None, F.CRASH, F.IDENTITY_CHANGED, F.UNAVAILABLE, processes=2),
    "crash-always": Expected(None, F.CRASH, OK, F.CRASH),
    "stderr-flood": BEHAVES,
    "stderr-binary": BEHAVES,
    "slow-correct": BEHAVES,
    "oversized": _trigger_fault(F.OVERSIZED_REPLY),
    "odd-operations": BEHAVES,
    "invalid-utf8": _trigger_fault(F.MALFORMED_REPLY),
    "not-object": _trigger_fault(F.MALFORMED_REPLY),
    "unknown-failure": _trigger_fault(F.BACKEND_FAILURE, processes=1),
    "duplicate-key": _trigger_fault(F.MALFORMED_REPLY),
    "nan-result": _trigger_fault(F.MALFORMED_REPLY),
    "huge-id": _trigger_fault(F.MALFORMED_REPLY),
    "null-id-result": _trigger_fault(F.MALFORMED_REPLY),
    "bad-error": _trigger_fault(F.MALFORMED_REPLY, processes=1),
}


def test_every_mode_has_an_expectation() -> None:
    assert set(EXPECTED) == set(MODES)
    assert len(MODES) >= 20


def _step(call: Callable[[], Any]) -> tuple[str | FaultKind, Fault | None]:
    try:
        call()
    except BackendFault as exc:
        return exc.kind, exc.fault
    except VNextError:
        return OK, None
    return OK, None


def _trigger(client: Client) -> None:
    with pytest.raises(Serialization):  # the hostile backend's contract error, when it answers at all
        client.call(OPERATIONS["build_plan"], (documents.scenario(),))


def _revalidate(client: Client) -> None:
    with pytest.raises(Serialization):
        client.call(OPERATIONS["revalidate"], (documents.scenario(), documents.plan_wire()))


def _valid_case_record(mode: str, connection: ExecConnection) -> None:
    """The faults and stderr as the report writes them: valid against the report schema."""
    record = CaseRecord(
        case_id=f"reliability/{mode}",
        suite="reliability",
        nodeid=f"tests/reliability::{mode}",
        outcome="failed" if connection.faults else "passed",
        faults=[fault.to_wire() for fault in connection.faults],
        backend_stderr=connection.stderr_tail(),
    ).to_wire()
    schemas.validator("protocol/report.json").validate(json.loads(json.dumps(record, ensure_ascii=True)))


@pytest.mark.parametrize("mode", sorted(MODES))
def test_a_hostile_backend_gets_the_typed_outcome_and_leaves_no_process(mode: str, tmp_path: Path) -> None:
    expected = EXPECTED[mode]
    pidfile = tmp_path / "pids"
    options = HANG_AT_HANDSHAKE_OPTIONS if mode == "hang-at-handshake" else OPTIONS
    connection = ExecConnection(
        [PYTHON, str(HOSTILE), mode, str(pidfile)],
        ExecOptions(
            call_timeout=options.call_timeout,
            handshake_timeout=options.handshake_timeout,
            max_restarts=options.max_restarts,
            max_reply_bytes=options.max_reply_bytes,
            env=child_env(),
            cwd=options.cwd,
        ),
    )
    client = Client(connection)
    try:
        handshake, handshake_fault = _step(client.open)
        trigger, trigger_fault = _step(lambda: _trigger(client))
        described, describe_fault = _step(client.describe)
        if mode == "describe-varying":  # what the describe suite's stability case catches
            assert client.describe() != connection.description
        revalidated, revalidate_fault = _step(lambda: _revalidate(client))
    finally:
        client.close()
    steps = {"trigger": trigger, "describe": described, "revalidate": revalidated}
    want = {"trigger": expected.trigger, "describe": expected.describe, "revalidate": expected.revalidate}
    assert steps == want, connection.faults
    assert handshake == (expected.handshake or OK), connection.faults

    # faults name the request that caused them
    if handshake_fault is not None:
        assert (handshake_fault.operation, handshake_fault.request_id) == ("handshake", 0)
    for fault, operation in ((trigger_fault, "build_plan"), (revalidate_fault, "revalidate")):
        if fault is not None and fault.kind is not F.UNAVAILABLE:
            assert fault.operation == operation and fault.request_id is not None and fault.request_id > 0, fault
    if describe_fault is not None and describe_fault.kind is F.IDENTITY_CHANGED:
        assert describe_fault.operation == "handshake"
    if mode == "double-late":
        # the late second line is the trigger's fault, not the describe's that read it
        (late,) = connection.faults
        assert (late.kind, late.operation) == (F.UNEXPECTED_REPLY, "build_plan"), late
    if mode == "stderr-flood":
        assert 0 < len(connection.stderr_tail().encode()) <= 2 * OPTIONS.stderr_keep_bytes
    for fault in connection.faults:
        assert len(fault.detail) <= 2000 and "Traceback" not in fault.detail, fault

    _valid_case_record(mode, connection)
    assert len(recorded(pidfile)) == expected.processes, recorded(pidfile)
    assert survivors(pidfile) == [], f"processes outlived the connection: {survivors(pidfile)}"
