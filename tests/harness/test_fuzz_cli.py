"""``vnext-conformance fuzz``: a session over two xdist workers stops cleanly on SIGTERM and keeps its findings.

SIGTERM goes to the controller alone (as ``kill`` or a CI cancellation sends it): the workers learn
of the stop through the session's control directory, end after their current example, and the
controller writes the reports and the certificate. No assertion is on time: the test waits (with a
generous bound) until the workers have run examples and saved some in the shared database, then
stops the session, and checks that everything saved is still there.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import time
from pathlib import Path

from harness.certificate import read_certificate
from harness.cli.exits import Exit
from tests.harness.helpers import PYTHON, directory_snapshot, env, read_jsonl

_WAIT = 600.0


def _worker_examples(cache: Path) -> int:
    total = 0
    for live in cache.glob("fuzz/*/live-*.json"):
        with contextlib.suppress(OSError, ValueError):
            total += sum(json.loads(live.read_bytes())["examples"].values())
    return total


def _saved(shared: Path) -> dict[str, bytes]:
    return directory_snapshot(shared)  # the workers are adding and deleting entries meanwhile


def test_fuzz_stops_cleanly_on_sigterm_and_keeps_its_findings(tmp_path: Path) -> None:
    cache, shared = tmp_path / "cache", tmp_path / "shared"
    argv = [
        PYTHON, "-m", "harness.cli", "fuzz", "--workers", "2", "--max-time", "3600", "--only", "memory_budget",
        "--cache-dir", str(cache), "--database", str(shared), "--seed", "7",
    ]  # fmt: skip
    with open(tmp_path / "output.txt", "wb") as output:
        session = subprocess.Popen(argv, cwd=tmp_path, env=env(), stdout=output, stderr=subprocess.STDOUT,
                                   start_new_session=True)  # fmt: skip
        try:
            waited = 0.0
            while not (_worker_examples(cache) and _saved(shared)) and session.poll() is None and waited < _WAIT:
                time.sleep(0.5)
                waited += 0.5
            assert session.poll() is None, (tmp_path / "output.txt").read_text(errors="replace")[-3000:]
            assert _worker_examples(cache) > 0, "no worker ran an example"
            saved = _saved(shared)
            assert saved, "nothing saved in the shared database"
            session.send_signal(signal.SIGTERM)
            status = session.wait(timeout=_WAIT)
        finally:
            if session.poll() is None:
                os.killpg(session.pid, signal.SIGKILL)
                session.wait(timeout=60)
    text = (tmp_path / "output.txt").read_text(errors="replace")
    assert status == Exit.INTERRUPTED, text[-3000:]
    assert "Traceback" not in text
    assert "stopped by SIGTERM" in text

    records = read_jsonl(cache / "last-fuzz.jsonl")
    footer = records[-1]
    assert footer["record"] == "footer"
    assert footer["complete"] is False
    assert footer["stopped"]["kind"] == "interrupted"
    cases = [record for record in records if record["record"] == "case"]
    ran = [case for case in cases if case["outcome"] == "passed"]
    assert ran, "no case finished before the stop"
    assert all(case["examples"] is not None for case in cases)  # only generated cases are fuzzed

    certificate = read_certificate(cache / "last-fuzz.certificate.json")
    assert certificate["mode"] == "fuzz"
    assert certificate["verdict"] == "incomplete"
    assert certificate["fuzz"]["stop_signal"] == "SIGTERM"
    assert certificate["seeds"]["seed"] == 7
    assert certificate["examples"]["total"] == sum(case["examples"] for case in cases) > 0
    assert certificate["database"] == {"read_only": False, "shared": ["directory"]}

    # What the search had saved in the shared database before the stop (the memory suites'
    # targeted-search front) is still there, and the control directory is gone.
    after = _saved(shared)
    assert after
    assert set(saved) <= set(after) or any(value in after.values() for value in saved.values())
    assert not list(cache.glob("fuzz/*/live-*.json"))
