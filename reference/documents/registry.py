"""Planning registry documents: an ``OperationRuntimeRegistry`` described as data (for generators and
out-of-process backends).

``{"contracts": [{"operation_id", "reject_signature"}], "estimators": [{"provider_id", "behavior",
"scratch_bytes", "persistent_bytes", "scratch_bytes_by_node"?, "estimate"?}]}``. A declared contract
is the seed's ``TestOperationContract``; a declared estimator answers with the estimate of its
behaviour (the seed's nine, ``reference.documents.estimators``), or per node when
``scratch_bytes_by_node`` is given (``SequentialScratchEstimator``), or with its declared
``estimate`` (``reference.documents.workspace_estimate``: any formula, scope, reuse policy,
alignment and storage of each workspace) when that is given. An estimator with an ``estimate``
declares an identity-only behaviour, zero ``scratch_bytes`` and ``persistent_bytes`` and no
``scratch_bytes_by_node`` (decision H-21). The two optional members are omitted when absent.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Final

from reference.catalog.catalog import CapabilityCatalog
from reference.catalog.operation import OperationDescriptor
from reference.catalog.provider import OperationProviderDescriptor
from reference.catalog.registry import OperationResourceEstimator, OperationRuntimeRegistry
from reference.catalog.tensor_contract import TensorContract
from reference.documents.estimators import (
    IDENTITY_BEHAVIORS,
    EstimateBehavior,
    behavior_estimate,
    document_estimate,
    sequential_estimate,
)
from reference.documents.workspace_estimate import EstimateDocument
from reference.errors import Serialization, invalid_plan
from reference.ids import NodeId, OperationId, ProviderId
from reference.resolution.estimate import OperationResourceEstimate, OperationResourceEstimateRequest
from reference.wire import WireObject, decode_with, read_uint

__all__ = [
    "ESTIMATE_BEHAVIORS",
    "ContractSpec",
    "DeclaredEstimator",
    "DeclaredOperationContract",
    "EstimatorSpec",
    "RegistryDocument",
    "declared_estimate",
]

#: The seed's ``EstimateBehavior`` variants, snake_case, in declaration order.
ESTIMATE_BEHAVIORS: Final = tuple(behavior.value for behavior in EstimateBehavior)


@dataclass(eq=False)
class DeclaredOperationContract:
    """The seed's ``TestOperationContract``: counts calls, refuses when told to or when slices differ."""

    operation: OperationDescriptor
    reject_signature: bool = False
    calls: int = field(default=0)

    def descriptor(self) -> OperationDescriptor:
        return self.operation

    def validate_signature(self, inputs: Sequence[TensorContract], outputs: Sequence[TensorContract]) -> None:
        self.calls += 1
        if self.reject_signature or tuple(inputs) != self.operation.inputs or tuple(outputs) != self.operation.outputs:
            raise invalid_plan(  # rule: 04.9/step07_validate_signature, 03.12.1/signature_validated
                "typed operation signature rejected"
            )


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
    estimate: EstimateDocument | None = None

    def __post_init__(self) -> None:
        if self.behavior not in ESTIMATE_BEHAVIORS:
            raise ValueError(f"unknown estimate behavior {self.behavior!r}")
        if self.estimate is not None:
            if EstimateBehavior(self.behavior) not in IDENTITY_BEHAVIORS:
                raise ValueError(f"behavior {self.behavior!r} shapes the estimate; it cannot declare one")
            if self.scratch_bytes or self.persistent_bytes or self.scratch_bytes_by_node:
                raise ValueError("an estimator with a declared estimate has no scratch or persistent bytes")

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
        if self.estimate is not None:
            out["estimate"] = self.estimate.to_wire()
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
        """The declared behaviour answered by ``declared_estimate``."""
        return cls(provider, spec, declared_estimate)

    def descriptor(self) -> OperationProviderDescriptor:
        return self.provider

    def estimate_resources(self, request: Any) -> Any:
        self.calls += 1
        if self.estimate is None:
            return declared_estimate(self, request)
        return self.estimate(self, request)


def declared_estimate(
    estimator: DeclaredEstimator, request: OperationResourceEstimateRequest
) -> OperationResourceEstimate:
    """The ``DeclaredEstimator`` hook: per-node scratch when declared, else the declared behaviour."""
    spec = estimator.spec
    if spec.estimate is not None:
        return document_estimate(estimator.provider, request, spec.estimate, EstimateBehavior(spec.behavior))
    if spec.scratch_bytes_by_node:
        return sequential_estimate(estimator.provider, request, dict(spec.scratch_bytes_by_node), spec.persistent_bytes)
    return behavior_estimate(
        estimator.provider, request, spec.scratch_bytes, spec.persistent_bytes, EstimateBehavior(spec.behavior)
    )


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
                raise Serialization(  # rule: 01.5/document_format_refused
                    "build registry document", f"provider `{spec.provider_id}` is not in the catalog"
                )
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
            e = WireObject(item, fields, optional=("estimate",), type_name="EstimatorSpec", context=context, path=at)
            by_node = e.raw("scratch_bytes_by_node")
            if not isinstance(by_node, dict):
                raise Serialization(  # rule: 01.5/struct_wrong_json_type
                    context, f"{e.at('scratch_bytes_by_node')}: expected a JSON object"
                )
            estimate = None
            if "estimate" in e:
                estimate = EstimateDocument.from_wire(e.raw("estimate"), context, e.at("estimate"))
            args = (
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
                estimate,
            )
            estimators.append(decode_with(partial(EstimatorSpec, *args), context=context, path=at))
        return cls(tuple(contracts), tuple(estimators))
