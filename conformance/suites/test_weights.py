"""Weight materializer selection (seed 002, 05 §10) through the backend interface.

``select_weight_plan`` returns the selected ``ExecutionWeightPlan``'s wire and
canonical fingerprint. The identity plan and the seed's padded-dense and
derived-component selections must equal the reference byte for byte; the
seed's rejections (logically mutating materializer, approximate fidelity,
unregistered id, descriptor not in the catalog, duplicate registration, more
than 63 extra materializers, missing device capability) must be rejected with
the reference's error: its kind and every field the contract pins.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from conformance.suites.contract_errors import error_of
from harness.cases import exercise
from harness.under_test import BackendUnderTest
from reference.api import VNextError, default_inputs, fingerprint, loads_strict, scenario_plan
from seeds.scenarios import seed_scenario, weights_plan_scenario
from seeds.weights import seed_materializer_document, split_schema

IDENTITY_DESCRIPTOR = {
    "id": "weight-materializer.identity",
    "version": {"major": 2, "minor": 0},
    "implementation_fingerprint": "8b4938b533e7cdc431f40951c3a532b4426cc526a65d22fdacfd0fe5bf02caae",
}


def _selection(*names: str, select: str, augment: bool = True) -> dict[str, Any]:
    return {
        "registry": {"materializers": [seed_materializer_document(n) for n in names]},
        "materializer_id": select,
        "augment_catalog": augment,
    }


PADDED = "weight-materializer.test.padded-dense"
MUTATION = "weight-materializer.test.logical-mutation"
DERIVED = "weight-materializer.test.derived-components"

ACCEPTED = [
    pytest.param(seed_scenario("identity"), id="identity"),
    pytest.param(
        seed_scenario("identity_selected", weights=_selection(select="weight-materializer.identity")),
        id="identity_selected_exactly",
    ),
    pytest.param(seed_scenario("padded", weights=_selection("padded_dense", select=PADDED)), id="padded_dense"),
    pytest.param(
        seed_scenario(
            "derived",
            family="fixed_schema",
            family_params={"schema": split_schema()},
            weights=_selection("derived_components", select=DERIVED),
        ),
        id="derived_components",
    ),
]


@pytest.mark.requires("select_weight_plan")
@pytest.mark.parametrize("scenario", ACCEPTED)
def test_selection_equals_reference(backend: BackendUnderTest, oracle: Any, scenario: dict[str, Any]) -> None:
    got = backend.select_weight_plan(scenario)
    want = oracle.select_weight_plan(scenario)
    assert got.wire == want.wire, "execution weight plan wire differs from the reference"
    assert got.fingerprint == want.fingerprint
    assert fingerprint(loads_strict(got.wire, context="conformance")) == got.fingerprint


@pytest.mark.requires("select_weight_plan")
def test_identity_plan_carries_the_identity_materializer(backend: BackendUnderTest) -> None:
    plan = loads_strict(backend.select_weight_plan(seed_scenario("identity")).wire, context="conformance")
    assert plan["materializer_id"] == IDENTITY_DESCRIPTOR["id"]
    assert plan["materializer_version"] == IDENTITY_DESCRIPTOR["version"]
    assert plan["materializer_implementation_fingerprint"] == IDENTITY_DESCRIPTOR["implementation_fingerprint"]
    assert all(sources == [cid] for cid, sources in plan["component_sources"].items())


def _rejections() -> list[Any]:
    base = seed_scenario("reject")
    approximate = _selection("padded_dense", select=PADDED)
    approximate["registry"]["materializers"][0]["descriptor"]["fidelity"] = "approximate"
    capability = _selection("padded_dense", select=PADDED)
    capability["registry"]["materializers"][0]["descriptor"]["required_capabilities"] = ["capability.missing"]
    duplicate = _selection("padded_dense", "padded_dense", select=PADDED)
    too_many = _selection(select=PADDED)
    entry = seed_materializer_document("padded_dense")
    for i in range(64):
        item = copy.deepcopy(entry)
        item["descriptor"]["id"] = f"weight-materializer.extra.{i}"
        too_many["registry"]["materializers"].append(item)
    cases = {
        "logical_mutation": _selection("logical_mutation", select=MUTATION),
        "approximate_fidelity": approximate,
        "unregistered": _selection("padded_dense", select="weight-materializer.unknown"),
        "not_in_catalog": _selection("padded_dense", select=PADDED, augment=False),
        "duplicate_registration": duplicate,
        "registry_over_63": too_many,
        "missing_device_capability": capability,
    }
    return [pytest.param({**base, "weights": sel}, id=name) for name, sel in cases.items()]


@pytest.mark.requires("select_weight_plan")
@pytest.mark.parametrize("scenario", _rejections())
def test_rejections_match_reference(backend: BackendUnderTest, oracle: Any, scenario: dict[str, Any]) -> None:
    want = error_of(lambda: oracle.select_weight_plan(scenario))
    assert want is not None and want["kind"] == "invalid_execution_plan", (
        f"seed 002 rejects every one of these with InvalidExecutionPlan; the reference gives {want}"
    )
    got = error_of(lambda: backend.select_weight_plan(scenario))
    assert got == want, f"the backend gives {got}, the reference {want}"


# --------------------------------------------------------------------------- one rule-breaking selection per cell


def _derived(**changes: Any) -> dict[str, Any]:
    """The split family with the seed's derived-components materializer document, ``changes`` applied."""
    document = {**seed_materializer_document("derived_components"), **copy.deepcopy(changes)}
    selection = {"registry": {"materializers": [document]}, "materializer_id": DERIVED, "augment_catalog": True}
    return seed_scenario("derived", family="fixed_schema", family_params={"schema": split_schema()}, weights=selection)


def _sources(**changes: list[str]) -> dict[str, list[str]]:
    sources = {"weight.execution.left": ["weight.component.left"], "weight.execution.right": ["weight.component.right"]}
    return {**sources, **changes}


def _descriptor(**changes: Any) -> dict[str, Any]:
    """The seed's derived-components descriptor document with ``changes``."""
    return {**seed_materializer_document("derived_components")["descriptor"], **changes}


def _registered_twice(descriptor: dict[str, Any]) -> dict[str, Any]:
    """The derived-components selection whose registry lists a second entry with ``descriptor``."""
    scenario = _derived()
    entries = scenario["weights"]["registry"]["materializers"]
    entries.append({**copy.deepcopy(entries[0]), "descriptor": descriptor})
    return scenario


def _unregistered() -> dict[str, Any]:
    scenario = _derived()
    scenario["weights"]["materializer_id"] = "weight-materializer.unknown"
    return scenario


def _catalog_descriptor_differs() -> dict[str, Any]:
    scenario = _derived()
    scenario["weights"]["augment_catalog"] = False
    descriptor = seed_materializer_document("derived_components")["descriptor"]
    scenario["catalog"]["weight_materializers"][DERIVED] = {**descriptor, "implementation_fingerprint": "7" * 64}
    return scenario


#: (scenario, expected kind, the phrase the reference's reason or message carries, rules): the trusted
#: weight plan disagreeing with its family or catalog in one way each (05 §10.3-§10.7).
SELECTION_CELLS: dict[str, Any] = {
    "component_sources_not_an_object": lambda: (
        _derived(component_sources=[]),
        "serialization",
        "component_sources must be a JSON object",
        (),
    ),
    "default_sources_for_a_derived_component": lambda: (
        _derived(component_sources=None),
        "invalid_execution_plan",
        "must declare sources for derived component",
        ("05.10.3/identity_component_sources_default",),
    ),
    "source_map_misses_a_component": lambda: (
        _derived(component_sources={"weight.execution.left": ["weight.component.left"]}),
        "invalid_execution_plan",
        "component source map is incomplete",
        ("05.10.7/structure_source_map_keys",),
    ),
    "source_list_empty": lambda: (
        _derived(component_sources=_sources(**{"weight.execution.right": []})),
        "invalid_execution_plan",
        "component source map is incomplete",
        ("05.10.7/structure_source_lists",),
    ),
    "source_list_duplicate": lambda: (
        _derived(
            component_sources=_sources(**{"weight.execution.right": ["weight.component.right"] * 2}),
        ),
        "invalid_execution_plan",
        "contains duplicate sources",
        ("05.10.7/structure_source_lists",),
    ),
    "source_not_in_family": lambda: (
        _derived(component_sources=_sources(**{"weight.execution.right": ["weight.component.unknown"]})),
        "invalid_execution_plan",
        "references unknown source component",
        ("05.10.7/family_sources_exist",),
    ),
    "required_source_unreferenced": lambda: (
        _derived(component_sources=_sources(**{"weight.execution.right": ["weight.component.left"]})),
        "invalid_execution_plan",
        "is not represented in the execution weight plan",
        ("05.10.7/family_required_components_referenced",),
    ),
    "catalog_descriptor_differs": lambda: (
        _catalog_descriptor_differs(),
        "invalid_execution_plan",
        "differs from its capability catalog descriptor",
        ("05.10.4/select_descriptor_equals_catalog",),
    ),
    "descriptor_unknown_field": lambda: (
        _derived(descriptor=_descriptor(extra=1)),
        "serialization",
        "unknown field `extra` in WeightMaterializerDescriptor",
        ("05.10.2/descriptor_wire_deny_unknown",),
    ),
    "descriptor_fidelity_approximate": lambda: (
        _derived(descriptor=_descriptor(fidelity="approximate")),
        "invalid_execution_plan",
        "is approximate and requires explicit numerical-quality approval",
        ("05.10.1/fidelity_spellings", "05.10.4/select_exact_fidelity"),
    ),
    "descriptor_fidelity_misspelled": lambda: (
        _derived(descriptor=_descriptor(fidelity="Exact")),
        "serialization",
        "unknown variant 'Exact'",
        ("05.10.1/fidelity_spellings",),
    ),
    "registry_entry_version_major_zero": lambda: (
        _derived(descriptor=_descriptor(version={"major": 0, "minor": 1})),
        "invalid_execution_plan",
        "has invalid version or implementation identity",
        ("05.10.4/registry_entry_structure",),
    ),
    "registry_entry_registered_twice": lambda: (
        _registered_twice(_descriptor()),
        "invalid_execution_plan",
        f"duplicate weight materializer `{DERIVED}`",
        ("05.10.4/registry_duplicate_id",),
    ),
    "registry_entry_with_the_identity_id": lambda: (
        _registered_twice(_descriptor(id="weight-materializer.identity")),
        "invalid_execution_plan",
        "duplicate weight materializer `weight-materializer.identity`",
        ("05.10.4/registry_duplicate_id",),
    ),
    "selected_id_not_registered": lambda: (
        _unregistered(),
        "invalid_execution_plan",
        "weight materializer `weight-materializer.unknown` is not registered",
        ("05.10.4/select_unregistered",),
    ),
}


def _reason(error: VNextError) -> str:
    raw = error.to_dict()
    return str(raw.get("reason", raw.get("message", "")))


@pytest.mark.requires("select_weight_plan")
@pytest.mark.parametrize("cell", sorted(SELECTION_CELLS))
def test_selection_cells_match_the_reference(backend: BackendUnderTest, oracle: Any, cell: str) -> None:
    scenario, kind, phrase, rules = SELECTION_CELLS[cell]()
    exercise(*rules)
    with pytest.raises(VNextError) as info:
        oracle.select_weight_plan(scenario)
    assert info.value.kind == kind, f"{cell}: the reference gives {info.value.to_dict()}"
    assert phrase in _reason(info.value), f"{cell}: the reference refuses for another reason"
    want = error_of(lambda: oracle.select_weight_plan(scenario))
    got = error_of(lambda: backend.select_weight_plan(scenario))
    assert got is not None, f"{cell}: the backend selects a plan; the reference gives {want}"
    assert got == want, f"{cell}: the backend gives {got}, the reference {want}"


#: Materializer faults (the returned group perturbed) and the phrase of the reference's refusal (05 §10.6).
MATERIALIZE_FAULTS: dict[str, tuple[str, str]] = {
    "drop_last": ("returned 0 payloads for 1 execution components", "05.10.6/materialize_payload_count"),
    "duplicate_first": ("returned 2 payloads for 1 execution components", "05.10.6/materialize_payload_count"),
    "source_payload": ("returned invalid or reordered payload", "05.10.6/materialize_payload_fields"),
}


@pytest.mark.requires("execute")
@pytest.mark.parametrize("materializer", ["padded_dense", "derived_components"])
@pytest.mark.parametrize("fault", sorted(MATERIALIZE_FAULTS))
def test_a_faulty_materializer_is_refused_when_weights_are_materialized(
    backend: BackendUnderTest, oracle: Any, materializer: str, fault: str
) -> None:
    phrase, rule = MATERIALIZE_FAULTS[fault]
    exercise(rule)
    scenario = weights_plan_scenario(materializer)
    scenario["weights"]["registry"]["materializers"][0]["fault"] = fault
    inputs = default_inputs(scenario_plan(scenario))
    with pytest.raises(VNextError) as info:
        oracle.execute(scenario, inputs, 1)
    assert info.value.kind == "invalid_execution_plan", f"{fault}: the reference gives {info.value.to_dict()}"
    assert phrase in _reason(info.value), f"{fault}: the reference refuses for another reason"
    want = error_of(lambda: oracle.execute(scenario, inputs, 1))
    got = error_of(lambda: backend.execute(scenario, inputs, 1))
    assert got is not None, f"{materializer}/{fault}: the backend executes; the reference gives {want}"
    assert got == want, f"{materializer}/{fault}: the backend gives {got}, the reference {want}"
