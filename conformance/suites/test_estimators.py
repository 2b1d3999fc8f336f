"""Resource estimation and node resolution through ``build_plan`` (04 §8-§10, 05 §6.3).

The nine estimate behaviours of seed 000 are accepted with their documented effect
(``arena_alignment64`` on direct resource ids is ``correct``; ``token_scaled_scratch``
binds ``tokens(bytes, maximum_scheduled_tokens)``) or rejected with the documented
kind; planning-registry faults (every one, on two bases, once per run), preferred-provider
fallback and storage incompatibility evidence give the reference's outcome: the same error
(its kind and every field the contract pins, ``contract_errors.pinned``), or the same plan
wire byte for byte.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any, Final

import pytest
from hypothesis import given

from conformance.suites.contract_errors import pinned
from harness.bundles import Bundle
from harness.cases import exercise
from harness.plugin.counterexamples import CounterexampleRecorder
from harness.protocol.operations import OPERATIONS
from harness.under_test import BackendUnderTest
from reference.api import ESTIMATE_BEHAVIORS, VNextError
from seeds.catalogs import (
    catalog_with_secondary_provider,
    catalog_with_secondary_provider_storage,
    contiguous_storage_requirement,
    paged_storage_requirement,
)
from seeds.scenarios import plan_fixture_scenario
from strategies.budget import (
    BEHAVIOR_OUTCOMES,
    REGISTRY_FAULTS,
    base_scenario,
    estimator_cases,
    registry_fault,
    with_estimates,
    with_policy,
)

pytestmark = pytest.mark.requires("build_plan")

BEHAVIOR_BASES: Final = ("plan_fixture", "graph_alias", "graph_state_chain", "sequential_scratch")
#: 04 §10: the rule of each behaviour resolution must refuse (the whole resolve aborts).
REFUSED_BEHAVIOR_RULES: Final = {
    behavior: f"04.10/behavior_{behavior}"
    for behavior in (
        "wrong_estimator_id",
        "wrong_estimator_version",
        "wrong_implementation",
        "wrong_input",
        "invalid_alignment",
        "missing_scratch",
    )
}
#: 05 §12 U1: the two spellings of the no-preference reason a backend may use.
NO_PREFERENCE_REASONS: Final = ("canonical_compatible", "deterministic_compatible")


def _outcome(backend: BackendUnderTest, scenario: Mapping[str, Any]) -> bytes | VNextError:
    try:
        return backend.build_plan(scenario)
    except VNextError as exc:
        return exc


def _describe(outcome: bytes | VNextError) -> str:
    return f"error {outcome.kind}" if isinstance(outcome, VNextError) else f"plan of {len(outcome)} bytes"


def _assert_same(got: bytes | VNextError, want: bytes | VNextError, what: str) -> None:
    """The same error (its kind and every field the contract pins), or the same wire bytes."""
    if isinstance(want, VNextError):
        assert isinstance(got, VNextError), f"{what}: backend built a plan, the reference says {want}"
        assert pinned(got) == pinned(want), f"{what}: backend {pinned(got)}, reference {pinned(want)}"
    else:
        assert not isinstance(got, VNextError), f"{what}: backend refused ({got}), the reference builds"
        assert got == want, f"{what}: plan wire differs from the reference"


def _bundle(case: str, scenario: Mapping[str, Any], oracle: BackendUnderTest) -> Callable[[], Bundle]:
    def make() -> Bundle:
        expect = oracle.outcome(OPERATIONS["build_plan"], {"scenario": scenario}).to_wire()
        return Bundle("build_plan", {"scenario": dict(scenario)}, expect, case)

    return make


def _node(wire: bytes, index: int = 0) -> dict[str, Any]:
    node: dict[str, Any] = json.loads(wire)["payload"]["nodes"][index]
    return node


def _behavior_scenario(base: str, behavior: str) -> dict[str, Any]:
    """Every estimator declares ``behavior`` with scratch 64 and persistent 32 (the seed sizes)."""
    return with_estimates(base_scenario(base), scratch=64, persistent=32, behavior=behavior)


# --------------------------------------------------------------------------- the nine behaviours


@pytest.mark.parametrize("base", BEHAVIOR_BASES)
@pytest.mark.parametrize("behavior", ESTIMATE_BEHAVIORS)
def test_estimate_behavior_outcome(
    backend: BackendUnderTest, oracle: BackendUnderTest, behavior: str, base: str
) -> None:
    """04 §10: accepted behaviours build the reference's plan; the others are ``invalid_execution_plan``."""
    scenario = _behavior_scenario(base, behavior)
    expected_kind = BEHAVIOR_OUTCOMES[behavior]
    assert (expected_kind is None) == (behavior not in REFUSED_BEHAVIOR_RULES), behavior
    if behavior in REFUSED_BEHAVIOR_RULES:
        exercise(REFUSED_BEHAVIOR_RULES[behavior])
    got = _outcome(backend, scenario)
    if expected_kind is None:
        assert not isinstance(got, VNextError), f"{behavior} must be accepted, got {got}"
    else:
        assert isinstance(got, VNextError), f"{behavior} must be rejected, got a plan"
        assert got.kind == expected_kind
    _assert_same(got, _outcome(oracle, scenario), f"{behavior} on {base}")


def test_arena_alignment64_on_direct_ids_is_correct(backend: BackendUnderTest) -> None:
    """Without ``resource/weight-arena/`` ids the alignment stays 16: the same plan as ``correct``."""
    arena = backend.build_plan(with_estimates(base_scenario("plan_fixture"), behavior="arena_alignment64"))
    correct = backend.build_plan(with_estimates(base_scenario("plan_fixture"), behavior="correct"))
    assert arena == correct
    assert _node(arena)["provider_resources"]["value_alignment_bytes"] == 16


@pytest.mark.parametrize(("tokens", "maximum"), [(32, 224), (4096, 28672)])
def test_token_scaled_scratch_binds_the_policy_tokens(backend: BackendUnderTest, tokens: int, maximum: int) -> None:
    """05 §7.5 upstream-asserted: 7 bytes per token -> theoretical maximum request 224 / 28672."""
    scenario = with_estimates(
        with_policy(base_scenario("plan_fixture"), tokens=tokens), scratch=7, behavior="token_scaled_scratch"
    )
    wire = backend.build_plan(scenario)
    memory = json.loads(wire)["payload"]["memory"]
    scratch = [d for d in memory["dynamic_descriptors"] if isinstance(d["kind"], dict) and "scratch" in d["kind"]]
    assert len(scratch) == 1
    assert scratch[0]["demand"] == {"tokens": {"bytes_per_token": 7, "maximum_tokens": tokens}}
    pools = [p for p in memory["dynamic_pools"] if scratch[0]["base_resource_id"] in p["resource_ids"]]
    assert int(pools[0]["theoretical_ceiling_bytes"]) == 3 * maximum
    assert pools[0]["minimum_invocation_peak_bytes"] == 16


def test_token_scaled_estimate_does_not_depend_on_the_policy(backend: BackendUnderTest) -> None:
    """04 §8.2: policy fields are not estimator input: fingerprints equal for 32 and 4096 tokens."""
    resources = [
        _node(
            backend.build_plan(
                with_estimates(
                    with_policy(base_scenario("plan_fixture"), tokens=t), scratch=7, behavior="token_scaled_scratch"
                )
            )
        )["provider_resources"]
        for t in (32, 4096)
    ]
    keys = ("estimator_input_fingerprint", "estimate_fingerprint", "scratch")
    first, second = ({k: r[k] for k in keys} for r in resources)
    assert first == second


@given(case=estimator_cases())
def test_generated_estimates_match_the_reference(
    backend: BackendUnderTest,
    oracle: BackendUnderTest,
    counterexamples: CounterexampleRecorder,
    case: tuple[str, str, int, dict[str, Any]],
) -> None:
    base, behavior, scratch, scenario = case
    with counterexamples.on_failure(_bundle(f"estimators/{behavior}", scenario, oracle)):
        got = _outcome(backend, scenario)
        _assert_same(got, _outcome(oracle, scenario), f"{behavior} (scratch {scratch}) on {base}")
        assert isinstance(got, VNextError) == (BEHAVIOR_OUTCOMES[behavior] is not None)


# --------------------------------------------------------------------------- registry faults


@pytest.mark.parametrize("base", ("plan_fixture", "graph_state_chain"))
@pytest.mark.parametrize("fault", REGISTRY_FAULTS)
def test_registry_fault_is_rejected_like_the_reference(
    backend: BackendUnderTest, oracle: BackendUnderTest, fault: str, base: str
) -> None:
    """04 §9 steps 7, 13d: a missing, duplicated, refusing or unknown contract / estimator aborts the build."""
    scenario = registry_fault(base, fault)
    want = _outcome(oracle, scenario)
    assert isinstance(want, VNextError), f"the reference builds a plan for registry fault {fault}"
    _assert_same(_outcome(backend, scenario), want, f"registry fault {fault} on {base}")


# --------------------------------------------------------------------------- preferred provider


def _secondary(preferred: str | None, reference_storage: Any = None, secondary_storage: Any = None) -> dict[str, Any]:
    catalog = (
        catalog_with_secondary_provider()
        if reference_storage is None
        else catalog_with_secondary_provider_storage(reference_storage, secondary_storage)
    )
    return plan_fixture_scenario(name="secondary", catalog_value=catalog, preferred_provider=preferred)


REFERENCE = "provider.operation.reference"
SECONDARY = "provider.operation.secondary"
UNREGISTERED = "provider.operation.unregistered"

PREFERENCES: Final[Mapping[str, Callable[[], dict[str, Any]]]] = {
    "no_preference": lambda: _secondary(None),
    "preferred_reference": lambda: _secondary(REFERENCE),
    "preferred_secondary": lambda: _secondary(SECONDARY),
    "preferred_unregistered": lambda: _secondary(UNREGISTERED),
    "preferred_storage_incompatible": lambda: _secondary(
        REFERENCE, paged_storage_requirement(4096), contiguous_storage_requirement()
    ),
    "secondary_storage_incompatible": lambda: _secondary(
        REFERENCE, contiguous_storage_requirement(), paged_storage_requirement(4096)
    ),
    "every_provider_storage_incompatible": lambda: _secondary(
        REFERENCE, paged_storage_requirement(4096), paged_storage_requirement(4096)
    ),
}


@pytest.mark.parametrize("preference", list(PREFERENCES))
def test_provider_preference_matches_the_reference(
    backend: BackendUnderTest, oracle: BackendUnderTest, preference: str
) -> None:
    scenario = PREFERENCES[preference]()
    _assert_same(_outcome(backend, scenario), _outcome(oracle, scenario), preference)


@pytest.mark.parametrize(
    ("preference", "selected", "reason", "rejected"),
    [
        pytest.param("preferred_reference", REFERENCE, "preferred_compatible", [], id="preferred_reference"),
        pytest.param("preferred_secondary", SECONDARY, "preferred_compatible", [], id="preferred_secondary"),
        pytest.param(
            "preferred_unregistered",
            REFERENCE,
            "fallback_from_preferred",
            [{"provider_id": UNREGISTERED, "reasons": "not_registered"}],
            id="unregistered_falls_back",
        ),
        pytest.param(
            "preferred_storage_incompatible",
            SECONDARY,
            "fallback_from_preferred",
            [
                {
                    "provider_id": REFERENCE,
                    "reasons": {
                        "storage_incompatible": {
                            "resource_ids": ["resource.input.0", "resource.output.0", "resource.state.0"]
                        }
                    },
                }
            ],
            id="storage_incompatible_falls_back",
        ),
        pytest.param("secondary_storage_incompatible", REFERENCE, "preferred_compatible", [], id="preferred_survives"),
    ],
)
def test_selection_evidence(
    backend: BackendUnderTest, preference: str, selected: str, reason: str, rejected: list[Any]
) -> None:
    """05 §6.3 / 04 §9.2: the node's selection names the requested and selected provider, the reason,
    and the rejected providers (sorted) with their evidence."""
    scenario = PREFERENCES[preference]()
    selection = _node(backend.build_plan(scenario))["selection"]
    requested = scenario["resolutions"][0]["preferred_provider"]
    assert selection["requested_provider"] == requested
    assert selection["selected_provider"] == selected
    assert selection["selection_reason"] == reason
    assert selection["rejected_providers"] == rejected


def test_no_preference_reason(backend: BackendUnderTest) -> None:
    """05 §12 U1: without a preference the reason is one of the two upstream spellings, nothing rejected."""
    selection = _node(backend.build_plan(PREFERENCES["no_preference"]()))["selection"]
    assert selection["requested_provider"] is None
    assert selection["selected_provider"] == REFERENCE
    assert selection["selection_reason"] in NO_PREFERENCE_REASONS
    assert selection["rejected_providers"] == []


def test_storage_incompatible_everywhere_is_an_invalid_plan(backend: BackendUnderTest) -> None:
    """04 §9 step 14: every provider storage-incompatible leaves no candidate."""
    got = _outcome(backend, PREFERENCES["every_provider_storage_incompatible"]())
    assert isinstance(got, VNextError) and got.kind == "invalid_execution_plan", _describe(got)


def test_storage_rejection_ids_cover_the_non_weight_bindings(backend: BackendUnderTest) -> None:
    """04 §9 step 13c: the evidence lists every component resource of the refused bindings, sorted, never weights."""
    scenario = PREFERENCES["preferred_storage_incompatible"]()
    selection = _node(backend.build_plan(scenario))["selection"]
    ids = selection["rejected_providers"][0]["reasons"]["storage_incompatible"]["resource_ids"]
    assert ids == sorted(set(ids)) and ids
    bindings = scenario["resolutions"][0]["values"]
    expected = sorted(
        {c["resource_id"] for b in bindings if b["usage"] != "weights" for c in _components(b["storage"])}
    )
    assert ids == expected


def _components(storage: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    components: list[Mapping[str, Any]] = storage["components"]
    return components
