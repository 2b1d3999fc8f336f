"""The three protocol points PROTOCOL.md settles (decisions R-9..R-11 in docs/decisions/18-rust-kit.md).

* ``describe.limits`` must hold the four contract limits; an empty map fails the describe suite;
* blank request lines are ignored by every server: the reference's and the kit's;
* the protocol schemas' references outside ``schemas/protocol/`` resolve by ``$id`` in ``schemas/``.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import schemas
from harness.backends import connect
from harness.identity import CONTRACT_LIMITS
from harness.protocol.envelope import decode_reply

from .kit import HANDSHAKE, PYTHON, ROOT, binary, child_env, serve_argv

TIMEOUT_S = 300.0


def _refs(value: Any) -> Iterator[str]:
    if isinstance(value, dict):
        for key, item in value.items():
            if key == "$ref" and isinstance(item, str):
                yield item
            else:
                yield from _refs(item)
    elif isinstance(value, list):
        for item in value:
            yield from _refs(item)


def test_protocol_schema_references_resolve_in_the_schemas_tree() -> None:
    outside = set()
    for name in schemas.names():
        if not name.startswith("protocol/"):
            continue
        resolver = schemas.registry().resolver(base_uri=schemas.load(name)["$id"])
        for ref in _refs(schemas.load(name)):
            target = ref.split("#")[0]
            if target and not target.startswith(schemas.SCHEMA_URN_PREFIX + "protocol/"):
                outside.add(target.removeprefix(schemas.SCHEMA_URN_PREFIX))
            resolver.lookup(ref)  # raises when a reference does not resolve
    assert {"common.json", "error.json"} <= outside
    for target in outside:
        assert (ROOT / "schemas" / target).is_file(), target


def test_an_empty_limits_map_is_well_formed_but_fails_the_describe_suite(tmp_path: Path) -> None:
    """``limits`` must hold every contract limit: ``{}`` passes the schema, then fails exactly the
    describe suite's ``test_contract_limit`` cases."""
    schemas.validate("protocol/describe.json", {**connect("reference").describe().to_wire(), "limits": {}})
    report = tmp_path / "report.jsonl"
    options = ["--only", "describe", "--profile", "ci", "--report-json", str(report)]
    proc = subprocess.run(
        [PYTHON, "-m", "harness.cli", "run", "--backend", "python:tests.kit_rust.limitless_backend:backend", *options],
        cwd=ROOT,
        env=child_env(),
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        check=False,
    )
    records = [json.loads(line) for line in report.read_text(encoding="utf-8").splitlines()]
    failed = {r["case_id"] for r in records if r["record"] == "case" and r["outcome"] == "failed"}
    assert failed == {f"describe/test_contract_limit[{name}]" for name in CONTRACT_LIMITS}, proc.stdout[-2000:]
    assert proc.returncode != 0


def _servers() -> list[Any]:
    return [
        pytest.param("reference", id="reference-serve"),
        pytest.param("kit", id="kit-example"),
    ]


@pytest.mark.parametrize("server", _servers())
def test_blank_lines_get_no_reply(server: str) -> None:
    argv = serve_argv() if server == "reference" else [str(binary("vnext-kit-example"))]
    lines = [json.dumps(HANDSHAKE).encode(), b"", b"  \t", b"\r", b'{"id":1,"op":"describe","params":{}}', b""]
    proc = subprocess.run(
        argv,
        input=b"".join(line + b"\n" for line in lines),
        capture_output=True,
        env=child_env(),
        timeout=TIMEOUT_S,
        check=False,
        cwd=Path(ROOT),
    )
    assert proc.returncode == 0
    replies = [decode_reply(line) for line in proc.stdout.splitlines()]
    assert [(r.request_id, r.kind) for r in replies] == [(0, "result"), (1, "result")]
