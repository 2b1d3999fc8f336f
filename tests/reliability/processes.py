"""Child processes of the reliability suite: their environment, and whether any outlived a run.

A hostile backend appends ``<pid> <start time>`` for every process it becomes to a pid file;
a recorded process is *alive* when ``/proc/<pid>`` still exists with the same start time and
is not a zombie (a zombie has ended; only its exit status waits for a reaper).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PYTHON = sys.executable
HOSTILE = Path(__file__).with_name("hostile_backend.py")


def child_env() -> dict[str, str]:
    """The environment of a child command: the project importable, nothing of the surrounding test run."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    for name in ("PYTEST_XDIST_WORKER", "PYTEST_XDIST_WORKER_COUNT", "PYTEST_ADDOPTS", "PYTEST_CURRENT_TEST"):
        env.pop(name, None)
    return env


def recorded(pidfile: Path) -> list[tuple[int, str]]:
    """The processes a hostile backend recorded: ``(pid, start time)``."""
    if not pidfile.exists():
        return []
    out = []
    for line in pidfile.read_text(encoding="ascii").splitlines():
        pid, start = line.split()
        out.append((int(pid), start))
    return out


def alive(pid: int, start: str) -> bool:
    """True when the process ``pid`` that started at ``start`` still runs (not ended, not a zombie)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="ascii")
    except OSError:
        return False
    fields = stat.rpartition(")")[2].split()
    return fields[19] == start and fields[0] not in ("Z", "X")


def survivors(pidfile: Path) -> list[int]:
    """The recorded processes still running."""
    return [pid for pid, start in recorded(pidfile) if alive(pid, start)]
