"""Identity constructors (01 §1.1-§1.3) through ``check_identity``.

Every identity type whose constructor reports ``InvalidIdentity`` is built from strings at the
edges of the portable rule: 1..=160 UTF-8 bytes of ``A-Za-z0-9._:/-``, checked empty, then
length, then charset (the two single-range kinds check 1..=160 as one range), never trimmed or
normalised. The backend's answer must equal the reference's: ``{}``, or the same
``InvalidIdentity`` with the same ``identity_kind``, ``value`` (the input, unchanged) and
``reason``. Caller resource ids may imitate the prefixes of derived ids (01 §1.5): a plan binding
its values on such ids builds like the reference's.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conformance.suites.contract_errors import error_of
from harness.bundles import Bundle
from harness.cases import exercise
from harness.plugin.counterexamples import CounterexampleRecorder
from harness.under_test import BackendUnderTest
from reference.api import IDENTITY_KINDS
from strategies.budget import base_scenario

SINGLE_RANGE = ("operation attribute", "operation oracle")
EMPTY = "identity must not be empty"
TOO_LONG = "identity exceeds 160 bytes"
CHARSET = "identity contains a non-portable character"
RANGE = "identity must contain between 1 and 160 bytes"

#: value -> (reason for a plain kind, reason for a single-range kind, the rules it checks); None: valid.
VALUES: dict[str, tuple[str | None, str | None, tuple[str, ...]]] = {
    "a": (None, None, ()),
    "A-Za-z0-9._:/-": (None, None, ()),
    "x" * 160: (None, None, ()),
    "": (EMPTY, RANGE, ("01.1.1/identity_empty",)),
    "x" * 161: (TOO_LONG, RANGE, ("01.1.1/identity_over_160_bytes",)),
    "\u00e9" * 100: (TOO_LONG, RANGE, ("01.1.1/identity_length_in_utf8_bytes", "01.1.1/identity_check_order")),
    "\u00e9": (CHARSET, CHARSET, ("01.1.1/identity_non_portable_character",)),
    "a b": (CHARSET, CHARSET, ("01.1.1/identity_non_portable_character",)),
    " a": (CHARSET, CHARSET, ("01.1.1/identity_not_trimmed", "01.1.1/identity_error_value_unchanged")),
    "a\n": (CHARSET, CHARSET, ("01.1.1/identity_not_trimmed",)),
    "a+b": (CHARSET, CHARSET, ("01.1.1/identity_non_portable_character",)),
    "a\u0000": (CHARSET, CHARSET, ("01.1.1/identity_non_portable_character",)),
    "a\u007f" + "b" * 158: (CHARSET, CHARSET, ("01.1.1/identity_check_order",)),
    "@" * 161: (TOO_LONG, RANGE, ("01.1.1/identity_check_order",)),
}


def _kind_rules(kind: str, reason: str | None) -> tuple[str, ...]:
    if kind in SINGLE_RANGE:
        stem = "attribute_id" if kind == "operation attribute" else "operation_oracle_id"
        return (f"01.1.3/{stem}_length_one_check" if reason == RANGE else f"01.1.3/{stem}_charset",)
    if kind == "weight materializer":
        return ("01.1.3/weight_materializer_id_kind",)
    return (f"01.1.2/kind_{kind.replace(' ', '_')}",)


#: Every value against one plain and one single-range kind; every kind with one valid, one empty and
#: one non-portable value.
CASES = [
    *(
        pytest.param(kind, value, id=f"{kind.replace(' ', '_')}-{index}")
        for kind in ("node", "operation attribute")
        for index, value in enumerate(VALUES)
    ),
    *(
        pytest.param(kind, value, id=f"{kind.replace(' ', '_')}-{index}")
        for kind in IDENTITY_KINDS
        if kind not in ("node", "operation attribute")
        for index, value in enumerate(VALUES)
        if value in ("x" * 160, "", "a b")
    ),
]


def _bundle(kind: str, value: str, expect: dict[str, Any]) -> Bundle:
    return Bundle("check_identity", {"identity_kind": kind, "value": value}, expect, "identities/generated")


@pytest.mark.requires("check_identity")
@pytest.mark.parametrize(("kind", "value"), CASES)
def test_identity_constructor_matches_the_contract(
    backend: BackendUnderTest, oracle: Any, kind: str, value: str
) -> None:
    plain, single, rules = VALUES[value]
    reason = single if kind in SINGLE_RANGE else plain
    if reason is not None:
        exercise(*(r for r in rules if kind not in SINGLE_RANGE), *_kind_rules(kind, reason))
        exercise("01.6/invalid_identity_fields")
    want = error_of(lambda: oracle.check_identity(kind, value))
    expected = (
        None
        if reason is None
        else {"kind": "invalid_identity", "identity_kind": kind, "value": value, "reason": reason}
    )
    assert want == expected, "the reference departs from the identity rule"
    got = error_of(lambda: backend.check_identity(kind, value))
    assert got == want, f"the backend answered {got}, the contract's answer is {want}"


@pytest.mark.requires("check_identity")
@pytest.mark.rules(
    "01.1.1/identity_check_order", "01.1.1/identity_error_value_unchanged", "01.6/invalid_identity_fields"
)
@given(kind=st.sampled_from(sorted(IDENTITY_KINDS)), value=st.text(max_size=170))
def test_any_string_is_judged_like_the_reference(
    backend: BackendUnderTest, oracle: Any, counterexamples: CounterexampleRecorder, kind: str, value: str
) -> None:
    want = error_of(lambda: oracle.check_identity(kind, value))
    expect: dict[str, Any] = {"result": {}} if want is None else {"error": want}
    with counterexamples.on_failure(_bundle(kind, value, expect)):
        assert error_of(lambda: backend.check_identity(kind, value)) == want


#: The plan fixture's caller resource ids, each replaced by one imitating a prefix core derives its own ids with.
DERIVED_LOOKING = {
    "resource.input.0": "resource/activation/sha256/" + "1" * 64,
    "resource.weight.0": "resource/weight-arena/sha256/" + "2" * 64,
    "resource.state.0": "resource/state/sha256/" + "3" * 64,
    "resource.output.0": "resource/scratch/sha256/" + "4" * 64,
}


@pytest.mark.requires("build_plan")
@pytest.mark.rules("01.1.5/derived_prefix_user_ids_accepted")
def test_caller_resource_ids_may_imitate_derived_prefixes(backend: BackendUnderTest, oracle: Any) -> None:
    """01 §1.5 (decision D-05P-13): the portable charset lets a caller bind values on ids that look derived
    (``resource/weight-arena/sha256/...``); core reserves no prefix, so the plan builds like the reference's."""
    scenario = base_scenario("plan_fixture")
    for resolution in scenario["resolutions"]:
        for value in resolution["values"]:
            for component in value["storage"]["components"]:
                component["resource_id"] = DERIVED_LOOKING[component["resource_id"]]
    want = oracle.build_plan(scenario)
    assert all(resource_id.encode() in want for resource_id in DERIVED_LOOKING.values())
    assert backend.build_plan(scenario) == want, "the plan wire differs from the reference's"
