"""Numerical profiles, family profile sets, semantic metadata, rationals and collisions."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import schemas
from reference.canonical import direct_bytes, sha256_hex
from reference.errors import InvalidExecutionPlan, InvalidModelConfig, Serialization
from reference.ids import ModelFamilyId, NumericalProfileId, OperationId, ProgramValueId, StateId
from reference.model.element import ElementType
from reference.model.metadata import (
    ModelSemanticMetadata,
    SpecialTokenCollision,
    SpecialTokenCollisionPolicy,
    SpecialTokenMetadata,
    SpecialTokenRole,
    TemplateMetadata,
    validate_metadata,
)
from reference.model.numerical import (
    FamilyNumericalProfiles,
    NumericalExecutionPolicy,
    NumericalExecutionProfile,
    NumericalOperationContract,
)
from reference.model.semantic_value import CanonicalRational, SemanticValue
from reference.model.state import StateCapacityDemand
from reference.model.tensor import ProgramTensorSpec
from reference.versions import ContractVersion
from seeds.families import GraphConfig, GraphFamily, TestConfig, TestFamily, fixture_byte_state, fixture_f32_profiles

FAMILY = ModelFamilyId("family.synthetic")
V10 = ContractVersion(1, 0)


def profile(**overrides: Any) -> NumericalExecutionProfile:
    return replace(TestFamily().numerical_profiles(TestConfig(4)).profiles[0], **overrides)


def op(name: str, version: ContractVersion = V10, mul: ElementType | None = None) -> NumericalOperationContract:
    return NumericalOperationContract(OperationId(name), version, mul, None)


def program() -> Any:
    family = TestFamily()
    return family.semantic_program(TestConfig(4), profile())


@pytest.mark.parametrize(
    "overrides",
    [
        {"version": ContractVersion(0, 1)},
        {"operations": ()},
        {"primary_activation": ProgramValueId("value.missing")},
        {"boundaries": {ProgramValueId("value.output"): ElementType.I32}},
        {"operations": (op("operation.main"), op("operation.main"))},
        {"operations": (op("operation.main", ContractVersion(0, 3)),)},
        {"operations": (op("operation.main", mul=ElementType.I8),)},
        {"states": (fixture_byte_state(4), fixture_byte_state(4))},
        {"states": (fixture_byte_state(4), replace(fixture_byte_state(4), id=StateId("state.other")))},
    ],
)
def test_profile_validate(overrides: dict[str, Any]) -> None:
    with pytest.raises(InvalidModelConfig) as info:
        profile(**overrides).validate()
    assert (info.value.family_id, info.value.field) == ("family.synthetic", "numerical_profile")


@pytest.mark.parametrize(
    "state",
    [
        replace(fixture_byte_state(4), tensor=ProgramTensorSpec((0,), ElementType.U8)),
        replace(fixture_byte_state(4), capacity_demand=StateCapacityDemand.token_scaled(3, 1)),
        replace(fixture_byte_state(4), capacity_demand=StateCapacityDemand.token_scaled(2**63, 2)),
        replace(fixture_byte_state(4), capacity_demand=StateCapacityDemand.token_scaled(4, 0)),
    ],
)
def test_profile_state_failures_are_bare(state: Any) -> None:
    with pytest.raises(InvalidExecutionPlan):
        profile(states=(state,)).validate()


@pytest.mark.parametrize(
    "overrides",
    [
        {"operations": (op("operation.other"),)},
        {"operations": (op("operation.main", ContractVersion(1, 1)),)},
        {"operations": (op("operation.main"), op("operation.unused"))},
        {
            "boundaries": {
                ProgramValueId("value.output"): ElementType.F32,
                ProgramValueId("value.extra"): ElementType.F32,
            }
        },
        {"states": ()},
        {"states": (replace(fixture_byte_state(4), capacity_demand=StateCapacityDemand.token_scaled(4, 8)),)},
        {"family_id": ModelFamilyId("family.other")},
    ],
)
def test_profile_against_program(overrides: dict[str, Any]) -> None:
    with pytest.raises(InvalidModelConfig) as info:
        profile(**overrides).validate_program(program())
    assert info.value.field == "numerical_profile"


def test_profile_matches_its_program_and_normalizes() -> None:
    base = profile()
    base.validate_program(program())
    assert base.activation_type() is ElementType.F32
    shuffled = replace(
        base,
        operations=(op("operation.z"), op("operation.a")),
        states=(
            replace(fixture_byte_state(4), id=StateId("s.z"), value_id=ProgramValueId("v.z")),
            replace(fixture_byte_state(4), id=StateId("s.a"), value_id=ProgramValueId("v.a")),
        ),
    )
    normalized = shuffled.normalize()
    assert [o.operation_id.value for o in normalized.operations] == ["operation.a", "operation.z"]
    assert [s.id.value for s in normalized.states] == ["s.a", "s.z"]
    assert shuffled.fingerprint() == sha256_hex(direct_bytes(normalized.to_wire()))
    assert list(base.to_wire()) == [
        "id",
        "version",
        "family_id",
        "primary_activation",
        "boundaries",
        "states",
        "operations",
    ]
    base.validate_inferred_boundaries({ProgramValueId("value.output"): ElementType.F32})
    with pytest.raises(InvalidModelConfig):
        base.validate_inferred_boundaries({ProgramValueId("value.output"): ElementType.F16})


def test_profile_wire() -> None:
    base = profile()
    wire = base.to_wire()
    schemas.validate("model/numerical_execution_profile.json", wire)
    assert NumericalExecutionProfile.from_wire(wire) == base
    for mutate in (
        lambda w: w.__setitem__("kv_storage", []),
        lambda w: w["operations"][0].__setitem__("x", 1),
        lambda w: w.__setitem__("id", "not portable"),
        lambda w: w["boundaries"].__setitem__("v", "f64"),
    ):
        bad = base.to_wire()
        mutate(bad)
        with pytest.raises(Serialization):
            NumericalExecutionProfile.from_wire(bad)
    missing = base.to_wire()
    del missing["operations"][0]["multiplication_type"]
    assert NumericalExecutionProfile.from_wire(missing) == base


def test_family_profiles_construction() -> None:
    base = profile()
    second = replace(base, id=NumericalProfileId("a.profile"))
    profiles = FamilyNumericalProfiles.new(FAMILY, V10, [base, second], [NumericalProfileId("fixture.f32")])
    assert [p.id.value for p in profiles.profiles] == ["a.profile", "fixture.f32"]
    schemas.validate("model/family_numerical_profiles.json", profiles.to_wire())
    assert profiles.resolve(NumericalProfileId("a.profile")) == second
    assert profiles.candidates(NumericalExecutionPolicy.parse("auto")) == (base,)
    assert profiles.candidates(NumericalExecutionPolicy.parse("a.profile")) == (second,)
    with pytest.raises(InvalidModelConfig) as info:
        profiles.resolve(NumericalProfileId("nope"))
    assert (info.value.field, info.value.family_id) == ("numerical_profile", "family.synthetic")
    no_auto = FamilyNumericalProfiles.new(FAMILY, V10, [base], [])
    with pytest.raises(InvalidModelConfig):
        no_auto.candidates(NumericalExecutionPolicy.parse("auto"))


@pytest.mark.parametrize(
    ("build", "family_id"),
    [
        (lambda: FamilyNumericalProfiles.new(FAMILY, ContractVersion(0, 1), [profile()], []), "family.synthetic"),
        (lambda: FamilyNumericalProfiles.new(FAMILY, V10, [], []), "family.synthetic"),
        (lambda: FamilyNumericalProfiles.new(FAMILY, V10, [profile(), profile()], []), "family.synthetic"),
        (lambda: FamilyNumericalProfiles.new(ModelFamilyId("family.x"), V10, [profile()], []), "family.x"),
        (
            lambda: FamilyNumericalProfiles.new(FAMILY, V10, [profile()], [NumericalProfileId("nope")]),
            "family.synthetic",
        ),
        (
            lambda: FamilyNumericalProfiles.new(FAMILY, V10, [profile()], [NumericalProfileId("fixture.f32")] * 2),
            "family.synthetic",
        ),
        (lambda: FamilyNumericalProfiles.new(FAMILY, V10, [profile(operations=())], []), "family.synthetic"),
    ],
)
def test_family_profiles_rejections(build: Any, family_id: str) -> None:
    with pytest.raises(InvalidModelConfig) as info:
        build()
    assert (info.value.field, info.value.family_id) == ("numerical_profile", family_id)


def test_fixture_f32_profiles_shape() -> None:
    profiles = fixture_f32_profiles(FAMILY, ["a", "b"], ["op.x", "op.y"], [])
    (only,) = profiles.profiles
    assert only.primary_activation.value == "b"
    assert dict(only.boundaries) == {ProgramValueId("a"): ElementType.F32, ProgramValueId("b"): ElementType.F32}
    assert [o.version for o in only.operations] == [V10, V10]
    assert profiles.auto_preference == (NumericalProfileId("fixture.f32"),)
    with pytest.raises(ValueError):
        fixture_f32_profiles(FAMILY, [], ["op"], [])
    graph = GraphFamily().numerical_profiles(GraphConfig("state_chain")).profiles[0]
    assert graph.primary_activation.value == "value.state-read.1"


# --------------------------------------------------------------------------- metadata


def metadata(**template: Any) -> ModelSemanticMetadata:
    base = TemplateMetadata("{{ messages }}", "template.json", "c" * 64)
    return ModelSemanticMetadata(replace(base, **template), SpecialTokenMetadata(1, (2,), 0))


@pytest.mark.parametrize(
    "bad",
    [
        metadata(template=""),
        metadata(source_file=""),
        metadata(source_file="/abs.json"),
        metadata(source_file="dir\\file.json"),
        metadata(source_file="a//b.json"),
        metadata(source_file="a/./b.json"),
        metadata(source_file="../b.json"),
        metadata(source_file="dir/"),
        metadata(sha256="C" * 64),
        metadata(sha256="c" * 63),
        replace(metadata(), special_tokens=SpecialTokenMetadata(1, (), 0)),
    ],
)
def test_metadata_rejections(bad: ModelSemanticMetadata) -> None:
    with pytest.raises(InvalidModelConfig) as info:
        validate_metadata("family.x", bad)
    assert (info.value.family_id, info.value.field) == ("family.x", "semantic_metadata")


def test_metadata_accepts_nested_paths_and_colliding_ids() -> None:
    validate_metadata("f", metadata(source_file="a/b/template.jinja"))
    validate_metadata("f", replace(metadata(), special_tokens=SpecialTokenMetadata(2, (2,), 2)))
    schemas.validate("model/semantic_metadata.json", metadata().to_wire())


def test_collisions() -> None:
    with pytest.raises(InvalidExecutionPlan):
        SpecialTokenCollision(SpecialTokenRole.PAD, SpecialTokenRole.PAD)
    swapped = SpecialTokenCollision(SpecialTokenRole.STOP, SpecialTokenRole.BOS)
    assert (swapped.first, swapped.second) == (SpecialTokenRole.BOS, SpecialTokenRole.STOP)
    policy = SpecialTokenCollisionPolicy(
        (swapped, SpecialTokenCollision(SpecialTokenRole.EOS, SpecialTokenRole.BOS), swapped)
    )
    assert [c.to_wire() for c in policy.allowed] == [
        {"first": "bos", "second": "eos"},
        {"first": "bos", "second": "stop"},
    ]
    assert policy.allows(SpecialTokenRole.BOS, SpecialTokenRole.STOP)
    assert not policy.allows(SpecialTokenRole.STOP, SpecialTokenRole.BOS)
    assert not SpecialTokenCollisionPolicy.require_distinct().allows(SpecialTokenRole.BOS, SpecialTokenRole.EOS)
    assert SpecialTokenCollision.from_wire({"first": "pad", "second": "bos"}, "c").first is SpecialTokenRole.BOS
    with pytest.raises(Serialization):
        SpecialTokenCollision.from_wire({"first": "pad", "second": "pad"}, "c")
    with pytest.raises(Serialization):
        SpecialTokenCollision.from_wire({"first": "pad", "second": "bos", "x": 1}, "c")


def test_metadata_wire() -> None:
    raw = {
        "template": {"template": "t", "source_file": "a.json", "sha256": "a" * 64, "extra": 1},
        "special_tokens": {"eos_token_ids": [5, 2, 5], "collision_policy": {"allowed": []}},
    }
    decoded = ModelSemanticMetadata.from_wire(raw)
    assert decoded.special_tokens.eos_token_ids == (2, 5)
    assert decoded.special_tokens.bos_token_id is None
    assert decoded.to_wire()["special_tokens"] == {
        "bos_token_id": None,
        "eos_token_ids": [2, 5],
        "pad_token_id": None,
        "collision_policy": {"allowed": []},
    }


# --------------------------------------------------------------------------- rationals and attribute values


@given(st.integers(-(2**63), 2**63 - 1), st.integers(1, 2**64 - 1))
def test_rationals_are_reduced(numerator: int, denominator: int) -> None:
    from math import gcd

    value = CanonicalRational(numerator, denominator)
    assert value.denominator > 0
    assert gcd(abs(value.numerator), value.denominator) == 1 or value.numerator == 0
    assert value.numerator * denominator == numerator * value.denominator
    if numerator == 0:
        assert value.denominator == 1


def test_rational_rules() -> None:
    with pytest.raises(InvalidExecutionPlan):
        CanonicalRational(1, 0)
    assert CanonicalRational.from_wire({"numerator": 2, "denominator": 4}, "c") == CanonicalRational(1, 2)
    for bad in (
        {"numerator": 1, "denominator": 0},
        {"numerator": 1, "denominator": 2, "x": 0},
        {"numerator": 1.5, "denominator": 2},
        {"numerator": 1, "denominator": -2},
    ):
        with pytest.raises(Serialization):
            CanonicalRational.from_wire(bad, "c")
    assert CanonicalRational.parse("0.25") == CanonicalRational(1, 4)
    assert CanonicalRational.parse("-1.5e2") == CanonicalRational(-150, 1)
    assert CanonicalRational.parse("2.5E-3") == CanonicalRational(1, 400)
    assert CanonicalRational.parse(".5") == CanonicalRational(1, 2)
    with pytest.raises(InvalidExecutionPlan):
        CanonicalRational.parse("abc")


def test_semantic_values() -> None:
    values = [
        SemanticValue("bool", False),
        SemanticValue("integer", -3),
        SemanticValue("unsigned", 2**64 - 1),
        SemanticValue("rational", CanonicalRational(3, 6)),
        SemanticValue("text", "x"),
        SemanticValue("integers", (1, -2)),
    ]
    for value in values:
        value.validate()
        assert SemanticValue.from_wire(value.to_wire(), "c") == value
    with pytest.raises(Serialization):
        SemanticValue.from_wire({"float": 1.0}, "c")
    with pytest.raises(Serialization):
        SemanticValue.from_wire({"unsigned": -1}, "c")
    with pytest.raises(ValueError):
        SemanticValue("integer", 2**63)
