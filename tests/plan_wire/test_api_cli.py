"""``reference.api.build_plan`` / ``revalidate`` and the ``build`` / ``revalidate`` / ``hash`` CLI subcommands."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from harness.cli import main
from harness.cli.commands import wire_hash_report
from reference import api
from reference.canonical import canonical_bytes, sha256_hex
from seeds.scenarios import graph_scenario

from .helpers import built, encode, raises_kind, rehash_plan_json, scenario, wire_value

ROOT = Path(__file__).resolve().parents[2]


def test_build_plan_and_revalidate_are_announced_and_wired() -> None:
    assert {"build_plan", "revalidate"} <= set(api.supported_operations())
    wire = api.build_plan(scenario("sequential_scratch"))
    assert wire == built("sequential_scratch").to_json()
    assert api.revalidate(scenario("sequential_scratch"), wire) == built("sequential_scratch").plan_hash.value


def test_api_errors_are_contract_errors() -> None:
    raises_kind("serialization", lambda: api.build_plan({"scenario_version": 1}))
    raises_kind("invalid_execution_plan", lambda: api.build_plan(graph_scenario("alias", "must_alias_distinct")))
    value = wire_value("plan_fixture_0")
    value["plan_hash"] = "0" * 64
    raises_kind("plan_hash_mismatch", lambda: api.revalidate(scenario("plan_fixture_0"), encode(value)))


# --------------------------------------------------------------------------- CLI (in process)


def _write(tmp_path: Path, name: str, data: bytes | Any) -> str:
    path = tmp_path / name
    path.write_bytes(data if isinstance(data, bytes) else json.dumps(data).encode())
    return str(path)


def _run(capsysbinary: pytest.CaptureFixture[bytes], *argv: str) -> tuple[int, bytes]:
    code = main(list(argv))
    sys.stdout.flush()
    return code, capsysbinary.readouterr().out


def test_cli_build_prints_the_exact_wire(tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    path = _write(tmp_path, "s.json", scenario("graph_alias"))
    code, out = _run(capsysbinary, "build", "--scenario", path)
    assert (code, out) == (0, built("graph_alias").to_json())


def test_cli_build_prints_the_error_object_on_rejection(
    tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    rejected = _write(tmp_path, "r.json", graph_scenario("alias_late_consumer"))
    code, out = _run(capsysbinary, "build", "--scenario", rejected)
    error = json.loads(out)
    assert code == 1 and error["kind"] == "invalid_execution_plan" and "reason" in error
    broken = _write(tmp_path, "b.json", b"{not json")
    code, out = _run(capsysbinary, "build", "--scenario", broken)
    assert code == 1 and json.loads(out)["kind"] == "serialization"
    assert json.loads(out)["context"] == "decode scenario"


def test_cli_usage_errors_exit_2(tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    assert _run(capsysbinary, "build", "--scenario", str(tmp_path / "absent.json")) == (2, b"")
    assert _run(capsysbinary, "hash", "--plan", str(tmp_path / "absent.json")) == (2, b"")
    plan = _write(tmp_path, "p.json", built("plan_fixture_0").to_json())
    assert _run(capsysbinary, "revalidate", "--scenario", str(tmp_path / "absent.json"), "--plan", plan) == (2, b"")
    for argv in (["build"], ["revalidate", "--plan", plan], ["hash"]):
        with pytest.raises(SystemExit) as info:
            main(argv)
        assert info.value.code == 2


def test_cli_revalidate(tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    s = _write(tmp_path, "s.json", scenario("retained_output"))
    plan = _write(tmp_path, "p.json", built("retained_output").to_json())
    code, out = _run(capsysbinary, "revalidate", "--scenario", s, "--plan", plan)
    assert (code, json.loads(out)) == (0, {"plan_hash": built("retained_output").plan_hash.value})

    value = wire_value("retained_output")
    value["plan_hash"] = "f" * 64
    forged = _write(tmp_path, "f.json", encode(value))
    code, out = _run(capsysbinary, "revalidate", "--scenario", s, "--plan", forged)
    error = json.loads(out)
    assert code == 1
    assert error["kind"] == "plan_hash_mismatch"
    assert (error["expected"], error["actual"]) == (built("retained_output").plan_hash.value, "f" * 64)


def test_cli_revalidate_decodes_the_wire_before_reading_the_scenario(
    tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    broken = _write(tmp_path, "b.json", b"not a scenario")
    value = wire_value("plan_fixture_0")
    value["payload"]["schema"] = {"major": 9, "minor": 1}
    plan = _write(tmp_path, "p.json", encode(value))
    code, out = _run(capsysbinary, "revalidate", "--scenario", broken, "--plan", plan)
    assert code == 1
    assert json.loads(out) | {"message": ""} == {
        "kind": "unsupported_plan_schema",
        "expected_major": 8,
        "expected_minor": 1,
        "actual_major": 9,
        "actual_minor": 1,
        "message": "",
    }
    good = _write(tmp_path, "g.json", built("plan_fixture_0").to_json())
    code, out = _run(capsysbinary, "revalidate", "--scenario", broken, "--plan", good)
    assert code == 1 and json.loads(out)["context"] == "decode scenario"


def test_cli_hash_recomputes_independently(tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    plan = built("graph_state_chain")
    path = _write(tmp_path, "p.json", plan.to_json())
    code, out = _run(capsysbinary, "hash", "--plan", path)
    report = json.loads(out)
    assert code == 0
    assert report == {
        "plan_hash": plan.plan_hash.value,
        "wire_plan_hash": plan.plan_hash.value,
        "wire_plan_id": plan.plan_id.value,
        "plan_hash_matches": True,
        "plan_id_matches": True,
    }

    tampered = wire_value("graph_state_chain")
    tampered["payload"]["nodes"][2]["dependencies"] = []
    code, out = _run(capsysbinary, "hash", "--plan", _write(tmp_path, "t.json", encode(tampered)))
    report = json.loads(out)
    material = {k: v for k, v in tampered["payload"].items() if k != "plan_id"}
    assert code == 1
    assert report["plan_hash"] == sha256_hex(canonical_bytes(material)) != plan.plan_hash.value
    assert (report["plan_hash_matches"], report["plan_id_matches"]) == (False, False)

    rehash_plan_json(tampered)  # hash-consistent forgery: `hash` says consistent, revalidation still rejects it
    forged = _write(tmp_path, "r.json", encode(tampered))
    assert _run(capsysbinary, "hash", "--plan", forged)[0] == 0
    s = _write(tmp_path, "s.json", scenario("graph_state_chain"))
    code, out = _run(capsysbinary, "revalidate", "--scenario", s, "--plan", forged)
    assert code == 1 and json.loads(out)["kind"] == "invalid_execution_plan"

    only_id = wire_value("graph_state_chain")
    only_id["payload"]["plan_id"] = "plan/sha256/" + "0" * 64
    report = wire_hash_report(encode(only_id))
    assert (report["plan_hash_matches"], report["plan_id_matches"]) == (True, False)

    code, out = _run(capsysbinary, "hash", "--plan", _write(tmp_path, "n.json", b"[1, 2]"))
    assert code == 1 and json.loads(out)["kind"] == "serialization"


def test_cli_as_a_process(tmp_path: Path) -> None:
    """``python -m harness.cli build`` piped into ``revalidate`` and ``hash``."""
    s = _write(tmp_path, "s.json", scenario("plan_fixture_0"))

    def run(*args: str) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run(
            [sys.executable, "-m", "harness.cli", *args], cwd=ROOT, capture_output=True, timeout=900, check=False
        )

    built_proc = run("build", "--scenario", s)
    assert built_proc.returncode == 0, built_proc.stderr
    assert built_proc.stdout == built("plan_fixture_0").to_json()
    plan = _write(tmp_path, "p.json", built_proc.stdout)
    again = run("revalidate", "--scenario", s, "--plan", plan)
    assert (again.returncode, json.loads(again.stdout)) == (0, {"plan_hash": built("plan_fixture_0").plan_hash.value})
    assert run("hash", "--plan", plan).returncode == 0
