"""Scenario version 2 (decision H-20): the family registry and the planning-registry instances."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

import schemas
from reference import api
from reference.errors import InvalidExecutionPlan, Serialization, UnknownModelFamily
from reference.scenario.document import ScenarioDocument
from reference.scenario.sections import scenario_family_registry
from seeds.families import seed_family_document
from seeds.scenarios import registries_scenario, seed_scenario, sequential_scratch_scenario

ROOT = Path(__file__).resolve().parents[2]


def test_version_2_round_trips_and_matches_the_schema() -> None:
    raw = registries_scenario(sequential_scratch_scenario(), resolution_registries=[0, 1])
    schemas.validate("scenario.json", raw)
    doc = ScenarioDocument.from_wire(raw)
    assert doc.version == 2 and doc.resolution_registries == (0, 1)
    assert doc.to_wire() == raw
    assert ScenarioDocument.from_json(doc.canonical_bytes()) == doc


def test_version_1_keeps_its_bytes_and_refuses_the_version_2_keys() -> None:
    raw = seed_scenario("v1")
    doc = ScenarioDocument.from_wire(raw)
    assert doc.family_registry is None and doc.resolution_registries is None
    assert doc.to_wire() == raw and "family_registry" not in doc.to_wire()
    for key in ("family_registry", "resolution_registries"):
        with pytest.raises(Serialization, match=key):
            ScenarioDocument.from_wire({**raw, key: []})
    with pytest.raises(Exception):  # noqa: B017 - jsonschema's ValidationError
        schemas.validate("scenario.json", {**raw, "family_registry": []})


def test_every_checked_in_scenario_still_decodes_to_its_own_bytes() -> None:
    seen = 0
    for path in sorted((ROOT / "conformance").rglob("*.json")):
        text = path.read_text(encoding="utf-8")
        if '"scenario_version"' not in text:
            continue
        stack: list[Any] = [json.loads(text)]
        while stack:
            item = stack.pop()
            if isinstance(item, dict):
                if "scenario_version" in item and "family" in item:
                    assert ScenarioDocument.from_wire(item).to_wire() == item
                    seen += 1
                else:
                    stack.extend(item.values())
            elif isinstance(item, list):
                stack.extend(item)
    assert seen > 0


@pytest.mark.parametrize(
    "mutate",
    [
        lambda d: d.pop("family_registry"),
        lambda d: d.pop("resolution_registries"),
        lambda d: d.update(resolution_registries=[0]),
        lambda d: d.update(resolution_registries=[0, -1]),
        lambda d: d.update(resolution_registries=[0, 2**32]),
        lambda d: d.update(family_registry=[1]),
        lambda d: d.update(family_registry={}),
        lambda d: d.update(extra=1),
    ],
)
def test_version_2_shape_errors_are_serialization(mutate: Any) -> None:
    raw = copy.deepcopy(registries_scenario(sequential_scratch_scenario()))
    mutate(raw)
    with pytest.raises(Serialization) as info:
        ScenarioDocument.from_wire(raw)
    assert info.value.context == "decode scenario"


def test_the_family_registry_lists_the_documents_in_order() -> None:
    base = seed_scenario("registry")
    assert len(scenario_family_registry(ScenarioDocument.from_wire(base)).registrations()) == 1
    docs = [seed_family_document("test"), seed_family_document("sequential_scratch")]
    registry = scenario_family_registry(ScenarioDocument.from_wire(registries_scenario(base, docs)))
    assert [r.family_id().value for r in registry.registrations()] == ["family.synthetic", "family.sequential-scratch"]
    wire = api.prepare_family(base).wire
    with pytest.raises(UnknownModelFamily):
        api.revalidate_family(registries_scenario(base, []), wire)
    bad = registries_scenario(base, [{"document_version": 9}])
    with pytest.raises(Serialization) as info:
        api.revalidate_family(bad, wire)
    assert info.value.context == "decode model family document"


def test_one_instance_builds_the_version_1_plan_and_two_instances_are_refused() -> None:
    base = sequential_scratch_scenario()
    assert api.build_plan(registries_scenario(base, resolution_registries=[3, 3])) == api.build_plan(base)
    with pytest.raises(InvalidExecutionPlan):
        api.build_plan(registries_scenario(base, resolution_registries=[0, 1]))
    two = registries_scenario(base, resolution_registries=[1, 0])
    wire = api.build_plan(base)
    assert api.revalidate(base, wire)
    with pytest.raises(InvalidExecutionPlan):
        api.revalidate(two, wire)
