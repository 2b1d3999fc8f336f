"""``describe``: the backend's identity, contract, operations and limits are well formed.

A backend must say who it is, which contract it implements (ferrum-interfaces
0.12.x ``vnext``, plan schema 8.1 per 05 §1), which protocol operations it
implements and the contract limits it enforces (01 §3.6, 02 §7.4, 05 §1).
"""

from __future__ import annotations

import re

import pytest

import schemas
from harness.connection.faults import BackendFault
from harness.identity import CONTRACT_IDENTITY, CONTRACT_LIMITS
from harness.protocol.operations import OPERATIONS, Level
from harness.under_test import BackendUnderTest
from reference import api
from reference.api import VNextError

_PRINTABLE = re.compile(r"[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?")
_SEMVER = re.compile(r"(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:[-+][0-9A-Za-z.+-]+)?")


def test_description_is_schema_valid(backend: BackendUnderTest) -> None:
    schemas.validate("protocol/describe.json", backend.describe().to_wire())


def test_describe_is_stable(backend: BackendUnderTest) -> None:
    first, second = backend.describe(), backend.describe()
    assert first == second
    assert first == backend.description, "describe differs from the description given at connection (handshake)"


def test_implementation_identity_is_well_formed(backend: BackendUnderTest) -> None:
    impl = backend.describe().implementation
    for name in ("name", "version", "language"):
        value = getattr(impl, name)
        assert len(value) <= 128 and _PRINTABLE.fullmatch(value), (
            f"implementation.{name} {value!r} is not printable ASCII"
        )
    assert re.fullmatch(r"[a-z][a-z0-9+#-]*", impl.language), f"language {impl.language!r} is not a lowercase name"


def test_contract_identity_matches_suite(backend: BackendUnderTest) -> None:
    contract = backend.describe().contract
    assert contract.crate == CONTRACT_IDENTITY["crate"]
    assert contract.module == CONTRACT_IDENTITY["module"]
    match = _SEMVER.fullmatch(contract.version)
    assert match, f"contract version {contract.version!r} is not semver"
    expected = str(CONTRACT_IDENTITY["version"]).split(".")[:2]
    assert [match.group(1), match.group(2)] == expected, (
        f"backend implements {contract.crate} {contract.version}; this suite checks {CONTRACT_IDENTITY['version']}"
    )


def test_plan_schema_is_the_contract_schema(backend: BackendUnderTest) -> None:
    assert backend.describe().contract.plan_schema == api.EXECUTION_PLAN_SCHEMA


@pytest.mark.parametrize("limit", sorted(CONTRACT_LIMITS))
def test_contract_limit(backend: BackendUnderTest, limit: str) -> None:
    limits = backend.describe().limits
    assert limit in limits, f"describe.limits lacks {limit}"
    assert limits[limit] == CONTRACT_LIMITS[limit]


def test_backend_reaches_the_required_level(backend: BackendUnderTest, required_level: Level) -> None:
    """The backend implements every operation of the level the run requires (``--require``, default planning)."""
    operations = backend.describe().operations
    missing = [name for name in required_level.operations() if name not in operations]
    reached = Level.reached(operations)
    assert not missing, (
        f"the run requires level {required_level.label} ({', '.join(required_level.operations())}); the backend "
        f"reaches {reached.label if reached else 'no level'} and lacks {', '.join(missing)}"
    )


def test_operations_are_well_formed(backend: BackendUnderTest) -> None:
    operations = backend.describe().operations
    assert "describe" in operations
    assert list(operations) == sorted(set(operations)), "operations must be sorted and unique"
    unknown = sorted(set(operations) - set(OPERATIONS))
    assert not unknown, f"unknown operations {unknown}; the protocol defines {list(OPERATIONS)}"


@pytest.mark.parametrize("operation", [name for name, op in OPERATIONS.items() if not op.mandatory])
def test_declared_operation_answers_its_probe_with_a_contract_error(backend: BackendUnderTest, operation: str) -> None:
    """A declared operation answers arguments no valid input matches (its declared probe: an empty
    scenario, an empty identity) with a typed error."""
    backend.require(operation)
    probe = OPERATIONS[operation].probe
    try:
        getattr(backend, operation)(*probe)
    except VNextError:
        return
    except BackendFault:
        raise
    pytest.fail(f"{operation} accepted its probe {probe!r}")
