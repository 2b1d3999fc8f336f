"""Every bad-input class against ``vnext-conformance serve``: inside request lines and inside ``params.scenario``.

One served reference per test process answers all of them. A spoiled scenario is answered
with the contract error (``serialization`` / ``decode scenario``) carrying the request's id; a
spoiled envelope with ``failure`` ``bad_request``; a well-formed but wrong scenario with a
result or any contract error. Never ``internal``, never a traceback on stderr, and the server
answers the next request as if nothing happened.
"""

from __future__ import annotations

import contextlib
import json
import queue
import subprocess
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from harness.connection.base import handshake_line
from harness.protocol.server import DEFAULT_MAX_REQUEST_BYTES
from reference import api
from reference.errors import ERROR_KINDS, MAX_MESSAGE_CHARS

from . import documents
from .bad_inputs import CLASSES, BadInput, Base, Expect, Variant
from .processes import PYTHON, ROOT, child_env

#: Seconds to wait for one reply (a loaded machine decodes 64 MiB slowly; nothing here is timed).
REPLY_WAIT = 600.0
SCENARIO_PATH = ("params", "scenario")
REQUEST_ID = 7
PROBE = b'{"id":99,"op":"describe","params":{}}\n'


class Served:
    """``vnext-conformance serve`` in a child process, handshaken; its replies and stderr collected."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen(
            [PYTHON, "-m", "harness.cli", "serve"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=ROOT,
            env=child_env(),
        )
        self.replies: queue.Queue[bytes] = queue.Queue()
        self.stderr = bytearray()
        threading.Thread(target=self._read_replies, daemon=True).start()
        threading.Thread(target=self._read_stderr, daemon=True).start()
        handshake = self.exchange(handshake_line())
        assert "result" in handshake[0], handshake

    def _read_replies(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.replies.put(line)

    def _read_stderr(self) -> None:
        assert self.proc.stderr is not None
        for chunk in iter(lambda: self.proc.stderr.read1(65536), b""):  # type: ignore[union-attr]
            self.stderr += chunk

    def send(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def exchange(self, line: bytes) -> list[dict[str, Any]]:
        """Send ``line``, then a describe probe; every reply that came before the probe's."""
        self.send(line)
        self.send(PROBE)
        before: list[dict[str, Any]] = []
        while True:
            try:
                reply = json.loads(self.replies.get(timeout=REPLY_WAIT))
            except queue.Empty:
                tail = bytes(self.stderr[-2000:])
                raise AssertionError(f"no reply within {REPLY_WAIT:g}s; stderr: {tail!r}") from None
            if reply.get("id") == 99 and "result" in reply:
                return before
            before.append(reply)

    def close(self) -> None:
        with contextlib.suppress(OSError):
            assert self.proc.stdin is not None
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=60)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()


@pytest.fixture(scope="module")
def served() -> Iterator[Served]:
    server = Served()
    try:
        yield server
    finally:
        server.close()
    assert server.proc.returncode == 0, bytes(server.stderr[-2000:])
    assert server.stderr == b"", bytes(server.stderr[-2000:])


def _line(variant: Variant) -> bytes:
    assert b"\n" not in variant.data, "a protocol line cannot hold a raw newline"
    return variant.data + b"\n"


def _check_typed(reply: dict[str, Any], request_id: int | None) -> None:
    """A result or a contract error carrying the request's id."""
    assert "failure" not in reply, reply
    assert reply["id"] == request_id, reply
    if "error" in reply:
        assert reply["error"]["kind"] in ERROR_KINDS, reply
        assert len(json.dumps(reply)) <= 64 * 1024, "the error object echoes too much"


def _check(answer: str, expect: Expect, replies: list[dict[str, Any]], request_id: int | None) -> None:
    assert len(replies) == 1, f"one reply expected, got {replies!r:.500}"
    reply = replies[0]
    assert set(reply) in ({"id", "result"}, {"id", "error"}, {"id", "failure"}), reply
    if "failure" in reply:
        assert reply["failure"]["code"] != "internal", reply
        assert len(reply["failure"]["message"]) <= 2000, reply
    if expect is Expect.TYPED:
        _check_typed(reply, request_id)
    elif answer == "decode_error":
        assert reply["id"] == request_id, reply
        error = reply.get("error")
        assert error is not None and (error["kind"], error["context"]) == ("serialization", api.SCENARIO_CONTEXT), reply
        assert len(error["message"]) <= MAX_MESSAGE_CHARS
    else:
        assert answer == "bad_request"
        assert reply.get("failure", {}).get("code") == "bad_request", reply
        assert reply["id"] in (request_id, None), reply


SERVED_CLASSES = [bad for bad in CLASSES if not bad.file_only]


@pytest.mark.parametrize("bad", SERVED_CLASSES, ids=[bad.name for bad in SERVED_CLASSES])
def test_a_spoiled_scenario_parameter_gets_the_contract_error(served: Served, bad: BadInput) -> None:
    assert bad.embedded is not None
    for variant in bad.variants(Base(documents.scenario(), api.MAX_SCENARIO_BYTES)):
        line = b'{"id":%d,"op":"build_plan","params":{"scenario":%s}}\n' % (REQUEST_ID, variant.data)
        assert b"\n" not in line[:-1]
        try:
            _check(bad.embedded, bad.expect, served.exchange(line), REQUEST_ID)
        except AssertionError as exc:
            raise AssertionError(f"variant at {variant.where}: {exc}") from None
    assert b"Traceback" not in served.stderr


def _request_id(variant: Variant) -> int | None:
    """The id the spoiled line still carries (``None`` when the spoil is at the id itself)."""
    return None if variant.where[:1] == ("id",) else REQUEST_ID


def _envelope_variants(bad: BadInput) -> list[Variant]:
    """The spoiled request lines: every one outside the scenario, and the first inside it (the scenario
    test tries each depth of the scenario itself)."""
    variants = list(bad.variants(Base(documents.request(REQUEST_ID), DEFAULT_MAX_REQUEST_BYTES, SCENARIO_PATH)))
    inside = [variant for variant in variants if variant.where[:2] == SCENARIO_PATH]
    return [variant for variant in variants if variant.where[:2] != SCENARIO_PATH] + inside[:1]


@pytest.mark.parametrize("bad", SERVED_CLASSES, ids=[bad.name for bad in SERVED_CLASSES])
def test_a_spoiled_request_line_gets_bad_request_or_the_contract_error(served: Served, bad: BadInput) -> None:
    assert bad.embedded is not None
    for variant in _envelope_variants(bad):
        replies = served.exchange(_line(variant))
        try:
            if not variant.data.strip():
                assert replies == [], "a blank line is ignored"
            elif variant.where[:2] == SCENARIO_PATH:
                _check(bad.embedded, bad.expect, replies, REQUEST_ID)
            elif bad.expect is Expect.REFUSED:
                _check("bad_request", bad.expect, replies, REQUEST_ID)
            else:
                assert len(replies) == 1 and replies[0].get("failure", {}).get("code") != "internal", replies
                request_id = _request_id(variant)
                if request_id is not None and replies[0]["id"] is not None:
                    assert replies[0]["id"] == request_id, replies
        except AssertionError as exc:
            raise AssertionError(f"variant at {variant.where}: {exc}") from None
    assert b"Traceback" not in served.stderr


def test_a_line_without_end_over_the_cap_is_refused_and_skipped(served: Served) -> None:
    """A line longer than the request cap is refused once, without being kept, and serving goes on."""
    block = b" " * (1 << 20)
    served.send(b'{"id":5,"op":"describe","params":{}' + block * (DEFAULT_MAX_REQUEST_BYTES >> 20))
    replies = served.exchange(b"}\n")
    assert [reply["failure"]["code"] for reply in replies] == ["bad_request"]
    assert replies[0]["id"] is None
