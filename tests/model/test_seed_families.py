"""Seed 000 families: exact prepared JSON, fingerprints, ordering invariance, config identity, registries."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reference.canonical import direct_bytes, fingerprint, sha256_hex
from reference.errors import (
    AmbiguousModelFamilyRegistration,
    InvalidModelConfig,
    UnknownExternalModelMetadata,
    UnknownModelFamily,
)
from reference.ids import ExternalModelMetadataId, ModelFamilyId, NumericalProfileId
from reference.model.element import ElementType
from reference.model.numerical import NumericalExecutionProfile
from reference.model.registration import TypedFamilyRegistration
from reference.model.registry import StaticFamilyRegistry, resolve, resolve_external
from reference.model.weight_schema import WeightSchema
from seeds.families import (
    FIXTURE_PROFILE,
    GRAPH_SCENARIOS,
    GraphFamily,
    OrderedSchemaFamily,
    SequentialScratchFamily,
    TestConfig,
    TestFamily,
    TestRegistry,
    fixture_byte_state,
    seed_declarative_family,
    seed_family_document,
    seed_family_provider,
    seed_raw_config,
)

TEST_FAMILY_WIRE = (
    '{"wire_version":2,"family_id":"family.synthetic","external_metadata_id":"metadata.synthetic",'
    '"canonical_config":{"width":4},'
    '"config_fingerprint":"3424bc167962a14ab245906efb2447a020712eea18b0ffc3b048c6a2f0067e36",'
    '"numerical_profile":{"id":"fixture.f32","version":{"major":1,"minor":0},"family_id":"family.synthetic",'
    '"primary_activation":"value.output","boundaries":{"value.output":"f32"},'
    '"states":[{"id":"state.cache","value_id":"value.state","tensor":{"dimensions":[4],"element_type":"u8",'
    '"layout":"contiguous"},"lifetime":"sequence","capacity_demand":"fixed_per_scope","initialization":"zero"}],'
    '"operations":[{"operation_id":"operation.main","version":{"major":1,"minor":0},"multiplication_type":null,'
    '"accumulation_type":null}]},'
    '"weight_schema":{"format_id":"weight-format.dense","layout_id":"weight-layout.dense","version":{"major":1,'
    '"minor":0},"components":[{"id":"weight.component","role":"values","external_names":["weight.bin"],'
    '"dimensions":[4],"encoding":{"dense":{"element_type":"f32"}},"required":true}],'
    '"tensors":[{"id":"weight.matrix","dimensions":[4],"logical_element_type":"f32",'
    '"physical_layout":{"dense":{"component_id":"weight.component"}},"required":true}]},'
    '"program":{"family_id":"family.synthetic","inputs":["value.input"],"blocks":[{"id":"block.main","nodes":['
    '{"id":"node.main","operation_id":"operation.main","required_version":{"major":1,"minor":0},"work":"fixed",'
    '"inputs":["value.input","value.weight","value.state"],"outputs":["value.output"],"attributes":{}}]}],'
    '"states":[{"id":"state.cache","value_id":"value.state","tensor":{"dimensions":[4],"element_type":"u8",'
    '"layout":"contiguous"},"lifetime":"sequence","capacity_demand":"fixed_per_scope","initialization":"zero"}],'
    '"weights":[{"weight_id":"weight.matrix","value_id":"value.weight","tensor":{"dimensions":[4],'
    '"element_type":"f32","layout":"contiguous"}}],"outputs":["value.output"]},'
    '"metadata":{"template":{"template":"{{ messages }}","source_file":"template.json","sha256":"' + "c" * 64 + '"},'
    '"special_tokens":{"bos_token_id":1,"eos_token_ids":[2],"pad_token_id":0,"collision_policy":{"allowed":[]}}}}'
)


def registration(provider: object) -> TypedFamilyRegistration[object]:
    return TypedFamilyRegistration(provider)  # type: ignore[arg-type]


def test_test_family_prepares_to_the_documented_bytes() -> None:
    family = TestRegistry().prepare()
    assert direct_bytes(family.to_wire()) == TEST_FAMILY_WIRE.encode()
    assert family.fingerprint() == sha256_hex(TEST_FAMILY_WIRE.encode())
    assert family.fingerprint() == "f4b3f9f643e98e9e3b3a8b613c20d0eea9a926d0dcc07f0a8a012b94ec4fa908"
    assert family.weight_schema.fingerprint() == "6f96b626827231090a31cd1bb2871c2e4919a983930a57e64a3cc5cb7137b497"
    assert family.program.fingerprint() == "2e1b9ff47722b783b678740e9ba54aa7e4f1b52d61d9b6e1d548d2df16f58435"
    assert family.numerical_profile.fingerprint() == "cc98c98d9a32dbc80524268848d0f65163867e4b8a91d271763b16f67e81792f"
    assert family.config_fingerprint == "3424bc167962a14ab245906efb2447a020712eea18b0ffc3b048c6a2f0067e36"


def test_fixture_byte_state_wire() -> None:
    assert direct_bytes(fixture_byte_state(4).to_wire()) == (
        b'{"id":"state.cache","value_id":"value.state","tensor":{"dimensions":[4],"element_type":"u8",'
        b'"layout":"contiguous"},"lifetime":"sequence","capacity_demand":"fixed_per_scope","initialization":"zero"}'
    )


def test_test_family_numerical_profiles_json() -> None:
    profiles = TestFamily().numerical_profiles(TestConfig(4))
    wire = profiles.to_wire()
    assert wire["version"] == {"major": 1, "minor": 0}
    assert wire["auto_preference"] == ["fixture.f32"]
    assert [p["id"] for p in wire["profiles"]] == ["fixture.f32"]


def test_preparation_is_deterministic() -> None:
    first, second = TestRegistry().prepare(), TestRegistry().prepare()
    assert first == second
    assert first.fingerprint() == second.fingerprint()


@pytest.mark.parametrize(
    ("provider", "raw"),
    [(SequentialScratchFamily(), {"width": 4})] + [(GraphFamily(), {"scenario": s}) for s in GRAPH_SCENARIOS],
)
def test_every_seed_family_prepares(provider: object, raw: dict[str, object]) -> None:
    family = registration(provider).prepare_with_profile(raw, FIXTURE_PROFILE)
    assert family.family_id == provider.family_id()  # type: ignore[attr-defined]
    assert set(family.numerical_profile.boundaries) == set(family.program.node_outputs())
    assert family.numerical_profile.primary_activation in family.program.outputs


def test_sequential_scratch_program_shape() -> None:
    family = registration(SequentialScratchFamily()).prepare_with_profile({"width": 4}, FIXTURE_PROFILE)
    nodes = family.program.nodes()
    assert [n.id.value for n in nodes] == ["node.first", "node.second"]
    assert nodes[1].inputs[0].value == "value.intermediate"
    assert family.numerical_profile.primary_activation.value == "value.output"
    assert family.external_metadata_id.value == "metadata.sequential-scratch"


def test_graph_state_scenarios_carry_the_f32_state() -> None:
    family = registration(GraphFamily()).prepare_with_profile({"scenario": "state_chain"}, FIXTURE_PROFILE)
    (state,) = family.program.states
    assert state.tensor.element_type is ElementType.F32
    assert [n.inputs[0].value for n in family.program.nodes()] == ["value.state"] * 4
    assert family.numerical_profile.primary_activation.value == "value.state-read.1"
    alias = registration(GraphFamily()).prepare_with_profile({"scenario": "alias"}, FIXTURE_PROFILE)
    assert alias.program.states == ()
    assert alias.metadata.template.sha256 == "a" * 64


@pytest.mark.parametrize(
    ("provider", "raw", "field"),
    [
        (TestFamily(), {"width": 5}, "width"),
        (TestFamily(), {"width": "4"}, "config"),
        (TestFamily(), {"width": -4}, "config"),
        (TestFamily(), {"width": 4.0}, "config"),
        (TestFamily(), {}, "config"),
        (TestFamily(), [4, 5], "config"),
        (TestFamily(), "width", "config"),
        (TestFamily(), {"width": 4, "extra": 1}, "/extra"),
        (TestFamily(), [4], "config"),
        (GraphFamily(), {"scenario": "nope"}, "scenario"),
        (GraphFamily(), {"scenario": 3}, "scenario"),
        (GraphFamily(), {"scenario": "alias", "x": {"y": 1}}, "/x"),
        (SequentialScratchFamily(), {"width": 8}, "width"),
    ],
)
def test_invalid_configs(provider: object, raw: object, field: str) -> None:
    with pytest.raises(InvalidModelConfig) as info:
        registration(provider).prepare_with_profile(raw, FIXTURE_PROFILE)  # type: ignore[arg-type]
    assert info.value.field == field


def test_sequential_scratch_config_errors_name_the_delegate_family() -> None:
    with pytest.raises(InvalidModelConfig) as info:
        registration(SequentialScratchFamily()).define({"width": 3})
    assert info.value.family_id == "family.synthetic"


# --------------------------------------------------------------------------- OrderedSchemaFamily


def ordered(reverse: bool, reverse_sources: bool) -> object:
    return registration(OrderedSchemaFamily(reverse, reverse_sources)).prepare_with_profile(
        {"width": 4}, FIXTURE_PROFILE
    )


def test_ordered_schema_reverse_is_invisible() -> None:
    for sources in (False, True):
        straight, reversed_ = ordered(False, sources), ordered(True, sources)
        assert straight == reversed_
        assert straight.fingerprint() == reversed_.fingerprint()  # type: ignore[attr-defined]
    assert ordered(False, False).weight_schema.fingerprint() == (  # type: ignore[attr-defined]
        "331ecb01a1c66fda0b3e99bd9f7c6c70691cbe00a01f995fca246651e875b131"
    )


def test_ordered_schema_normalized_order() -> None:
    family = ordered(True, False)
    schema = family.weight_schema  # type: ignore[attr-defined]
    assert [c.id.value for c in schema.components] == [
        "weight.component",
        "weight.component.optional.a",
        "weight.component.optional.b",
    ]
    assert [t.id.value for t in schema.tensors] == ["weight.matrix", "weight.optional"]
    assert [p.logical_offsets for p in schema.tensors[1].physical_layout.parts] == [(0,), (2,)]


def test_reverse_sources_changes_the_fingerprint_and_keeps_names() -> None:
    plain, flipped = ordered(False, False), ordered(False, True)
    assert plain != flipped
    assert plain.fingerprint() != flipped.fingerprint()  # type: ignore[attr-defined]
    assert flipped.weight_schema.components[0].external_names == ("weight.z", "weight.a")  # type: ignore[attr-defined]


def test_ordered_family_differs_from_test_family() -> None:
    assert ordered(False, False).fingerprint() != TestRegistry().prepare().fingerprint()  # type: ignore[attr-defined]


# --------------------------------------------------------------------------- declarative twins


@pytest.mark.parametrize(
    ("name", "params"),
    [
        ("test", {}),
        ("sequential_scratch", {}),
        ("ordered_schema", {"reverse": True}),
        ("ordered_schema", {"reverse_sources": True}),
    ]
    + [("graph", {"scenario": s}) for s in GRAPH_SCENARIOS],
)
def test_document_and_provider_prepare_identically(name: str, params: dict[str, object]) -> None:
    raw = seed_raw_config(name, **params)
    schema_params = {k: v for k, v in params.items() if k != "scenario"}
    python = registration(seed_family_provider(name, **schema_params)).prepare_with_profile(raw, FIXTURE_PROFILE)
    declarative = registration(seed_declarative_family(name, **params)).prepare_with_profile(raw, FIXTURE_PROFILE)
    assert python.fingerprint() == declarative.fingerprint()
    assert python == declarative
    # the document survives a JSON round trip unchanged
    doc = seed_family_document(name, **params)
    assert json.loads(json.dumps(doc)) == doc


def test_test_family_document_prepares_to_the_documented_bytes() -> None:
    family = registration(seed_declarative_family("test")).prepare_with_profile({"width": 4}, FIXTURE_PROFILE)
    assert direct_bytes(family.to_wire()) == TEST_FAMILY_WIRE.encode()


# --------------------------------------------------------------------------- config identity


json_leaf = st.one_of(st.integers(-(2**63), 2**64 - 1), st.text(max_size=4), st.booleans(), st.none())
json_values = st.recursive(
    json_leaf,
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=3), children, max_size=3),
    max_leaves=8,
)


def json_family(value: dict[str, object]) -> TypedFamilyRegistration[object]:
    doc = seed_family_document("test")
    doc["config"] = {"fields": [{"name": "width", "type": "u64"}], "parse_error_field": "config", "value": value}
    return registration(seed_declarative_family_from(doc))


def seed_declarative_family_from(doc: dict[str, object]) -> object:
    from reference.documents.family import DeclarativeFamily

    return DeclarativeFamily.from_document(doc)


@given(st.dictionaries(st.text(min_size=1, max_size=4), json_values, max_size=4))
def test_config_fingerprint_is_sha_of_sorted_canonical_config(extra: dict[str, object]) -> None:
    value = {**extra, "width": 4}
    family = json_family(value).prepare_with_profile({"width": 4}, FIXTURE_PROFILE)
    assert family.config_fingerprint == fingerprint(value)
    assert list(family.canonical_config) == sorted(family.canonical_config)


@given(
    st.lists(st.text(alphabet="abc", min_size=1, max_size=2), min_size=1, max_size=3, unique=True),
    json_values,
)
def test_extra_raw_key_at_any_depth_is_rejected_at_its_path(path: list[str], leaf: object) -> None:
    typed = {"width": 4, "nested": {"keep": 1}}
    raw: dict[str, object] = {"width": 4, "nested": {"keep": 1}}
    cursor = raw["nested"]
    assert isinstance(cursor, dict)
    for key in path[:-1]:
        child: dict[str, object] = {}
        cursor[key] = child
        cursor = child
    cursor[path[-1]] = leaf
    with pytest.raises(InvalidModelConfig) as info:
        json_family(typed).prepare_with_profile(raw, FIXTURE_PROFILE)
    assert info.value.field == "/nested/" + path[0]


def test_typed_defaults_may_be_added_but_values_must_not_change() -> None:
    family = json_family({"width": 4, "default": [1, 2]})
    assert family.prepare_with_profile({"width": 4}, FIXTURE_PROFILE).canonical_config == {
        "default": [1, 2],
        "width": 4,
    }
    assert family.prepare_with_profile({"width": 4, "default": [1, 2]}, FIXTURE_PROFILE)
    for raw, field in [
        ({"width": 4, "default": [1, 3]}, "/default/1"),
        ({"width": 4, "default": [1]}, "/default"),
        ({"width": 4, "default": [1.0, 2]}, "/default/0"),
        ({"width": 4, "default": [True, 2]}, "/default/0"),
    ]:
        with pytest.raises(InvalidModelConfig) as info:
            family.prepare_with_profile(raw, FIXTURE_PROFILE)
        assert info.value.field == field


def test_raw_consumed_check_reports_depth_first_in_key_order() -> None:
    family = json_family({"width": 4, "a": {"x": 1}})
    with pytest.raises(InvalidModelConfig) as info:
        family.prepare_with_profile({"width": 4, "a": {"x": 1, "y": 2}, "b": 1}, FIXTURE_PROFILE)
    assert info.value.field == "/a/y"


class CountingFamily(TestFamily):
    def __init__(self) -> None:
        self.serializations = 0

    def config_to_json(self, config: TestConfig) -> object:
        self.serializations += 1
        return super().config_to_json(config)


def test_typed_config_is_serialized_exactly_once_per_define() -> None:
    provider = CountingFamily()
    TypedFamilyRegistration(provider).define({"width": 4})
    assert provider.serializations == 1


class NoIdsFamily(TestFamily):
    def external_metadata_ids(self) -> frozenset[ExternalModelMetadataId]:
        return frozenset()


class UndeclaredIdFamily(TestFamily):
    def validated_external_metadata_id(self, raw: object, config: TestConfig) -> ExternalModelMetadataId:
        return ExternalModelMetadataId("metadata.elsewhere")


class AliasSelectingFamily(TestFamily):
    def validated_external_metadata_id(self, raw: object, config: TestConfig) -> ExternalModelMetadataId:
        return ExternalModelMetadataId("metadata.synthetic.alias")


class ForeignProfileFamily(TestFamily):
    def numerical_profiles(self, config: TestConfig) -> object:
        from seeds.families import fixture_f32_profiles

        return fixture_f32_profiles(
            ModelFamilyId("family.other"), ["value.output"], ["operation.main"], [fixture_byte_state(4)]
        )


class WidenedSpecialization(TestFamily):
    def specialize_weight_schema(self, config: TestConfig, source: WeightSchema, profile: object) -> WeightSchema:
        from dataclasses import replace

        tensors = tuple(replace(t, logical_element_type=ElementType.F16) for t in source.tensors)
        return replace(source, tensors=tensors)


class ReorderingSpecialization(TestFamily):
    def specialize_weight_schema(self, config: TestConfig, source: WeightSchema, profile: object) -> WeightSchema:
        from dataclasses import replace

        return replace(source, components=tuple(reversed(source.components)))


class PhysicalSpecialization(TestFamily):
    def specialize_weight_schema(self, config: TestConfig, source: WeightSchema, profile: object) -> WeightSchema:
        from dataclasses import replace

        component = replace(source.components[0], external_names=("weight.other",))
        return replace(source, components=(component,))


@pytest.mark.parametrize(
    ("provider", "field"),
    [
        (NoIdsFamily(), "external_metadata_ids"),
        (UndeclaredIdFamily(), "external_metadata_id"),
        (ForeignProfileFamily(), "numerical_profiles"),
        (PhysicalSpecialization(), "numerical_profile.weight_schema"),
        (WidenedSpecialization(), "weight_schema.tensors.weight.matrix.physical_layout"),
    ],
)
def test_identity_and_specialization_failures(provider: TestFamily, field: str) -> None:
    with pytest.raises(InvalidModelConfig) as info:
        TypedFamilyRegistration(provider).prepare_with_profile({"width": 4}, FIXTURE_PROFILE)
    assert info.value.field == field


def test_specialization_may_reorder_lists() -> None:
    prepared = TypedFamilyRegistration(ReorderingSpecialization()).prepare_with_profile({"width": 4}, FIXTURE_PROFILE)
    assert prepared == TestRegistry().prepare()


def test_alias_selection_is_recorded_verbatim() -> None:
    prepared = TypedFamilyRegistration(AliasSelectingFamily()).prepare_with_profile({"width": 4}, FIXTURE_PROFILE)
    assert prepared.external_metadata_id.value == "metadata.synthetic.alias"


def test_unknown_profile_id() -> None:
    with pytest.raises(InvalidModelConfig) as info:
        TestRegistry().registration.prepare_with_profile({"width": 4}, "fixture.f16")
    assert info.value.field == "numerical_profile"
    assert info.value.family_id == "family.synthetic"


def test_definitions_are_bound_to_their_registration() -> None:
    first, second = TypedFamilyRegistration(TestFamily()), TypedFamilyRegistration(TestFamily())
    definition = first.define({"width": 4})
    assert first.prepare(definition, FIXTURE_PROFILE) == TestRegistry().prepare()
    with pytest.raises(InvalidModelConfig) as info:
        second.prepare(definition, FIXTURE_PROFILE)
    assert info.value.field == "definition"


def test_definition_fingerprint_covers_its_parts() -> None:
    definition = TypedFamilyRegistration(TestFamily()).define({"width": 4})
    assert definition.fingerprint() == sha256_hex(direct_bytes(definition.parts_wire()))
    assert list(definition.parts_wire()) == [
        "family_id",
        "external_metadata_id",
        "canonical_config",
        "weight_schema",
        "metadata",
        "numerical_profiles",
    ]
    other = TypedFamilyRegistration(OrderedSchemaFamily()).define({"width": 4})
    assert other.fingerprint() != definition.fingerprint()


# --------------------------------------------------------------------------- registries


def test_registry_resolution() -> None:
    test = TypedFamilyRegistration(TestFamily())
    ordered_reg = TypedFamilyRegistration(OrderedSchemaFamily())
    graph = TypedFamilyRegistration(GraphFamily())
    assert resolve(StaticFamilyRegistry([test, graph]), ModelFamilyId("family.synthetic")) is test
    assert (
        resolve_external(StaticFamilyRegistry([test, graph]), ExternalModelMetadataId("metadata.synthetic.alias"))
        is test
    )
    with pytest.raises(UnknownModelFamily) as unknown:
        resolve(StaticFamilyRegistry([graph]), ModelFamilyId("family.synthetic"))
    assert unknown.value.family_id == "family.synthetic"
    with pytest.raises(UnknownExternalModelMetadata) as unknown_ext:
        resolve_external(StaticFamilyRegistry([]), ExternalModelMetadataId("metadata.synthetic"))
    assert unknown_ext.value.metadata_id == "metadata.synthetic"
    both = StaticFamilyRegistry([test, graph, ordered_reg])
    with pytest.raises(AmbiguousModelFamilyRegistration) as ambiguous:
        resolve(both, ModelFamilyId("family.synthetic"))
    assert (ambiguous.value.identity_kind, ambiguous.value.identity, ambiguous.value.matches) == (
        "internal family",
        "family.synthetic",
        2,
    )
    with pytest.raises(AmbiguousModelFamilyRegistration) as ambiguous_ext:
        resolve_external(both, ExternalModelMetadataId("metadata.synthetic"))
    assert (ambiguous_ext.value.identity_kind, ambiguous_ext.value.matches) == ("external metadata", 2)


def test_test_registry_prepare_uses_fixture_profile() -> None:
    registry = TestRegistry()
    assert [r.family_id().value for r in registry.registrations()] == ["family.synthetic"]
    assert registry.prepare().numerical_profile.id == NumericalProfileId(FIXTURE_PROFILE)


def test_profile_argument_accepts_a_typed_id() -> None:
    family = TestRegistry().registration.prepare_with_profile({"width": 4}, NumericalProfileId(FIXTURE_PROFILE))
    assert isinstance(family.numerical_profile, NumericalExecutionProfile)
