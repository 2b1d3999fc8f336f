"""Units: reference.api registry, descriptions, bundles, expectations, outcomes, report classification, cases."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import schemas
from harness.backends import connect
from harness.backends.reference import ReferenceImplementation
from harness.bundles import Bundle, BundleMismatch, check_bundle, load_bundle, write_bundle
from harness.cases import NotApplicable, case_id_for, known_suites, not_applicable, suite_of_module
from harness.connection.faults import BackendFault, Fault, FaultKind
from harness.expectations import ManifestError, load_manifest, parse_manifest
from harness.outcome import Outcome
from harness.plugin.counterexamples import CounterexampleRecorder
from harness.plugin.outcomes import combine, phase_outcome
from harness.plugin.records import NOT_APPLICABLE
from harness.protocol.codecs import b64encode
from harness.protocol.description import BackendDescription
from harness.protocol.operations import OPERATIONS
from harness.reports.jsonl import Totals
from reference import api
from reference.canonical import sha256_hex
from reference.errors import Serialization

# ------------------------------------------------------------------ reference.api


def test_unimplemented_operations_raise_operation_not_supported() -> None:
    for name in api.PLANNING_OPERATIONS:
        if name in api.supported_operations():
            continue
        fn = getattr(api, name)
        args: tuple[object, ...] = ({}, b"") if name == "revalidate" else ({},)
        with pytest.raises(api.OperationNotSupported) as info:
            fn(*args)
        assert info.value.operation == name


def test_implemented_registers_only_planning_operations() -> None:
    def teleport() -> None:
        return None

    with pytest.raises(ValueError):
        api.implemented(teleport)
    assert "describe" in api.supported_operations()
    assert list(api.supported_operations()) == sorted(api.supported_operations())


# ------------------------------------------------------------------ description


def test_description_roundtrip_and_schema() -> None:
    wire = ReferenceImplementation().describe().to_wire()
    schemas.validate("protocol/describe.json", wire)
    assert BackendDescription.from_wire(wire).to_wire() == wire


@pytest.mark.parametrize(
    "mutate",
    [
        lambda w: w.pop("limits"),
        lambda w: w.update(extra=1),
        lambda w: w["implementation"].update(name=5),
        lambda w: w["contract"]["plan_schema"].update(major=70000),
        lambda w: w["contract"]["plan_schema"].update(patch=1),
        lambda w: w.update(operations="describe"),
        lambda w: w.update(operations=[1]),
        lambda w: w["limits"].update(max_weight_materializers=-1),
        lambda w: w.update(limits=[]),
    ],
)
def test_malformed_descriptions_are_refused_by_decoder_and_schema(mutate: Any) -> None:
    wire = ReferenceImplementation().describe().to_wire()
    mutate(wire)
    with pytest.raises(Serialization):
        BackendDescription.from_wire(wire)
    assert not schemas.validator("protocol/describe.json").is_valid(wire)


# ------------------------------------------------------------------ faults


def test_fault_kinds_are_closed_and_faults_travel_as_values() -> None:
    import pickle

    with pytest.raises(ValueError):
        FaultKind("kaboom")
    fault = Fault(FaultKind.TIMEOUT, "slow", operation="build_plan", request_id=4)
    assert Fault.from_wire(fault.to_wire()) == fault
    raised = BackendFault(fault)
    assert pickle.loads(pickle.dumps(raised)).fault == fault
    assert "timeout" in str(raised) and "build_plan" in str(raised)
    assert {kind.value for kind in FaultKind} >= {"crash", "timeout", "oversized_reply", "malformed_reply"}
    assert all(kind.meaning for kind in FaultKind)


def test_a_raised_fault_keeps_its_message() -> None:
    """The fault exception is not frozen: raising it sets its traceback and keeps the detail."""
    fault = Fault(FaultKind.CRASH, "the backend exited", operation="build_plan")
    with pytest.raises(BackendFault) as info:
        raise BackendFault(fault)
    assert info.value.__traceback__ is not None
    assert "the backend exited" in str(info.value)


# ------------------------------------------------------------------ bundles


def _bundle(expect: Any = None, wire: bytes = b"x") -> Bundle:
    return Bundle("revalidate", {"scenario": {"a": [1, 2]}, "wire_base64": b64encode(wire)}, expect, "t/c", "n")


@given(wire=st.binary(max_size=40), note=st.text(max_size=20))
def test_bundle_files_are_canonical_and_named_by_sha256(tmp_path_factory: Any, wire: bytes, note: str) -> None:
    directory = tmp_path_factory.mktemp("bundles")
    bundle = Bundle("build_plan", {"scenario": {"w": b64encode(wire)}}, None, "c", note)
    path = write_bundle(directory, bundle)
    data = path.read_bytes()
    assert path.stem == sha256_hex(data) == bundle.name
    assert load_bundle(path) == bundle
    schemas.validate("protocol/bundle.json", json.loads(data))
    assert write_bundle(directory, bundle) == path


@pytest.mark.parametrize(
    "raw",
    [
        {
            "bundle_version": 2,
            "case": "",
            "operation": "build_plan",
            "params": {"scenario": {}},
            "expect": None,
            "note": "",
        },
        {"bundle_version": 1, "case": "", "operation": "teleport", "params": {}, "expect": None, "note": ""},
        {"bundle_version": 1, "case": "", "operation": "build_plan", "params": {}, "expect": None, "note": ""},
        {
            "bundle_version": 1,
            "case": "",
            "operation": "build_plan",
            "params": {"scenario": {}},
            "expect": {"ok": 1},
            "note": "",
        },
        {
            "bundle_version": 1,
            "case": "",
            "operation": "build_plan",
            "params": {"scenario": {}},
            "expect": {"error": {"kind": "nope"}},
            "note": "",
        },
        {"bundle_version": 1, "case": "", "operation": "build_plan", "params": {"scenario": {}}, "expect": None},
    ],
)
def test_malformed_bundles_are_refused(tmp_path: Path, raw: dict[str, Any]) -> None:
    path = tmp_path / "b.json"
    path.write_text(json.dumps(raw))
    with pytest.raises(Serialization):
        load_bundle(path)
    assert not _bundle_schema_valid(raw)


def _bundle_schema_valid(raw: dict[str, Any]) -> bool:
    """bundle.json, then the operation's own params schema (bundle.json names no operation)."""
    if not schemas.validator("protocol/bundle.json").is_valid(raw):
        return False
    if raw["operation"] not in OPERATIONS:
        return False
    return bool(schemas.validator(OPERATIONS[raw["operation"]].schema + "#/$defs/params").is_valid(raw["params"]))


def test_check_bundle_against_expectation_and_oracle() -> None:
    fake = connect("python:tests.harness.fake_backends:make")
    good = fake.revalidate({"a": [1, 2]}, b"x")
    check_bundle(fake, fake, _bundle({"result": {"plan_hash": good}}))
    with pytest.raises(BundleMismatch):
        check_bundle(fake, fake, _bundle({"result": {"plan_hash": "0" * 64}}))
    with pytest.raises(BundleMismatch):
        check_bundle(fake, fake, _bundle({"error": {"kind": "serialization"}}))
    check_bundle(fake, fake, _bundle(None))  # the oracle (same fake) agrees
    raising = Bundle(
        "build_plan",
        {"scenario": {"raise": {"kind": "serialization", "context": "c", "message": "m"}}},
        {"error": {"kind": "serialization", "context": "c"}},
    )
    check_bundle(fake, fake, raising)
    with pytest.raises(BundleMismatch):
        check_bundle(
            fake, fake, Bundle("build_plan", raising.params, {"error": {"kind": "serialization", "context": "d"}})
        )


def test_oracle_without_the_operation_is_operation_not_supported() -> None:
    fake = connect("python:tests.harness.fake_backends:make")
    describe_only = connect("python:tests.harness.fake_backends:make_describe_only")
    with pytest.raises(api.OperationNotSupported):
        check_bundle(fake, describe_only, Bundle("build_plan", {"scenario": {}}))


def test_outcome_matching_ignores_only_messages() -> None:
    out = Outcome("error", {"kind": "plan_hash_mismatch", "expected": "a", "actual": "b"})
    assert out.matches({"error": {"kind": "plan_hash_mismatch", "message": "whatever"}})
    assert out.matches({"error": {"kind": "plan_hash_mismatch", "expected": "a"}})
    assert not out.matches({"error": {"kind": "plan_hash_mismatch", "expected": "b"}})
    assert not out.matches({"error": {"kind": "plan_hash_mismatch", "missing_field": 1}})
    assert not out.matches({"result": {}})


# ------------------------------------------------------------------ expectations


def _manifest(**entry: Any) -> dict[str, Any]:
    base = {"status": "xfail", "reason": "known", "issue": "https://example.invalid/1", "expires": "2030-01-31"}
    base.update(entry)
    return {"manifest_version": 1, "backend": "b", "cases": {"describe/test_x": base}}


def test_manifest_parses_and_expires_after_its_date() -> None:
    manifest = parse_manifest(_manifest())
    entry = manifest.cases["describe/test_x"]
    assert entry.status == "xfail" and entry.issue
    assert not entry.expired(dt.date(2030, 1, 31))
    assert entry.expired(dt.date(2030, 2, 1))
    assert manifest.unknown({"describe/test_x", "other/y"}) == []
    assert manifest.unknown({"other/y"}) == ["describe/test_x"]
    schemas.validate("protocol/expectations.json", _manifest())


@pytest.mark.parametrize(
    "raw",
    [
        _manifest(status="pass"),
        _manifest(reason=""),
        _manifest(reason="   "),
        _manifest(expires="2030-1-31"),
        _manifest(expires="tomorrow"),
        _manifest(issue=""),
        _manifest(extra=1),
        {"manifest_version": 2, "backend": "b", "cases": {}},
        {"manifest_version": 1, "backend": "b", "cases": []},
        {"manifest_version": 1, "cases": {}},
    ],
)
def test_malformed_manifests_are_refused(raw: dict[str, Any]) -> None:
    with pytest.raises(ManifestError):
        parse_manifest(raw)
    assert not schemas.validator("protocol/expectations.json").is_valid(raw)


def test_manifest_file_errors(tmp_path: Path) -> None:
    with pytest.raises(ManifestError):
        load_manifest(tmp_path / "missing.json")
    bad = tmp_path / "dup.json"
    bad.write_text('{"manifest_version":1,"manifest_version":1,"backend":"b","cases":{}}')
    with pytest.raises(ManifestError):
        load_manifest(bad)


# ------------------------------------------------------------------ cases and classification


def test_case_ids_are_suite_relative() -> None:
    assert suite_of_module("conformance.suites.test_describe") == "describe"
    assert suite_of_module("tests.harness.test_describe") is None
    assert suite_of_module("conformance.suites.helpers") is None
    item = SimpleNamespace(
        module=SimpleNamespace(__name__="conformance.suites.test_corpus"), cls=None, name="test_b[ab]"
    )
    assert case_id_for(item) == "corpus/test_b[ab]"
    item2 = SimpleNamespace(
        module=SimpleNamespace(__name__="conformance.suites.test_x"), cls=type("K", (), {}), name="t"
    )
    assert case_id_for(item2) == "x/K.t"
    assert {"describe", "corpus"} <= set(known_suites())


def test_not_applicable_is_a_structured_skip() -> None:
    with pytest.raises(pytest.skip.Exception) as info:
        not_applicable("no build_plan", missing=["build_plan"])
    assert isinstance(info.value, NotApplicable)
    assert info.value.why.to_wire() == {"reason": "no build_plan", "missing": ["build_plan"]}


def _report(when: str, outcome: str, longrepr: Any = None, properties: Any = (), **extra: Any) -> Any:
    return SimpleNamespace(
        when=when,
        passed=outcome == "passed",
        failed=outcome == "failed",
        skipped=outcome == "skipped",
        longrepr=longrepr,
        user_properties=list(properties),
        **extra,
    )


def test_phase_outcomes() -> None:
    assert phase_outcome(_report("call", "passed")) == "passed"
    assert phase_outcome(_report("call", "failed")) == "failed"
    assert phase_outcome(_report("setup", "failed")) == "error"
    assert phase_outcome(_report("teardown", "passed")) is None
    marked = [(NOT_APPLICABLE, {"reason": "no op", "missing": ["build_plan"]})]
    assert phase_outcome(_report("setup", "skipped", ("f", 1, "no op"), marked)) == "not_applicable"
    assert phase_outcome(_report("setup", "skipped", ("f", 1, "not applicable: text only"))) == "skipped"
    assert phase_outcome(_report("call", "skipped", None, wasxfail="known")) == "xfailed"
    assert phase_outcome(_report("call", "passed", None, wasxfail="known")) == "xpassed"
    assert combine("passed", "error") == "error"
    assert combine("failed", "passed") == "failed"
    assert combine(None, None) is None


def test_totals_count_failures_only_for_failed_and_error() -> None:
    totals = Totals()
    for outcome in ("passed", "not_applicable", "xfailed", "skipped"):
        totals.add("s", outcome)
    assert totals.failed() == 0
    totals.add("t", "error")
    assert totals.failed() == 1 and totals.total()["passed"] == 1


# ------------------------------------------------------------------ counterexamples


def test_only_the_final_shrunk_example_is_written(tmp_path: Path) -> None:
    from hypothesis import given as given_

    recorder = CounterexampleRecorder(tmp_path / "cx")

    @given_(st.integers(0, 10_000))
    def inner(n: int) -> None:
        bundle = Bundle("build_plan", {"scenario": {"n": n}}, None, "t/inner")
        with recorder.on_failure(bundle):
            assert n < 100

    with pytest.raises(AssertionError):
        inner()
    written = sorted((tmp_path / "cx").iterdir())
    assert len(written) == 1
    assert load_bundle(written[0]).params == {"scenario": {"n": 100}}
    assert recorder.written == [str(written[0])]


def test_skips_are_not_counterexamples(tmp_path: Path) -> None:
    recorder = CounterexampleRecorder(tmp_path / "cx")
    with pytest.raises(pytest.skip.Exception), recorder.on_failure(Bundle("build_plan", {"scenario": {}})):
        not_applicable("x")
    assert not (tmp_path / "cx").exists()
    with pytest.raises(ValueError), recorder.on_failure(lambda: Bundle("build_plan", {"scenario": {}})):
        raise ValueError("outside hypothesis: written")
    assert len(list((tmp_path / "cx").iterdir())) == 1
