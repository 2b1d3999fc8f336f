"""The file channel between a fuzzing controller and its worker processes.

One directory per fuzzing session (``<cache dir>/fuzz/<session>``) holds:

* ``stop``: present once a stop was requested (Ctrl-C, SIGTERM); workers look for it before
  every example, because a signal sent to the controller alone (``kill``, CI cancellation) never
  reaches them;
* ``started``: how many generated cases have started, written by the controller, read by a worker
  to size the share of the case it starts;
* ``deadline``: when the time budget ends (``time.time()`` seconds), fixed by the first process
  that starts a generated case, so start-up and collection do not eat the budget;
* ``live-<worker>.json``: what a worker did so far (examples per suite, the case running, the rules
  it exercised), rewritten at most every ``LIVE_INTERVAL`` seconds; the live display reads them.

Every write replaces its file atomically, so a reader sees an old or a new version, never half of one.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from harness.reports import files

__all__ = ["LIVE_INTERVAL", "FuzzControl", "LiveSnapshot"]

#: Seconds between two rewrites of a worker's live file.
LIVE_INTERVAL: Final = 1.0
_MAX_LIVE_BYTES: Final = 4 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class LiveSnapshot:
    """What one worker did so far."""

    worker: str
    examples: Mapping[str, int] = field(default_factory=dict)
    running: str | None = None
    rules: Sequence[str] = ()
    written_at: float = 0.0

    def to_wire(self) -> dict[str, Any]:
        return {
            "worker": self.worker,
            "examples": {name: self.examples[name] for name in sorted(self.examples)},
            "running": self.running,
            "rules": sorted(set(self.rules)),
            "written_at": self.written_at,
        }

    @classmethod
    def from_wire(cls, raw: Mapping[str, Any]) -> LiveSnapshot:
        examples = raw.get("examples") or {}
        return cls(
            worker=str(raw["worker"]),
            examples={str(name): int(count) for name, count in examples.items()},
            running=None if raw.get("running") is None else str(raw["running"]),
            rules=tuple(str(rule) for rule in raw.get("rules") or ()),
            written_at=float(raw.get("written_at") or 0.0),
        )


@dataclass
class FuzzControl:
    """One session's control directory (created on first use)."""

    directory: Path
    _stopped: bool = False

    def _ensure(self) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)

    # ------------------------------------------------------------ stop

    def request_stop(self) -> None:
        self._stopped = True
        with contextlib.suppress(OSError):
            self._ensure()
            (self.directory / "stop").touch()

    def stop_requested(self) -> bool:
        if not self._stopped and (self.directory / "stop").exists():
            self._stopped = True
        return self._stopped

    # ------------------------------------------------------------ started cases

    def write_started(self, count: int) -> None:
        with contextlib.suppress(OSError):
            self._ensure()
            files.replace_with(self.directory / "started", str(count).encode())

    def read_started(self) -> int:
        try:
            return int((self.directory / "started").read_text(encoding="ascii").strip() or 0)
        except (OSError, ValueError):
            return 0

    # ------------------------------------------------------------ deadline

    def read_deadline(self) -> float | None:
        try:
            return float((self.directory / "deadline").read_text(encoding="ascii"))
        except (OSError, ValueError):
            return None

    def claim_deadline(self, deadline: float) -> float:
        """The session's deadline: the one already fixed, else ``deadline`` (fixed now, first writer wins)."""
        fixed = self.read_deadline()
        if fixed is not None:
            return fixed
        self._ensure()
        handle, temporary = tempfile.mkstemp(dir=self.directory, prefix=".deadline-", suffix=".tmp")
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(repr(deadline).encode("ascii"))
            with contextlib.suppress(FileExistsError):
                os.link(temporary, self.directory / "deadline")  # atomic, and never replaces
        finally:
            Path(temporary).unlink(missing_ok=True)
        fixed = self.read_deadline()
        return deadline if fixed is None else fixed

    # ------------------------------------------------------------ live counts

    def write_live(self, snapshot: LiveSnapshot) -> None:
        data = json.dumps(snapshot.to_wire(), sort_keys=True, separators=(",", ":")).encode()
        with contextlib.suppress(OSError):
            self._ensure()
            files.replace_with(self.directory / f"live-{snapshot.worker}.json", data)

    def read_live(self) -> list[LiveSnapshot]:
        """Every worker's latest snapshot (unreadable files skipped), by worker name."""
        found: list[LiveSnapshot] = []
        with contextlib.suppress(OSError):
            for path in sorted(self.directory.glob("live-*.json")):
                with contextlib.suppress(OSError, ValueError, KeyError, TypeError):
                    if path.stat().st_size > _MAX_LIVE_BYTES:
                        continue
                    found.append(LiveSnapshot.from_wire(json.loads(path.read_bytes())))
        return found

    def remove(self) -> None:
        """Delete the directory and what it holds (the session is over)."""
        with contextlib.suppress(OSError):
            for path in self.directory.iterdir():
                path.unlink(missing_ok=True)
            self.directory.rmdir()
