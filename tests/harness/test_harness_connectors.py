"""Every connector against the same implementations: identical results in process and over exec."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.backends import BackendLoadError, connect, open_connection, parse_spec
from harness.backends.python import load_python_backend
from harness.backends.reference import ReferenceImplementation
from harness.connection.client import Client
from harness.connection.exec import ExecConnection, ExecOptions
from harness.connection.faults import BackendFault
from harness.connection.inprocess import InProcessConnection
from harness.outcome import Outcome
from harness.protocol.operations import OPERATIONS
from reference import api
from reference.api import OperationNotSupported

from .fake_backends import FullFake
from .helpers import PYTHON, ROOT, env

OPTIONS = ExecOptions(call_timeout=300.0, env=env(), cwd=str(ROOT))
FAKE = "python:tests.harness.fake_backends:make"


def _served(*argv: str) -> Client:
    return Client(ExecConnection([PYTHON, "-m", "harness.cli", "serve", *argv], OPTIONS))


@pytest.fixture(scope="module")
def exec_fake() -> Iterator[Client]:
    backend = _served("--backend", FAKE)
    yield backend
    backend.close()


@pytest.fixture(scope="module")
def exec_reference() -> Iterator[Client]:
    backend = _served()
    yield backend
    backend.close()


@pytest.fixture(scope="module")
def local_fake() -> Iterator[Client]:
    backend = connect(FAKE)
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
PLANNING = [name for name, op in OPERATIONS.items() if not op.mandatory]


def params_for(operation: str, scenario: dict[str, Any], wire: bytes) -> dict[str, Any]:
    """The operation's declared probe with ``scenario`` and ``wire`` in place of its scenario and wire."""
    declared = OPERATIONS[operation]
    given = {"scenario": scenario, "wire_base64": wire}
    args = [given.get(param.name, probe) for param, probe in zip(declared.params, declared.probe, strict=True)]
    return declared.encode_params(declared.bind(args, {}))


@given(operation=st.sampled_from(PLANNING), scenario=scenarios, wire=st.binary(max_size=64))
def test_in_process_and_exec_agree(
    exec_fake: Client, local_fake: Client, operation: str, scenario: dict[str, Any], wire: bytes
) -> None:
    params = params_for(operation, scenario, wire)
    local: Outcome = local_fake.outcome(OPERATIONS[operation], params)
    remote: Outcome = exec_fake.outcome(OPERATIONS[operation], params)
    assert remote == local


def test_in_process_and_exec_agree_on_describe(exec_fake: Client, exec_reference: Client) -> None:
    assert exec_fake.describe() == FullFake().describe()
    assert exec_reference.describe() == ReferenceImplementation().describe()
    assert exec_reference.open() == ReferenceImplementation().describe()
    assert connect("reference").describe() == ReferenceImplementation().describe()


def _seed_params(operation: str) -> dict[str, Any]:
    from seeds.scenarios import plan_fixture_scenario

    scenario = plan_fixture_scenario(0)
    wires = {"revalidate": api.build_plan, "revalidate_family": lambda s: api.prepare_family(s).wire}
    wire = wires[operation](scenario) if operation in wires else b""
    return params_for(operation, scenario, wire)


@pytest.mark.parametrize("operation", PLANNING)
def test_reference_operations_agree_in_process_and_over_exec(exec_reference: Client, operation: str) -> None:
    """The reference declares exactly what reference.api implements, and both paths give the same outcome."""
    supported = operation in api.supported_operations()
    local = connect("reference")
    assert (operation in local.describe().operations) == supported
    assert (operation in exec_reference.describe().operations) == supported
    if not supported:
        for backend in (local, exec_reference):
            with pytest.raises(OperationNotSupported):
                backend.outcome(OPERATIONS[operation], params_for(operation, {}, b""))
        return
    params = _seed_params(operation)
    assert exec_reference.outcome(OPERATIONS[operation], params) == local.outcome(OPERATIONS[operation], params)


def test_operation_not_supported_from_the_backend_crosses_exec(exec_fake: Client, local_fake: Client) -> None:
    for backend in (exec_fake, local_fake):
        with pytest.raises(OperationNotSupported):
            backend.build_plan({"unsupported": True})


def test_a_python_exception_in_a_served_backend_is_a_backend_failure_fault(
    exec_fake: Client, local_fake: Client
) -> None:
    for backend in (exec_fake, local_fake):
        with pytest.raises(BackendFault) as info:
            backend.build_plan({"crash": True})
        assert info.value.kind == "backend_failure"
        assert "fake backend bug" in info.value.fault.detail
        assert backend.describe().implementation.name == "fake-full"  # still serving


def test_wire_bytes_cross_exec_exactly(exec_fake: Client) -> None:
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


def test_open_connection_builds_each_transport() -> None:
    assert isinstance(open_connection("reference"), InProcessConnection)
    assert isinstance(open_connection(FAKE), InProcessConnection)
    assert isinstance(open_connection("exec:true", OPTIONS), ExecConnection)


def test_python_connector_loads_a_file_path() -> None:
    backend = load_python_backend(str(ROOT / "tests/harness/fake_backends.py") + ":make")
    assert backend.describe().implementation.name == "fake-full"


def test_python_backend_without_close_is_served() -> None:
    backend = connect("python:tests.harness.fake_backends:make_no_close")
    assert backend.describe().implementation.name == "fake-full"
    backend.close()


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
    with pytest.raises(BackendLoadError):
        load_python_backend(target)


def test_reference_describe_tracks_reference_api() -> None:
    description = ReferenceImplementation().describe()
    assert description.operations == api.supported_operations()
    assert description.contract.plan_schema == api.EXECUTION_PLAN_SCHEMA
    assert dict(description.limits) == dict(api.LIMITS)
