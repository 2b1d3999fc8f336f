"""Declarative JSON documents for catalogs and planning registries (for generators and out-of-process backends).

* Catalog document = the arguments of ``CapabilityCatalog::new`` as JSON:
  ``{"device", "operations": [..], "providers": {op: [..]}, "engine_providers": [..],
  "weight_materializers"?: {id: descriptor}}``. Shape errors are ``Serialization``;
  contract violations keep their own kinds (duplicate ids in the lists are
  reachable here, unlike the map-shaped wire).
* Registry document = ``{"contracts": [{"operation_id", "reject_signature"}],
  "estimators": [{"provider_id", "behavior", "scratch_bytes", "persistent_bytes",
  "scratch_bytes_by_node"?}]}``; the estimate behaviours are the seed's nine.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final

from reference.catalog.catalog import CapabilityCatalog
from reference.catalog.device import DeviceDescriptor
from reference.catalog.engine import EngineProviderDescriptor
from reference.catalog.operation import OperationDescriptor
from reference.catalog.provider import OperationProviderDescriptor
from reference.catalog.registry import DeclaredOperationContract, OperationResourceEstimator, OperationRuntimeRegistry
from reference.catalog.weight_materializer import WeightMaterializerDescriptor
from reference.errors import Serialization
from reference.ids import NodeId, OperationId, ProviderId, WeightMaterializerId
from reference.wire import WireObject, read_list, read_uint

__all__ = [
    "ESTIMATE_BEHAVIORS",
    "ContractSpec",
    "DeclaredEstimator",
    "EstimatorSpec",
    "RegistryDocument",
    "catalog_from_document",
    "catalog_to_document",
]

#: The seed's ``EstimateBehavior`` variants, snake_case, in declaration order.
ESTIMATE_BEHAVIORS: Final = (
    "correct",
    "arena_alignment64",
    "token_scaled_scratch",
    "wrong_estimator_id",
    "wrong_estimator_version",
    "wrong_implementation",
    "wrong_input",
    "invalid_alignment",
    "missing_scratch",
)

_CONTEXT: Final = "decode catalog document"


def catalog_to_document(catalog: CapabilityCatalog) -> dict[str, Any]:
    """The constructor-shaped document of ``catalog`` (always carries its materializer map)."""
    return {
        "device": catalog.device.to_wire(),
        "operations": [op.to_wire() for op in catalog.operations.values()],
        "providers": {k.value: [p.to_wire() for p in v] for k, v in catalog.providers.items()},
        "engine_providers": [e.to_wire() for e in catalog.engine_providers.values()],
        "weight_materializers": {k.value: v.to_wire() for k, v in catalog.weight_materializers.items()},
    }


def catalog_from_document(doc: Any, *, context: str = _CONTEXT) -> CapabilityCatalog:
    """Decode, run ``CapabilityCatalog(...)`` (``new``), then replace materializers when given."""
    fields = ("device", "operations", "providers", "engine_providers", "weight_materializers")
    if isinstance(doc, dict) and "weight_materializers" not in doc:
        doc = {**doc, "weight_materializers": None}
    obj = WireObject(doc, fields, type_name="CatalogDocument", context=context)
    device = DeviceDescriptor.from_wire(obj.raw("device"), context=context, path=obj.at("device"))
    operations = [
        OperationDescriptor.from_wire(op, context=context, path=f"{obj.at('operations')}[{i}]")
        for i, op in enumerate(obj.array("operations"))
    ]
    raw_providers = obj.raw("providers")
    if not isinstance(raw_providers, dict):
        raise Serialization(context, f"{obj.at('providers')}: expected a JSON object")
    providers: dict[OperationId, list[OperationProviderDescriptor]] = {}
    for key, items in raw_providers.items():
        at = f"{obj.at('providers')}.{key}"
        providers[OperationId.from_wire(key, context=context)] = [
            OperationProviderDescriptor.from_wire(item, context=context, path=f"{at}[{i}]")
            for i, item in enumerate(read_list(items, context=context, path=at))
        ]
    engines = [
        EngineProviderDescriptor.from_wire(e, context=context, path=f"{obj.at('engine_providers')}[{i}]")
        for i, e in enumerate(obj.array("engine_providers"))
    ]
    catalog = CapabilityCatalog(device, operations, providers, engines)
    raw_materializers = obj.raw("weight_materializers")
    if raw_materializers is None:
        return catalog
    if not isinstance(raw_materializers, dict):
        raise Serialization(context, f"{obj.at('weight_materializers')}: expected a JSON object")
    materializers = {
        WeightMaterializerId.from_wire(k, context=context): WeightMaterializerDescriptor.from_wire(
            v, context=context, path=f"{obj.at('weight_materializers')}.{k}"
        )
        for k, v in raw_materializers.items()
    }
    return catalog.with_weight_materializer_descriptors(materializers)


@dataclass(frozen=True, slots=True)
class ContractSpec:
    """One declared operation contract: which catalog operation, and whether it refuses its signature."""

    operation_id: OperationId
    reject_signature: bool = False

    def to_wire(self) -> dict[str, Any]:
        return {"operation_id": self.operation_id.value, "reject_signature": self.reject_signature}


@dataclass(frozen=True, slots=True)
class EstimatorSpec:
    """One declared estimator (seed ``TestEstimator``; per-node scratch = ``SequentialScratchEstimator``)."""

    provider_id: ProviderId
    behavior: str = "correct"
    scratch_bytes: int = 0
    persistent_bytes: int = 0
    scratch_bytes_by_node: tuple[tuple[NodeId, int], ...] = ()

    def __post_init__(self) -> None:
        if self.behavior not in ESTIMATE_BEHAVIORS:
            raise ValueError(f"unknown estimate behavior {self.behavior!r}")

    @property
    def scratch_formula(self) -> str:
        """``tokens`` (bytes per scheduled token) for ``token_scaled_scratch``, else ``fixed``."""
        return "tokens" if self.behavior == "token_scaled_scratch" else "fixed"

    def to_wire(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "provider_id": self.provider_id.value,
            "behavior": self.behavior,
            "scratch_bytes": self.scratch_bytes,
            "persistent_bytes": self.persistent_bytes,
        }
        if self.scratch_bytes_by_node:
            out["scratch_bytes_by_node"] = {k.value: v for k, v in sorted(self.scratch_bytes_by_node)}
        return out


@dataclass(eq=False)
class DeclaredEstimator:
    """A declared estimator answering with the spec 04 reference estimate of its declared behaviour,
    or with ``estimate`` when one is given (tests inject their own)."""

    provider: OperationProviderDescriptor
    spec: EstimatorSpec
    estimate: Callable[[DeclaredEstimator, Any], Any] | None = None
    calls: int = field(default=0)

    @classmethod
    def reference(cls, provider: OperationProviderDescriptor, spec: EstimatorSpec) -> DeclaredEstimator:
        """The declared behaviour answered by ``reference.resolution.estimators.declared_estimate``."""
        from reference.resolution.estimators import declared_estimate  # the resolution layer imports the catalog

        return cls(provider, spec, declared_estimate)

    def descriptor(self) -> OperationProviderDescriptor:
        return self.provider

    def estimate_resources(self, request: Any) -> Any:
        self.calls += 1
        if self.estimate is None:
            from reference.resolution.estimators import declared_estimate  # the resolution layer imports the catalog

            return declared_estimate(self, request)
        return self.estimate(self, request)


EstimatorFactory = Callable[[EstimatorSpec, OperationProviderDescriptor], OperationResourceEstimator]


@dataclass(frozen=True, slots=True)
class RegistryDocument:
    """A planning registry described as data; ``build`` resolves it against a catalog."""

    contracts: tuple[ContractSpec, ...]
    estimators: tuple[EstimatorSpec, ...]

    def build(
        self, catalog: CapabilityCatalog, estimator_factory: EstimatorFactory | None = None
    ) -> tuple[OperationRuntimeRegistry, list[DeclaredOperationContract]]:
        """Contracts take the catalog's descriptors; estimators the catalog provider rows (first match by id),
        answering with the reference estimate of their declared behaviour unless ``estimator_factory`` is given."""
        contracts = [
            DeclaredOperationContract(catalog.operation(spec.operation_id), spec.reject_signature)
            for spec in self.contracts
        ]
        rows = {p.provider_id: p for entries in catalog.providers.values() for p in entries}
        estimators: list[OperationResourceEstimator] = []
        for spec in self.estimators:
            row = rows.get(spec.provider_id)
            if row is None:
                raise Serialization("build registry document", f"provider `{spec.provider_id}` is not in the catalog")
            estimators.append(
                estimator_factory(spec, row) if estimator_factory else DeclaredEstimator.reference(row, spec)
            )
        return OperationRuntimeRegistry(contracts, estimators), contracts

    def to_wire(self) -> dict[str, Any]:
        return {
            "contracts": [c.to_wire() for c in self.contracts],
            "estimators": [e.to_wire() for e in self.estimators],
        }

    @classmethod
    def from_wire(cls, raw: Any, *, context: str = "decode registry document", path: str = "$") -> RegistryDocument:
        obj = WireObject(raw, ("contracts", "estimators"), type_name="RegistryDocument", context=context, path=path)
        contracts = []
        for i, item in enumerate(obj.array("contracts")):
            c = WireObject(
                item,
                ("operation_id", "reject_signature"),
                type_name="ContractSpec",
                context=context,
                path=f"{obj.at('contracts')}[{i}]",
            )
            contracts.append(ContractSpec(c.identity("operation_id", OperationId), c.boolean("reject_signature")))
        estimators = []
        for i, item in enumerate(obj.array("estimators")):
            at = f"{obj.at('estimators')}[{i}]"
            fields = ("provider_id", "behavior", "scratch_bytes", "persistent_bytes", "scratch_bytes_by_node")
            if isinstance(item, dict) and "scratch_bytes_by_node" not in item:
                item = {**item, "scratch_bytes_by_node": {}}
            e = WireObject(item, fields, type_name="EstimatorSpec", context=context, path=at)
            by_node = e.raw("scratch_bytes_by_node")
            if not isinstance(by_node, dict):
                raise Serialization(context, f"{e.at('scratch_bytes_by_node')}: expected a JSON object")
            estimators.append(
                EstimatorSpec(
                    e.identity("provider_id", ProviderId),
                    e.enum("behavior", ESTIMATE_BEHAVIORS),
                    e.u64("scratch_bytes"),
                    e.u64("persistent_bytes"),
                    tuple(
                        sorted(
                            (
                                NodeId.from_wire(k, context=context),
                                read_uint(v, bits=64, context=context, path=f"{at}.{k}"),
                            )
                            for k, v in by_node.items()
                        )
                    ),
                )
            )
        return cls(tuple(contracts), tuple(estimators))
