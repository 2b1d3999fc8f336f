"""Plan-hash stability (01 "Plan stability", 02 §12.1, 05 §8.2): determinism, independence from
input order and process environment, sensitivity to every semantic input, golden vectors.

* The harness recomputes every hash: ``sha256(canonical(payload - plan_id))`` and
  ``plan_id == "plan/sha256/" + hash``.
* Order-insensitive respellings of a scenario (``strategies.respellings.RESPELLINGS``) keep
  the wire byte for byte; semantic changes (``SEMANTIC_CHANGES``) change the hash. The
  sensitivity matrix applies every one of them to fixed bases and records the result
  (``case_property("sensitivity_matrix", ...)``, printed with ``-s``).
* Fresh processes of an ``exec:`` backend with other ``PYTHONHASHSEED`` / ``LC_ALL`` / ``TZ``
  write the same bytes (not applicable in process).
* A backend claims wire compatibility by reporting the reference's contract identity in
  ``describe`` (decision D-07H-2); then its wires equal the reference's byte for byte.
* Golden vectors (``conformance/golden/plan_hashes.json``) pin the hashes to 0.12.2 / 8.1.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conformance.golden import expected_contract, load
from harness.bundles import Bundle
from harness.cases import not_applicable
from harness.plugin.counterexamples import CounterexampleRecorder
from harness.protocol.description import BackendDescription
from harness.under_test import BackendUnderTest
from reference.api import canonical_bytes, direct_bytes, loads_strict, sha256_hex
from strategies.respellings import RESPELLINGS, respelled, reverse_shuffler
from strategies.scenarios import (
    ScenarioCase,
    chain_case,
    graph_case,
    rich_fixture_case,
    scenario_cases,
    sequential_scratch_case,
    weights_case,
)
from strategies.semantic_changes import SEMANTIC_CHANGES, semantically_changed

MAX_WIRE = 16 * 1024 * 1024
_GOLDEN = load()
GOLDEN = [pytest.param(vector, id=vector["name"]) for vector in _GOLDEN["vectors"]]
MATRIX_BASES: dict[str, Callable[[], ScenarioCase]] = {
    "rich_fixture": rich_fixture_case,
    "chain_3": lambda: chain_case(3, retention=("value.chain.00000", "value.chain.00001")),
    "graph_state_chain": lambda: graph_case("state_chain", "must_alias_exact"),
    "sequential_scratch": sequential_scratch_case,
    "weights_padded_dense": lambda: weights_case("padded_dense"),
}
#: Environments of the fresh exec processes (decision D-07H-3).
FRESH_ENVIRONMENTS = (
    {"PYTHONHASHSEED": "0", "LC_ALL": "C", "LANG": "C", "TZ": "UTC"},
    {"PYTHONHASHSEED": "12345", "LC_ALL": "C.UTF-8", "LANG": "C.UTF-8", "TZ": "Asia/Kathmandu"},
)


def _raw(wire: bytes) -> dict[str, Any]:
    raw: dict[str, Any] = loads_strict(wire, context="conformance: decode built plan", max_bytes=MAX_WIRE)
    return raw


def _hash(wire: bytes) -> str:
    value: str = _raw(wire)["plan_hash"]
    return value


def _build_bundle(case: str, scenario: dict[str, Any]) -> Bundle:
    return Bundle("build_plan", {"scenario": scenario}, None, case)


def _claims_wire_compatibility(description: BackendDescription, reference: BackendDescription) -> bool:
    """D-07H-2: the backend reports the reference's crate, version, module and plan schema."""
    return description.contract == reference.contract


# --------------------------------------------------------------------------- determinism and hash


@pytest.mark.requires("build_plan")
@given(case=scenario_cases(guided=True))
def test_the_same_scenario_builds_byte_identical_wires(
    backend: BackendUnderTest, counterexamples: CounterexampleRecorder, case: ScenarioCase
) -> None:
    with counterexamples.on_failure(lambda: _build_bundle("hash_stability/build_twice", case.scenario)):
        assert backend.build_plan(case.scenario) == backend.build_plan(case.scenario), case.label


@pytest.mark.requires("build_plan")
@given(case=scenario_cases())
def test_the_harness_recomputes_every_hash(
    backend: BackendUnderTest, counterexamples: CounterexampleRecorder, case: ScenarioCase
) -> None:
    with counterexamples.on_failure(lambda: _build_bundle("hash_stability/recompute", case.scenario)):
        raw = _raw(backend.build_plan(case.scenario))
        payload = raw["payload"]
        material = {key: value for key, value in payload.items() if key != "plan_id"}
        digest = sha256_hex(canonical_bytes(material))
        assert raw["plan_hash"] == digest, f"{case.label}: plan_hash is not sha256(canonical(payload - plan_id))"
        assert payload["plan_id"] == "plan/sha256/" + digest, case.label


# --------------------------------------------------------------------------- respellings and semantic changes


@pytest.mark.requires("build_plan")
@given(case=scenario_cases(), operator=st.sampled_from(sorted(RESPELLINGS)), data=st.data())
def test_a_respelled_scenario_keeps_the_wire(
    backend: BackendUnderTest,
    counterexamples: CounterexampleRecorder,
    case: ScenarioCase,
    operator: str,
    data: st.DataObject,
) -> None:
    respelling = respelled(data.draw, case.scenario, operator)
    with counterexamples.on_failure(
        lambda: _build_bundle(f"hash_stability/respelling/{operator}", respelling.scenario)
    ):
        original = backend.build_plan(case.scenario)
        assert backend.build_plan(respelling.scenario) == original, f"{operator} ({respelling.rule}) on {case.label}"


@pytest.mark.requires("build_plan")
@given(case=scenario_cases(), first=st.integers(0, len(SEMANTIC_CHANGES) - 1))
def test_a_semantic_change_changes_the_hash(
    backend: BackendUnderTest, counterexamples: CounterexampleRecorder, case: ScenarioCase, first: int
) -> None:
    names = sorted(SEMANTIC_CHANGES)
    change = next(
        c
        for c in (semantically_changed(case.scenario, names[(first + k) % len(names)]) for k in range(len(names)))
        if c is not None
    )
    with counterexamples.on_failure(
        lambda: _build_bundle(f"hash_stability/semantic/{change.operator}", change.scenario)
    ):
        before = _hash(backend.build_plan(case.scenario))
        after = _hash(backend.build_plan(change.scenario))
        assert before != after, f"changing the {change.input} ({change.rule}) kept the hash on {case.label}"


def _matrix_row(backend: BackendUnderTest, base: dict[str, Any]) -> dict[str, dict[str, Any]]:
    reference_hash = _hash(backend.build_plan(base))
    row: dict[str, dict[str, Any]] = {}
    for operator, (rule, rewrite) in sorted(RESPELLINGS.items()):
        scenario = rewrite(copy.deepcopy(base), reverse_shuffler)
        changed_input = direct_bytes(scenario) != direct_bytes(base)
        same = _hash(backend.build_plan(scenario)) == reference_hash
        row[f"cosmetic:{operator}"] = {"input_changed": changed_input, "hash_kept": same, "ok": same, "rule": rule}
    for operator in sorted(SEMANTIC_CHANGES):
        change = semantically_changed(base, operator)
        if change is None:
            row[f"semantic:{operator}"] = {"applies": False, "ok": True}
            continue
        moved = _hash(backend.build_plan(change.scenario)) != reference_hash
        row[f"semantic:{operator}"] = {"input": change.input, "hash_changed": moved, "ok": moved, "rule": change.rule}
    return row


@pytest.mark.requires("build_plan")
@pytest.mark.parametrize("base", sorted(MATRIX_BASES))
def test_sensitivity_matrix(backend: BackendUnderTest, case_property: Any, base: str) -> None:
    row = _matrix_row(backend, MATRIX_BASES[base]().scenario)
    case_property("sensitivity_matrix", json.dumps({base: row}, sort_keys=True))
    lines = [f"sensitivity matrix on {base}:"]
    lines += [
        f"  {name:42s} {'ok' if cell['ok'] else 'FAIL'}"
        + ("" if cell.get("applies", True) else "  (does not apply)")
        + ("" if cell.get("input_changed", True) else "  (input bytes unchanged)")
        for name, cell in row.items()
    ]
    print("\n".join(lines))
    failed = [name for name, cell in row.items() if not cell["ok"]]
    assert not failed, f"hash sensitivity wrong on {base}: {failed}"


# --------------------------------------------------------------------------- environment, reference, golden


def _fixed_cases() -> list[ScenarioCase]:
    return [MATRIX_BASES[name]() for name in sorted(MATRIX_BASES)]


@pytest.mark.requires("build_plan")
def test_fresh_processes_write_the_same_bytes(backend: BackendUnderTest) -> None:
    cases = _fixed_cases()
    expected = [backend.build_plan(case.scenario) for case in cases]
    for changes in FRESH_ENVIRONMENTS:
        fresh = backend.fresh(changes)
        try:
            for case, wire in zip(cases, expected, strict=True):
                assert fresh.build_plan(case.scenario) == wire, f"{case.label} differs under {changes}"
        finally:
            fresh.close()


@pytest.mark.requires("build_plan")
@given(case=scenario_cases())
def test_wire_compatible_backends_write_the_reference_bytes(
    backend: BackendUnderTest, oracle: BackendUnderTest, counterexamples: CounterexampleRecorder, case: ScenarioCase
) -> None:
    if not _claims_wire_compatibility(backend.description, oracle.description):
        not_applicable("the backend does not report the reference's contract identity (no wire-compatibility claim)")
    oracle.require("build_plan")
    with counterexamples.on_failure(lambda: _build_bundle("hash_stability/reference_bytes", case.scenario)):
        assert backend.build_plan(case.scenario) == oracle.build_plan(case.scenario), case.label


def test_golden_vectors_are_pinned_to_the_contract() -> None:
    assert _GOLDEN["contract"] == expected_contract()
    assert _GOLDEN["contract"]["version"] == "0.12.2"
    assert _GOLDEN["contract"]["plan_schema"] == {"major": 8, "minor": 1}
    assert len({v["name"] for v in _GOLDEN["vectors"]}) == len(_GOLDEN["vectors"]) >= 10


@pytest.mark.requires("build_plan")
@pytest.mark.parametrize("vector", GOLDEN)
def test_golden_vector(backend: BackendUnderTest, vector: dict[str, Any]) -> None:
    wire = backend.build_plan(vector["scenario"])
    assert _hash(wire) == vector["plan_hash"], f"{vector['name']}: plan hash differs from the golden vector"
    assert (sha256_hex(wire), len(wire)) == (vector["wire_sha256"], vector["wire_bytes"]), (
        f"{vector['name']}: same hash but the wire bytes differ from the reference's"
    )
