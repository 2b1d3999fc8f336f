"""Locating the built Rust kit binaries, and talking to their line-oriented subcommands.

The binaries live in ``kits/rust/target/release`` (or ``$VNEXT_RUST_KIT_BIN_DIR``). When one is
missing or older than the kit's sources the tests that need it are skipped with the reason,
unless ``VNEXT_REQUIRE_RUST_KIT=1`` (set by ``.ci/run``, which builds the kit first): then
they fail, so CI can never skip them silently.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, Final

import pytest

ROOT: Final = Path(__file__).resolve().parents[2]
KIT_DIR: Final = ROOT / "kits" / "rust"
PYTHON: Final = sys.executable
#: A generous per-line budget for a loaded machine (never asserted as a duration).
LINE_TIMEOUT_S: Final = 120.0
#: The harness's handshake request (PROTOCOL §4).
HANDSHAKE: Final[dict[str, Any]] = {
    "id": 0,
    "op": "handshake",
    "params": {
        "protocol": {"major": 1, "minor": 0},
        "suite": {"name": "vnext-conformance", "version": "0.1.0"},
        "contract": {
            "crate": "ferrum-interfaces",
            "version": "0.12.2",
            "module": "vnext",
            "plan_schema": {"major": 8, "minor": 1},
        },
    },
}


def bin_dir() -> Path:
    return Path(os.environ.get("VNEXT_RUST_KIT_BIN_DIR", KIT_DIR / "target" / "release"))


def _newest_source() -> float:
    """The newest modification time of what the binaries are built from (sources and manifests)."""
    sources = [*KIT_DIR.glob("*/src/**/*.rs"), *KIT_DIR.glob("*/Cargo.toml"), KIT_DIR / "Cargo.toml"]
    return max((p.stat().st_mtime for p in sources if p.is_file()), default=0.0)


def binary(name: str) -> Path:
    """The built binary ``name``; skip (or fail under ``VNEXT_REQUIRE_RUST_KIT=1``) if unusable."""
    path = bin_dir() / name
    reason = None
    if not path.is_file():
        reason = f"the Rust kit is not built: {path} is missing (build it: kits/rust/README.md)"
    elif path.stat().st_mtime < _newest_source() and "VNEXT_RUST_KIT_BIN_DIR" not in os.environ:
        reason = f"the Rust kit build is stale: {path} is older than the sources in kits/rust (rebuild it)"
    if reason is not None:
        if os.environ.get("VNEXT_REQUIRE_RUST_KIT") == "1":
            pytest.fail(f"VNEXT_REQUIRE_RUST_KIT=1 but {reason}")
        pytest.skip(reason)
    return path


def child_env() -> dict[str, str]:
    """Environment for child processes: the project root importable, no xdist or pytest options leaking in."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env.pop("PYTEST_XDIST_WORKER", None)
    env.pop("PYTEST_ADDOPTS", None)
    return env


def serve_argv() -> list[str]:
    """The reference served over the protocol."""
    return [PYTHON, "-m", "harness.cli", "serve"]


class LineProcess:
    """A long-running child answering one JSON line per input line (``vnext-kit roundtrip`` etc.)."""

    def __init__(self, argv: list[str]) -> None:
        self._argv = argv
        self._proc: subprocess.Popen[bytes] | None = None

    def _start(self) -> subprocess.Popen[bytes]:
        if self._proc is None or self._proc.poll() is not None:
            self._proc = subprocess.Popen(
                self._argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=child_env()
            )
        return self._proc

    def ask(self, line: bytes) -> dict[str, Any]:
        """Send one line (without its newline) and return the parsed answer line."""
        if b"\n" in line:
            raise ValueError("a request must be one line")
        proc = self._start()
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(line + b"\n")
        proc.stdin.flush()
        answer = proc.stdout.readline()
        if not answer:
            stderr = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
            raise AssertionError(f"{self._argv[0]} exited ({proc.wait()}) without answering: {stderr}")
        parsed: dict[str, Any] = json.loads(answer)
        return parsed

    def close(self) -> int:
        """Close stdin and return the exit status (the tools exit 0 at end of input)."""
        if self._proc is None:
            return 0
        assert self._proc.stdin is not None
        self._proc.stdin.close()
        status = self._proc.wait(timeout=LINE_TIMEOUT_S)
        for stream in (self._proc.stdout, self._proc.stderr):
            if stream is not None:
                stream.close()
        self._proc = None
        return status
