"""Catalog strategies (spec 03): tensor contracts, operations, devices, providers, engines,
materializers, whole catalogs and their constructor-shaped documents.

Everything ``catalogs()`` draws is valid by construction (``CapabilityCatalog``
accepts it); ``strategies.catalog_rejections`` mutates a valid document with one
named operator and records the kind the reference must raise. Provider storage
bindings only use profiles the device offers, so later layers can plan with them.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from hypothesis import strategies as st

from reference.canonical import JsonValue
from reference.catalog.attributes import AttributeConstraint, AttributeSchema, AttributeSpec
from reference.catalog.catalog import CapabilityCatalog
from reference.catalog.device import DeviceClass, DeviceDescriptor
from reference.catalog.element_type import ElementType
from reference.catalog.engine import EngineProviderDescriptor
from reference.catalog.execution_semantics import ProviderExecutionSemantics
from reference.catalog.operation import OperationDescriptor, ProfilePhase, ProviderRequirement
from reference.catalog.oracle import OracleSpec
from reference.catalog.provider import OperationProviderDescriptor
from reference.catalog.resources import ResourcePresenceRequirement, ResourceRequirements
from reference.catalog.storage import DynamicStorageRequirement, ProviderStorageBindingRequirement, ResolvedValueRole
from reference.catalog.tensor_contract import (
    AliasPolicy,
    BlockedLayout,
    ContiguousLayout,
    DimensionConstraint,
    ExactBytesStride,
    ExactDimension,
    LayoutConstraint,
    MayAlias,
    MustAlias,
    NoAlias,
    RangeDimension,
    StridedLayout,
    SymbolDimension,
    SymbolStride,
    TensorAccess,
    TensorContract,
)
from reference.catalog.weight_materializer import WeightMaterializationFidelity, WeightMaterializerDescriptor
from reference.documents.catalog import catalog_to_document
from reference.ids import (
    AttributeId,
    CapabilityId,
    DeviceId,
    OperationId,
    ProviderId,
    QuantizationFormatId,
    WeightFormatId,
    WeightMaterializerId,
)
from reference.model.semantic_value import CanonicalRational
from reference.versions import ContractVersion
from strategies._reuse import reusable
from strategies.ids import hex_digests
from strategies.storage import storage_profiles

__all__ = [
    "CAPABILITY_POOL",
    "CatalogDraft",
    "attribute_schemas",
    "catalogs",
    "devices",
    "engine_providers",
    "operation_descriptors",
    "permuted_catalog_documents",
    "provider_descriptors",
    "tensor_contracts",
    "weight_materializer_maps",
]

CAPABILITY_POOL: Final = ("capability.compute", "capability.a", "capability.b")
_V1: Final = ContractVersion(1, 0)


@dataclass(frozen=True, slots=True)
class CatalogDraft:
    """A catalog document and the ``CapabilityCatalog`` the reference builds from it."""

    document: dict[str, JsonValue]
    catalog: CapabilityCatalog


# --------------------------------------------------------------------------- tensor contracts


def dimension_constraints() -> st.SearchStrategy[DimensionConstraint]:
    return st.one_of(
        st.integers(1, 8).map(ExactDimension),
        st.sampled_from(("tokens", "n", "batch")).map(SymbolDimension),
        st.tuples(st.integers(1, 4), st.integers(0, 4)).map(lambda p: RangeDimension(p[0], p[0] + p[1])),
    )


def _layouts(rank: int) -> st.SearchStrategy[LayoutConstraint]:
    strides = st.one_of(st.integers(1, 64).map(ExactBytesStride), st.sampled_from(("row", "col")).map(SymbolStride))
    options: list[st.SearchStrategy[LayoutConstraint]] = [st.just(ContiguousLayout())]
    options.append(st.lists(strides, min_size=rank, max_size=rank).map(lambda s: StridedLayout(tuple(s))))
    if rank:
        options.append(
            st.tuples(
                st.lists(st.integers(1, 8), min_size=rank, max_size=rank), st.permutations(list(range(rank)))
            ).map(lambda p: BlockedLayout(tuple(p[0]), tuple(p[1])))
        )
    return st.one_of(options)


_RANKS: Final = st.integers(0, 3)
_DIM_LISTS: Final = {r: st.lists(dimension_constraints(), min_size=r, max_size=r) for r in range(4)}
_LAYOUT_LISTS: Final = {r: st.lists(_layouts(r), min_size=1, max_size=3) for r in range(4)}
_TYPE_LISTS: Final = st.lists(st.sampled_from(tuple(ElementType)), min_size=1, max_size=3)
_ACCESSES: Final = st.sampled_from(tuple(TensorAccess))
_READS: Final = st.sampled_from((TensorAccess.READ, TensorAccess.READ_WRITE))
_WRITES: Final = st.sampled_from((TensorAccess.WRITE, TensorAccess.READ_WRITE))


def _draw_contract(
    draw: st.DrawFn,
    access: TensorAccess | None = None,
    alias: AliasPolicy | None = None,
    element_types: Sequence[ElementType] | None = None,
    rank: int | None = None,
) -> TensorContract:
    size = draw(_RANKS) if rank is None else rank
    dims = draw(_DIM_LISTS[size]) if size in _DIM_LISTS else draw(
        st.lists(dimension_constraints(), min_size=size, max_size=size))  # fmt: skip
    types = frozenset(element_types) if element_types is not None else frozenset(draw(_TYPE_LISTS))
    layouts = draw(_LAYOUT_LISTS[size]) if size in _LAYOUT_LISTS else draw(
        st.lists(_layouts(size), min_size=1, max_size=3))  # fmt: skip
    chosen_access = access if access is not None else draw(_ACCESSES)
    return TensorContract(tuple(dims), types, tuple(layouts), chosen_access, alias or NoAlias())


@reusable
@st.composite
def tensor_contracts(
    draw: st.DrawFn,
    *,
    access: TensorAccess | None = None,
    alias: AliasPolicy | None = None,
    element_types: Sequence[ElementType] | None = None,
    rank: int | None = None,
) -> TensorContract:
    """A valid tensor contract (§3.2); ``access``/``alias``/types/rank may be pinned."""
    return _draw_contract(draw, access, alias, element_types, rank)


# --------------------------------------------------------------------------- attributes


def _rational() -> st.SearchStrategy[CanonicalRational]:
    return st.tuples(st.integers(-8, 8), st.integers(1, 8)).map(lambda p: CanonicalRational(p[0], p[1]))


@reusable
@st.composite
def _constraint(draw: st.DrawFn, kind: str) -> AttributeConstraint:
    if draw(st.booleans()):
        return AttributeConstraint.none()
    low = draw(st.integers(0, 4))
    high = low + draw(st.integers(0, 4))
    if kind == "bool":
        return AttributeConstraint.bool_equals(draw(st.booleans()))
    if kind == "integer":
        return AttributeConstraint.integer_range(low - 2, high)
    if kind == "unsigned":
        return AttributeConstraint.unsigned_range(low, high)
    if kind == "integers":
        return AttributeConstraint.integer_list_length(max(low, 1), max(high, 1))
    if kind == "text":
        return AttributeConstraint.text_choices(
            frozenset(draw(st.lists(st.sampled_from(("a", "b", "mean")), min_size=1, max_size=3)))
        )
    first, second = draw(_rational()), draw(_rational())
    ordered = sorted([first, second], key=lambda r: r.numerator / r.denominator)
    return AttributeConstraint.rational_range(ordered[0], ordered[1])


@reusable
@st.composite
def attribute_schemas(draw: st.DrawFn, max_entries: int = 2) -> AttributeSchema:
    """A valid attribute vocabulary (only §4 table pairs, non-inverted bounds)."""
    names = draw(st.lists(st.sampled_from(("attr.axis", "attr.mode", "attr.eps", "attr.k")), max_size=max_entries,
                          unique=True))  # fmt: skip
    entries = {}
    for name in names:
        kind = draw(st.sampled_from(("bool", "integer", "unsigned", "rational", "text", "integers")))
        entries[AttributeId(name)] = AttributeSpec(kind, draw(st.booleans()), draw(_constraint(kind)))
    return AttributeSchema(entries)


# --------------------------------------------------------------------------- operations


_ALIGNMENTS: Final = st.sampled_from((1, 4, 16, 64))
_PRESENCE: Final = st.sampled_from(tuple(ResourcePresenceRequirement))
_PHASES: Final = st.sampled_from(tuple(ProfilePhase))
_SEMANTICS: Final = st.sampled_from(
    [ProviderExecutionSemantics.bitwise_eager_and_replay(), ProviderExecutionSemantics.bitwise_eager_only()]
)
_INPUT_COUNTS: Final = st.integers(0, 3)
_OUTPUT_COUNTS: Final = st.integers(1, 2)
_ALIAS_KINDS: Final = st.sampled_from(("no_alias", "may_alias", "must_alias"))


_ANY_VERSION: Final = st.builds(ContractVersion, st.integers(1, 2), st.integers(0, 2))


def _versions(major: int | None = None) -> st.SearchStrategy[ContractVersion]:
    if major is None:
        return _ANY_VERSION
    return st.builds(ContractVersion, st.just(major), st.integers(0, 2))


@reusable
@st.composite
def operation_descriptors(
    draw: st.DrawFn,
    operation_id: str = "operation.main",
    *,
    capabilities: Sequence[str] = ("capability.compute",),
    inputs: Sequence[TensorContract] | None = None,
    outputs: Sequence[TensorContract] | None = None,
) -> OperationDescriptor:
    """A descriptor that passes ``validate`` (§5.3); operands may be pinned (then they must be valid operands)."""
    if inputs is None:
        inputs = draw(
            st.lists(
                st.sampled_from((TensorAccess.READ, TensorAccess.READ_WRITE)).flatmap(
                    lambda a: tensor_contracts(access=a)
                ),
                max_size=3,
            )
        )
    if outputs is None:
        alias_options: list[st.SearchStrategy[AliasPolicy]] = [st.just(NoAlias())]
        if inputs:
            index = st.integers(0, len(inputs) - 1)
            alias_options += [index.map(MayAlias), index.map(MustAlias)]
        outputs = draw(
            st.lists(
                st.tuples(
                    st.sampled_from((TensorAccess.WRITE, TensorAccess.READ_WRITE)), st.one_of(alias_options)
                ).flatmap(lambda p: tensor_contracts(access=p[0], alias=p[1])),
                min_size=1,
                max_size=2,
            )
        )
    version = draw(_versions())
    has_bool = any(ElementType.BOOL in c.element_types for c in outputs)
    oracle_kinds = ["operation_defined", "exact"] + ([] if has_bool else ["absolute_tolerance", "relative_tolerance"])
    oracle_kind = draw(st.sampled_from(oracle_kinds))
    if oracle_kind in ("absolute_tolerance", "relative_tolerance"):
        tolerance = CanonicalRational(draw(st.integers(0, 8)), draw(st.integers(1, 1000)))
        oracle = OracleSpec(oracle_kind, tolerance=tolerance)
    else:
        oracle = OracleSpec(oracle_kind)
    required = frozenset(draw(st.lists(st.sampled_from(tuple(capabilities)), max_size=len(capabilities), unique=True)))
    return OperationDescriptor(
        id=OperationId(operation_id),
        version=version,
        inputs=tuple(inputs),
        outputs=tuple(outputs),
        attributes=draw(attribute_schemas()),
        resources=ResourceRequirements(draw(_ALIGNMENTS), draw(_PRESENCE), draw(_PRESENCE), draw(_PRESENCE)),
        oracle=oracle,
        provider=ProviderRequirement(
            ContractVersion(version.major, draw(st.integers(0, 2))), frozenset(CapabilityId(c) for c in required)
        ),
        profile_phase=draw(_PHASES),
    )


def _reference_twin(operation: OperationDescriptor, target: OperationDescriptor, minor: int) -> OperationDescriptor:
    """``operation`` re-signed as ``target``'s twin whose oracle is ``target`` (pass 1 of §11.3)."""
    return dataclasses.replace(
        operation,
        inputs=target.inputs,
        outputs=target.outputs,
        attributes=target.attributes,
        oracle=OracleSpec.reference_operation(target.id, ContractVersion(target.version.major, minor)),
    )


# --------------------------------------------------------------------------- device, providers, engines


@reusable
@st.composite
def devices(
    draw: st.DrawFn, device_id: str = "device.reference.0", *, total_memory_bytes: int | None = None
) -> DeviceDescriptor:
    """A valid device: memory > 0, 1..3 storage profiles, canonical runtime fingerprint."""
    memory = (
        total_memory_bytes
        if total_memory_bytes is not None
        else draw(st.one_of(st.sampled_from([1 << 20, 2**64 - 1]), st.integers(1, 2**64 - 1)))
    )
    capabilities = ["capability.compute", *draw(st.lists(st.sampled_from(CAPABILITY_POOL[1:]), unique=True))]
    return DeviceDescriptor(
        DeviceId(device_id),
        draw(st.sampled_from(tuple(DeviceClass))),
        draw(st.integers(0, 3)),
        memory,
        draw(hex_digests()),
        frozenset(CapabilityId(c) for c in capabilities),
        frozenset(draw(st.lists(storage_profiles(), min_size=1, max_size=3))),
    )


def _subset(draw: st.DrawFn, values: Sequence[Any]) -> list[Any]:
    return draw(st.lists(st.sampled_from(tuple(values)), max_size=len(values), unique=True)) if values else []


@reusable
@st.composite
def provider_descriptors(
    draw: st.DrawFn, operation: OperationDescriptor, device: DeviceDescriptor, provider_id: str
) -> OperationProviderDescriptor:
    """A provider the catalog accepts for ``operation`` on ``device`` (bindings use device profiles)."""
    offered = sorted(device.dynamic_storage_profiles)
    required = sorted(operation.provider.required_capabilities)
    optional = [c for c in sorted(device.capabilities) if c not in required]
    minor = max(operation.version.minor, operation.provider.minimum_version.minor) + draw(st.integers(0, 1))
    requirement = st.lists(st.sampled_from(offered), min_size=1, max_size=len(offered)).map(DynamicStorageRequirement)
    slots = [(ResolvedValueRole.INPUT, i) for i in range(len(operation.inputs))] + [
        (ResolvedValueRole.OUTPUT, j) for j in range(len(operation.outputs))
    ]
    bindings = [ProviderStorageBindingRequirement(role, ordinal, draw(requirement)) for role, ordinal in slots]
    return OperationProviderDescriptor(
        ProviderId(provider_id),
        operation.id,
        operation.fingerprint(),
        draw(hex_digests()),
        draw(_SEMANTICS),
        ContractVersion(operation.version.major, minor),
        device.id,
        frozenset([*required, *_subset(draw, optional)]),
        frozenset(
            WeightFormatId(f) for f in ["weight-format.dense", *_subset(draw, ["weight-format.execution-graph"])]
        ),
        frozenset(QuantizationFormatId(q) for q in _subset(draw, ["quant.q4", "quant.q8"])),
        tuple(bindings),
        f"resource-estimator.{provider_id}",
        draw(_versions()),
        draw(hex_digests()),
    )


@reusable
@st.composite
def engine_providers(draw: st.DrawFn, device: DeviceDescriptor, provider_id: str) -> EngineProviderDescriptor:
    return EngineProviderDescriptor(
        ProviderId(provider_id),
        draw(_versions()),
        draw(hex_digests()),
        device.id,
        frozenset(_subset(draw, sorted(device.capabilities))),
    )


@reusable
@st.composite
def weight_materializer_maps(
    draw: st.DrawFn, device: DeviceDescriptor
) -> dict[WeightMaterializerId, WeightMaterializerDescriptor]:
    """The canonical identity entry plus 0..2 structurally valid descriptors within the device capabilities."""
    identity = WeightMaterializerDescriptor.identity()
    out = {identity.id: identity}
    for name in draw(st.lists(st.sampled_from(("weight-materializer.a", "weight-materializer.b")), unique=True)):
        descriptor = WeightMaterializerDescriptor.new(
            WeightMaterializerId(name),
            draw(_versions()),
            draw(hex_digests()),
            draw(st.sampled_from(tuple(WeightMaterializationFidelity))),
            frozenset(_subset(draw, sorted(device.capabilities))),
        )
        out[descriptor.id] = descriptor
    return out


# --------------------------------------------------------------------------- catalogs


@reusable
@st.composite
def catalogs(
    draw: st.DrawFn,
    *,
    max_operations: int = 3,
    max_providers: int = 2,
    operations: Sequence[OperationDescriptor] | None = None,
    device: DeviceDescriptor | None = None,
) -> CatalogDraft:
    """A valid catalog and its document; operations (and the device) may be supplied by the caller."""
    chosen_device = device if device is not None else draw(devices())
    capability_names = [c.value for c in sorted(chosen_device.capabilities)]
    if operations is None:
        count = draw(st.integers(1, max_operations))
        drawn = [draw(operation_descriptors(f"operation.op{i}", capabilities=capability_names)) for i in range(count)]
        if count > 1 and draw(st.booleans()):
            first = drawn[0]
            drawn[1] = _reference_twin(drawn[1], first, draw(st.integers(0, first.version.minor)))
        operations = drawn
    providers = {}
    for index, operation in enumerate(operations):
        count = draw(st.integers(1, max_providers))
        providers[operation.id] = [
            draw(provider_descriptors(operation, chosen_device, f"provider.op{index}.p{k}")) for k in range(count)
        ]
    engines = [draw(engine_providers(chosen_device, f"provider.engine.e{k}")) for k in range(draw(st.integers(1, 2)))]
    catalog = CapabilityCatalog(chosen_device, list(operations), providers, engines)
    materializers = draw(weight_materializer_maps(chosen_device))
    if len(materializers) > 1:
        catalog = catalog.with_weight_materializer_descriptors(materializers)
    document = catalog_to_document(catalog)
    return CatalogDraft(document, catalog)


@reusable
@st.composite
def permuted_catalog_documents(draw: st.DrawFn, document: dict[str, JsonValue]) -> dict[str, JsonValue]:
    """The same catalog spelled differently: list/set/map orders shuffled where the contract ignores order.

    Kept: binding order and accepted-profile order (the decoders require canonical order there).
    """
    out = copy.deepcopy(document)

    def shuffle(items: list[Any]) -> list[Any]:
        return list(draw(st.permutations(items)))

    def shuffle_map(mapping: dict[str, Any]) -> dict[str, Any]:
        return {key: mapping[key] for key in shuffle(list(mapping))}

    device = out["device"]
    device["capabilities"] = shuffle(device["capabilities"])
    device["dynamic_storage_profiles"] = shuffle(device["dynamic_storage_profiles"])
    for operation in out["operations"]:
        operation["provider"]["required_capabilities"] = shuffle(operation["provider"]["required_capabilities"])
        for contract in operation["inputs"] + operation["outputs"]:
            contract["element_types"] = shuffle(contract["element_types"])
            contract["layouts"] = shuffle(contract["layouts"])
        operation["attributes"]["entries"] = shuffle_map(operation["attributes"]["entries"])
    out["operations"] = shuffle(out["operations"])
    for key, rows in out["providers"].items():
        for row in rows:
            for name in ("capabilities", "accepted_weight_formats", "accepted_quantization_formats"):
                row[name] = shuffle(row[name])
        out["providers"][key] = shuffle(rows)
    out["providers"] = shuffle_map(out["providers"])
    for engine in out["engine_providers"]:
        engine["capabilities"] = shuffle(engine["capabilities"])
    out["engine_providers"] = shuffle(out["engine_providers"])
    if "weight_materializers" in out:
        for descriptor in out["weight_materializers"].values():
            descriptor["required_capabilities"] = shuffle(descriptor["required_capabilities"])
        out["weight_materializers"] = shuffle_map(out["weight_materializers"])
    return out
