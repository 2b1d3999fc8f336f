"""TrustedExecutionWeightPlan (05 §10.5-10.6): unforgeable witness, catalog validation, materialize_components."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from functools import cache

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from reference.catalog.device import DeviceDescriptor
from reference.catalog.weight_materializer import WeightMaterializerDescriptor
from reference.ids import QuantizationFormatId, WeightFormatId, WeightId, WeightLayoutId, WeightMaterializerId
from reference.model.element import ElementType
from reference.model.prepared import PreparedModelFamily
from reference.model.registration import TypedFamilyRegistration
from reference.model.weight_encoding import (
    BlockQuantizationSpec,
    BlockQuantized,
    Dense,
    WeightComponentRole,
    WeightComponentSpec,
)
from reference.model.weight_layout import (
    BlockQuantizedLayout,
    CompositeLayout,
    CompositeWeightPart,
    DenseLayout,
    PhysicalWeightComponentBinding,
)
from reference.model.weight_schema import WeightSchema, WeightTensorSpec
from reference.versions import ContractVersion
from reference.weights import (
    ExecutionWeightPlan,
    IdentityWeightMaterializer,
    InMemoryWeightSource,
    TrustedExecutionWeightPlan,
    WeightComponentPayload,
    WeightComponentSource,
    WeightMaterializer,
)
from seeds.families import FIXTURE_PROFILE, FixedSchemaFamily
from seeds.weight_sources import RecordingWeightSource, ZeroWeightSource
from seeds.weights import (
    DERIVED_ID,
    PADDED_DENSE_ID,
    DerivedComponentMaterializer,
    FaultyMaterializer,
    PaddedDenseMaterializer,
    ShiftingDescriptorMaterializer,
    descriptor,
)
from tests.weights.helpers import base_catalog, family, raises_kind, registry_and_catalog, split

LO = WeightId("weight.execution.lo")
HI = WeightId("weight.execution.hi")


class ReversingMaterializer(WeightMaterializer):
    """Identity content, components and tensors listed in reverse order (selection must normalize)."""

    ID = WeightMaterializerId("weight-materializer.test.reversing")

    def descriptor(self) -> WeightMaterializerDescriptor:
        return descriptor(self.ID, "2")

    def execution_schema(self, family: PreparedModelFamily, device: DeviceDescriptor) -> WeightSchema:
        schema = family.weight_schema
        return replace(schema, components=schema.components[::-1], tensors=schema.tensors[::-1])

    def materialize_component(
        self,
        source: WeightComponentSource,
        source_components: Sequence[WeightComponentSpec],
        execution_component: WeightComponentSpec,
    ) -> WeightComponentPayload:
        return IdentityWeightMaterializer().materialize_component(source, source_components, execution_component)


class SplittingMaterializer(WeightMaterializer):
    """Splits ``weight.component`` [4] into two derived halves sharing the one ordered source list."""

    ID = WeightMaterializerId("weight-materializer.test.splitting")

    def __init__(self, fault: str | None = None) -> None:
        self.fault = fault

    def descriptor(self) -> WeightMaterializerDescriptor:
        return descriptor(self.ID, "1")

    def execution_schema(self, family: PreparedModelFamily, device: DeviceDescriptor) -> WeightSchema:
        schema = family.weight_schema
        base = schema.components[0]
        halves = tuple(replace(base, id=i, external_names=(f"{i.value}.bin",), dimensions=(2,)) for i in (LO, HI))
        parts = (CompositeWeightPart(DenseLayout(LO), (0,), (2,)), CompositeWeightPart(DenseLayout(HI), (2,), (2,)))
        tensor = replace(schema.tensors[0], physical_layout=CompositeLayout(parts))
        return replace(schema, components=halves, tensors=(tensor,))

    def component_sources(
        self, family: PreparedModelFamily, execution_schema: WeightSchema
    ) -> Mapping[WeightId, Sequence[WeightId]]:
        return {LO: [WeightId("weight.component")], HI: [WeightId("weight.component")]}

    def materialize_component(
        self,
        source: WeightComponentSource,
        source_components: Sequence[WeightComponentSpec],
        execution_component: WeightComponentSpec,
    ) -> WeightComponentPayload:
        whole = source.component(source_components[0]).to_bytes()
        half = whole[:8] if execution_component.id == LO else whole[8:]
        return WeightComponentPayload.from_ordered_sources(
            execution_component,
            execution_component.external_names,
            ["model.safetensors"],
            execution_component.dimensions,
            execution_component.physical_element_type(),
            half,
        )

    def materialize_components(
        self,
        source: WeightComponentSource,
        source_components: Sequence[WeightComponentSpec],
        execution_components: Sequence[WeightComponentSpec],
    ) -> list[WeightComponentPayload]:
        payloads = [self.materialize_component(source, source_components, c) for c in execution_components]
        if self.fault == "reverse":
            return payloads[::-1]
        if self.fault == "drop_last":
            return payloads[:-1]
        if self.fault == "duplicate_first":
            return [*payloads, payloads[0]]
        return payloads


def _f32_source(fam: PreparedModelFamily) -> tuple[InMemoryWeightSource, dict[str, np.ndarray]]:
    arrays = {c.id.value: np.arange(c.dimensions[0], dtype=np.float32) + 1 for c in fam.weight_schema.components}
    return InMemoryWeightSource.from_arrays(arrays), arrays


# --------------------------------------------------------------------------- forging


def test_witness_cannot_be_constructed_or_decoded() -> None:
    trusted = TrustedExecutionWeightPlan.identity(family())
    with pytest.raises(TypeError):
        TrustedExecutionWeightPlan(trusted.plan(), trusted.descriptor(), IdentityWeightMaterializer())  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        TrustedExecutionWeightPlan(trusted.plan(), trusted.descriptor(), IdentityWeightMaterializer(), object())
    assert not hasattr(TrustedExecutionWeightPlan, "from_wire")
    assert not hasattr(TrustedExecutionWeightPlan, "to_wire")
    decoded = ExecutionWeightPlan.from_wire(trusted.plan().to_wire())
    assert decoded == trusted.plan()
    assert not isinstance(decoded, TrustedExecutionWeightPlan)


def test_a_decoded_non_identity_plan_grants_no_authority() -> None:
    """Only select_exact on a registry retaining the implementation yields a non-identity witness."""
    registry, catalog = registry_and_catalog(PaddedDenseMaterializer())
    selected = registry.select_exact(family(), catalog, PADDED_DENSE_ID)
    decoded = ExecutionWeightPlan.from_wire(selected.plan().to_wire())
    decoded.validate_against_materializer(family(), selected.descriptor())  # structurally fine ...
    assert decoded != TrustedExecutionWeightPlan.identity(family()).plan()  # ... but not the identity plan
    assert selected != TrustedExecutionWeightPlan.identity(family())


def test_equality_is_plan_and_descriptor_not_implementation_object() -> None:
    first = TrustedExecutionWeightPlan.identity(family())
    second = TrustedExecutionWeightPlan.identity(family())
    assert first == second and hash(first) == hash(second)
    a = registry_and_catalog(PaddedDenseMaterializer())
    b = registry_and_catalog(PaddedDenseMaterializer())
    assert a[0].select_exact(family(), a[1], PADDED_DENSE_ID) == b[0].select_exact(family(), b[1], PADDED_DENSE_ID)
    assert first != a[0].select_exact(family(), a[1], PADDED_DENSE_ID)
    assert first.plan() == ExecutionWeightPlan.identity(family())


# --------------------------------------------------------------------------- validate_against_catalog


def test_identity_validates_against_the_default_catalog() -> None:
    TrustedExecutionWeightPlan.identity(family()).validate_against_catalog(family(), base_catalog())


def test_witness_is_bound_to_its_family() -> None:
    trusted = TrustedExecutionWeightPlan.identity(family())
    raises_kind("invalid_execution_plan", lambda: trusted.validate_against_catalog(split(), base_catalog()))


def test_runtime_authority_must_keep_its_descriptor() -> None:
    shifting = ShiftingDescriptorMaterializer()
    registry, catalog = registry_and_catalog(shifting)
    trusted = registry.select_exact(family(), catalog, shifting.descriptor().id)
    trusted.validate_against_catalog(family(), catalog)
    trusted.materialize_components(family(), ZeroWeightSource(), list(trusted.plan().schema().components))
    shifting.shift()
    error = raises_kind("invalid_execution_plan", lambda: trusted.validate_against_catalog(family(), catalog))
    assert "runtime authority" in error.to_dict()["reason"]
    raises_kind(
        "invalid_execution_plan",
        lambda: trusted.materialize_components(family(), ZeroWeightSource(), list(trusted.plan().schema().components)),
    )


# --------------------------------------------------------------------------- materialize_components


def test_identity_lends_source_bytes_without_copy() -> None:
    trusted = TrustedExecutionWeightPlan.identity(family())
    source, arrays = _f32_source(family())
    (payload,) = trusted.materialize_components(family(), source, list(trusted.plan().schema().components))
    assert payload.shares_memory_with(arrays["weight.component"])
    assert payload.to_bytes() == arrays["weight.component"].tobytes()


def test_padded_dense_copies_then_zero_pads() -> None:
    registry, catalog = registry_and_catalog(PaddedDenseMaterializer())
    trusted = registry.select_exact(family(), catalog, PADDED_DENSE_ID)
    source, arrays = _f32_source(family())
    (payload,) = trusted.materialize_components(family(), source, list(trusted.plan().schema().components))
    assert payload.dimensions == (8,)
    assert payload.to_bytes() == arrays["weight.component"].tobytes() + bytes(16)
    assert not payload.shares_memory_with(arrays["weight.component"])


def test_derived_components_materialize_from_declared_sources_only() -> None:
    """Seed: static_initialization_materializes_derived_components_through_trusted_plan_authority."""
    registry, catalog = registry_and_catalog(DerivedComponentMaterializer())
    trusted = registry.select_exact(split(), catalog, DERIVED_ID)
    assert dict(trusted.plan().component_sources()) == {
        WeightId("weight.execution.left"): (WeightId("weight.component.left"),),
        WeightId("weight.execution.right"): (WeightId("weight.component.right"),),
    }
    source = RecordingWeightSource(ZeroWeightSource(), allowed=["weight.component.left", "weight.component.right"])
    uploaded = [
        trusted.materialize_components(split(), source, [c])[0].to_bytes() for c in trusted.plan().schema().components
    ]
    assert source.requested == [WeightId("weight.component.left"), WeightId("weight.component.right")]
    assert uploaded == [b"\xa1" * 8, b"\xb2" * 8]
    # a strict source refuses the derived ids themselves (no bypass of the materializer)
    raises_kind("invalid_execution_plan", lambda: source.component(trusted.plan().schema().components[0]))


def test_derived_components_without_declared_sources_are_rejected() -> None:
    class Undeclared(DerivedComponentMaterializer):
        def component_sources(
            self, family: PreparedModelFamily, execution_schema: WeightSchema
        ) -> Mapping[WeightId, Sequence[WeightId]]:
            return WeightMaterializer.component_sources(self, family, execution_schema)

    registry, catalog = registry_and_catalog(Undeclared())
    error = raises_kind("invalid_execution_plan", lambda: registry.select_exact(split(), catalog, DERIVED_ID))
    assert "declare sources" in error.to_dict()["reason"]


@cache
def _splitting(fault: str | None = None) -> tuple[TrustedExecutionWeightPlan, list[WeightComponentSpec]]:
    registry, catalog = registry_and_catalog(SplittingMaterializer(fault))
    trusted = registry.select_exact(family(), catalog, SplittingMaterializer.ID)
    by_id = {c.id: c for c in trusted.plan().schema().components}
    return trusted, [by_id[LO], by_id[HI]]


def test_group_sharing_one_source_list_materializes_in_order() -> None:
    trusted, group = _splitting()
    source, arrays = _f32_source(family())
    payloads = trusted.materialize_components(family(), source, group)
    assert [p.component_id for p in payloads] == [LO, HI]
    assert b"".join(p.to_bytes() for p in payloads) == arrays["weight.component"].tobytes()
    reversed_request = trusted.materialize_components(family(), source, group[::-1])
    assert [p.component_id for p in reversed_request] == [HI, LO]


@pytest.mark.parametrize("fault", ["reverse", "drop_last", "duplicate_first"])
def test_payload_count_and_order_are_checked(fault: str) -> None:
    trusted, group = _splitting(fault)
    source, _ = _f32_source(family())
    error = raises_kind("invalid_execution_plan", lambda: trusted.materialize_components(family(), source, group))
    assert "payload" in error.to_dict()["reason"]


def test_empty_absent_or_altered_requests_are_rejected() -> None:
    trusted, group = _splitting()
    source, _ = _f32_source(family())
    raises_kind("invalid_execution_plan", lambda: trusted.materialize_components(family(), source, []))
    absent = replace(group[0], id=WeightId("weight.execution.absent"))
    raises_kind("invalid_execution_plan", lambda: trusted.materialize_components(family(), source, [absent]))
    for altered in (
        replace(group[0], dimensions=(1, 2)),
        replace(group[0], external_names=("other.bin",)),
        replace(group[0], required=False),
        replace(group[0], encoding=Dense(ElementType.I32)),
    ):
        raises_kind("invalid_execution_plan", lambda a=altered: trusted.materialize_components(family(), source, [a]))


def test_grouped_components_must_share_one_ordered_source_list() -> None:
    registry, catalog = registry_and_catalog(DerivedComponentMaterializer())
    trusted = registry.select_exact(split(), catalog, DERIVED_ID)
    error = raises_kind(
        "invalid_execution_plan",
        lambda: trusted.materialize_components(split(), ZeroWeightSource(), list(trusted.plan().schema().components)),
    )
    assert "share one ordered source mapping" in error.to_dict()["reason"]


def test_defensive_source_map_checks_via_the_crate_private_issuer() -> None:
    """Unreachable through select_exact (validated plans), reachable only by the crate-private path."""
    trusted = TrustedExecutionWeightPlan.identity(family())
    component = trusted.plan().schema().components[0]
    unmapped = trusted.plan().replace(component_sources={})
    forged = TrustedExecutionWeightPlan._issue(unmapped, trusted.descriptor(), IdentityWeightMaterializer())
    error = raises_kind(
        "invalid_execution_plan", lambda: forged.materialize_components(family(), ZeroWeightSource(), [component])
    )
    assert "no source mapping" in error.to_dict()["reason"]
    unknown = trusted.plan().replace(component_sources={component.id: [WeightId("weight.unknown")]})
    forged = TrustedExecutionWeightPlan._issue(unknown, trusted.descriptor(), IdentityWeightMaterializer())
    error = raises_kind(
        "invalid_execution_plan", lambda: forged.materialize_components(family(), ZeroWeightSource(), [component])
    )
    assert "unknown source component" in error.to_dict()["reason"]


def _bad_payload_materializer(alter: dict[str, object]) -> FaultyMaterializer:
    def group(
        honest: list[WeightComponentPayload], source: WeightComponentSource, sources: Sequence[WeightComponentSpec]
    ) -> list[WeightComponentPayload]:
        spec = replace(sources[0], **alter)  # type: ignore[arg-type]
        length = spec.physical_bytes()
        names = spec.external_names
        return [
            WeightComponentPayload.from_ordered_sources(
                spec,
                names,
                ["model.safetensors"] * len(names),
                spec.dimensions,
                spec.physical_element_type(),
                bytes(length),
            )
        ]

    return FaultyMaterializer(group)


@pytest.mark.parametrize(
    "alter",
    [
        {"id": WeightId("weight.other")},
        {"external_names": ("weight.renamed",)},
        {"external_names": ("weight.bin", "weight.extra")},
        {"dimensions": (2, 2)},
        {"dimensions": (8,)},
        {"encoding": Dense(ElementType.I32)},
        {"encoding": Dense(ElementType.F16), "dimensions": (8,)},
    ],
    ids=["id", "names", "more-names", "dims-same-bytes", "dims-more-bytes", "dtype", "dtype-and-dims"],
)
def test_each_payload_field_is_checked(alter: dict[str, object]) -> None:
    faulty = _bad_payload_materializer(alter)
    registry, catalog = registry_and_catalog(faulty)
    trusted = registry.select_exact(family(), catalog, faulty.descriptor().id)
    components = list(trusted.plan().schema().components)
    error = raises_kind(
        "invalid_execution_plan", lambda: trusted.materialize_components(family(), ZeroWeightSource(), components)
    )
    assert "invalid or reordered payload" in error.to_dict()["reason"]


@cache
def _block_family() -> PreparedModelFamily:
    """The seed's synthetic block-quantized schema (int4 blocks of 4 values in 2 bytes)."""
    schema = WeightSchema(
        WeightFormatId("weight-format.synthetic.quantized"),
        WeightLayoutId("weight-layout.synthetic.quantized"),
        ContractVersion(1, 0),
        (
            WeightComponentSpec(
                WeightId("weight.component"),
                WeightComponentRole.PACKED_VALUES,
                ("weight.bin",),
                (1,),
                BlockQuantized(BlockQuantizationSpec(QuantizationFormatId("quantization.synthetic.int4"), 4, 2)),
                True,
            ),
        ),
        (
            WeightTensorSpec(
                WeightId("weight.matrix"),
                (4,),
                ElementType.F32,
                BlockQuantizedLayout(PhysicalWeightComponentBinding(WeightId("weight.component")), 0),
                True,
            ),
        ),
    )
    return TypedFamilyRegistration(FixedSchemaFamily(schema)).prepare_with_profile({"width": 4}, FIXTURE_PROFILE)


def test_payload_byte_length_is_checked_with_identical_type_and_shape() -> None:
    fam = _block_family()
    assert TrustedExecutionWeightPlan.identity(fam).plan().quantization_formats() == (
        QuantizationFormatId("quantization.synthetic.int4"),
    )
    three_bytes = BlockQuantized(BlockQuantizationSpec(QuantizationFormatId("quantization.synthetic.int4"), 4, 3))
    faulty = _bad_payload_materializer({"encoding": three_bytes})
    registry, catalog = registry_and_catalog(faulty)
    trusted = registry.select_exact(fam, catalog, faulty.descriptor().id)
    components = list(trusted.plan().schema().components)
    raises_kind("invalid_execution_plan", lambda: trusted.materialize_components(fam, ZeroWeightSource(), components))
    honest = TrustedExecutionWeightPlan.identity(fam)
    (payload,) = honest.materialize_components(fam, ZeroWeightSource(), components)
    assert payload.data.nbytes == 2 and payload.element_type is ElementType.U8


def test_identity_materializer_rules() -> None:
    identity = IdentityWeightMaterializer()
    component = family().weight_schema.components[0]
    source = ZeroWeightSource()
    assert identity.materialize_component(source, [component], component).component_id == component.id
    raises_kind("invalid_execution_plan", lambda: identity.materialize_component(source, [], component))
    raises_kind(
        "invalid_execution_plan", lambda: identity.materialize_component(source, [component, component], component)
    )
    raises_kind(
        "invalid_execution_plan",
        lambda: identity.materialize_component(source, [component], replace(component, required=False)),
    )
    # the default group method maps over the group in order
    assert [p.component_id for p in identity.materialize_components(source, [component], [component, component])] == [
        component.id
    ] * 2


@given(st.binary(min_size=16, max_size=16))
def test_identity_round_trips_any_source_bytes(data: bytes) -> None:
    trusted = TrustedExecutionWeightPlan.identity(family())
    source = InMemoryWeightSource({"weight.component": data})
    (payload,) = trusted.materialize_components(family(), source, list(trusted.plan().schema().components))
    assert payload.to_bytes() == data
