"""Prepared families and catalog fingerprints (02 §6-§7, 03 §11.5) agree with the reference.

For every seed family the backend's prepared-family fingerprint and wire equal
the reference's; TestFamily's fingerprint is pinned to the contract vector;
OrderedSchemaFamily's normalized schema makes its fingerprint independent of
component, tensor and composite-part order but not of external-name order;
invalid configs are rejected with ``invalid_model_config``. Catalog
fingerprints equal the reference's and are independent of provider-list order;
a catalog spelling every wire form of its enums and constraints (unreduced
rationals and unsorted profiles included) fingerprints like the reference on
every device class, and the reference-oracle depth is counted along walks from
the roots in ascending id.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from conformance.suites.contract_errors import pinned
from harness.under_test import BackendUnderTest
from reference.api import VNextError
from seeds.catalogs import (
    DEVICE_CLASSES,
    catalog,
    catalog_of_every_wire_form,
    catalog_with_memory,
    catalog_with_secondary_provider,
    reference_oracle_chain,
)
from seeds.scenarios import seed_scenario

TEST_FAMILY_FINGERPRINT = "f4b3f9f643e98e9e3b3a8b613c20d0eea9a926d0dcc07f0a8a012b94ec4fa908"
SEED_CATALOG_FINGERPRINT = "9354acce5aca132550d7808777b353a5ae1e4d208914c33fd1d3f1de328b193b"

FAMILIES = [
    pytest.param("test", {}, id="test"),
    pytest.param("ordered_schema", {}, id="ordered_schema"),
    pytest.param("sequential_scratch", {}, id="sequential_scratch"),
    *[
        pytest.param("graph", {"scenario": s}, id=f"graph_{s}")
        for s in (
            "alias",
            "alias_late_consumer",
            "alias_terminal_intermediate",
            "state_chain",
            "state_read_only",
        )
    ],
]


def _error_kind(call: Any) -> str | None:
    try:
        call()
    except VNextError as exc:
        return exc.kind
    return None


@pytest.mark.requires("prepare_family")
@pytest.mark.parametrize(("family", "params"), FAMILIES)
def test_prepared_family_equals_reference(
    backend: BackendUnderTest, oracle: Any, family: str, params: dict[str, Any]
) -> None:
    scenario = seed_scenario(f"family-{family}", family=family, family_params=params)
    got = backend.prepare_family(scenario)
    want = oracle.prepare_family(scenario)
    assert got.fingerprint == want.fingerprint
    assert got.wire == want.wire, "prepared family wire bytes differ from the reference"


@pytest.mark.requires("prepare_family")
def test_test_family_fingerprint_vector(backend: BackendUnderTest) -> None:
    assert backend.prepare_family(seed_scenario("family-test")).fingerprint == TEST_FAMILY_FINGERPRINT


@pytest.mark.requires("prepare_family")
def test_ordered_schema_fingerprint_ignores_declared_order(backend: BackendUnderTest) -> None:
    base = backend.prepare_family(seed_scenario("ordered", family="ordered_schema")).fingerprint
    reversed_ = backend.prepare_family(
        seed_scenario("ordered-rev", family="ordered_schema", family_params={"reverse": True})
    ).fingerprint
    assert reversed_ == base, "reordering components/tensors/parts changed the prepared family fingerprint"
    sources = backend.prepare_family(
        seed_scenario("ordered-src", family="ordered_schema", family_params={"reverse_sources": True})
    ).fingerprint
    assert sources != base, "reversing external-name order must change the fingerprint"


@pytest.mark.requires("prepare_family")
@pytest.mark.parametrize("raw_config", [{"width": 5}, {"width": 4, "extra": 1}, {}, [], {"width": "4"}])
def test_invalid_config_is_rejected_like_the_reference(backend: BackendUnderTest, oracle: Any, raw_config: Any) -> None:
    scenario = seed_scenario("bad-config")
    scenario["family"]["raw_config"] = raw_config
    want = _error_kind(lambda: oracle.prepare_family(scenario))
    assert want == "invalid_model_config"
    assert _error_kind(lambda: backend.prepare_family(scenario)) == want


CATALOGS = [
    pytest.param(catalog, id="catalog"),
    pytest.param(lambda: catalog_with_memory(4096), id="catalog_with_memory_4096"),
    pytest.param(catalog_with_secondary_provider, id="catalog_with_secondary_provider"),
]


@pytest.mark.requires("fingerprint_catalog")
@pytest.mark.parametrize("make", CATALOGS)
def test_catalog_fingerprint_equals_reference(backend: BackendUnderTest, oracle: Any, make: Any) -> None:
    scenario = seed_scenario("catalog", catalog_value=make())
    assert backend.fingerprint_catalog(scenario) == oracle.fingerprint_catalog(scenario)


@pytest.mark.requires("fingerprint_catalog")
def test_seed_catalog_fingerprint_vector(backend: BackendUnderTest) -> None:
    assert backend.fingerprint_catalog(seed_scenario("catalog")) == SEED_CATALOG_FINGERPRINT


@pytest.mark.requires("fingerprint_catalog")
def test_catalog_fingerprint_ignores_provider_list_order(backend: BackendUnderTest) -> None:
    scenario = seed_scenario("catalog", catalog_value=catalog_with_secondary_provider())
    permuted = copy.deepcopy(scenario)
    for rows in permuted["catalog"]["providers"].values():
        rows.reverse()
    assert backend.fingerprint_catalog(permuted) == backend.fingerprint_catalog(scenario)


@pytest.mark.requires("fingerprint_catalog")
def test_catalog_fingerprint_changes_with_device_memory(backend: BackendUnderTest) -> None:
    a = backend.fingerprint_catalog(seed_scenario("a", catalog_value=catalog_with_memory(4096)))
    b = backend.fingerprint_catalog(seed_scenario("b", catalog_value=catalog_with_memory(4097)))
    assert a != b


def _unreduced(value: Any) -> Any:
    """``value`` with every rational ``n/d`` spelled ``2n/2d``."""
    if isinstance(value, dict):
        if set(value) == {"numerator", "denominator"}:
            return {"numerator": 2 * value["numerator"], "denominator": 2 * value["denominator"]}
        return {key: _unreduced(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_unreduced(item) for item in value]
    return value


def _every_wire_form(device_class: str) -> dict[str, Any]:
    """The catalog of every wire form on a ``device_class`` device, its profiles listed in descending order and
    its operations' rationals unreduced: decoding sorts the one (03 §6.2) and reduces the other (03 §4)."""
    scenario = seed_scenario("catalog-wire-forms", catalog_value=catalog_of_every_wire_form(device_class))
    document = scenario["catalog"]
    document["device"]["dynamic_storage_profiles"].reverse()
    document["operations"] = _unreduced(document["operations"])
    return scenario


@pytest.mark.requires("fingerprint_catalog")
@pytest.mark.rules(
    "03.3.1/tensor_access_wire", "03.5.1/profile_phase_values", "03.6.1/value_role_order", "03.10/device_class_values"
)
@pytest.mark.parametrize("device_class", DEVICE_CLASSES)
def test_every_catalog_wire_form_fingerprints_like_the_reference(
    backend: BackendUnderTest, oracle: Any, device_class: str
) -> None:
    """Every ``TensorAccess``, ``ProfilePhase``, ``OracleSpec``, ``AttributeConstraint`` and stride form, both
    execution-semantics presets, input and output bindings, five storage profiles and each ``DeviceClass``."""
    scenario = _every_wire_form(device_class)
    want = oracle.fingerprint_catalog(scenario)
    assert want == catalog_of_every_wire_form(device_class).fingerprint(), "the reference did not canonicalize"
    assert backend.fingerprint_catalog(scenario) == want


def _renamed(value: Any, names: dict[str, str]) -> Any:
    """``value`` with every string (and object key) of ``names`` replaced."""
    if isinstance(value, dict):
        return {names.get(key, key): _renamed(item, names) for key, item in value.items()}
    if isinstance(value, list):
        return [_renamed(item, names) for item in value]
    return names.get(value, value) if isinstance(value, str) else value


@pytest.mark.requires("fingerprint_catalog")
@pytest.mark.rules("03.11.3/oracle_depth_walk_order")
def test_reference_oracle_depth_is_counted_from_the_first_root(backend: BackendUnderTest, oracle: Any) -> None:
    """A 65-operation chain whose tail has the least id is accepted (each walk from a root in ascending id meets
    visited operations after one step); the same chain with its ids reversed, head first, is refused: the walk
    from its head marks 64 operations and meets a 65th (03 §11.3 pass 2)."""
    accepted = seed_scenario("oracle-chain", catalog_value=reference_oracle_chain(65))
    assert backend.fingerprint_catalog(accepted) == oracle.fingerprint_catalog(accepted)
    names = {f"operation.chain.{index:02d}": f"operation.chain.{64 - index:02d}" for index in range(65)}
    refused = {**accepted, "catalog": _renamed(accepted["catalog"], names)}
    with pytest.raises(VNextError) as info:
        oracle.fingerprint_catalog(refused)
    assert "exceeds depth 64" in info.value.message, info.value
    want = pinned(info.value)
    with pytest.raises(VNextError) as answer:
        backend.fingerprint_catalog(refused)
    assert pinned(answer.value) == want
