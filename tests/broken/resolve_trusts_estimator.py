"""Broken backend: the resolver trusts the estimator's identity and input claims.

Patch: ``ProviderResourcePlan.from_provider_output`` overwrites the estimate's
estimator id, version, implementation fingerprint and claimed input fingerprint with
the expected values before checking them (04 §8.3 step 1 never fails), so the
``wrong_*`` estimate behaviours are accepted. Caught by the estimators suite.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from reference.resolution.estimate import OperationResourceEstimate
from reference.resolution.resource_plan import ProviderResourcePlan
from tests.broken.budget_patching import PatchedReference

_original = ProviderResourcePlan.__dict__["from_provider_output"].__func__


def _trusting(
    cls: type[ProviderResourcePlan],
    descriptor: Any,
    expected_input_fingerprint: str,
    estimate: OperationResourceEstimate,
) -> ProviderResourcePlan:
    trusted = dataclasses.replace(
        estimate,
        estimator_id=descriptor.resource_estimator_id,
        estimator_version=descriptor.resource_estimator_version,
        estimator_implementation_fingerprint=descriptor.resource_estimator_implementation_fingerprint,
        claimed_input_fingerprint=expected_input_fingerprint,
    )
    return _original(cls, descriptor, expected_input_fingerprint, trusted)  # type: ignore[no-any-return]


def make() -> PatchedReference:
    return PatchedReference(
        "resolve_trusts_estimator", ProviderResourcePlan, "from_provider_output", classmethod(_trusting)
    )
