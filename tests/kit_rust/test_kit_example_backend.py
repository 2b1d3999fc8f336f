"""The example backend built on the Rust kit, through the harness and on the raw protocol.

* describe only: ``vnext-conformance run`` passes exactly the cases that need no operation and
  reports every other case *not applicable*;
* forwarding to the reference server: every case of the selected suites passes, so the kit's
  loop, params, results and error objects carry the protocol exactly;
* the raw protocol: only reply lines on stdout, one per request, blank lines ignored,
  exit 0 at end of input, schema-valid handshake, describe, error and failure replies.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

import schemas
from conformance.corpus import corpus_paths
from harness.backends import connect
from harness.connection.client import Client
from harness.identity import CONTRACT_LIMITS
from harness.protocol.envelope import decode_reply
from harness.protocol.operations import OPERATIONS

from .kit import HANDSHAKE, PYTHON, ROOT, child_env, serve_argv

RUN_TIMEOUT_S = 600.0
#: The suites the forwarding run covers: describe, the corpus, families/catalogs, weights, vectors.
FORWARDED_SUITES = ("describe", "corpus", "family_catalog", "weights", "contract_vectors")


def conformance_run(tmp_path: Path, backend: str, suites: tuple[str, ...]) -> tuple[int, list[dict[str, Any]]]:
    report = tmp_path / "report.jsonl"
    argv = [PYTHON, "-m", "harness.cli", "run", "--backend", backend, "--profile", "ci", "--report-json", str(report)]
    for suite in suites:
        argv += ["--only", suite]
    proc = subprocess.run(
        argv, cwd=tmp_path, env=child_env(), capture_output=True, text=True, timeout=RUN_TIMEOUT_S, check=False
    )
    assert report.is_file(), proc.stdout[-3000:] + proc.stderr[-3000:]
    records = [json.loads(line) for line in report.read_text(encoding="utf-8").splitlines() if line.strip()]
    return proc.returncode, records


def case_outcomes(records: list[dict[str, Any]]) -> dict[str, str]:
    return {r["case_id"]: r["outcome"] for r in records if r["record"] == "case"}


def test_describe_only_passes_what_needs_no_operation(tmp_path: Path, kit_example: Path) -> None:
    """Everything that needs no planning operation passes; the run fails only its level check (a describe-only
    backend never passes a default run, which requires the planning level)."""
    status, records = conformance_run(tmp_path, f"exec:{kit_example}", ("describe", "corpus", "family_catalog"))
    outcomes = case_outcomes(records)
    assert outcomes.pop("describe/test_backend_reaches_the_required_level") == "failed"
    declared = {
        f"describe/test_declared_operation_answers_its_probe_with_a_contract_error[{op}]"
        for op in OPERATIONS
        if op != "describe"
    }
    bundles = {f"corpus/test_bundle[{path.stem}]" for path in corpus_paths()}
    limits = {f"describe/test_contract_limit[{name}]" for name in CONTRACT_LIMITS}
    expected_na = declared | bundles | {case for case in outcomes if case.startswith("family_catalog/")}
    assert {case for case, outcome in outcomes.items() if outcome == "not_applicable"} == expected_na
    passed = {case for case, outcome in outcomes.items() if outcome == "passed"}
    assert passed == set(outcomes) - expected_na
    assert limits | {"corpus/test_corpus_integrity", "describe/test_operations_are_well_formed"} <= passed
    assert len(bundles) >= 30 and any(case.startswith("family_catalog/") for case in outcomes)
    header, footer = records[0], records[-1]
    assert header["backend"]["description"]["operations"] == ["describe"]
    assert header["backend"]["description"]["implementation"]["language"] == "rust"
    assert (footer["totals"]["failed"], footer["totals"]["error"]) == (1, 0)
    assert status == 1


def test_forwarding_to_the_reference_passes_every_case(tmp_path: Path, kit_example: Path) -> None:
    backend = "exec:" + " ".join([str(kit_example), "--forward", *serve_argv()])
    status, records = conformance_run(tmp_path, backend, FORWARDED_SUITES)
    outcomes = case_outcomes(records)
    assert {r["suite"] for r in records if r["record"] == "case"} == set(FORWARDED_SUITES)
    failed = {case: outcome for case, outcome in outcomes.items() if outcome != "passed"}
    assert not failed
    assert len(outcomes) >= 60
    description = records[0]["backend"]["description"]
    assert description["implementation"]["name"] == "vnext-kit-example"
    assert description["operations"] == list(connect("reference").describe().operations)
    assert status == 0


def exchange(argv: list[str], lines: list[bytes]) -> tuple[int, list[bytes], str]:
    proc = subprocess.run(
        argv,
        input=b"".join(line + b"\n" for line in lines),
        capture_output=True,
        env=child_env(),
        timeout=RUN_TIMEOUT_S,
        check=False,
    )
    return proc.returncode, proc.stdout.splitlines(), proc.stderr.decode(errors="replace")


def request(rid: int, op: str, params: dict[str, Any]) -> bytes:
    return json.dumps({"id": rid, "op": op, "params": params}).encode()


def test_the_raw_protocol(kit_example: Path) -> None:
    status, replies, _ = exchange(
        [str(kit_example)],
        [
            request(5, "describe", {}),
            json.dumps(HANDSHAKE).encode(),
            b"",
            b"   ",
            request(1, "describe", {}),
            request(2, "build_plan", {"scenario": {}}),
            b"{not json",
            request(3, "handshake", {"protocol": {"major": 2, "minor": 0}}),
        ],
    )
    assert status == 0
    parsed = [decode_reply(line) for line in replies]
    assert [(r.request_id, r.kind) for r in parsed] == [
        (5, "failure"),
        (0, "result"),
        (1, "result"),
        (2, "failure"),
        (None, "failure"),
        (3, "failure"),
    ]
    assert [r.body.get("code") for r in parsed if r.kind == "failure"] == [
        "handshake_required",
        "not_implemented",
        "bad_request",
        "bad_request",
    ]
    handshake = parsed[1].body
    result_schema = {"$ref": schemas.SCHEMA_URN_PREFIX + "protocol/handshake.json#/$defs/result"}
    Draft202012Validator(result_schema, registry=schemas.registry()).validate(handshake)
    schemas.validate("protocol/describe.json", parsed[2].body)
    assert handshake["backend"] == parsed[2].body
    for line in replies:
        schemas.validate("protocol/reply.json", json.loads(line))


def test_forwarded_errors_are_schema_valid_error_objects(kit_example: Path) -> None:
    """Contract errors cross the kit as typed VNextErrors and come out as the error objects of error.json."""
    plan = next(p for p in corpus_paths() if p.stem == "seed_plan_fixture_0")
    scenario = json.loads(plan.read_bytes())["params"]["scenario"]
    bad_identity = json.loads(json.dumps(scenario))
    bad_identity["catalog"]["device"]["id"] = "not portable"
    status, replies, stderr = exchange(
        [str(kit_example), "--forward", *serve_argv()],
        [
            json.dumps(HANDSHAKE).encode(),
            request(1, "build_plan", {"scenario": {}}),
            request(2, "revalidate", {"scenario": {}, "wire_base64": "AAE="}),
            request(3, "build_plan", {"scenario": bad_identity}),
            request(4, "fingerprint_catalog", {"scenario": scenario}),
        ],
    )
    assert status == 0, stderr
    parsed = [decode_reply(line) for line in replies]
    assert [r.kind for r in parsed] == ["result", "error", "error", "error", "result"]
    for line in replies:
        schemas.validate("protocol/reply.json", json.loads(line))
    reference = connect("reference")
    assert parsed[1].error() == _reference_error(reference, "build_plan", {})
    assert parsed[3].error() == _reference_error(reference, "build_plan", bad_identity)
    assert parsed[4].body == {"fingerprint": reference.fingerprint_catalog(scenario)}


def _reference_error(reference: Client, op: str, scenario: dict[str, Any]) -> Any:
    try:
        getattr(reference, op)(scenario)
    except Exception as exc:
        return exc
    raise AssertionError(f"the reference accepted {op}")


def test_the_forwarder_reports_a_server_that_cannot_start(kit_example: Path) -> None:
    status, replies, stderr = exchange([str(kit_example), "--forward", str(ROOT / "no-such-server")], [])
    assert status != 0
    assert replies == []
    assert "cannot start" in stderr
