"""The estimates a declared estimator answers with (spec 04 §10): the seed's ``TestEstimator``
and ``SequentialScratchEstimator`` behaviours, vocabulary of registry documents.

``behavior_estimate`` answers like the seed for each ``EstimateBehavior``: scratch
``fixed(scratch)`` (``tokens(scratch)`` for ``token_scaled_scratch``) invocation/overwrite,
persistent ``fixed(persistent)`` plan/preserve, alignment 16 (64 for ``arena_alignment64``
with weight-arena ids, 3 for ``invalid_alignment``), and the forged identity/input fields
of the ``wrong_*`` behaviours. ``sequential_estimate`` is the per-node fixed scratch.
``document_estimate`` answers with a declared estimate (``reference.documents.workspace_estimate``)
and the identity of an identity-only behaviour.
Registry documents declare estimators by these behaviours (``reference.documents.registry``).
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import Enum
from typing import Final

from reference.catalog.provider import OperationProviderDescriptor
from reference.catalog.storage import DynamicStorageRequirement
from reference.documents.workspace_estimate import EstimateDocument
from reference.errors import InvalidExecutionPlan
from reference.ids import NodeId
from reference.resolution.estimate import OperationResourceEstimate, OperationResourceEstimateRequest
from reference.resolution.formula import ProviderWorkspaceSizeFormula
from reference.resolution.usage import BufferUsage
from reference.resolution.workspace import (
    ProviderWorkspaceRequirement,
    ProviderWorkspaceReusePolicy,
    ProviderWorkspaceScope,
)
from reference.versions import ContractVersion

__all__ = [
    "IDENTITY_BEHAVIORS",
    "WEIGHT_ARENA_PREFIX",
    "EstimateBehavior",
    "behavior_estimate",
    "document_estimate",
    "sequential_estimate",
]

#: Resource ids the program plan compiler gives weight arenas.
WEIGHT_ARENA_PREFIX: Final = "resource/weight-arena/sha256/"


class EstimateBehavior(Enum):
    """The seed's nine behaviours (snake_case, as in registry documents)."""

    CORRECT = "correct"
    ARENA_ALIGNMENT64 = "arena_alignment64"
    TOKEN_SCALED_SCRATCH = "token_scaled_scratch"
    WRONG_ESTIMATOR_ID = "wrong_estimator_id"
    WRONG_ESTIMATOR_VERSION = "wrong_estimator_version"
    WRONG_IMPLEMENTATION = "wrong_implementation"
    WRONG_INPUT = "wrong_input"
    INVALID_ALIGNMENT = "invalid_alignment"
    MISSING_SCRATCH = "missing_scratch"


def _contiguous() -> DynamicStorageRequirement:
    return DynamicStorageRequirement.contiguous()


def _scratch(bytes_: int, token_scaled: bool) -> ProviderWorkspaceRequirement:
    formula = (
        ProviderWorkspaceSizeFormula.tokens(bytes_) if token_scaled else ProviderWorkspaceSizeFormula.fixed(bytes_)
    )
    return ProviderWorkspaceRequirement.from_formula(
        formula,
        16,
        ProviderWorkspaceScope.INVOCATION,
        ProviderWorkspaceReusePolicy.OVERWRITE_BEFORE_READ,
        _contiguous(),
    )


def _persistent(bytes_: int) -> ProviderWorkspaceRequirement:
    return ProviderWorkspaceRequirement.new(
        bytes_, 16, ProviderWorkspaceScope.PLAN, ProviderWorkspaceReusePolicy.PRESERVE, _contiguous()
    )


def _uses_weight_arena(request: OperationResourceEstimateRequest) -> bool:
    return any(
        binding.usage is BufferUsage.WEIGHTS
        and any(c.resource_id.value.startswith(WEIGHT_ARENA_PREFIX) for c in binding.storage.components)
        for binding in request.values
    )


def behavior_estimate(
    descriptor: OperationProviderDescriptor,
    request: OperationResourceEstimateRequest,
    scratch_bytes: int,
    persistent_bytes: int,
    behavior: EstimateBehavior,
) -> OperationResourceEstimate:
    """The seed ``TestEstimator::estimate_resources`` answer for ``behavior``."""
    b = EstimateBehavior
    if behavior is b.INVALID_ALIGNMENT:
        alignment = 3
    elif behavior is b.ARENA_ALIGNMENT64 and _uses_weight_arena(request):
        alignment = 64
    else:
        alignment = 16
    scratch = None if behavior is b.MISSING_SCRATCH else _scratch(scratch_bytes, behavior is b.TOKEN_SCALED_SCRATCH)
    return OperationResourceEstimate(
        *_identity(descriptor, request, behavior), alignment, scratch, _persistent(persistent_bytes)
    )


def _identity(
    descriptor: OperationProviderDescriptor, request: OperationResourceEstimateRequest, behavior: EstimateBehavior
) -> tuple[str, ContractVersion, str, str]:
    """The estimator identity and claimed input of the answer: the descriptor's and the request's,
    or the forged one of a ``wrong_*`` behaviour."""
    b = EstimateBehavior
    return (
        "resource-estimator.wrong" if behavior is b.WRONG_ESTIMATOR_ID else descriptor.resource_estimator_id,
        ContractVersion(2, 0) if behavior is b.WRONG_ESTIMATOR_VERSION else descriptor.resource_estimator_version,
        "0" * 64 if behavior is b.WRONG_IMPLEMENTATION else descriptor.resource_estimator_implementation_fingerprint,
        "1" * 64 if behavior is b.WRONG_INPUT else request.input_fingerprint,
    )


#: The behaviours that only forge the identity or claimed input, so they combine with a declared estimate.
IDENTITY_BEHAVIORS: Final = frozenset(
    {
        EstimateBehavior.CORRECT,
        EstimateBehavior.WRONG_ESTIMATOR_ID,
        EstimateBehavior.WRONG_ESTIMATOR_VERSION,
        EstimateBehavior.WRONG_IMPLEMENTATION,
        EstimateBehavior.WRONG_INPUT,
    }
)


def document_estimate(
    descriptor: OperationProviderDescriptor,
    request: OperationResourceEstimateRequest,
    estimate: EstimateDocument,
    behavior: EstimateBehavior,
) -> OperationResourceEstimate:
    """The answer of an estimator that declares its estimate: the behaviour's identity and claimed input,
    the declared value alignment, and the declared workspaces built by their constructors (04 §7)."""
    scratch, persistent, binding = estimate.workspaces()
    return OperationResourceEstimate(
        *_identity(descriptor, request, behavior), estimate.value_alignment_bytes, scratch, persistent, binding
    )


def sequential_estimate(
    descriptor: OperationProviderDescriptor,
    request: OperationResourceEstimateRequest,
    scratch_bytes_by_node: Mapping[NodeId, int],
    persistent_bytes: int,
) -> OperationResourceEstimate:
    """The seed ``SequentialScratchEstimator`` answer: per-node fixed scratch, unknown node -> error."""
    scratch_bytes = scratch_bytes_by_node.get(request.node_id)
    if scratch_bytes is None:
        raise InvalidExecutionPlan(  # rule: 04.9/step13e_estimator_error_propagates
            reason=f"unexpected sequential node `{request.node_id}`"
        )
    return OperationResourceEstimate(
        descriptor.resource_estimator_id,
        descriptor.resource_estimator_version,
        descriptor.resource_estimator_implementation_fingerprint,
        request.input_fingerprint,
        16,
        _scratch(scratch_bytes, False),
        _persistent(persistent_bytes),
    )
