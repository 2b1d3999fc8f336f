"""The exact-bytes revalidation path has the outcome of decode, then revalidate (05 §9).

``revalidate_scenario_wire`` and ``from_json_validated`` rebuild first and accept a wire equal
byte for byte to the rebuilt plan's ``to_json()``; every other wire runs the full path. These
tests compare them with the full path written out (decode, trusted inputs, revalidate) on every
forgery operator (structural and malformed-JSON classes) over every kill-matrix target, and on
the orderings a rebuild-first path could get wrong: a bad wire with a bad scenario, an exact
wire with a bad scenario, an exact wire against another scenario.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from functools import partial
from typing import Any

import pytest

from reference.errors import VNextError
from reference.plan.decode import decode_untrusted
from reference.plan.revalidate import from_json_validated, revalidate
from reference.scenario.plan import revalidate_scenario_wire, scenario_trusted_inputs
from strategies.forgery import OPERATORS, forge_seeded, reference_targets

SEEDS = (0,)


def full_path(scenario: dict[str, Any], wire: bytes) -> str:
    """Decode, then the scenario's trusted inputs, then revalidate: the specified order."""
    unvalidated = decode_untrusted(wire)
    inputs = scenario_trusted_inputs(scenario)
    plan = revalidate(
        unvalidated,
        inputs.family,
        inputs.catalog,
        inputs.policy,
        inputs.resolutions,
        completion_retention=inputs.completion_retention,
        execution_weights=inputs.execution_weights,
    )
    return plan.plan_hash.value


def outcome(run: Callable[[], str]) -> tuple[str, Any]:
    """``("accepted", plan hash)`` or ``("rejected", the error object with its message)``."""
    try:
        return "accepted", run()
    except VNextError as exc:
        return "rejected", exc.to_dict()


def fast_path(scenario: dict[str, Any], wire: bytes) -> str:
    return revalidate_scenario_wire(scenario, wire).plan_hash.value


def assert_same(scenario: dict[str, Any], wire: bytes) -> tuple[str, Any]:
    expected = outcome(lambda: full_path(scenario, wire))
    assert outcome(lambda: fast_path(scenario, wire)) == expected
    return expected


@pytest.mark.parametrize("operator", sorted(OPERATORS))
def test_every_forgery_operator_has_the_full_path_outcome(operator: str) -> None:
    applied = 0
    for target in reference_targets():
        for seed in SEEDS:
            forged = forge_seeded(operator, target, seed)
            if forged is None:
                continue
            applied += 1
            verdict, error = assert_same(forged.scenario, forged.wire_bytes)
            assert verdict == "rejected"
            assert error["kind"] == forged.expected_kind
    assert applied, f"operator {operator} applied to no target"


@pytest.mark.parametrize("index", range(len(reference_targets())))
def test_the_exact_wire_and_its_respellings_are_accepted_alike(index: int) -> None:
    target = reference_targets()[index]
    expected_hash = outcome(lambda: full_path(target.scenario, target.wire))
    assert expected_hash[0] == "accepted"
    for wire in (target.wire, b" " + target.wire, target.wire + b"\n", bytearray(target.wire)):
        assert outcome(partial(fast_path, target.scenario, bytes(wire))) == expected_hash


def _broken_scenario(scenario: dict[str, Any]) -> dict[str, Any]:
    broken = copy.deepcopy(scenario)
    broken["catalog"] = {"not": "a catalog"}
    return broken


def test_a_decode_rejection_precedes_a_scenario_error() -> None:
    target = reference_targets()[0]
    broken = _broken_scenario(target.scenario)
    for wire in (b"{", target.wire[:-1], b"[]", target.wire + b"x"):
        verdict, error = assert_same(broken, wire)
        assert (verdict, error["kind"]) == ("rejected", "serialization")


def test_an_exact_wire_with_a_bad_scenario_is_the_scenario_error() -> None:
    target = reference_targets()[0]
    broken = _broken_scenario(target.scenario)
    verdict, error = assert_same(broken, target.wire)
    assert verdict == "rejected"
    with pytest.raises(VNextError) as scenario_error:
        scenario_trusted_inputs(broken)
    assert error == scenario_error.value.to_dict()


def test_a_plan_replayed_against_every_other_target_has_the_full_path_outcome() -> None:
    targets = reference_targets()
    pairs = sorted({(0, k) for k in range(len(targets))} | {(k, 0) for k in range(len(targets))})
    for plan_index, scenario_index in pairs:
        plan_of, scenario_of = targets[plan_index], targets[scenario_index]
        verdict, _ = assert_same(scenario_of.scenario, plan_of.wire)
        assert (verdict == "accepted") == (plan_of.wire == scenario_of.wire)


def test_from_json_validated_has_the_outcome_of_decode_then_revalidate() -> None:
    for target in reference_targets()[:2]:
        inputs = scenario_trusted_inputs(target.scenario)
        args = (inputs.family, inputs.catalog, inputs.policy, inputs.resolutions)
        options: dict[str, Any] = {
            "completion_retention": inputs.completion_retention,
            "execution_weights": inputs.execution_weights,
        }
        forged = [forge_seeded(name, target, 0) for name in sorted(OPERATORS)]
        for wire in (target.wire, target.wire + b" ", *(f.wire_bytes for f in forged if f is not None)):
            expected = outcome(partial(_two_steps, wire, args, options))
            assert outcome(partial(_one_call, wire, args, options)) == expected


def _two_steps(wire: bytes, args: tuple[Any, ...], options: dict[str, Any]) -> str:
    return revalidate(decode_untrusted(wire), *args, **options).plan_hash.value


def _one_call(wire: bytes, args: tuple[Any, ...], options: dict[str, Any]) -> str:
    return from_json_validated(wire, *args, **options).plan_hash.value
