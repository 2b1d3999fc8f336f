"""ExecutionWeightPlan (05 §10.7): wire, fingerprint and every validation rule."""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reference.canonical import canonical_bytes, direct_bytes, loads_strict, sha256_hex
from reference.errors import Serialization
from reference.ids import ModelFamilyId, WeightId, WeightLayoutId, WeightMaterializerId
from reference.model.element import ElementType
from reference.model.registration import TypedFamilyRegistration
from reference.model.weight_encoding import Dense
from reference.model.weight_layout import DenseLayout
from reference.versions import ContractVersion
from reference.weights import ExecutionWeightPlan, WeightMaterializerDescriptor
from seeds.families import FIXTURE_PROFILE, OrderedSchemaFamily
from seeds.weights import PADDED_DENSE_ID, PaddedDenseMaterializer, descriptor
from tests.weights.helpers import family, raises_kind, registry_and_catalog, split

LEFT = WeightId("weight.component.left")
RIGHT = WeightId("weight.component.right")
IEP = "invalid_execution_plan"


def _identity(fam: Any = None) -> ExecutionWeightPlan:
    return ExecutionWeightPlan.identity(fam or split())


def _padded() -> ExecutionWeightPlan:
    registry, catalog = registry_and_catalog(PaddedDenseMaterializer())
    return registry.select_exact(family(), catalog, PADDED_DENSE_ID).plan()


def _schema_edit(fn: Callable[[Any], Any]) -> Callable[[ExecutionWeightPlan], ExecutionWeightPlan]:
    return lambda plan: plan.replace(schema=fn(plan.schema()))


def _tensor(**changes: Any) -> Callable[[ExecutionWeightPlan], ExecutionWeightPlan]:
    return _schema_edit(lambda s: replace(s, tensors=(replace(s.tensors[0], **changes), *s.tensors[1:])))


def _left_f16(plan: ExecutionWeightPlan) -> ExecutionWeightPlan:
    s = plan.schema()
    comps = tuple(replace(c, encoding=Dense(ElementType.F16)) for c in s.components)
    tensor = replace(s.tensors[0], logical_element_type=ElementType.F16)
    return plan.replace(schema=replace(s, components=comps, tensors=(tensor,)))


#: (name, mutation of the split family's identity plan, expected kind, stage that first rejects it)
MUTATIONS: list[tuple[str, Callable[[ExecutionWeightPlan], ExecutionWeightPlan], str, str]] = [
    (
        "source fp uppercase",
        lambda p: p.replace(source_schema_fingerprint=p.source_schema_fingerprint().upper()),
        IEP,
        "structure",
    ),
    ("source fp short", lambda p: p.replace(source_schema_fingerprint="a" * 63), IEP, "structure"),
    ("impl fp non-hex", lambda p: p.replace(materializer_implementation_fingerprint="g" * 64), IEP, "structure"),
    ("version major 0", lambda p: p.replace(materializer_version=ContractVersion(0, 9)), IEP, "structure"),
    (
        "schema version 0",
        _schema_edit(lambda s: replace(s, version=ContractVersion(0, 1))),
        "unknown_weight_layout",
        "structure",
    ),
    ("schema no tensors", _schema_edit(lambda s: replace(s, tensors=())), "unknown_weight_layout", "structure"),
    (
        "schema duplicate component",
        _schema_edit(lambda s: replace(s, components=(*s.components, s.components[0]))),
        "invalid_model_config",
        "structure",
    ),
    ("sources missing key", lambda p: p.replace(component_sources={LEFT: [LEFT]}), IEP, "structure"),
    (
        "sources extra key",
        lambda p: p.replace(component_sources={**p.component_sources(), WeightId("weight.extra"): [LEFT]}),
        IEP,
        "structure",
    ),
    ("sources empty list", lambda p: p.replace(component_sources={LEFT: [LEFT], RIGHT: []}), IEP, "structure"),
    (
        "sources duplicate",
        lambda p: p.replace(component_sources={LEFT: [LEFT, LEFT], RIGHT: [RIGHT]}),
        IEP,
        "structure",
    ),
    ("source fp other", lambda p: p.replace(source_schema_fingerprint="0" * 64), IEP, "family"),
    (
        "unknown source",
        lambda p: p.replace(component_sources={LEFT: [LEFT], RIGHT: [WeightId("weight.ghost")]}),
        IEP,
        "family",
    ),
    (
        "required source unreferenced",
        lambda p: p.replace(component_sources={LEFT: [LEFT], RIGHT: [LEFT]}),
        IEP,
        "family",
    ),
    ("tensor required changed", _tensor(required=False), IEP, "family"),
    ("tensor dtype changed", _left_f16, IEP, "family"),
    ("impl fp other", lambda p: p.replace(materializer_implementation_fingerprint="9" * 64), IEP, "materializer"),
    ("materializer id other", lambda p: p.replace(materializer_id=PADDED_DENSE_ID), IEP, "materializer"),
    (
        "materializer version other",
        lambda p: p.replace(materializer_version=ContractVersion(2, 1)),
        IEP,
        "materializer",
    ),
]


def _validate(stage: str, plan: ExecutionWeightPlan) -> None:
    identity = WeightMaterializerDescriptor.identity()
    if stage == "structure":
        plan.validate_structure(split().family_id)
    elif stage == "family":
        plan.validate_against_family(split())
    else:
        plan.validate_against_materializer(split(), identity)


STAGES = ("structure", "family", "materializer")


@pytest.mark.parametrize(("name", "mutate", "kind", "stage"), MUTATIONS, ids=[m[0] for m in MUTATIONS])
def test_mutated_plan_rejected_at_its_stage_and_every_later_one(
    name: str, mutate: Callable[[ExecutionWeightPlan], ExecutionWeightPlan], kind: str, stage: str
) -> None:
    plan = _identity()
    for each in STAGES:
        _validate(each, plan)  # the unmutated plan passes every stage
    mutated = mutate(plan)
    assert mutated != plan
    assert mutated.fingerprint() != plan.fingerprint()
    first = STAGES.index(stage)
    for earlier in STAGES[:first]:
        _validate(earlier, mutated)
    for later in STAGES[first:]:
        raises_kind(kind, lambda later=later: _validate(later, mutated))


def test_logical_tensor_dims_changed_consistently_is_still_rejected() -> None:
    plan = ExecutionWeightPlan.identity(family())
    s = plan.schema()
    mutated = plan.replace(
        schema=replace(
            s,
            components=(replace(s.components[0], dimensions=(5,)),),
            tensors=(replace(s.tensors[0], dimensions=(5,)),),
        )
    )
    mutated.validate_structure(family().family_id)
    error = raises_kind(IEP, lambda: mutated.validate_against_family(family()))
    assert "logical tensor contract" in error.to_dict()["reason"]


def test_extra_or_missing_tensor_is_rejected() -> None:
    plan = ExecutionWeightPlan.identity(family())
    s = plan.schema()
    component = replace(s.components[0], id=WeightId("weight.zz.c"), external_names=("zz.bin",), required=False)
    extra = replace(s.tensors[0], id=WeightId("weight.zz"), physical_layout=DenseLayout(component.id), required=False)
    grown = plan.replace(
        schema=replace(s, components=(*s.components, component), tensors=(s.tensors[0], extra)),
        component_sources={s.components[0].id: [s.components[0].id], component.id: [s.components[0].id]},
    )
    grown.validate_structure(family().family_id)
    raises_kind(IEP, lambda: grown.validate_against_family(family()))
    ordered = TypedFamilyRegistration(OrderedSchemaFamily()).prepare_with_profile({"width": 4}, FIXTURE_PROFILE)
    full = ExecutionWeightPlan.identity(ordered)
    assert len(full.schema().tensors) == 2
    kept = [t for t in full.schema().tensors if t.required]
    shrunk = full.replace(schema=replace(full.schema(), tensors=tuple(kept)))
    shrunk.validate_structure(ordered.family_id)
    raises_kind(IEP, lambda: shrunk.validate_against_family(ordered))


def test_physical_layout_may_change() -> None:
    padded = _padded()
    padded.validate_against_family(family())
    assert padded.schema().layout_id == WeightLayoutId("weight-layout.test.padded-dense")
    assert padded.schema().tensors[0].dimensions == family().weight_schema.tensors[0].dimensions
    padded.validate_against_materializer(family(), PaddedDenseMaterializer().descriptor())
    raises_kind(IEP, lambda: padded.validate_against_materializer(family(), WeightMaterializerDescriptor.identity()))


def test_validate_structure_accepts_id_or_string() -> None:
    plan = _identity()
    plan.validate_structure(ModelFamilyId("family.synthetic"))
    plan.validate_structure("family.synthetic")


def test_from_materializer_validates() -> None:
    fam = split()
    other_descriptor = descriptor("weight-materializer.test.other", "2")
    plan = ExecutionWeightPlan.from_materializer(
        fam, other_descriptor, fam.weight_schema, {LEFT: [LEFT], RIGHT: [RIGHT]}
    )
    assert plan.materializer_id() == other_descriptor.id
    raises_kind(
        IEP, lambda: ExecutionWeightPlan.from_materializer(fam, other_descriptor, fam.weight_schema, {LEFT: [LEFT]})
    )
    raises_kind(
        IEP,
        lambda: ExecutionWeightPlan.from_materializer(
            family(), other_descriptor, fam.weight_schema, {LEFT: [LEFT], RIGHT: [RIGHT]}
        ),
    )


# --------------------------------------------------------------------------- wire


def test_wire_round_trip_is_byte_identical() -> None:
    for plan in (_identity(), ExecutionWeightPlan.identity(family()), _padded()):
        wire = plan.to_json_bytes()
        decoded = ExecutionWeightPlan.from_wire(loads_strict(wire, context="test"))
        assert decoded == plan
        assert decoded.to_json_bytes() == wire
        assert wire == direct_bytes(plan.to_wire())
        assert list(plan.to_wire()) == [
            "source_schema_fingerprint",
            "materializer_id",
            "materializer_version",
            "materializer_implementation_fingerprint",
            "component_sources",
            "schema",
        ]


def test_component_sources_key_order_is_normalized_but_value_order_kept() -> None:
    wire = _identity().to_wire()
    wire["component_sources"] = {
        "weight.component.right": ["weight.component.right", "weight.component.left"],
        "weight.component.left": ["weight.component.left"],
    }
    decoded = ExecutionWeightPlan.from_wire(wire)
    assert list(decoded.to_wire()["component_sources"]) == ["weight.component.left", "weight.component.right"]
    assert decoded.component_sources()[RIGHT] == (RIGHT, LEFT)
    decoded.validate_against_family(split())  # multi-source lists are allowed


def test_decoding_validates_nothing() -> None:
    wire = _identity().to_wire()
    wire["source_schema_fingerprint"] = "NOT-A-HASH"
    wire["materializer_version"] = {"major": 0, "minor": 0}
    wire["component_sources"] = {}
    decoded = ExecutionWeightPlan.from_wire(wire)
    raises_kind(IEP, lambda: decoded.validate_structure(split().family_id))


@pytest.mark.parametrize(
    "tamper",
    [
        lambda w: w.update(extra=1),
        lambda w: w.pop("schema"),
        lambda w: w.pop("component_sources"),
        lambda w: w.update(component_sources=[]),
        lambda w: w.update(component_sources={"weight.component.left": "weight.component.left"}),
        lambda w: w.update(component_sources={"bad id!": ["weight.component.left"]}),
        lambda w: w.update(component_sources={"weight.component.left": [7]}),
        lambda w: w.update(materializer_id="not portable!"),
        lambda w: w.update(materializer_version={"major": 70000, "minor": 0}),
        lambda w: w.update(materializer_implementation_fingerprint=None),
        lambda w: w.update(schema=[]),
    ],
)
def test_malformed_wire_is_a_serialization_error(tamper: Callable[[dict[str, Any]], Any]) -> None:
    wire = copy.deepcopy(_identity().to_wire())
    tamper(wire)
    with pytest.raises(Serialization):
        ExecutionWeightPlan.from_wire(wire)
    with pytest.raises(Serialization):
        ExecutionWeightPlan.from_wire([wire])


def test_fingerprint_is_canonical_and_distinct_from_direct() -> None:
    plan = _padded()
    assert plan.fingerprint() == sha256_hex(canonical_bytes(plan.to_wire()))
    assert plan.fingerprint() != sha256_hex(plan.to_json_bytes())


@given(st.integers(min_value=0, max_value=len(MUTATIONS) - 1))
def test_any_mutation_changes_fingerprint_and_wire(index: int) -> None:
    plan = _identity()
    mutated = MUTATIONS[index][1](plan)
    assert mutated.fingerprint() != plan.fingerprint()
    assert mutated.to_json_bytes() != plan.to_json_bytes()
    assert ExecutionWeightPlan.from_wire(mutated.to_wire()) == mutated


@given(st.lists(st.sampled_from([LEFT, RIGHT, WeightId("weight.x")]), min_size=0, max_size=4))
def test_source_list_rules(sources: list[WeightId]) -> None:
    """Accepted iff duplicate-free, made of family components and covering the required LEFT."""
    plan = _identity().replace(component_sources={LEFT: sources, RIGHT: [RIGHT]})
    ok = LEFT in sources and len(set(sources)) == len(sources) and WeightId("weight.x") not in sources
    if ok:
        plan.validate_against_family(split())
    else:
        raises_kind(IEP, lambda: plan.validate_against_family(split()))


def test_plans_are_hashable_immutable_values() -> None:
    plan = _identity()
    assert len({plan, _identity(), _padded()}) == 2
    with pytest.raises(AttributeError):
        plan.foo = 1  # type: ignore[attr-defined]
    with pytest.raises(TypeError):
        plan.replace(nope=1)
    with pytest.raises(TypeError):
        ExecutionWeightPlan("a" * 64, "not-an-id", ContractVersion(1, 0), "a" * 64, {}, plan.schema())  # type: ignore[arg-type]
    assert plan.replace(materializer_id=WeightMaterializerId("weight-materializer.identity")) == plan
