"""The kit's typed scenario structs cover ``schemas/scenario.json``: every scenario round-trips.

A scenario the strategies generate, a corpus or golden scenario, or a seed fixture is sent
to ``vnext-kit roundtrip``, which decodes it into the kit's serde types and writes the
canonical bytes of the typed value; they must equal ``reference.canonical.canonical_bytes``
of the original. A schema-valid scenario must decode; what the kit refuses must be
schema-invalid and refused with ``serialization``/``decode scenario``; an unknown key in any
typed object must be refused. So the types can neither drop nor invent data as the schema grows.
"""

from __future__ import annotations

import base64
import copy
import json
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import schemas
from conformance.corpus import corpus_paths
from conformance.golden import load as load_golden
from reference.canonical import canonical_bytes
from seeds.scenarios import seed_scenario
from strategies.budget import (
    BASES,
    EDGE_KINDS,
    REGISTRY_FAULTS,
    base_scenario,
    budget_cases,
    edge_cases,
    estimator_cases,
    registry_fault,
    scratch_cases,
    sequence_pairs,
)
from strategies.respellings import RESPELLINGS, respelled
from strategies.scenarios import rich_fixture_case, scenario_cases
from strategies.semantic_changes import SEMANTIC_CHANGES, semantically_changed

from .kit import LineProcess

#: Subtrees holding free-form JSON (any keys are data, not fields).
FREE_FORM = (("family", "raw_config"), ("family", "document", "config", "value"), ("policy", "serialized"))


def _schema_valid(scenario: Any) -> bool:
    return bool(schemas.validator("scenario.json").is_valid(scenario))


def _ask(roundtrip: LineProcess, scenario: Any) -> dict[str, Any]:
    return roundtrip.ask(canonical_bytes(scenario))


def assert_round_trips(roundtrip: LineProcess, scenario: Any) -> None:
    """What the kit decodes re-encodes to the same canonical bytes; it decodes every schema-valid
    scenario; what it refuses is ``serialization``/``decode scenario`` and schema-invalid.

    The kit checks shape only (keys, JSON types, enum spellings, integer widths), so a scenario
    breaking a value rule of the schema (a pattern, ``minItems``) may still decode.
    """
    answer = _ask(roundtrip, scenario)
    if "canonical_base64" in answer:
        assert base64.b64decode(answer["canonical_base64"]) == canonical_bytes(scenario)
        return
    assert answer.get("error", {}).get("kind") == "serialization", answer
    assert answer["error"]["context"] == "decode scenario"
    assert not _schema_valid(scenario), f"a schema-valid scenario was refused: {answer}"


@given(scenario_cases(max_chain=6))
def test_generated_planning_scenarios_round_trip(roundtrip: LineProcess, case: Any) -> None:
    assert_round_trips(roundtrip, case.scenario)


@given(st.data(), scenario_cases(max_chain=3), st.sampled_from(sorted(RESPELLINGS)))
def test_respelled_scenarios_round_trip(roundtrip: LineProcess, data: st.DataObject, case: Any, operator: str) -> None:
    assert_round_trips(roundtrip, respelled(data.draw, case.scenario, operator).scenario)


@given(scenario_cases(max_chain=3), st.sampled_from(sorted(SEMANTIC_CHANGES)))
def test_semantically_changed_scenarios_round_trip(roundtrip: LineProcess, case: Any, operator: str) -> None:
    changed = semantically_changed(case.scenario, operator)
    if changed is not None:
        assert_round_trips(roundtrip, changed.scenario)


@given(st.one_of(budget_cases(), scratch_cases(), sequence_pairs().map(lambda pair: pair[0])))
def test_budget_scenarios_round_trip(roundtrip: LineProcess, case: Any) -> None:
    assert_round_trips(roundtrip, case.scenario)


@given(edge_cases())
def test_edge_scenarios_round_trip_or_are_refused_as_the_schema_says(roundtrip: LineProcess, case: Any) -> None:
    assert_round_trips(roundtrip, case.scenario)


@given(estimator_cases())
def test_estimator_scenarios_round_trip(roundtrip: LineProcess, case: tuple[str, str, int, dict[str, Any]]) -> None:
    assert_round_trips(roundtrip, case[3])


@pytest.mark.parametrize("fault", REGISTRY_FAULTS)
def test_registry_fault_scenarios_round_trip(roundtrip: LineProcess, fault: str) -> None:
    assert_round_trips(roundtrip, registry_fault("plan_fixture", fault))


def test_an_out_of_width_integer_is_refused(roundtrip: LineProcess) -> None:
    """The refusal branch of the edge cases (``sequences_over_u32``): a u32 field holding 2^32."""
    assert "sequences_over_u32" in EDGE_KINDS
    scenario = copy.deepcopy(base_scenario(BASES[0]))
    assert _set_first(scenario, "maximum_active_sequences", 2**32)
    assert not _schema_valid(scenario)
    assert _ask(roundtrip, scenario)["error"]["context"] == "decode scenario"


def _set_first(value: Any, key: str, new: Any) -> bool:
    if isinstance(value, dict):
        if key in value:
            value[key] = new
            return True
        return any(_set_first(v, key, new) for v in value.values())
    if isinstance(value, list):
        return any(_set_first(v, key, new) for v in value)
    return False


def _fixed_scenarios() -> Iterator[tuple[str, Any]]:
    for path in corpus_paths():
        scenario = json.loads(path.read_bytes())["params"]["scenario"]
        if scenario:
            yield f"corpus/{path.stem}", scenario
    for vector in load_golden()["vectors"]:
        yield f"golden/{vector['name']}", vector["scenario"]
    yield "rich_fixture", rich_fixture_case().scenario
    families: list[tuple[str, dict[str, Any]]] = [
        ("test", {}),
        ("ordered_schema", {}),
        ("ordered_schema", {"reverse": True}),
        ("ordered_schema", {"reverse_sources": True}),
        ("sequential_scratch", {}),
        ("graph", {"scenario": "state_chain"}),
    ]
    for family, params in families:
        yield f"seed/{family}{params}", seed_scenario("kit", family=family, family_params=params)


FIXED = list(_fixed_scenarios())


@pytest.mark.parametrize(("name", "scenario"), FIXED, ids=[name for name, _ in FIXED])
def test_checked_in_and_seed_scenarios_round_trip(roundtrip: LineProcess, name: str, scenario: Any) -> None:
    assert _schema_valid(scenario), name
    assert_round_trips(roundtrip, scenario)


def _object_paths(value: Any, path: tuple[str | int, ...] = ()) -> Iterator[tuple[str | int, ...]]:
    if isinstance(value, dict):
        yield path
        for key, item in value.items():
            yield from _object_paths(item, (*path, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _object_paths(item, (*path, i))


def _free_form(path: tuple[str | int, ...]) -> bool:
    return any(path[: len(prefix)] == prefix for prefix in FREE_FORM)


def _at(value: Any, path: tuple[str | int, ...]) -> Any:
    for step in path:
        value = value[step]
    return value


@given(scenario_cases(max_chain=2), st.data())
def test_an_unknown_key_is_refused_outside_free_form_json(roundtrip: LineProcess, case: Any, data: Any) -> None:
    """``deny_unknown_fields`` everywhere: an extra key with a null value in any typed object
    (struct, enum or identity-keyed map, none of which takes null) is refused; inside
    free-form JSON it is data and round-trips."""
    scenario = json.loads(json.dumps(case.scenario))
    path = data.draw(st.sampled_from(list(_object_paths(scenario))))
    _at(scenario, path)["__kit_probe__"] = None
    answer = _ask(roundtrip, scenario)
    if _free_form(path):
        assert base64.b64decode(answer["canonical_base64"]) == canonical_bytes(scenario)
    else:
        assert answer.get("error", {}).get("context") == "decode scenario", (path, answer)


@pytest.mark.parametrize(
    "line",
    [b"", b"not json", b"[]", b"{}", b'{"scenario_version": 1}', b'{"a": 1, "a": 2}', b"\xff"],
    ids=["empty", "not-json", "array", "empty-object", "partial", "duplicate-key", "invalid-utf8"],
)
def test_malformed_lines_are_refused_and_the_tool_keeps_answering(roundtrip: LineProcess, line: bytes) -> None:
    answer = roundtrip.ask(line)
    assert answer["error"]["kind"] == "serialization" and answer["error"]["context"] == "decode scenario"
    valid = FIXED[-1][1]
    assert base64.b64decode(_ask(roundtrip, valid)["canonical_base64"]) == canonical_bytes(valid)
