"""Many ``vnext-conformance`` commands in a few long-lived processes, each of which imports the suites once.

``RunPool(n)`` starts ``n`` worker processes (``python -m tests.runs``) and hands them commands from
one queue, so a long command on one worker never leaves the other idle. A worker runs each command
in-process (``harness.cli.main``) with its output collected, and answers one JSON line on a channel
of its own (a duplicate of its original stdout; anything else written to file descriptor 1 goes to
stderr). A run keeps nothing of an earlier one it depends on: each has its own cache directory.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import queue
import subprocess
import sys
import threading
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Final

__all__ = ["Done", "RunPool"]

ROOT: Final = Path(__file__).resolve().parents[1]
#: Generous: a loaded 2-core machine runs a long selection slowly (nothing here is timed).
COMMAND_TIMEOUT_S: Final = 1800.0


@dataclass(frozen=True)
class Done:
    """A finished command: its exit status and everything it printed."""

    status: int
    output: str


class _Worker:
    def __init__(self, stderr: Path) -> None:
        self._stderr_path = stderr
        self._stderr = open(stderr, "wb")  # noqa: SIM115 - closed in close()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tests.runs"],
            cwd=ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            text=True,
        )

    def run(self, argv: Sequence[str], log: Path) -> Done:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps({"argv": list(argv), "log": str(log)}) + "\n")
        self.proc.stdin.flush()
        timer = threading.Timer(COMMAND_TIMEOUT_S, self.proc.kill)
        timer.start()
        try:
            line = self.proc.stdout.readline()
        finally:
            timer.cancel()
        if not line:
            self.proc.wait(timeout=60)
            tail = self._stderr_path.read_text(encoding="utf-8", errors="replace")[-4000:]
            raise AssertionError(f"a run worker ended (exit {self.proc.returncode}) during {list(argv)}:\n{tail}")
        status = int(json.loads(line)["status"])
        return Done(status, log.read_text(encoding="utf-8"))

    def close(self) -> None:
        if self.proc.stdin is not None:
            with contextlib.suppress(OSError):
                self.proc.stdin.close()
        try:
            self.proc.wait(timeout=120)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=60)
        if self.proc.stdout is not None:
            self.proc.stdout.close()
        self._stderr.close()


class RunPool:
    """``workers`` processes running ``vnext-conformance`` commands; ``run_all`` keeps them all busy."""

    def __init__(self, workers: int, directory: Path) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        self._directory = directory
        self._workers = [_Worker(directory / f"worker-{index}.stderr") for index in range(workers)]

    def __enter__(self) -> RunPool:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self.close()

    def close(self) -> None:
        for worker in self._workers:
            worker.close()

    def run_all(self, commands: Mapping[str, Sequence[str]]) -> dict[str, Done]:
        """Every command (by name), the first ones first, each on the next worker that is free."""
        pending: queue.Queue[str] = queue.Queue()
        for name in commands:
            pending.put(name)
        results: dict[str, Done] = {}
        errors: list[BaseException] = []

        def serve(worker: _Worker) -> None:
            while not errors:
                try:
                    name = pending.get_nowait()
                except queue.Empty:
                    return
                try:
                    results[name] = worker.run(commands[name], self._directory / f"{_file_name(name)}.log")
                except BaseException as exc:  # reported by the caller's thread
                    errors.append(exc)

        threads = [threading.Thread(target=serve, args=(worker,)) for worker in self._workers]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        if errors:
            raise errors[0]
        return {name: results[name] for name in commands}


def _file_name(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name)


def _requests(channel: io.TextIOBase) -> Iterator[dict[str, object]]:
    for line in channel:
        if line.strip():
            yield json.loads(line)


def main() -> int:
    """The worker: one command per stdin line, one ``{"status": N}`` line per command on the channel."""
    from harness.cli import main as cli

    channel = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)  # stray writes to file descriptor 1 cannot spoil the channel
    sys.stdout = io.TextIOWrapper(os.fdopen(1, "wb", closefd=False), encoding="utf-8", line_buffering=True)
    for request in _requests(sys.stdin):  # type: ignore[arg-type]
        argv = [str(arg) for arg in request["argv"]]  # type: ignore[attr-defined]
        output = io.StringIO()
        with contextlib.redirect_stdout(output), contextlib.redirect_stderr(output):
            try:
                status = cli(argv)
            except SystemExit as exc:  # a usage error ends argument parsing
                status = exc.code if isinstance(exc.code, int) else 1
        Path(str(request["log"])).write_text(output.getvalue(), encoding="utf-8")
        channel.write(json.dumps({"status": status}) + "\n")
        channel.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
