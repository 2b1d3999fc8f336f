"""``build``, ``revalidate`` and ``hash``: the reference's plan tools on files.

``build`` and ``revalidate`` print the typed error object ``{"kind": ...}`` on stdout and exit 1
on a contract rejection; ``hash`` exits 1 when the wire is inconsistent. Inputs are read with
their size bound applied while reading, then decoded strictly.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, Final

from harness.cli.exits import Exit
from harness.cli.inputs import InputError, read_input
from reference import api
from reference.canonical import canonical_bytes, loads_strict, sha256_hex
from reference.errors import Serialization, VNextError

__all__ = ["HASH_CONTEXT", "build", "hash_wire", "revalidate", "wire_hash_report"]

HASH_CONTEXT: Final = "hash execution plan wire"
_SCENARIO_CONTEXT: Final = "decode scenario"
_PLAN_CONTEXT: Final = "decode untrusted execution plan"
_MAX_PLAN: Final = api.LIMITS["max_execution_plan_wire_bytes"]


def _print_json(value: Any) -> None:
    print(json.dumps(value, sort_keys=False, separators=(",", ":"), ensure_ascii=False))


def _usage(exc: InputError) -> int:
    print(f"vnext-conformance: {exc}", file=sys.stderr)
    return Exit.USAGE


def build(args: argparse.Namespace) -> int:
    try:
        data = read_input(args.scenario, max_bytes=api.MAX_SCENARIO_BYTES, context=_SCENARIO_CONTEXT)
        wire = api.build_plan(api.parse_scenario(data))
    except InputError as exc:
        return _usage(exc)
    except VNextError as exc:
        _print_json(exc.to_dict())
        return Exit.FAILED
    sys.stdout.flush()
    sys.stdout.buffer.write(wire)
    sys.stdout.buffer.flush()
    return Exit.PASSED


def revalidate(args: argparse.Namespace) -> int:
    try:
        # The wire is decoded before the scenario is read: a decode-stage rejection never
        # depends on the scenario file.
        wire = read_input(args.plan, max_bytes=_MAX_PLAN, context=_PLAN_CONTEXT)
        scenario_data = read_input(args.scenario, max_bytes=api.MAX_SCENARIO_BYTES, context=_SCENARIO_CONTEXT)
        api.decode_untrusted(wire)
        plan_hash = api.revalidate(api.parse_scenario(scenario_data), wire)
    except InputError as exc:
        return _usage(exc)
    except VNextError as exc:
        _print_json(exc.to_dict())
        return Exit.FAILED
    _print_json({"plan_hash": plan_hash})
    return Exit.PASSED


def wire_hash_report(data: bytes) -> dict[str, Any]:
    """Recompute a wire's plan hash independently of any typed decoder (01 §3.6, 05 §8.2).

    ``plan_hash`` = sha256 of the canonical bytes of ``payload`` without ``plan_id``; the report
    says whether the wire's ``plan_hash`` and ``payload.plan_id`` match it. A wire that is not
    strict JSON ``{"payload": {...}, ...}`` is ``Serialization``.
    """
    raw = loads_strict(data, context=HASH_CONTEXT, max_bytes=_MAX_PLAN)
    if not isinstance(raw, dict) or not isinstance(raw.get("payload"), dict):
        raise Serialization(HASH_CONTEXT, "$.payload: missing or not a JSON object")
    payload = raw["payload"]
    digest = sha256_hex(canonical_bytes({k: v for k, v in payload.items() if k != "plan_id"}, context=HASH_CONTEXT))
    carried_hash, carried_id = raw.get("plan_hash"), payload.get("plan_id")
    return {
        "plan_hash": digest,
        "wire_plan_hash": carried_hash,
        "wire_plan_id": carried_id,
        "plan_hash_matches": carried_hash == digest,
        "plan_id_matches": carried_id == "plan/sha256/" + digest,
    }


def hash_wire(args: argparse.Namespace) -> int:
    try:
        report = wire_hash_report(read_input(args.plan, max_bytes=_MAX_PLAN, context=HASH_CONTEXT))
    except InputError as exc:
        return _usage(exc)
    except VNextError as exc:
        _print_json(exc.to_dict())
        return Exit.FAILED
    _print_json(report)
    return Exit.PASSED if report["plan_hash_matches"] and report["plan_id_matches"] else Exit.FAILED
