"""Policy strategies: valid documents of every kind build, boundary policies sit where they claim,
hostile custom policies fail the planner prologue exactly as recorded, rejections carry their kind."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

import schemas
from conformance.reach.attribution import error_rules
from reference.documents.policy import policy_from_document, policy_to_document
from reference.errors import VNextError
from reference.policy.trust import policy_for_build
from strategies.matrix import matrix_example
from strategies.policy import (
    HOSTILE_POLICY_OPERATORS,
    POLICY_OPERATORS,
    BoundaryPolicy,
    HostilePolicy,
    PolicyDraft,
    boundary_policies,
    hostile_policies,
    policy_documents,
    policy_fields,
    policy_rejections,
)

from .helpers import assert_rejected


@given(policy_documents())
def test_policy_documents_build_and_round_trip(draft: PolicyDraft) -> None:
    schemas.validate("policy/document.json", draft.document)
    policy = policy_from_document(draft.document)
    assert policy.to_wire() == draft.policy.to_wire()
    assert policy_from_document(policy_to_document(policy)).to_wire() == policy.to_wire()


@given(data=st.data(), need=st.one_of(st.sampled_from([1, 112, 160, 3968]), st.integers(1, 2**40)))
def test_boundary_policies_sit_at_the_recorded_margin(data: st.DataObject, need: int) -> None:
    device = data.draw(st.sampled_from([1 << 20, 2**64 - 1]))
    boundary: BoundaryPolicy = data.draw(boundary_policies(need, device_capacity=device))
    policy = boundary.policy
    view = policy_for_build(policy, device)
    assert view.usable_capacity_bytes == boundary.usable == need + boundary.margin
    assert policy.memory_capacity_bytes() <= device


@given(hostile_policies())
def test_hostile_policies_meet_the_recorded_planner_outcome(hostile: HostilePolicy) -> None:
    _meets_the_recorded_outcome(hostile)


@pytest.mark.parametrize("hostility", list(HOSTILE_POLICY_OPERATORS))
def test_each_hostility_from_given_fields(hostility: str) -> None:
    """``hostilities`` picks the hostility; ``fields`` is the honest policy every declared one starts from (the
    rejection matrix's cell: one deterministic draw)."""
    honest = matrix_example(policy_fields(capacity=4096, reserve=128, reusable=False))
    hostile = matrix_example(hostile_policies(hostilities=(hostility,), fields=honest))
    assert hostile.hostility == hostility
    _meets_the_recorded_outcome(hostile)
    if hostile.document["kind"] == "declared" and hostility != "serialized_disagrees":
        assert hostile.document["serialized"] == honest


def test_an_unknown_hostility_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="unknown hostility"):
        matrix_example(hostile_policies(hostilities=("no_such_hostility",)))


def _meets_the_recorded_outcome(hostile: HostilePolicy) -> None:
    schemas.validate("policy/document.json", hostile.document)
    policy = policy_from_document(hostile.document)
    if hostile.expected_kind is None:
        policy_for_build(policy, hostile.device_capacity)
        return
    with pytest.raises(VNextError) as info:
        policy_for_build(policy, hostile.device_capacity)
    assert info.value.kind == hostile.expected_kind, (hostile.hostility, info.value)


@pytest.mark.parametrize("operator", list(POLICY_OPERATORS))
@given(data=st.data())
def test_each_policy_operator_is_refused(operator: str, data: st.DataObject) -> None:
    """Every drawn document of the operator is refused with its kind, at a site implementing the operator's
    catalogue rule (the rule the rejection matrix credits its case with)."""
    rejection = data.draw(policy_rejections(operators=(operator,)))
    assert rejection.operator == operator
    error = assert_rejected(rejection, policy_from_document)
    rule = POLICY_OPERATORS[operator]
    assert rule is None or rule in error_rules(error), (operator, rule, error_rules(error))
