"""Search processes share what they find through Hypothesis's example databases (directory, Redis).

Each worker is its own process (``tests/harness/sharing_worker.py``) with its own local directory
database. A failure one worker finds is replayed by another worker's next run, which runs only
Hypothesis's ``reuse`` phase, so it can fail only on an example a database gave it; a worker
without the shared database does not fail (the control). A read-only reader replays the failure
and leaves the shared store unchanged.

The Redis case needs a real server: ``VNEXT_REDIS_URL`` names one (CI starts Debian's
``redis-server`` in ``.ci/run``); otherwise the test starts ``redis-server`` from PATH on loopback.
With ``VNEXT_REQUIRE_REDIS=1`` (CI) a missing server fails the test instead of skipping it.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from harness.fuzz.database import REDIS_KEY_PREFIX
from tests.harness.helpers import PYTHON, ROOT, directory_snapshot, env
from tests.harness.sharing_worker import THRESHOLD

_TIMEOUT = 300.0


def _worker(mode: str, local: Path, shared: str | None = None, *, read_only: bool = False) -> dict[str, Any]:
    argv = [PYTHON, "-m", "tests.harness.sharing_worker", mode, str(local)]
    if shared is not None:
        argv.append(shared)
    if read_only:
        argv.append("--read-only")
    done = subprocess.run(argv, cwd=ROOT, env=env(), capture_output=True, text=True, timeout=_TIMEOUT, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def _check_sharing(tmp_path: Path, shared: str, snapshot: Callable[[], object]) -> None:
    found = _worker("search", tmp_path / "first", shared)
    assert found == {"failed": True, "example": THRESHOLD}
    before = snapshot()
    assert before, "the search saved nothing in the shared database"

    replayed = _worker("replay", tmp_path / "second", shared)
    assert replayed == {"failed": True, "example": THRESHOLD}

    alone = _worker("replay", tmp_path / "alone")
    assert alone == {"failed": False, "example": None}

    read_only = _worker("replay", tmp_path / "reader", shared, read_only=True)
    assert read_only == {"failed": True, "example": THRESHOLD}
    assert snapshot() == before


def test_two_workers_share_a_failure_through_a_directory_database(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    _check_sharing(tmp_path, str(shared), lambda: directory_snapshot(shared))


# --------------------------------------------------------------------------- Redis


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _no_server(why: str) -> None:
    if os.environ.get("VNEXT_REQUIRE_REDIS") == "1":
        pytest.fail(f"VNEXT_REQUIRE_REDIS=1 but {why}")
    pytest.skip(why)


@pytest.fixture
def redis_url(tmp_path: Path) -> Iterator[str]:
    """``VNEXT_REDIS_URL``, else a ``redis-server`` started here on loopback (stopped afterwards)."""
    redis = pytest.importorskip("redis") if os.environ.get("VNEXT_REQUIRE_REDIS") != "1" else __import__("redis")
    given = os.environ.get("VNEXT_REDIS_URL")
    if given:
        client = redis.Redis.from_url(given)
        try:
            client.ping()
        except redis.RedisError as exc:
            _no_server(f"VNEXT_REDIS_URL={given} does not answer ({exc})")
        yield given
        return
    program = shutil.which("redis-server")
    if program is None:
        _no_server("no redis-server on PATH and no VNEXT_REDIS_URL")
    assert program is not None
    port = _free_port()
    server = subprocess.Popen(
        [program, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
         "--dir", str(tmp_path)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )  # fmt: skip
    url = f"redis://127.0.0.1:{port}/0"
    try:
        client = redis.Redis.from_url(url)
        for _ in range(600):
            with contextlib.suppress(redis.RedisError):
                if client.ping():
                    break
            if server.poll() is not None:
                pytest.fail(f"redis-server exited with status {server.returncode}")
            time.sleep(0.1)
        else:
            pytest.fail("redis-server did not answer within 60 s")
        yield url
    finally:
        server.terminate()
        with contextlib.suppress(subprocess.TimeoutExpired):
            server.wait(timeout=30)
        if server.poll() is None:
            server.kill()


def test_two_workers_share_a_failure_through_a_redis_server(tmp_path: Path, redis_url: str) -> None:
    import redis

    client = redis.Redis.from_url(redis_url)
    for key in client.scan_iter(match=REDIS_KEY_PREFIX + b"*"):  # this suite's keys only
        client.delete(key)

    def snapshot() -> dict[bytes, frozenset[bytes]]:
        keys = sorted(client.scan_iter(match=REDIS_KEY_PREFIX + b"*"))
        return {key: frozenset(client.smembers(key)) for key in keys if client.type(key) == b"set"}

    _check_sharing(tmp_path, redis_url, snapshot)
