"""A standalone protocol backend for fault injection (stdlib only, like a foreign implementation).

Usage: ``python fake_exec_backend.py MODE [ARG]``. Every request it serves is
answered with the ``serialization`` contract error, except ``describe``.

Modes:
  ok                      behave
  crash-on OP             exit 3 (after a line on stderr) when OP is requested
  crash-once OP FILE      crash on the first OP request only (FILE remembers it across restarts)
  hang-on OP              never answer OP
  garbage-on OP           answer OP with a non-JSON line
  wrong-id-on OP          answer OP with another request id
  huge-on OP              answer OP with a 100 MB line
  bad-error-on OP         answer OP with an invalid error object
  not-implemented-on OP   answer OP with failure not_implemented
  exit-at-handshake       exit 1 when the handshake arrives
  hang-at-handshake       never answer the handshake
  wrong-protocol          answer the handshake with protocol 2.0
  stderr-noise            write a line to stderr for every request
  slow-reply              write each reply a few bytes at a time
  identity-per-start FILE each start describes itself with a new version
"""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Any

OPS = ["build_plan", "describe", "revalidate"]
LIMITS = {
    "max_execution_plan_resource_rows": 65536,
    "max_execution_plan_wire_bytes": 16777216,
    "max_prepared_model_family_wire_bytes": 16777216,
    "max_weight_materializers": 64,
}


def description(version: str = "1.0.0") -> dict[str, Any]:
    return {
        "implementation": {"name": "fake-exec", "version": version, "language": "python"},
        "contract": {
            "crate": "ferrum-interfaces",
            "version": "0.12.2",
            "module": "vnext",
            "plan_schema": {"major": 8, "minor": 1},
        },
        "operations": OPS,
        "limits": LIMITS,
    }


def send(out: Any, message: dict[str, Any], slow: bool = False) -> None:
    data = (json.dumps(message, separators=(",", ":")) + "\n").encode()
    if slow:
        for i in range(0, len(data), 7):
            out.write(data[i : i + 7])
            out.flush()
            time.sleep(0.001)
    else:
        out.write(data)
        out.flush()


def main() -> int:
    mode = sys.argv[1] if len(sys.argv) > 1 else "ok"
    arg = sys.argv[2] if len(sys.argv) > 2 else ""
    extra = sys.argv[3] if len(sys.argv) > 3 else ""
    out = sys.stdout.buffer
    version = "1.0.0"
    if mode == "identity-per-start":
        starts = 1
        if os.path.exists(arg):
            with open(arg) as handle:
                starts = int(handle.read()) + 1
        with open(arg, "w") as handle:
            handle.write(str(starts))
        version = f"1.0.{starts}"
    for line in sys.stdin.buffer:
        request = json.loads(line)
        rid, op = request["id"], request["op"]
        slow = mode == "slow-reply"
        if mode == "stderr-noise":
            sys.stderr.write(f"fake: serving {op} #{rid}\n")
            sys.stderr.flush()
        if op == "handshake":
            if mode == "exit-at-handshake":
                sys.stderr.write("fake: refusing the handshake\n")
                sys.stderr.flush()
                return 1
            if mode == "hang-at-handshake":
                time.sleep(3600)
            protocol = {"major": 2, "minor": 0} if mode == "wrong-protocol" else {"major": 1, "minor": 0}
            send(
                out,
                {
                    "id": rid,
                    "result": {"protocol": protocol, "max_request_bytes": None, "backend": description(version)},
                },
                slow,
            )
            continue
        if op == "describe":
            send(out, {"id": rid, "result": description(version)}, slow)
            continue
        if op == arg:
            if mode == "crash-on" or (mode == "crash-once" and not os.path.exists(extra)):
                if mode == "crash-once":
                    open(extra, "w").close()
                sys.stderr.write(f"fake: crashing on {op}\n")
                sys.stderr.flush()
                os._exit(3)
            if mode == "hang-on":
                time.sleep(3600)
            if mode == "garbage-on":
                out.write(b"this is not json\n")
                out.flush()
                continue
            if mode == "wrong-id-on":
                send(out, {"id": rid + 1000, "result": {}})
                continue
            if mode == "huge-on":
                out.write(b'{"id":%d,"result":{"wire_base64":"' % rid)
                block = b"A" * (1 << 20)
                for _ in range(100):
                    out.write(block)
                out.write(b'"}}\n')
                out.flush()
                continue
            if mode == "bad-error-on":
                send(out, {"id": rid, "error": {"kind": "no_such_kind", "message": "x"}})
                continue
            if mode == "not-implemented-on":
                send(out, {"id": rid, "failure": {"code": "not_implemented", "message": "later"}})
                continue
        error = {"kind": "serialization", "context": "decode scenario", "message": "fake backend"}
        send(out, {"id": rid, "error": error}, slow)
    return 0


if __name__ == "__main__":
    sys.exit(main())
