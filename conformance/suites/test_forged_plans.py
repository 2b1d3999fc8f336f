"""Forged plans (05 §9.5 rejection matrix, 01 "Forged plans", seed ``rehash_plan_json``).

Every forgery of ``strategies.forgery`` is applied to the plan wire the *reference* built for
a fixed target scenario (decision D-07H-4) and revalidated by the backend against the
forgery's scenario; the backend must reject it with the error kind the reference gives (and
the fields the contract pins: ``PlanHashMismatch`` expected/actual, ``UnsupportedPlanSchema``
numbers).

* ``test_kill_matrix``: one deterministic forgery per operator x target; the matrix is
  printed and recorded (``case_property("kill_matrix", ...)``); failing cells are written
  as replayable bundles.
* ``test_forgery_is_rejected[operator]``: generated forgeries per operator; the shrunk
  failing case is written as a bundle.
* Controls: the untouched reference wire and canonically equal respellings of it (member
  order, whitespace) are accepted with the reference hash, so a backend that rejects
  everything cannot pass.

Every forgery names the catalogue rules its expected answer checks (``Forgery.rules``); a case declares the
rules of the forgeries it checked.
"""

from __future__ import annotations

import contextlib
import json
import random
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.bundles import Bundle
from harness.cases import exercise
from harness.plugin.counterexamples import CounterexampleRecorder
from harness.protocol.codecs import b64encode
from harness.under_test import BackendUnderTest
from reference.api import VNextError
from strategies.forgery import MAX_WIRE, OPERATORS, Forgery, PlanTarget, forge_seeded, forgeries, reference_targets

#: Operators exercised by generated cases (``malformed:oversize`` has one behaviour: it is in the matrix only).
GENERATED_OPERATORS = sorted(name for name in OPERATORS if name != "malformed:oversize")
TARGET_NAMES = [target.name for target in reference_targets()]
_BUNDLE_LIMIT = 1 << 20


def _target(name: str) -> PlanTarget:
    return next(t for t in reference_targets() if t.name == name)


def _bundle(case: str, forgery: Forgery) -> Bundle:
    return Bundle(
        "revalidate",
        {"scenario": forgery.scenario, "wire_base64": b64encode(forgery.wire_bytes)},
        {"error": forgery.expected_error()},
        case,
        f"{forgery.operator} on {forgery.target}: {forgery.rule} {forgery.detail}".strip(),
    )


def _outcome(backend: BackendUnderTest, forgery: Forgery) -> str:
    """``killed`` when the backend raises the expected kind and fields, else what happened instead."""
    try:
        result = backend.revalidate(forgery.scenario, forgery.wire_bytes)
    except VNextError as error:
        if error.kind != forgery.expected_kind:
            return f"wrong kind {error.kind}"
        produced = error.to_dict()
        wrong = sorted(name for name, value in forgery.fields.items() if produced.get(name) != value)
        return f"wrong fields {wrong}" if wrong else "killed"
    return f"accepted ({result[:12]}...)"


def _check(backend: BackendUnderTest, forgery: Forgery) -> None:
    outcome = _outcome(backend, forgery)
    assert outcome == "killed", (
        f"{forgery.operator} on {forgery.target} {forgery.detail}: expected {forgery.expected_kind} "
        f"({forgery.rule}), got {outcome}"
    )


@pytest.mark.requires("revalidate")
@pytest.mark.rules("05.9.2/revalidate_returns_rebuilt")
@pytest.mark.parametrize("name", TARGET_NAMES)
def test_the_untouched_reference_wire_is_accepted(backend: BackendUnderTest, name: str) -> None:
    target = _target(name)
    expected = json.loads(target.wire)["plan_hash"]
    assert backend.revalidate(target.scenario, target.wire) == expected, (
        f"{name}: the backend does not accept the reference's plan wire (see hash_stability)"
    )


@pytest.mark.requires("revalidate")
@pytest.mark.rules("01.5/reserialization_ignores_key_order", "05.9.1/step5_key_order_irrelevant")
@given(name=st.sampled_from(TARGET_NAMES), data=st.data())
def test_a_canonically_equal_respelling_is_accepted(backend: BackendUnderTest, name: str, data: st.DataObject) -> None:
    target = _target(name)
    rng = random.Random(data.draw(st.integers(0, 2**32 - 1), label="member order seed"))

    def shuffled(value: Any) -> Any:
        if isinstance(value, dict):
            keys = list(value)
            rng.shuffle(keys)
            return {key: shuffled(value[key]) for key in keys}
        if isinstance(value, list):
            return [shuffled(item) for item in value]
        return value

    indent = data.draw(st.sampled_from([None, 0, 1]))
    wire = json.dumps(shuffled(target.raw()), indent=indent, ensure_ascii=data.draw(st.booleans())).encode()
    assert backend.revalidate(target.scenario, wire) == json.loads(target.wire)["plan_hash"]


@pytest.mark.requires("revalidate")
def test_kill_matrix(backend: BackendUnderTest, counterexamples: CounterexampleRecorder, case_property: Any) -> None:
    matrix: dict[str, dict[str, str]] = {}
    failures: list[str] = []
    for operator in sorted(OPERATORS):
        row = matrix.setdefault(operator, {})
        for target in reference_targets():
            forgery = forge_seeded(operator, target)
            if forgery is None:
                row[target.name] = "n/a"
                continue
            exercise(*forgery.rules)
            outcome = _outcome(backend, forgery)
            row[target.name] = outcome if outcome != "killed" else f"killed ({forgery.expected_kind})"
            if outcome != "killed":
                failures.append(f"{operator} x {target.name}: expected {forgery.expected_kind}, got {outcome}")
                if len(forgery.wire_bytes) <= _BUNDLE_LIMIT:
                    with (
                        contextlib.suppress(AssertionError),
                        counterexamples.on_failure(
                            _bundle(f"forged_plans/kill_matrix/{operator}/{target.name}", forgery)
                        ),
                    ):
                        raise AssertionError(outcome)
    killed = sum(cell.startswith("killed") for row in matrix.values() for cell in row.values())
    total = sum(cell != "n/a" for row in matrix.values() for cell in row.values())
    case_property("kill_matrix", json.dumps(matrix, sort_keys=True))
    case_property("kill_matrix_score", f"{killed}/{total}")
    width = max(len(name) for name in matrix)
    lines = [
        f"kill matrix: {killed}/{total} forgeries rejected as the reference rejects them",
        " " * width + "  " + " | ".join(TARGET_NAMES),
    ]
    for operator, row in matrix.items():
        cells = [
            "n/a" if row[t] == "n/a" else ("ok" if row[t].startswith("killed") else "SURVIVED") for t in TARGET_NAMES
        ]
        lines.append(
            f"{operator:{width}s}  " + " | ".join(f"{c:{len(t)}s}" for c, t in zip(cells, TARGET_NAMES, strict=True))
        )
    print("\n".join(lines))
    assert not failures, "\n".join(failures)


@pytest.mark.requires("revalidate")
@pytest.mark.parametrize("operator", GENERATED_OPERATORS)
@given(data=st.data())
def test_forgery_is_rejected(
    backend: BackendUnderTest, counterexamples: CounterexampleRecorder, operator: str, data: st.DataObject
) -> None:
    forgery = data.draw(forgeries(reference_targets(), operator), label="forgery")
    exercise(*forgery.rules)
    with counterexamples.on_failure(lambda: _bundle(f"forged_plans/{operator}", forgery)):
        _check(backend, forgery)


def test_operators_cover_every_rejection_family() -> None:
    families = {name.split(":")[0] for name in OPERATORS}
    assert {
        "mutate_leaf_rehashed",
        "unknown_field",
        "schema_version",
        "hash_other_hex",
        "replay_other_scenario",
    } <= families
    assert "malformed" in families
    assert MAX_WIRE == 16 * 1024 * 1024
