"""A hostile protocol backend (stdlib only, like a foreign implementation) for the reliability suite.

Usage: ``python hostile_backend.py MODE[+MODE...] PIDFILE`` (modes that do not misbehave on the same
request combine). Every process this program becomes (each
start, and any grandchild it forks) appends ``<pid> <start time>`` to ``PIDFILE`` first, so a
test can check that none outlives the run. It declares ``describe``, ``build_plan`` and
``revalidate``; ``describe`` is answered truthfully and every other request with the
``serialization`` contract error, except where MODE misbehaves (on ``build_plan`` unless the
mode says otherwise). The modes are listed in ``MODES``.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from typing import Any, BinaryIO

TRIGGER = "build_plan"
OPS = ["build_plan", "describe", "revalidate"]
LIMITS = {
    "max_execution_plan_resource_rows": 65536,
    "max_execution_plan_wire_bytes": 16777216,
    "max_prepared_model_family_wire_bytes": 16777216,
    "max_weight_materializers": 64,
}
DEEP = 990
MODES = {
    "ok": "behave",
    "crash": "exit 3 on the trigger",
    "hang": "never answer the trigger",
    "partial-exit": "write half a reply line to the trigger, then exit",
    "partial-hang": "write half a reply line to the trigger, then wait forever",
    "garbage": "answer the trigger with a line that is not JSON",
    "wrong-id": "answer the trigger with another request id",
    "double-immediate": "answer the trigger twice at once",
    "double-late": "answer the trigger, and again right before answering the next request",
    "deep-result": f"answer the trigger with a result nested {DEEP} deep",
    "deep-error": f"answer the trigger with an error object nested {DEEP} deep",
    "deep-describe": f"answer the handshake with a description nested {DEEP} deep",
    "fork-holder": "fork a grandchild that keeps stdout open and sleeps, then exit on the trigger",
    "fork-at-start": "fork a grandchild that keeps stdout open and sleeps when starting, then behave",
    "sigterm-ignored": "ignore SIGTERM and end of input; never answer the trigger",
    "stdout-closed": "close stdout on the trigger and keep running",
    "exit-at-handshake": "exit 1 when the handshake arrives",
    "exit-at-start": "exit 0 before reading anything",
    "hang-at-handshake": "never answer the handshake",
    "banner": "write a greeting line to stdout before the handshake reply",
    "handshake-failure": "answer the handshake with a failure",
    "wrong-protocol": "answer the handshake with protocol 2.0",
    "describe-varying": "answer each describe with another version",
    "identity-per-start": "describe with a new version each start; crash on the trigger",
    "crash-always": "exit 3 on every request but describe and the handshake",
    "stderr-flood": "write 100 MB to stderr while answering the handshake, then behave",
    "stderr-binary": "write invalid UTF-8, control characters and markup to stderr on every request",
    "slow-correct": "write every reply one byte at a time",
    "oversized": "answer the trigger with an 8 MiB line",
    "odd-operations": "list duplicate and oddly named operations in describe",
    "invalid-utf8": "answer the trigger with a line holding invalid UTF-8",
    "not-object": "answer the trigger with a JSON array",
    "unknown-failure": "answer the trigger with a failure whose code is unknown",
    "duplicate-key": "answer the trigger with an envelope repeating its id",
    "nan-result": "answer the trigger with NaN in the result",
    "huge-id": "answer the trigger with the id 2^64",
    "null-id-result": "answer the trigger with a result carrying a null id",
    "bad-error": "answer the trigger with an error object of an unknown kind",
}


def record_pid(path: str) -> None:
    """Append this process's pid and start time (clock ticks since boot) to ``path``."""
    with open(f"/proc/{os.getpid()}/stat", encoding="ascii") as stat:
        start = stat.read().rpartition(")")[2].split()[19]
    with open(path, "a", encoding="ascii") as out:
        out.write(f"{os.getpid()} {start}\n")


def nested(depth: int) -> bytes:
    """JSON text of arrays and objects nested ``depth`` deep (written as text: no encoder recursion)."""
    opening = b"".join(b"[" if level % 2 else b'{"k":' for level in range(depth))
    closing = b"".join(b"]" if level % 2 else b"}" for level in reversed(range(depth)))
    return opening + b"0" + closing


class Raw:
    """JSON text spliced verbatim into a message by ``line``."""

    def __init__(self, text: bytes) -> None:
        self.text = text


def description(version: str, operations: list[str] | None = None) -> dict[str, Any]:
    return {
        "implementation": {"name": "hostile", "version": version, "language": "python"},
        "contract": {
            "crate": "ferrum-interfaces",
            "version": "0.12.2",
            "module": "vnext",
            "plan_schema": {"major": 8, "minor": 1},
        },
        "operations": OPS if operations is None else operations,
        "limits": LIMITS,
    }


def line(message: Any) -> bytes:
    """One compact JSON line; ``Raw`` values are spliced in as they are."""
    spliced: list[bytes] = []

    def mark(value: Any) -> str:
        spliced.append(value.text)
        return f"\u0000raw{len(spliced) - 1}\u0000"

    text = json.dumps(message, separators=(",", ":"), default=mark).encode()
    for index, raw in enumerate(spliced):
        text = text.replace(b'"\\u0000raw%d\\u0000"' % index, raw)
    return text + b"\n"


def send(out: BinaryIO, data: bytes, *, slow: bool = False) -> None:
    if slow:
        for index in range(len(data)):
            out.write(data[index : index + 1])
            out.flush()
            if index % 16 == 0:
                time.sleep(0.0005)
        return
    out.write(data)
    out.flush()


def sleep_forever() -> None:
    while True:
        time.sleep(3600)


def starts(path: str) -> int:
    """How many times this mode started before (kept beside the pid file)."""
    counter = path + ".starts"
    count = 1
    if os.path.exists(counter):
        with open(counter, encoding="ascii") as previous:
            count = int(previous.read()) + 1
    with open(counter, "w", encoding="ascii") as out:
        out.write(str(count))
    return count


def handshake_reply(modes: frozenset[str], rid: Any, version: str) -> bytes:
    protocol = {"major": 2, "minor": 0} if "wrong-protocol" in modes else {"major": 1, "minor": 0}
    backend = description(version)
    if "deep-describe" in modes:
        backend["limits"] = {**LIMITS, "deep": Raw(nested(DEEP))}
    if "odd-operations" in modes:
        backend["operations"] = odd_operations()
    if "handshake-failure" in modes:
        return line({"id": rid, "failure": {"code": "internal", "message": "not today"}})
    return line({"id": rid, "result": {"protocol": protocol, "max_request_bytes": None, "backend": backend}})


def odd_operations() -> list[str]:
    return [
        "describe",
        "describe",
        "build_plan",
        "revalidate",
        "",
        " revalidate",
        "</testcase><x>",
        "\u0000nul",
        "e\u0301",
        "x" * 5000,
    ]


def misbehave(modes: frozenset[str], rid: int, out: BinaryIO) -> bool:
    """Answer the trigger request the way ``modes`` do; False when they answer it normally."""
    if modes & {"crash", "crash-always", "identity-per-start"}:
        sys.stderr.write(f"hostile: crashing on request {rid}\n")
        sys.stderr.flush()
        os._exit(3)
    if modes & {"hang", "sigterm-ignored"}:
        with open(PIDFILE + ".trigger", "w", encoding="ascii") as marker:
            marker.write(str(rid))  # the request is pending now
        sleep_forever()
    if "partial-exit" in modes:
        send(out, b'{"id":%d,"result":{"wire_' % rid)
        os._exit(0)
    if "partial-hang" in modes:
        send(out, b'{"id":%d,"result":{"wire_' % rid)
        sleep_forever()
    if "fork-holder" in modes:
        if os.fork() == 0:
            record_pid(PIDFILE)
            sleep_forever()
        time.sleep(0.2)
        os._exit(4)
    if "stdout-closed" in modes:
        out.close()
        os.close(1)
        sleep_forever()
    replies = {
        "garbage": b"this is not json\n",
        "wrong-id": line({"id": rid + 1000, "result": {}}),
        "deep-result": line({"id": rid, "result": {"wire_base64": Raw(nested(DEEP))}}),
        "deep-error": line(
            {"id": rid, "error": {"kind": "serialization", "context": "decode scenario", "message": Raw(nested(DEEP))}}
        ),
        "invalid-utf8": b'{"id":%d,"error":{"kind":"serialization","context":"decode scenario","message":"\xff\xfe"}}\n'
        % rid,
        "not-object": b"[%d]\n" % rid,
        "unknown-failure": line({"id": rid, "failure": {"code": "on_fire", "message": "the backend is on fire"}}),
        "duplicate-key": b'{"id":%d,"id":%d,"error":{"kind":"serialization","context":"x","message":"y"}}\n'
        % (rid, rid),
        "nan-result": b'{"id":%d,"result":{"wire_base64":NaN}}\n' % rid,
        "huge-id": b'{"id":18446744073709551616,"result":{}}\n',
        "null-id-result": b'{"id":null,"result":{}}\n',
        "bad-error": line({"id": rid, "error": {"kind": "no_such_kind", "message": "x"}}),
    }
    for name in sorted(modes & set(replies)):
        send(out, replies[name])
        return True
    if "oversized" in modes:
        out.write(b'{"id":%d,"result":{"wire_base64":"' % rid)
        for _ in range(8):
            out.write(b"A" * (1 << 20))
        out.write(b'"}}\n')
        out.flush()
        return True
    return False


def contract_error(rid: int) -> bytes:
    return line({"id": rid, "error": {"kind": "serialization", "context": "decode scenario", "message": "hostile"}})


PIDFILE = ""


def main() -> int:
    global PIDFILE
    PIDFILE = sys.argv[2]
    modes = frozenset(sys.argv[1].split("+"))
    if not modes <= set(MODES):
        sys.stderr.write(f"hostile: unknown mode in {sys.argv[1]!r}\n")
        return 2
    record_pid(PIDFILE)
    if "sigterm-ignored" in modes:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    if "exit-at-start" in modes:
        return 0
    if "fork-at-start" in modes and os.fork() == 0:
        record_pid(PIDFILE)
        sleep_forever()
    out = sys.stdout.buffer
    version = f"1.0.{starts(PIDFILE)}" if "identity-per-start" in modes else "1.0.0"
    describes = 0
    late: bytes | None = None
    slow = "slow-correct" in modes
    for raw in sys.stdin.buffer:
        request = json.loads(raw)
        rid, op = request["id"], request["op"]
        if "stderr-binary" in modes:
            sys.stderr.buffer.write(b"\xff\xfe\x00\x1b[31m</failure>]]>&amp;\r\n")
            sys.stderr.flush()
        if late is not None:
            send(out, late)
            late = None
        if op == "handshake":
            if "exit-at-handshake" in modes:
                sys.stderr.write("hostile: refusing the handshake\n")
                sys.stderr.flush()
                return 1
            if "hang-at-handshake" in modes:
                sleep_forever()
            if "banner" in modes:
                send(out, b"hostile backend ready\n")
            if "stderr-flood" in modes:
                block = b"e" * (1 << 20)
                for _ in range(100):
                    sys.stderr.buffer.write(block)
                sys.stderr.flush()
            send(out, handshake_reply(modes, rid, version), slow=slow)
            continue
        if op == "describe":
            describes += 1
            answer = description(f"1.0.{describes}" if "describe-varying" in modes else version)
            if "odd-operations" in modes:
                answer["operations"] = odd_operations()
            send(out, line({"id": rid, "result": answer}), slow=slow)
            continue
        if (op == TRIGGER or "crash-always" in modes) and misbehave(modes, rid, out):
            continue
        reply = contract_error(rid)
        if op == TRIGGER and "double-immediate" in modes:
            reply += reply
        if op == TRIGGER and "double-late" in modes:
            late = reply
        send(out, reply, slow=slow)
    if "sigterm-ignored" in modes:
        sleep_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main())
