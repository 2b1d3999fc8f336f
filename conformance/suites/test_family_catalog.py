"""Prepared families and catalog fingerprints (02 §6-§7, 03 §11.5) agree with the reference.

For every seed family the backend's prepared-family fingerprint and wire equal
the reference's; TestFamily's fingerprint is pinned to the contract vector;
OrderedSchemaFamily's normalized schema makes its fingerprint independent of
component, tensor and composite-part order but not of external-name order;
invalid configs are rejected with the reference's ``invalid_model_config`` (the
field TestFamily or the raw-config-consumed check names). Catalog
fingerprints equal the reference's and are independent of provider-list order.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from conformance.suites.contract_errors import error_of
from harness.cases import exercise
from harness.under_test import BackendUnderTest
from seeds.catalogs import catalog, catalog_with_memory, catalog_with_secondary_provider
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


#: Raw configs TestFamily refuses, with the field its error names (02 §12: a serde error is ``config``, a width
#: other than 4 is ``width``; an unread key is refused by the raw-config-consumed check at its path, 02 §5.2).
INVALID_CONFIGS = [
    pytest.param({"width": 5}, "width", id="raw_config0"),
    pytest.param({"width": 4, "extra": 1}, "/extra", id="raw_config1"),
    pytest.param({}, "config", id="raw_config2"),
    pytest.param([], "config", id="raw_config3"),
    pytest.param({"width": "4"}, "config", id="raw_config4"),
]


@pytest.mark.requires("prepare_family")
@pytest.mark.parametrize(("raw_config", "field"), INVALID_CONFIGS)
def test_invalid_config_is_rejected_like_the_reference(
    backend: BackendUnderTest, oracle: Any, raw_config: Any, field: str
) -> None:
    if field in ("config", "width"):
        exercise("02.12/test_family_width_config")
    scenario = seed_scenario("bad-config")
    scenario["family"]["raw_config"] = raw_config
    want = error_of(lambda: oracle.prepare_family(scenario))
    assert want == {"kind": "invalid_model_config", "family_id": "family.synthetic", "field": field}, want
    assert error_of(lambda: backend.prepare_family(scenario)) == want


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
