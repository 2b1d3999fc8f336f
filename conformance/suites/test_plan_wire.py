"""Plan wire and hash (01 §3.6, 05 §8-§9) on every ``build_plan`` scenario of the corpus.

The wire is the compact direct-mode JSON ``{"payload", "plan_hash"}``; the hash
is the sha256 of the canonical payload without ``plan_id``; ``plan_id`` is
``plan/sha256/<hash>``. Revalidation returns that hash, and forged wires are
rejected with the error the rejection matrix names (05 §9.5). Generated
tamperings that fail are written as replayable scenario bundles.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from conformance.corpus import plan_scenarios
from conformance.suites.contract_errors import error_of
from harness.bundles import Bundle
from harness.cases import not_applicable
from harness.plugin.counterexamples import CounterexampleRecorder
from harness.protocol.codecs import b64encode
from harness.under_test import BackendUnderTest
from reference.api import (
    InvalidExecutionPlan,
    PlanHashMismatch,
    Serialization,
    UnsupportedPlanSchema,
    canonical_bytes,
    direct_bytes,
    loads_strict,
    sha256_hex,
)
from strategies.wire_invariants import oversized_plan_scenario

MAX_WIRE = 16 * 1024 * 1024
_SCENARIOS = plan_scenarios()
SCENARIOS = [pytest.param(s, id=i) for i, s in _SCENARIOS] or [pytest.param(None, id="no-corpus-scenarios")]
_WIRES: dict[tuple[int, str], bytes] = {}

sha256s = st.text(alphabet="0123456789abcdef", min_size=64, max_size=64)


def _scenario(scenario: dict[str, Any] | None) -> dict[str, Any]:
    if scenario is None:
        not_applicable("the corpus holds no build_plan scenario yet")
    return scenario


def _built(backend: BackendUnderTest, scenario: dict[str, Any]) -> tuple[bytes, dict[str, Any]]:
    key = (id(backend), sha256_hex(canonical_bytes(scenario)))
    if key not in _WIRES:
        _WIRES[key] = backend.build_plan(scenario)
    wire = _WIRES[key]
    return wire, loads_strict(wire, context="conformance: decode built plan", max_bytes=MAX_WIRE)


def _rehash(raw: dict[str, Any]) -> dict[str, Any]:
    """The seed helper ``rehash_plan_json``: make a tampered wire hash-consistent again."""
    payload = dict(raw["payload"])
    payload.pop("plan_id")
    digest = sha256_hex(canonical_bytes(payload))
    out = {"payload": {**raw["payload"], "plan_id": "plan/sha256/" + digest}, "plan_hash": digest}
    return out


def _bundle(case: str, scenario: dict[str, Any], wire: bytes, error: dict[str, Any]) -> Callable[[], Bundle]:
    """The replayable bundle of a failing case, made only when it fails."""
    return lambda: Bundle("revalidate", {"scenario": scenario, "wire_base64": b64encode(wire)}, {"error": error}, case)


@pytest.mark.requires("build_plan")
@pytest.mark.parametrize("scenario", SCENARIOS)
def test_build_is_deterministic(backend: BackendUnderTest, scenario: dict[str, Any] | None) -> None:
    s = _scenario(scenario)
    assert backend.build_plan(s) == backend.build_plan(s)


@pytest.mark.requires("build_plan")
@pytest.mark.rules("05.1/plan_schema_8_1")
@pytest.mark.parametrize("scenario", SCENARIOS)
def test_wire_is_direct_json_with_a_derived_hash_and_id(
    backend: BackendUnderTest, scenario: dict[str, Any] | None
) -> None:
    wire, raw = _built(backend, _scenario(scenario))
    assert len(wire) <= MAX_WIRE
    assert list(raw) == ["payload", "plan_hash"]
    assert direct_bytes(raw) == wire, "the wire is not compact serde_json in declaration order"
    payload = raw["payload"]
    assert payload["schema"] == {"major": 8, "minor": 1}
    digest = sha256_hex(canonical_bytes({k: v for k, v in payload.items() if k != "plan_id"}))
    assert raw["plan_hash"] == digest
    assert payload["plan_id"] == "plan/sha256/" + digest


@pytest.mark.requires("build_plan", "revalidate")
@pytest.mark.rules("05.9.2/revalidate_returns_rebuilt")
@pytest.mark.parametrize("scenario", SCENARIOS)
def test_revalidating_a_built_plan_returns_its_hash(backend: BackendUnderTest, scenario: dict[str, Any] | None) -> None:
    s = _scenario(scenario)
    wire, raw = _built(backend, s)
    assert backend.revalidate(s, wire) == raw["plan_hash"]


@pytest.mark.requires("build_plan", "revalidate")
@pytest.mark.rules(
    "01.3.6/only_plan_hash_changed",
    "01.3.6/revalidate_plan_hash_mismatch",
    "05.9.2/revalidate_hash_mismatch",
    "05.9.5/plan_hash_only_changed",
    "05.9.1/decode_ignores_hash_and_plan_id",
    "01.6/plan_hash_mismatch_fields",
)
@pytest.mark.parametrize("scenario", SCENARIOS)
@given(forged=sha256s)
def test_a_forged_plan_hash_is_a_mismatch(
    backend: BackendUnderTest, counterexamples: CounterexampleRecorder, scenario: dict[str, Any] | None, forged: str
) -> None:
    s = _scenario(scenario)
    _, raw = _built(backend, s)
    assume(forged != raw["plan_hash"])
    tampered = direct_bytes({"payload": raw["payload"], "plan_hash": forged})
    expected = {"kind": "plan_hash_mismatch", "expected": raw["plan_hash"], "actual": forged}
    with counterexamples.on_failure(_bundle("plan_wire/forged_plan_hash", s, tampered, expected)):
        with pytest.raises(PlanHashMismatch) as info:
            backend.revalidate(s, tampered)
        assert (info.value.expected, info.value.actual) == (raw["plan_hash"], forged)


@pytest.mark.requires("build_plan", "revalidate")
@pytest.mark.rules(
    "01.2/plan_schema_exact_equality",
    "01.3.6/decode_schema_mismatch",
    "05.9.1/step3_unsupported_schema",
    "05.9.5/schema_tamper_even_after_rehash",
    "01.6/unsupported_plan_schema_fields",
)
@pytest.mark.parametrize("scenario", SCENARIOS)
@given(major=st.integers(0, 0xFFFF), minor=st.integers(0, 0xFFFF), rehash=st.booleans())
def test_another_plan_schema_is_unsupported(
    backend: BackendUnderTest,
    counterexamples: CounterexampleRecorder,
    scenario: dict[str, Any] | None,
    major: int,
    minor: int,
    rehash: bool,
) -> None:
    s = _scenario(scenario)
    assume((major, minor) != (8, 1))
    _, raw = _built(backend, s)
    forged = {"payload": {**raw["payload"], "schema": {"major": major, "minor": minor}}, "plan_hash": raw["plan_hash"]}
    tampered = direct_bytes(_rehash(forged) if rehash else forged)
    expected = {
        "kind": "unsupported_plan_schema",
        "expected_major": 8,
        "expected_minor": 1,
        "actual_major": major,
        "actual_minor": minor,
    }
    with counterexamples.on_failure(_bundle("plan_wire/other_schema", s, tampered, expected)):
        with pytest.raises(UnsupportedPlanSchema) as info:
            backend.revalidate(s, tampered)
        assert (info.value.actual_major, info.value.actual_minor) == (major, minor)
        assert (info.value.expected_major, info.value.expected_minor) == (8, 1)


@pytest.mark.requires("build_plan", "revalidate")
@pytest.mark.rules(
    "01.3.6/only_plan_id_changed",
    "05.9.5/plan_id_only_changed",
    "01.3.6/revalidate_payload_differs",
    "05.9.2/revalidate_payload_differs",
    "05.9.1/decode_ignores_hash_and_plan_id",
)
@pytest.mark.parametrize("scenario", SCENARIOS)
def test_a_changed_plan_id_is_an_invalid_plan(backend: BackendUnderTest, scenario: dict[str, Any] | None) -> None:
    s = _scenario(scenario)
    _, raw = _built(backend, s)
    other = "plan/sha256/" + ("0" * 64 if raw["plan_hash"] != "0" * 64 else "1" * 64)
    tampered = direct_bytes({"payload": {**raw["payload"], "plan_id": other}, "plan_hash": raw["plan_hash"]})
    with pytest.raises(InvalidExecutionPlan):
        backend.revalidate(s, tampered)


@pytest.mark.requires("build_plan", "revalidate")
@pytest.mark.rules("01.3.6/decode_size_cap_inclusive", "05.1/wire_size_limit_inclusive", "01.3.6/decode_size_cap")
@pytest.mark.parametrize("scenario", SCENARIOS)
def test_the_wire_size_limit_is_inclusive(backend: BackendUnderTest, scenario: dict[str, Any] | None) -> None:
    s = _scenario(scenario)
    wire, raw = _built(backend, s)
    at_limit = wire + b" " * (MAX_WIRE - len(wire))
    assert backend.revalidate(s, at_limit) == raw["plan_hash"]
    with pytest.raises(Serialization) as info:
        backend.revalidate(s, at_limit + b" ")
    assert info.value.context == "decode untrusted execution plan"


@pytest.mark.requires("build_plan", "revalidate")
@pytest.mark.rules("05.9.1/step1_size_before_parse", "05.9.1/decode_step_order")
@pytest.mark.parametrize("scenario", SCENARIOS[:1])
def test_the_size_is_checked_before_anything_is_parsed(
    backend: BackendUnderTest, scenario: dict[str, Any] | None
) -> None:
    """An over-limit wire of another plan schema is refused for its size, not its schema."""
    s = _scenario(scenario)
    _, raw = _built(backend, s)
    other = direct_bytes({**raw, "payload": {**raw["payload"], "schema": {"major": 9, "minor": 1}}})
    with pytest.raises(UnsupportedPlanSchema):
        backend.revalidate(s, other)
    with pytest.raises(Serialization) as info:
        backend.revalidate(s, other + b" " * (MAX_WIRE + 1 - len(other)))
    assert info.value.context == "decode untrusted execution plan"


@pytest.mark.requires("build_plan")
@pytest.mark.rules("01.3.6/to_json_size_cap", "05.8.3/to_json_size_limit")
def test_a_plan_wire_over_16_mib_is_not_written(backend: BackendUnderTest, oracle: BackendUnderTest) -> None:
    """The chain whose selection evidence grows with the rejected providers: 35 of them write a wire just
    under the cap, 40 one over it, which ``to_json`` refuses."""
    near = backend.build_plan(oversized_plan_scenario(rejected=35))
    assert MAX_WIRE - 1024 * 1024 < len(near) <= MAX_WIRE, len(near)
    over = oversized_plan_scenario(rejected=40)
    want = error_of(lambda: oracle.build_plan(over))
    assert want == {"kind": "serialization", "context": "serialize execution plan"}, want
    got = error_of(lambda: backend.build_plan(over))
    assert got == want, f"the backend answers {got}, the reference {want}"
