"""The identity types of the planning contract (01 §1.2-1.3; decision D-01-7).

Upstream's ``identity.rs`` declares exactly the 21 stable identities of §1.2; the reference adds
``WeightMaterializerId`` (vnext root) and the §1.3 validators, and nothing else.
"""

from __future__ import annotations

import inspect

import reference.api  # noqa: F401  (imports every reference module that could define an identity)
from reference import ids

#: 01 §1.2 (upstream ``stable_identity!``) — 21 types.
STABLE = {
    "CapabilityId",
    "DeviceId",
    "ExternalModelMetadataId",
    "ModelFamilyId",
    "NodeId",
    "OperationId",
    "PlanId",
    "ProgramValueId",
    "ProviderId",
    "QuantizationFormatId",
    "RequestIdentity",
    "ResourceId",
    "RunId",
    "SpanId",
    "StateId",
    "TensorId",
    "TokenizerId",
    "TransactionId",
    "WeightId",
    "WeightFormatId",
    "WeightLayoutId",
}
#: 01 §1.3: identities with their own validator.
OWN_VALIDATOR = {
    "AttributeId",
    "OperationOracleId",
    "NumericalProfileId",
    "WeightMaterializerId",
    "PlanHash",
    "DynamicBackingPoolId",
    "ResolutionReasonId",
    "ResolutionArtifactId",
}


def _subclasses(cls: type) -> set[type]:
    found: set[type] = set(cls.__subclasses__())
    for sub in list(found):
        found |= _subclasses(sub)
    return found


def test_the_reference_declares_exactly_the_contract_identity_types() -> None:
    assert len(STABLE) == 21
    public = {c.__name__ for c in _subclasses(ids.Identity) if not c.__name__.startswith("_")}
    assert public == STABLE | OWN_VALIDATOR
    assert {c.__module__ for c in _subclasses(ids.Identity)} == {"reference.ids"}
    assert set(ids.identity_types()) == STABLE | {"WeightMaterializerId"}


def test_every_declared_identity_is_exported() -> None:
    declared = {
        name
        for name, value in vars(ids).items()
        if inspect.isclass(value) and issubclass(value, ids.Identity) and not name.startswith("_")
    }
    assert declared - {"Identity"} <= set(ids.__all__)
