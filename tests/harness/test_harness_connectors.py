"""Every connector against the same implementations: identical results in process and over exec."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.backend import Backend, OperationNotSupported
from harness.backends import ExecBackend, ExecOptions, ReferenceBackend, connect, parse_spec
from harness.backends.python import load_python_backend
from harness.contract import KNOWN_OPERATIONS
from harness.faults import BackendFault
from harness.outcome import Outcome, call_outcome
from reference import api

from .fake_backends import FullFake
from .helpers import PYTHON, ROOT, env

OPTIONS = ExecOptions(call_timeout=20.0, env=env(), cwd=str(ROOT))
FAKE = "python:tests.harness.fake_backends:make"


@pytest.fixture(scope="module")
def exec_fake() -> Iterator[ExecBackend]:
    backend = ExecBackend([PYTHON, "-m", "harness.cli", "serve", "--backend", FAKE], OPTIONS)
    yield backend
    backend.close()


@pytest.fixture(scope="module")
def exec_reference() -> Iterator[ExecBackend]:
    backend = ExecBackend([PYTHON, "-m", "harness.cli", "serve"], OPTIONS)
    yield backend
    backend.close()


json_leaf = st.one_of(st.none(), st.booleans(), st.integers(-(2**63), 2**64 - 1), st.text(max_size=20))
json_value = st.recursive(
    json_leaf,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)),
    max_leaves=12,
)
ERRORS = [
    {"kind": "invalid_execution_plan", "reason": "r", "message": "m"},
    {"kind": "plan_hash_mismatch", "expected": "a" * 64, "actual": "b" * 64, "message": "m"},
    {"kind": "serialization", "context": "decode untrusted execution plan", "message": "too big"},
    {
        "kind": "unsupported_operation",
        "node_id": None,
        "operation_id": "op",
        "device_id": "d",
        "reason": "x",
        "message": "",
    },
]
scenarios = st.one_of(
    st.dictionaries(
        st.text(max_size=10).filter(lambda k: k not in ("raise", "unsupported", "crash")), json_value, max_size=5
    ),
    st.sampled_from(ERRORS).map(lambda e: {"raise": e}),
)
PLANNING = [op for op in KNOWN_OPERATIONS if op != "describe"]


def params_for(operation: str, scenario: dict[str, Any], wire: bytes) -> dict[str, Any]:
    from harness.operations import encode_params

    return encode_params(operation, scenario, wire) if operation == "revalidate" else encode_params(operation, scenario)


@given(operation=st.sampled_from(PLANNING), scenario=scenarios, wire=st.binary(max_size=64))
def test_in_process_and_exec_agree(
    exec_fake: ExecBackend, operation: str, scenario: dict[str, Any], wire: bytes
) -> None:
    params = params_for(operation, scenario, wire)
    local: Outcome = call_outcome(FullFake(), operation, params)
    remote: Outcome = call_outcome(exec_fake, operation, params)
    assert remote == local


def test_in_process_and_exec_agree_on_describe(exec_fake: ExecBackend, exec_reference: ExecBackend) -> None:
    assert exec_fake.describe() == FullFake().describe()
    assert exec_reference.describe() == ReferenceBackend().describe()
    assert exec_reference.connect() == ReferenceBackend().describe()


def _seed_params(operation: str) -> dict[str, Any]:
    from seeds.scenarios import plan_fixture_scenario

    scenario = plan_fixture_scenario(0)
    wire = api.build_plan(scenario) if operation == "revalidate" else b""
    return params_for(operation, scenario, wire)


@pytest.mark.parametrize("operation", PLANNING)
def test_reference_operations_agree_in_process_and_over_exec(exec_reference: ExecBackend, operation: str) -> None:
    """The reference declares exactly what reference.api implements, and both paths give the same outcome."""
    supported = operation in api.supported_operations()
    assert (operation in ReferenceBackend().describe().operations) == supported
    assert (operation in exec_reference.describe().operations) == supported
    if not supported:
        for backend in (ReferenceBackend(), exec_reference):
            with pytest.raises(OperationNotSupported):
                call_outcome(backend, operation, params_for(operation, {}, b""))
        return
    params = _seed_params(operation)
    local: Outcome = call_outcome(ReferenceBackend(), operation, params)
    remote: Outcome = call_outcome(exec_reference, operation, params)
    assert remote == local


def test_operation_not_supported_from_the_backend_crosses_exec(exec_fake: ExecBackend) -> None:
    with pytest.raises(OperationNotSupported):
        exec_fake.build_plan({"unsupported": True})
    with pytest.raises(OperationNotSupported):
        FullFake().build_plan({"unsupported": True})


def test_a_python_exception_in_a_served_backend_is_a_backend_failure_fault(exec_fake: ExecBackend) -> None:
    with pytest.raises(BackendFault) as info:
        exec_fake.build_plan({"crash": True})
    assert info.value.kind == "backend_failure"
    assert "fake backend bug" in info.value.detail
    assert exec_fake.describe().implementation.name == "fake-full"  # still serving


def test_wire_bytes_cross_exec_exactly(exec_fake: ExecBackend) -> None:
    scenario = {"k": "é\u2028\x00", "n": 2**64 - 1}
    assert exec_fake.build_plan(scenario) == FullFake().build_plan(scenario)
    wire = bytes(range(256))
    assert exec_fake.revalidate(scenario, wire) == FullFake().revalidate(scenario, wire)


@pytest.mark.parametrize(
    ("spec", "kind"),
    [
        ("reference", "reference"),
        (" reference ", "reference"),
        ("python:pkg.mod:make", "python"),
        ("python:./file.py:make", "python"),
        ("exec:vnext-conformance serve", "exec"),
        ("exec:'my backend' --flag", "exec"),
    ],
)
def test_parse_spec_accepts(spec: str, kind: str) -> None:
    assert parse_spec(spec).kind == kind


@pytest.mark.parametrize(
    "spec", ["", "refrence", "python:", "python:mod", "exec:", "exec:   ", "exec:'unterminated", "ssh:x"]
)
def test_parse_spec_rejects(spec: str) -> None:
    with pytest.raises(ValueError):
        parse_spec(spec)


def test_connect_builds_each_connector() -> None:
    assert isinstance(connect("reference"), ReferenceBackend)
    assert isinstance(connect(FAKE), FullFake)
    assert isinstance(connect("exec:true", OPTIONS), ExecBackend)


def test_python_connector_loads_a_file_path() -> None:
    backend = load_python_backend(str(ROOT / "tests/harness/fake_backends.py") + ":make")
    assert backend.describe().implementation.name == "fake-full"


def test_python_connector_adds_close_when_missing() -> None:
    backend: Backend = load_python_backend("tests.harness.fake_backends:make_no_close")
    backend.close()
    assert backend.describe().implementation.name == "fake-full"


@pytest.mark.parametrize(
    "target",
    [
        "tests.harness.fake_backends",
        "tests.harness.no_such_module:make",
        "tests.harness.fake_backends:missing",
        "tests.harness.fake_backends:not_a_backend",
        "/no/such/file.py:make",
    ],
)
def test_python_connector_rejects(target: str) -> None:
    with pytest.raises(ValueError):
        load_python_backend(target)


def test_reference_describe_tracks_reference_api() -> None:
    description = ReferenceBackend().describe()
    assert description.operations == api.supported_operations()
    assert description.contract.plan_schema == api.EXECUTION_PLAN_SCHEMA
    assert dict(description.limits) == dict(api.LIMITS)
