"""A few hostile-backend modes through a whole ``vnext-conformance run`` (the describe suite only).

Each run writes both reports over stale ones: the JSON-lines report must be valid record by record
against ``schemas/protocol/report.json`` with a header first and a footer last, the JUnit file
must parse, no ``.partial`` file may be left, the exit status must be the documented one, and no
process the backend became may outlive the run. The modes left to the connection tests behave the
same here: the run only carries the connection's faults into the reports.
"""

from __future__ import annotations

import json
import signal
import subprocess
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import pytest

import schemas
from harness.cli.exits import Exit

from .processes import HOSTILE, PYTHON, ROOT, child_env, recorded, survivors

#: Generous: a loaded machine starts pytest slowly (nothing here is timed).
RUN_WAIT: Final = 600.0
STALE: Final = "stale report of an earlier run\n"
TRIGGER_CASE: Final = "describe/test_declared_operation_answers_its_probe_with_a_contract_error[build_plan]"
NEXT_CASE: Final = "describe/test_declared_operation_answers_its_probe_with_a_contract_error[revalidate]"


@dataclass
class Run:
    code: int
    records: list[dict[str, Any]]
    junit: ET.Element
    output: str
    pidfile: Path

    def cases(self) -> dict[str, dict[str, Any]]:
        return {record["case_id"]: record for record in self.records if record["record"] == "case"}

    @property
    def header(self) -> dict[str, Any]:
        return self.records[0]

    @property
    def footer(self) -> dict[str, Any]:
        return self.records[-1]


def _argv(mode: str, directory: Path) -> list[str]:
    backend = f"exec:{PYTHON} {HOSTILE} {mode} {directory / 'pids'}"
    return [
        PYTHON, "-m", "harness.cli", "run", "--backend", backend, "--only", "describe", "--profile", "ci",
        "--report-json", str(directory / "r.jsonl"), "--junit-xml", str(directory / "j.xml"),
        "--cache-dir", str(directory / "cache"), "--call-timeout", "600", "--handshake-timeout", "120",
    ]  # fmt: skip


def _stale(directory: Path) -> None:
    for name in ("r.jsonl", "j.xml"):
        (directory / name).write_text(STALE, encoding="ascii")


def _finish(directory: Path, code: int, output: str) -> Run:
    """Both reports read and checked; no partial file, no surviving process."""
    assert "Traceback" not in output.rsplit("vnext-conformance summary", maxsplit=1)[-1], output[-3000:]
    report = (directory / "r.jsonl").read_text(encoding="ascii")
    assert report != STALE and (directory / "j.xml").read_text(encoding="utf-8") != STALE, output[-3000:]
    records = [json.loads(line) for line in report.splitlines()]
    validator = schemas.validator("protocol/report.json")
    for record in records:
        validator.validate(record)
    assert records[0]["record"] == "header" and records[-1]["record"] == "footer", output[-3000:]
    assert [record["record"] for record in records].count("footer") == 1
    assert records[-1]["exit_status"] == code
    junit = ET.parse(directory / "j.xml").getroot()
    assert junit.iter("testcase"), "the JUnit report lists the cases"
    assert sorted(path.name for path in directory.glob("*.partial")) == []
    pidfile = directory / "pids"
    assert recorded(pidfile), "the backend ran"
    assert survivors(pidfile) == [], f"processes outlived the run: {survivors(pidfile)}"
    return Run(code, records, junit, output, pidfile)


def run(mode: str, directory: Path) -> Run:
    _stale(directory)
    proc = subprocess.run(
        _argv(mode, directory), cwd=ROOT, env=child_env(), capture_output=True, text=True, timeout=RUN_WAIT, check=False
    )
    return _finish(directory, proc.returncode, proc.stdout + proc.stderr)


#: Misbehaviours that do not stop a run, combined in one backend (one run instead of four): a second
#: reply to ``build_plan`` that comes late, binary and markup on stderr, duplicate and oddly named
#: operations, and a description that changes on every ``describe``.
COMBINED: Final = "double-late+stderr-binary+odd-operations+describe-varying"


def test_misbehaviour_is_attributed_and_backend_text_cannot_spoil_the_reports(tmp_path: Path) -> None:
    result = run(COMBINED, tmp_path)
    assert result.code == Exit.FAILED, result.output[-3000:]
    cases = result.cases()
    # a late second reply: blamed on the request it answers; the case that read it is not failed by it
    faults = [fault for record in cases.values() for fault in record["faults"]]
    assert [(fault["kind"], fault["operation"]) for fault in faults] == [("unexpected_reply", "build_plan")]
    assert cases[TRIGGER_CASE]["outcome"] == "passed" and cases[NEXT_CASE]["outcome"] == "passed"
    assert result.footer["backend_faults"] == {"unexpected_reply": 1}
    # a description that is not valid itself is left out of the header, which stays valid
    backend = result.header["backend"]
    assert backend["description"] is None and backend["error"]["kind"] == "invalid_description", backend
    assert cases["describe/test_operations_are_well_formed"]["outcome"] == "failed"
    # a description that changes fails the stability case
    assert cases["describe/test_describe_is_stable"]["outcome"] == "failed"
    # stderr bytes are carried, escaped, into reports that still parse
    assert "</failure>" in "".join(record["backend_stderr"] for record in cases.values())
    failures = {case.get("name") for case in result.junit.iter("testcase") if case.find("failure") is not None}
    assert "test_describe_is_stable" in failures, failures
    assert len(recorded(result.pidfile)) == 2  # restarted once, for the request that read the late line


@pytest.mark.parametrize(
    ("signum", "mode"),
    [(signal.SIGTERM, "sigterm-ignored+fork-at-start"), (signal.SIGINT, "hang")],
    ids=["SIGTERM", "SIGINT"],
)
def test_a_signal_ends_the_run_cleanly_with_complete_false(signum: signal.Signals, mode: str, tmp_path: Path) -> None:
    """The backend hangs on a request (for SIGTERM: ignoring SIGTERM, a grandchild holding its stdout); the
    signalled run still ends every process of it and writes both reports."""
    _stale(tmp_path)
    trigger = tmp_path / "pids.trigger"
    proc = subprocess.Popen(
        _argv(mode, tmp_path),
        cwd=ROOT,
        env=child_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        deadline = time.monotonic() + RUN_WAIT
        while not trigger.exists() and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.2)
        assert trigger.exists(), "the backend never received the request it hangs on"
        proc.send_signal(signum)
        output, _ = proc.communicate(timeout=RUN_WAIT)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    result = _finish(tmp_path, proc.returncode, output)
    assert result.code == Exit.INTERRUPTED, output[-3000:]
    assert result.footer["complete"] is False, result.footer
    assert TRIGGER_CASE not in result.cases()  # the interrupted case never finished: it is not reported
    assert len(recorded(result.pidfile)) == (2 if "fork-at-start" in mode else 1)
