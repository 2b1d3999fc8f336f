"""Shared helpers for the harness tests."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
FAKE_EXEC = Path(__file__).with_name("fake_exec_backend.py")
PYTHON = sys.executable


def env() -> dict[str, str]:
    """Environment for child processes: the project root importable, no plugin autoload surprises."""
    out = dict(os.environ)
    out["PYTHONPATH"] = str(ROOT) + os.pathsep + out.get("PYTHONPATH", "")
    out.pop("PYTEST_XDIST_WORKER", None)
    out.pop("PYTEST_ADDOPTS", None)
    return out


def fake_argv(*mode: str) -> list[str]:
    return [PYTHON, str(FAKE_EXEC), *mode]


def fake_spec(*mode: str) -> str:
    return "exec:" + " ".join([PYTHON, str(FAKE_EXEC), *mode])


def serve_spec(backend: str = "reference") -> str:
    return f"exec:{PYTHON} -m harness.cli serve --backend {backend}"


def run_cli(*args: str, cwd: Path, timeout: float = 900.0) -> subprocess.CompletedProcess[str]:
    """``vnext-conformance ARGS`` in a child process."""
    return subprocess.run(
        [PYTHON, "-m", "harness.cli", *args],
        cwd=cwd,
        env=env(),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def cases(records: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {r["case_id"]: r for r in records if r["record"] == "case"}


def directory_snapshot(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` by relative path, read while another process may be adding and deleting entries.

    A directory or file that disappears between listing and reading is left out, as it would be from
    a snapshot taken a moment later.
    """
    found: dict[str, bytes] = {}
    for folder, _, names in os.walk(root):  # os.walk skips directories that vanish while it walks
        for name in sorted(names):
            path = Path(folder, name)
            try:
                found[str(path.relative_to(root))] = path.read_bytes()
            except (FileNotFoundError, NotADirectoryError):
                continue
    return dict(sorted(found.items()))
