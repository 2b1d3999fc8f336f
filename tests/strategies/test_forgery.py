"""The forgery operators: the reference rejects every forgery with exactly the named kind (and fields)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conformance.rules import catalogue
from reference import api
from reference.canonical import canonical_bytes, direct_bytes, sha256_hex
from reference.errors import VNextError
from strategies.forgery import (
    MALFORMED_OPERATORS,
    OPERATORS,
    ORDERED_ARRAYS,
    SET_ARRAYS,
    Forgery,
    forge_seeded,
    forgeries,
    reference_targets,
    rehash_plan_json,
)
from strategies.json_values import MALFORMED_CLASSES

GENERATED = sorted(name for name in OPERATORS if name != "malformed:oversize")
DECODE_KINDS = ("serialization", "unsupported_plan_schema")


def _assert_reference_rejects(forgery: Forgery) -> VNextError:
    known = catalogue().by_id
    assert [rule for rule in forgery.rules if rule not in known] == [], forgery.operator
    for rule in forgery.rules:
        assert known[rule].kind in (None, forgery.expected_kind), (forgery.operator, rule)
    if forgery.expected_kind == "serialization":
        assert forgery.fields["context"] == "decode untrusted execution plan"
    with pytest.raises(VNextError) as info:
        api.revalidate(forgery.scenario, forgery.wire_bytes)
    error = info.value
    assert error.kind == forgery.expected_kind, (forgery.operator, forgery.target, forgery.detail, error)
    produced = error.to_dict()
    for name, value in forgery.fields.items():
        assert produced[name] == value, (forgery.operator, name)
    return error


@pytest.mark.parametrize("operator", GENERATED)
@given(data=st.data())
def test_generated_forgeries_get_exactly_the_named_kind(operator: str, data: st.DataObject) -> None:
    forgery = data.draw(forgeries(reference_targets(), operator))
    assert forgery.operator == operator
    assert forgery.rule
    target = next(t for t in reference_targets() if t.name == forgery.target)
    assert forgery.wire_bytes != target.wire or forgery.scenario != target.scenario
    _assert_reference_rejects(forgery)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_every_kill_matrix_cell_gets_the_named_kind(seed: int) -> None:
    applied = 0
    for operator in sorted(OPERATORS):
        for target in reference_targets():
            forgery = forge_seeded(operator, target, seed)
            if forgery is None:
                continue
            applied += 1
            assert forge_seeded(operator, target, seed) == forgery, "seeded forgeries must be deterministic"
            _assert_reference_rejects(forgery)
    assert applied >= len(OPERATORS) * len(reference_targets()) - 8


@given(data=st.data())
def test_decode_stage_rejections_do_not_depend_on_the_scenario(data: st.DataObject) -> None:
    forgery = data.draw(forgeries(reference_targets()))
    if forgery.expected_kind not in DECODE_KINDS:
        return
    with pytest.raises(VNextError) as info:
        api.revalidate({"not": "a scenario"}, forgery.wire_bytes)
    assert info.value.kind == forgery.expected_kind


def test_rehash_plan_json_is_the_seed_recipe() -> None:
    for target in reference_targets():
        raw = target.raw()
        assert direct_bytes(rehash_plan_json(raw)) == target.wire
        raw["payload"]["maximum_scheduled_tokens"] += 1
        sealed = rehash_plan_json(raw)
        material = {k: v for k, v in sealed["payload"].items() if k != "plan_id"}
        assert sealed["plan_hash"] == sha256_hex(canonical_bytes(material)) != json.loads(target.wire)["plan_hash"]
        assert sealed["payload"]["plan_id"] == "plan/sha256/" + sealed["plan_hash"]


def test_operator_tables_and_classes() -> None:
    assert not SET_ARRAYS & ORDERED_ARRAYS
    classes = {op.name.removeprefix("malformed:") for op in MALFORMED_OPERATORS} | {"oversize"}
    assert classes == set(MALFORMED_CLASSES)
    assert len({t.name for t in reference_targets()}) == len(reference_targets())


def test_hash_forgeries_pin_the_mismatch_fields() -> None:
    target = reference_targets()[0]
    forgery = forge_seeded("hash_other_hex", target)
    assert forgery is not None
    original = json.loads(target.wire)["plan_hash"]
    assert forgery.fields == {"expected": original, "actual": json.loads(forgery.wire_bytes)["plan_hash"]}
    assert forgery.fields["actual"] != original
