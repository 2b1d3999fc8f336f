"""End to end: ``vnext-conformance run/replay/describe/serve`` in child processes."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

import schemas
from harness.bundles import Bundle, write_bundle
from harness.cli.commands import build_parser, pytest_args

from .helpers import ROOT, cases, fake_spec, read_jsonl, run_cli, serve_spec

FAKE = "python:tests.harness.fake_backends"


def run(tmp_path: Path, backend: str, *extra: str) -> tuple[int, list[dict[str, Any]], ET.Element, str]:
    report, junit = tmp_path / "r.jsonl", tmp_path / "j.xml"
    proc = run_cli(
        "run",
        "--backend",
        backend,
        "--profile",
        "ci",
        "--report-json",
        str(report),
        "--junit-xml",
        str(junit),
        "--counterexample-dir",
        str(tmp_path / "cx"),
        *extra,
        cwd=ROOT,
    )
    assert report.exists(), proc.stdout + proc.stderr
    assert junit.exists(), proc.stdout + proc.stderr
    assert f"generated xml file: {junit}" in proc.stdout and ".partial" not in proc.stdout, proc.stdout
    records = read_jsonl(report)
    validator = schemas.validator("protocol/report.json")
    for record in records:
        validator.validate(record)
    assert records[0]["record"] == "header" and records[-1]["record"] == "footer"
    return proc.returncode, records, ET.parse(junit).getroot(), proc.stdout + proc.stderr


def junit_properties(root: ET.Element) -> dict[str, str]:
    return {
        p.get("name", ""): p.get("value", "") for p in root.iter("property") if p.get("name", "").startswith("vnext.")
    }


def outcomes(records: list[dict[str, Any]]) -> dict[str, str]:
    return {case_id: record["outcome"] for case_id, record in cases(records).items()}


#: Fast suites that together send every operation but ``execute``; the long generated suites run in CI's full runs.
SAME_RESULT_SUITES = (
    "describe",
    "contract_vectors",
    "corpus",
    "family_catalog",
    "weights",
    "plan_wire_matrix",
    "identities",
    "compile_plan",
    "family_revalidation",
    "device_runtime",
    "catalog_operations",
)


def test_reference_in_process_and_over_exec_give_the_same_results(tmp_path: Path) -> None:
    only = [arg for suite in SAME_RESULT_SUITES for arg in ("--only", suite)]
    code_a, rec_a, xml_a, out_a = run(tmp_path / "a", "reference", "-n", "2", *only)
    code_b, rec_b, xml_b, out_b = run(tmp_path / "b", serve_spec(), *only)
    assert code_a == 0, out_a
    assert code_b == 0, out_b
    assert outcomes(rec_a) == outcomes(rec_b)
    assert "passed" in outcomes(rec_a).values()
    assert rec_a[0]["backend"]["description"] == rec_b[0]["backend"]["description"]
    assert rec_a[-1]["totals"] == rec_b[-1]["totals"] and rec_a[-1]["complete"] is True
    props = junit_properties(xml_a)
    assert props["vnext.backend.name"] == "vnext-conformance-reference"
    assert props["vnext.contract.version"] == "0.12.2" and props["vnext.contract.plan_schema"] == "8.1"
    assert junit_properties(xml_b)["vnext.backend.spec"].startswith("exec:")
    assert "vnext-conformance summary" in out_a and "result: PASSED" in out_a


@pytest.mark.parametrize(
    ("mode", "fault"),
    [
        (("crash-on", "build_plan"), "crash"),
        (("hang-on", "build_plan"), "timeout"),
        (("garbage-on", "build_plan"), "malformed_reply"),
        (("wrong-id-on", "build_plan"), "wrong_reply_id"),
        (("huge-on", "build_plan"), "oversized_reply"),
    ],
)
def test_faults_during_calls_are_reported_and_the_run_goes_on(
    tmp_path: Path, mode: tuple[str, ...], fault: str
) -> None:
    code, records, root, out = run(
        tmp_path, fake_spec(*mode), "--only", "describe", "--call-timeout", "1", "--max-reply-bytes", "1048576"
    )
    assert code == 1, out
    by_case = cases(records)
    hit = by_case["describe/test_declared_operation_answers_its_probe_with_a_contract_error[build_plan]"]
    assert hit["outcome"] == "failed"
    assert [f["kind"] for f in hit["faults"]] == [fault]
    assert hit["reproduce"].startswith("vnext-conformance run --backend")
    # the run kept going: the cases after the fault still ran against the restarted backend
    assert by_case["describe/test_describe_is_stable"]["outcome"] == "passed"
    assert (
        by_case["describe/test_declared_operation_answers_its_probe_with_a_contract_error[revalidate]"]["outcome"]
        == "passed"
    )
    assert records[-1]["backend_faults"] == {fault: 1}
    assert int(root.find("testsuite").get("failures")) >= 1  # type: ignore[union-attr, arg-type]
    if fault == "crash":
        assert "crashing on build_plan" in hit["backend_stderr"]
    assert f"backend faults: {fault} x1" in out


@pytest.mark.parametrize(
    ("mode", "fault"), [(("exit-at-handshake",), "handshake_failed"), (("wrong-protocol",), "protocol_mismatch")]
)
def test_a_backend_that_cannot_connect_stops_the_run_and_still_writes_both_reports(
    tmp_path: Path, mode: tuple[str, ...], fault: str
) -> None:
    code, records, root, out = run(tmp_path, fake_spec(*mode), "--only", "describe")
    assert code == 3, out  # backend unavailable
    assert records[0]["backend"]["error"]["kind"] == fault
    assert records[0]["backend"]["description"] is None
    results = outcomes(records)
    assert set(results.values()) <= {"error"}  # at most the case that was running when the run stopped
    for record in cases(records).values():
        assert {f["kind"] for f in record["faults"]} <= {fault, "unavailable"} and record["faults"]
    assert records[-1]["complete"] is False and records[-1]["stopped"]["kind"] == "unavailable"
    assert records[-1]["backend_faults"].get(fault) == 1
    assert junit_properties(root)["vnext.backend.error"]


def test_expectation_manifest_semantics(tmp_path: Path) -> None:
    manifest = tmp_path / "expect.json"
    entry = {"reason": "known", "issue": None, "expires": "2030-01-31"}
    manifest.write_text(
        json.dumps(
            {
                "manifest_version": 1,
                "backend": "fake-full",
                "cases": {
                    "describe/test_contract_limit[max_execution_plan_wire_bytes]": {"status": "xfail", **entry},
                    "describe/test_operations_are_well_formed": {"status": "xfail", **entry},
                    "describe/test_describe_is_stable": {"status": "xfail", **dict(entry, expires="2020-01-01")},
                    "describe/test_plan_schema_is_the_contract_schema": {"status": "skip", **entry},
                    "nope/test_missing": {"status": "xfail", **entry},
                },
            }
        )
    )
    code, records, _, out = run(
        tmp_path,
        f"{FAKE}:make_wrong_limits",
        "--only",
        "describe",
        "--expectations",
        str(manifest),
        "--expectations-today",
        "2025-06-01",
    )
    assert code == 1, out
    results = outcomes(records)
    assert results["describe/test_contract_limit[max_execution_plan_wire_bytes]"] == "xfailed"
    assert results["describe/test_operations_are_well_formed"] == "failed"  # strict XPASS
    assert results["describe/test_describe_is_stable"] in ("failed", "error")  # expired
    assert "expired" in cases(records)["describe/test_describe_is_stable"]["message"]
    assert results["describe/test_plan_schema_is_the_contract_schema"] == "skipped"
    assert results["expectations/unknown[nope/test_missing]"] == "failed"
    assert results["describe/test_contract_limit[max_weight_materializers]"] == "passed"


def test_a_justified_xfail_keeps_the_run_green(tmp_path: Path) -> None:
    manifest = tmp_path / "expect.json"
    manifest.write_text(
        json.dumps(
            {
                "manifest_version": 1,
                "backend": "fake-full",
                "cases": {
                    "describe/test_contract_limit[max_execution_plan_wire_bytes]": {
                        "status": "xfail",
                        "reason": "r",
                        "issue": "https://x/1",
                        "expires": "2030-01-31",
                    }
                },
            }
        )
    )
    code, records, _, out = run(
        tmp_path,
        f"{FAKE}:make_wrong_limits",
        "--only",
        "describe",
        "--expectations",
        str(manifest),
        "--expectations-today",
        "2025-06-01",
        "--require",
        "describe",
    )
    assert code == 0, out
    assert records[-1]["totals"]["xfailed"] == 1
    code2, _, _, out2 = run(
        tmp_path / "again", f"{FAKE}:make_wrong_limits", "--only", "describe", "--require", "describe"
    )
    assert code2 == 1, out2


def test_only_skip_and_case_select_cases(tmp_path: Path) -> None:
    _, records, _, _ = run(tmp_path / "only", "reference", "--only", "corpus")
    assert {r["suite"] for r in cases(records).values()} == {"corpus"}
    _, records, _, _ = run(tmp_path / "skip", "reference", "--only", "describe", "--only", "corpus", "--skip", "corpus")
    assert {r["suite"] for r in cases(records).values()} == {"describe"}
    _, records, _, _ = run(tmp_path / "case", "reference", "--case", "describe/test_describe_is_stable")
    assert list(cases(records)) == ["describe/test_describe_is_stable"]


def test_usage_errors(tmp_path: Path) -> None:
    assert run_cli("run", "--only", "no-such-suite", cwd=ROOT).returncode == 2
    assert run_cli("run", "--backend", "ssh:x", cwd=ROOT).returncode == 2
    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    proc = run_cli("run", "--expectations", str(bad), "--only", "describe", cwd=ROOT)
    assert proc.returncode == 2, proc.stdout + proc.stderr


def test_replay_and_describe(tmp_path: Path) -> None:
    from .fake_backends import FullFake

    scenario = {"s": 1}
    good = write_bundle(
        tmp_path,
        Bundle(
            "build_plan",
            {"scenario": scenario},
            {"result": {"wire_base64": __import__("base64").b64encode(FullFake().build_plan(scenario)).decode()}},
        ),
    )
    bad = write_bundle(tmp_path, Bundle("build_plan", {"scenario": scenario}, {"error": {"kind": "serialization"}}))
    oracle_needed = write_bundle(tmp_path, Bundle("build_plan", {"scenario": scenario}))
    ok = run_cli("replay", str(good), "--backend", f"{FAKE}:make", cwd=ROOT)
    assert ok.returncode == 0 and "PASS" in ok.stdout, ok.stdout + ok.stderr
    fail = run_cli("replay", str(good), str(bad), "--backend", f"{FAKE}:make", cwd=ROOT)
    assert fail.returncode == 1 and "FAIL" in fail.stdout
    na = run_cli("replay", str(oracle_needed), "--backend", f"{FAKE}:make_describe_only", cwd=ROOT)
    assert na.returncode == 0 and "N/A" in na.stdout, na.stdout + na.stderr
    oracle = run_cli("replay", str(oracle_needed), "--backend", "reference", cwd=ROOT)
    assert oracle.returncode == 0 and "PASS" in oracle.stdout, oracle.stdout + oracle.stderr
    over_exec = run_cli("replay", str(good), "--backend", serve_spec(f"{FAKE}:make"), cwd=ROOT)
    assert over_exec.returncode == 0 and "PASS" in over_exec.stdout, over_exec.stdout + over_exec.stderr
    described = run_cli("describe", "--backend", serve_spec(), cwd=ROOT)
    assert described.returncode == 0
    schemas.validate("protocol/describe.json", json.loads(described.stdout))
    failed = run_cli("describe", "--backend", fake_spec("exit-at-handshake"), cwd=ROOT)
    assert failed.returncode == 3 and "handshake_failed" in failed.stderr
    assert "Traceback" not in failed.stderr


def test_run_builds_the_documented_pytest_command() -> None:
    args = build_parser().parse_args(
        ["run", "--profile", "ci", "-n", "2", "--report-json", "r.jsonl", "--junit-xml", "j.xml"]
    )
    built = pytest_args(args)
    assert "--hypothesis-profile=ci" in built and built[built.index("-n") + 1] == "2"
    assert built[built.index("--report-json") + 1] == "r.jsonl"
    assert built[built.index("--junit-xml") + 1] == "j.xml"
    # The seed goes to the harness (--seed), never --hypothesis-seed, which would switch the example database off.
    assert not any(arg.startswith("--hypothesis-seed") or arg == "--seed" for arg in built)
    dev = pytest_args(build_parser().parse_args(["run", "--profile", "dev"]))
    assert not any(arg.startswith("--hypothesis-seed") for arg in dev)
    assert int(dev[dev.index("--seed") + 1]) >= 0
    seeded = pytest_args(build_parser().parse_args(["run", "--profile", "fuzz", "--seed", "7"]))
    assert seeded[seeded.index("--seed") + 1] == "7"
