"""A complete protocol server in plain Python (standard library only): the smallest ``exec:`` backend.

Run the conformance suites against it::

    vnext-conformance run --backend "exec:python3 -m harness.examples.stdlib_server"

It implements ``describe`` only, so every case that needs a planning operation is *not
applicable* and the run fails its level check (``--require planning`` by default): the report
says what to implement first. Copy it (or port it to your language), then answer ``build_plan``
and ``revalidate`` with your planner. harness/PROTOCOL.md is the full specification.
"""

from __future__ import annotations

import json
import sys
from typing import Any

#: What this backend says about itself (harness/PROTOCOL.md §5.1).
DESCRIPTION: dict[str, Any] = {
    "implementation": {"name": "stdlib-example", "version": "0.1.0", "language": "python"},
    "contract": {
        "crate": "ferrum-interfaces",
        "version": "0.12.2",
        "module": "vnext",
        "plan_schema": {"major": 8, "minor": 1},
    },
    "operations": ["describe"],
    "limits": {
        "max_execution_plan_resource_rows": 65536,
        "max_execution_plan_wire_bytes": 16777216,
        "max_prepared_model_family_wire_bytes": 16777216,
        "max_weight_materializers": 64,
    },
}
MAX_REQUEST_BYTES = 64 * 1024 * 1024


def reply(message: dict[str, Any]) -> None:
    """One reply line on stdout (compact JSON, newline-terminated), flushed at once."""
    sys.stdout.write(json.dumps(message, separators=(",", ":")) + "\n")
    sys.stdout.flush()


def failure(request_id: int | None, code: str, message: str) -> None:
    reply({"id": request_id, "failure": {"code": code, "message": message}})


def answer(request: dict[str, Any], handshaken: bool) -> bool:
    """Answer one request; whether the handshake has succeeded."""
    request_id, op, params = request.get("id"), request.get("op"), request.get("params")
    if not isinstance(request_id, int) or not isinstance(op, str) or not isinstance(params, dict):
        failure(request_id if isinstance(request_id, int) else None, "bad_request", "malformed request")
        return handshaken
    if op == "handshake":
        if params.get("protocol", {}).get("major") != 1:
            failure(request_id, "bad_request", "this server speaks protocol 1.x")
            return False
        result = {"protocol": {"major": 1, "minor": 0}, "max_request_bytes": MAX_REQUEST_BYTES, "backend": DESCRIPTION}
        reply({"id": request_id, "result": result})
        return True
    if not handshaken:
        failure(request_id, "handshake_required", "the first request must be the handshake")
    elif op == "describe":
        reply({"id": request_id, "result": DESCRIPTION})
    else:
        # A contract error would be: reply({"id": request_id, "error": {"kind": "serialization",
        #     "context": "decode scenario", "message": "..."}})
        failure(request_id, "not_implemented", f"{op} is not implemented yet")
    return handshaken


def main() -> int:
    handshaken = False
    for line in sys.stdin.buffer:  # end of input means exit
        if len(line) > MAX_REQUEST_BYTES:
            failure(None, "bad_request", "request line too long")
            continue
        if not line.strip():
            continue
        try:
            request = json.loads(line)
        except ValueError:
            failure(None, "bad_request", "request is not JSON")
            continue
        if not isinstance(request, dict):
            failure(None, "bad_request", "request must be a JSON object")
            continue
        handshaken = answer(request, handshaken)
    return 0


if __name__ == "__main__":
    sys.exit(main())
