"""Scenario documents: outer shape, sections, and the api operations that read them."""

from __future__ import annotations

import copy
from typing import Any

import pytest

import schemas
from reference import api
from reference.documents.catalog import catalog_to_document
from reference.documents.policy import policy_to_document
from reference.errors import InvalidModelConfig, Serialization
from reference.scenario.document import ScenarioDocument
from reference.scenario.sections import scenario_policy
from seeds.catalogs import catalog, planning_document
from seeds.families import seed_family_document, seed_raw_config
from seeds.policies import policy


def minimal_scenario() -> dict[str, Any]:
    return {
        "scenario_version": 1,
        "name": "test-family",
        "family": {
            "document": seed_family_document("test"),
            "raw_config": seed_raw_config("test"),
            "numerical_profile": "fixture.f32",
        },
        "catalog": catalog_to_document(catalog()),
        "policy": policy_to_document(policy(4096)),
        "registry": planning_document(catalog()).to_wire(),
        "resolutions": [],
        "weights": None,
        "completion_retention": [],
    }


def test_round_trip_and_schema() -> None:
    raw = minimal_scenario()
    schemas.validate("scenario.json", raw)
    doc = ScenarioDocument.from_wire(raw)
    assert doc.to_wire() == raw
    assert ScenarioDocument.from_json(doc.canonical_bytes()) == doc


def test_seed_vectors_through_the_api() -> None:
    raw = minimal_scenario()
    prepared = api.prepare_family(raw)
    assert prepared.fingerprint == "f4b3f9f643e98e9e3b3a8b613c20d0eea9a926d0dcc07f0a8a012b94ec4fa908"
    assert api.fingerprint_catalog(raw) == "9354acce5aca132550d7808777b353a5ae1e4d208914c33fd1d3f1de328b193b"
    assert {"prepare_family", "fingerprint_catalog"} <= set(api.supported_operations())


def test_policy_section_decodes() -> None:
    assert scenario_policy(ScenarioDocument.from_wire(minimal_scenario())).maximum_active_sequences() == 3


@pytest.mark.parametrize(
    "mutate",
    [
        lambda d: d.pop("weights"),
        lambda d: d.update(extra=1),
        lambda d: d.update(scenario_version=2),
        lambda d: d["family"].pop("raw_config"),
        lambda d: d["family"].update(numerical_profile=3),
        lambda d: d.update(resolutions=[1]),
        lambda d: d.update(completion_retention=[None]),
        lambda d: d.update(catalog=[]),
        lambda d: d.update(weights=[]),
    ],
)
def test_outer_shape_errors_are_serialization(mutate: Any) -> None:
    raw = copy.deepcopy(minimal_scenario())
    mutate(raw)
    with pytest.raises(Serialization):
        ScenarioDocument.from_wire(raw)


def test_bad_profile_id_is_serialization_and_bad_config_keeps_its_kind() -> None:
    raw = minimal_scenario()
    raw["family"]["numerical_profile"] = "not portable"
    with pytest.raises(Serialization):
        api.prepare_family(raw)
    raw = minimal_scenario()
    raw["family"]["raw_config"] = {"width": 5}
    with pytest.raises(InvalidModelConfig):
        api.prepare_family(raw)
