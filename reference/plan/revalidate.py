"""Revalidation of an untrusted plan against current trusted dependencies (spec 05 §9.2-§9.3, 01 §3.6).

``revalidate(unvalidated, family, catalog, policy, resolutions, *, completion_retention,
execution_weights)``:

1. ``schema != 8.1`` -> ``UnsupportedPlanSchema``;
2. rebuild through ``build_execution_plan`` with the trusted weights (identity by default) and the
   retention (any build error propagates with its own kind);
3. the untrusted payload and the rebuilt payload differ as JSON values (``plan_id``
   included) -> ``InvalidExecutionPlan``;
4. ``rebuilt.plan_hash != wire plan_hash`` -> ``PlanHashMismatch{expected: rebuilt, actual: wire}``;
5. the **rebuilt** plan is returned.

``from_json_validated(data, ...)`` first rebuilds; when ``data`` is byte for byte the rebuilt
plan's ``to_json()`` it returns the rebuilt plan (what decode + revalidate return for those
bytes, since a built plan's wire always decodes to itself). Otherwise, or when the rebuild
fails, it runs the full path in its order (decode, schema, rebuild, compare), reusing a
successful rebuild, so every rejection keeps its kind, message and place.

Defaults (no retention, ``TrustedExecutionWeightPlan.identity(family)``) give plain
``revalidate``; a plan built with retention or non-identity weights revalidates only
when the same trusted inputs are supplied. ``validate_against`` is §9.3.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Final

from reference.catalog.catalog import CapabilityCatalog
from reference.collector import collector_paused
from reference.errors import PlanHashMismatch, invalid_plan
from reference.model.prepared import PreparedModelFamily
from reference.plan.build import build_execution_plan
from reference.plan.decode import UnvalidatedExecutionPlan, check_plan_schema, decode_untrusted, decoded_as
from reference.plan.execution_plan import ExecutionPlan
from reference.plan.request import CompletionRetentionSpec
from reference.policy.runtime_policy import RuntimePolicy
from reference.resolution.node_resolution import PlanNodeResolution
from reference.weights.trusted import TrustedExecutionWeightPlan

__all__ = [
    "DIFFERS_FROM_REBUILD",
    "compare_with_rebuild",
    "from_json_validated",
    "revalidate",
    "revalidate_wire",
    "validate_against",
]

DIFFERS_FROM_REBUILD: Final = "untrusted plan differs from a semantic rebuild against current dependencies"
_UNTRUSTED_CONTEXT: Final = "serialize unvalidated execution plan payload"
_REBUILT_CONTEXT: Final = "serialize rebuilt execution plan payload"


def _rebuild(
    family: PreparedModelFamily,
    catalog: CapabilityCatalog,
    policy: RuntimePolicy,
    resolutions: Sequence[PlanNodeResolution],
    completion_retention: CompletionRetentionSpec | Iterable[str],
    execution_weights: TrustedExecutionWeightPlan | None,
) -> ExecutionPlan:
    """Step 2: ``build_execution_plan`` with the trusted weights always applied (identity by default)."""
    weights = TrustedExecutionWeightPlan.identity(family) if execution_weights is None else execution_weights
    return build_execution_plan(
        family, catalog, policy, resolutions, completion_retention=completion_retention, execution_weights=weights
    )


def compare_with_rebuild(unvalidated: UnvalidatedExecutionPlan, rebuilt: ExecutionPlan) -> ExecutionPlan:
    """Steps 3-5 against an already rebuilt plan: payload JSON values, then hashes; the rebuilt plan."""
    untrusted = unvalidated.payload_canonical_bytes(context=_UNTRUSTED_CONTEXT)
    trusted = rebuilt.payload_canonical_bytes(context=_REBUILT_CONTEXT)
    if untrusted != trusted:
        raise invalid_plan(  # rule: 01.3.6/revalidate_payload_differs, 05.9.2/revalidate_payload_differs
            DIFFERS_FROM_REBUILD
        )
    if rebuilt.plan_hash != unvalidated.plan_hash:
        raise PlanHashMismatch(  # rule: 01.3.6/revalidate_plan_hash_mismatch, 01.3.6/only_plan_hash_changed, 05.9.2/revalidate_hash_mismatch, 05.9.5/plan_hash_only_changed  # noqa: E501
            expected=rebuilt.plan_hash.value, actual=unvalidated.plan_hash.value
        )
    return rebuilt


@collector_paused
def revalidate(
    unvalidated: UnvalidatedExecutionPlan,
    family: PreparedModelFamily,
    catalog: CapabilityCatalog,
    policy: RuntimePolicy,
    resolutions: Sequence[PlanNodeResolution],
    *,
    completion_retention: CompletionRetentionSpec | Iterable[str] = (),
    execution_weights: TrustedExecutionWeightPlan | None = None,
) -> ExecutionPlan:
    """``revalidate`` / ``_with_completion_retention`` / ``_with_execution_weights`` (steps 1-5)."""
    check_plan_schema(unvalidated.schema())
    rebuilt = _rebuild(family, catalog, policy, resolutions, completion_retention, execution_weights)
    return compare_with_rebuild(unvalidated, rebuilt)


def from_json_validated(
    data: bytes,
    family: PreparedModelFamily,
    catalog: CapabilityCatalog,
    policy: RuntimePolicy,
    resolutions: Sequence[PlanNodeResolution],
    *,
    completion_retention: CompletionRetentionSpec | Iterable[str] = (),
    execution_weights: TrustedExecutionWeightPlan | None = None,
) -> ExecutionPlan:
    """``decode_untrusted`` then ``revalidate`` (outcomes of that order; exact bytes take the fast path)."""

    def rebuild() -> ExecutionPlan:
        return _rebuild(family, catalog, policy, resolutions, completion_retention, execution_weights)

    return revalidate_wire(data, rebuild)


@collector_paused
def revalidate_wire(data: bytes | bytearray | memoryview, rebuild: Callable[[], ExecutionPlan]) -> ExecutionPlan:
    """Decode ``data``, check its schema, then compare it with ``rebuild()``: the outcome of that order.

    ``rebuild`` is pure (it may raise). It runs first: a wire equal byte for byte to the rebuilt
    plan's ``to_json()`` is that plan, and a wire spelling the rebuilt payload otherwise (members in
    another order, whitespace, another canonical hash) decodes to that payload (``decoded_as``), so
    only the hashes are compared. On any other wire, or when ``rebuild`` raises, the steps run
    in their order (the decode's rejection first) with the rebuilt plan reused when there is one.
    ``decode_untrusted`` already refuses every schema but 8.1, so the schema check cannot fail
    after it and its place relative to the rebuild's own errors is immaterial.
    """
    raw = bytes(data)
    rebuilt: ExecutionPlan | None = None
    spelled: UnvalidatedExecutionPlan | None = None
    try:
        rebuilt = rebuild()
        if rebuilt.to_json() == raw:
            return rebuilt
        spelled = decoded_as(raw, rebuilt)
    except Exception:  # the full path below raises it again, in its place
        pass
    if rebuilt is not None and spelled is not None:
        return compare_with_rebuild(spelled, rebuilt)
    unvalidated = decode_untrusted(raw)
    check_plan_schema(unvalidated.schema())
    if rebuilt is None:
        rebuilt = rebuild()
    return compare_with_rebuild(unvalidated, rebuilt)


def validate_against(
    plan: ExecutionPlan,
    family: PreparedModelFamily,
    catalog: CapabilityCatalog,
    policy: RuntimePolicy,
    resolutions: Sequence[PlanNodeResolution],
    *,
    completion_retention: CompletionRetentionSpec | Iterable[str] = (),
) -> None:
    """§9.3: rebuild with the plan's own trusted weights; other registry authority or any difference is invalid."""
    rebuilt = _rebuild(family, catalog, policy, resolutions, completion_retention, plan.trusted_execution_weights())
    if rebuilt.registry_authority() != plan.registry_authority():
        raise invalid_plan(  # rule: 05.9.3/validate_against
            "execution plan belongs to a different operation runtime registry"
        )
    if rebuilt != plan:
        raise invalid_plan("execution plan is not identical to its semantic rebuild")  # rule: 05.9.3/validate_against
