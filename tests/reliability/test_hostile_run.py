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
TRIGGER_CASE: Final = "describe/test_declared_operation_answers_malformed_scenario_with_a_contract_error[build_plan]"
NEXT_CASE: Final = "describe/test_declared_operation_answers_malformed_scenario_with_a_contract_error[revalidate]"


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


def test_a_late_second_reply_is_blamed_on_the_request_it_answers(tmp_path: Path) -> None:
    result = run("double-late", tmp_path)
    assert result.code == Exit.PASSED, result.output[-3000:]
    faults = [(case_id, fault) for case_id, record in result.cases().items() for fault in record["faults"]]
    assert len(faults) == 1, faults
    ((_case_id, fault),) = faults
    assert (fault["kind"], fault["operation"]) == ("unexpected_reply", "build_plan"), fault
    assert result.cases()[TRIGGER_CASE]["outcome"] == "passed"  # it was answered; the fault names its request
    assert result.footer["backend_faults"] == {"unexpected_reply": 1}
    assert len(recorded(result.pidfile)) == 2  # restarted once, for the request that read the late line


def test_a_description_that_changes_fails_the_stability_case(tmp_path: Path) -> None:
    result = run("describe-varying", tmp_path)
    assert result.code == Exit.FAILED, result.output[-3000:]
    assert result.cases()["describe/test_describe_is_stable"]["outcome"] == "failed"
    assert result.footer["complete"] is True and result.footer["backend_faults"] == {}


@pytest.mark.parametrize("mode", ["odd-operations", "stderr-binary"])
def test_backend_text_cannot_spoil_the_reports(mode: str, tmp_path: Path) -> None:
    result = run(mode, tmp_path)
    assert result.code in (Exit.PASSED, Exit.FAILED), result.output[-3000:]
    backend = result.header["backend"]
    if mode == "odd-operations":
        # the header stays valid: the description is kept only when it is valid itself
        assert backend["description"] is None and backend["error"]["kind"] == "invalid_description", backend
        assert result.cases()["describe/test_operations_are_well_formed"]["outcome"] == "failed"
    else:
        stderr = "".join(record["backend_stderr"] for record in result.cases().values())
        assert "</failure>" in stderr  # carried, escaped, into a report that still parses
        assert result.code == Exit.PASSED, result.output[-3000:]


def test_a_grandchild_holding_stdout_is_ended_with_the_backend(tmp_path: Path) -> None:
    result = run("fork-holder", tmp_path)
    assert result.code == Exit.FAILED, result.output[-3000:]
    (fault,) = result.cases()[TRIGGER_CASE]["faults"]
    assert (fault["kind"], fault["operation"]) == ("crash", "build_plan"), fault
    assert result.cases()[NEXT_CASE]["outcome"] == "passed"  # served by the restarted backend
    assert len(recorded(result.pidfile)) == 3  # first start, its grandchild, the restart


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_signal_ends_the_run_cleanly_with_complete_false(signum: signal.Signals, tmp_path: Path) -> None:
    """The backend ignores SIGTERM and hangs on a request; the signalled run still ends it and both reports."""
    _stale(tmp_path)
    trigger = tmp_path / "pids.trigger"
    proc = subprocess.Popen(
        _argv("sigterm-ignored", tmp_path),
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
