"""The seed's test estimators (spec 04 §10): ``TestEstimator`` and ``SequentialScratchEstimator``.

Both count their calls in a shared ``CallCounter`` (the seed's ``Arc<AtomicUsize>``) and
answer with the estimates of ``reference.documents.estimators``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Final

from reference.catalog.provider import OperationProviderDescriptor
from reference.documents.estimators import EstimateBehavior, behavior_estimate, sequential_estimate
from reference.ids import NodeId
from reference.resolution.estimate import OperationResourceEstimate, OperationResourceEstimateRequest

__all__ = ["SEQUENTIAL_SCRATCH_BYTES", "CallCounter", "ReferenceEstimator", "SequentialScratchEstimator"]


@dataclass
class CallCounter:
    """A shared mutable call count (the seed's ``Arc<AtomicUsize>``)."""

    count: int = 0

    def bump(self) -> None:
        self.count += 1


@dataclass(eq=False)
class ReferenceEstimator:
    """The seed ``TestEstimator``: one provider descriptor, a shared call counter, sizes and a behaviour."""

    provider: OperationProviderDescriptor
    calls: CallCounter
    scratch_bytes: int
    persistent_bytes: int
    behavior: EstimateBehavior = EstimateBehavior.CORRECT

    def descriptor(self) -> OperationProviderDescriptor:
        return self.provider

    def estimate_resources(self, request: OperationResourceEstimateRequest) -> OperationResourceEstimate:
        self.calls.bump()
        return behavior_estimate(self.provider, request, self.scratch_bytes, self.persistent_bytes, self.behavior)


#: The seed's per-node scratch sizes.
SEQUENTIAL_SCRATCH_BYTES: Final = {NodeId("node.first"): 64, NodeId("node.second"): 96}


@dataclass(eq=False)
class SequentialScratchEstimator:
    """The seed ``SequentialScratchEstimator``: scratch 64 / 96 for ``node.first`` / ``node.second``, persistent 32."""

    provider: OperationProviderDescriptor
    calls: CallCounter = field(default_factory=CallCounter)
    scratch_bytes_by_node: Mapping[NodeId, int] = field(default_factory=lambda: dict(SEQUENTIAL_SCRATCH_BYTES))
    persistent_bytes: int = 32

    def descriptor(self) -> OperationProviderDescriptor:
        return self.provider

    def estimate_resources(self, request: OperationResourceEstimateRequest) -> OperationResourceEstimate:
        self.calls.bump()
        return sequential_estimate(self.provider, request, self.scratch_bytes_by_node, self.persistent_bytes)
