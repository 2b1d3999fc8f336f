"""Registry surface and resolution (spec 02 §4.1, §4.4).

A registry only lists its registrations; the core does the lookup and never
falls back: 0 matches is Unknown*, >= 2 is Ambiguous* (with ``matches``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from reference.canonical import JsonValue
from reference.errors import AmbiguousModelFamilyRegistration, UnknownExternalModelMetadata, UnknownModelFamily
from reference.ids import ExternalModelMetadataId, ModelFamilyId, NumericalProfileId
from reference.model.prepared import PreparedModelFamily
from reference.model.registration import ModelFamilyDefinition

__all__ = ["ModelFamilyRegistration", "ModelFamilyRegistry", "StaticFamilyRegistry", "resolve", "resolve_external"]


@runtime_checkable
class ModelFamilyRegistration(Protocol):
    """The object-safe registration surface the core uses."""

    def family_id(self) -> ModelFamilyId: ...

    def external_metadata_ids(self) -> frozenset[ExternalModelMetadataId]: ...

    def define(self, raw_config: JsonValue) -> ModelFamilyDefinition: ...

    def prepare(
        self, definition: ModelFamilyDefinition, profile_id: NumericalProfileId | str
    ) -> PreparedModelFamily: ...

    def prepare_with_profile(
        self, raw_config: JsonValue, profile_id: NumericalProfileId | str
    ) -> PreparedModelFamily: ...


@runtime_checkable
class ModelFamilyRegistry(Protocol):
    """A registry only lists its registrations; the core does the lookup."""

    def registrations(self) -> Sequence[ModelFamilyRegistration]: ...


class StaticFamilyRegistry:
    """A registry over a fixed list of registrations."""

    def __init__(self, registrations: Sequence[ModelFamilyRegistration]) -> None:
        self._registrations = tuple(registrations)

    def registrations(self) -> Sequence[ModelFamilyRegistration]:
        return self._registrations


def resolve(registry: ModelFamilyRegistry, family_id: ModelFamilyId) -> ModelFamilyRegistration:
    """The single registration with that family id (Unknown / Ambiguous otherwise)."""
    matches = [r for r in registry.registrations() if r.family_id() == family_id]
    if not matches:
        raise UnknownModelFamily(family_id=family_id.value)  # rule: 02.4.4/resolve_unknown_family
    if len(matches) > 1:
        raise AmbiguousModelFamilyRegistration(  # rule: 02.4.4/resolve_ambiguous_family
            identity_kind="internal family", identity=family_id.value, matches=len(matches)
        )
    return matches[0]


def resolve_external(registry: ModelFamilyRegistry, metadata_id: ExternalModelMetadataId) -> ModelFamilyRegistration:
    """The single registration declaring that external id (Unknown / Ambiguous otherwise)."""
    matches = [r for r in registry.registrations() if metadata_id in r.external_metadata_ids()]
    if not matches:
        raise UnknownExternalModelMetadata(metadata_id=metadata_id.value)  # rule: 02.4.4/resolve_unknown_external
    if len(matches) > 1:
        raise AmbiguousModelFamilyRegistration(  # rule: 02.4.4/resolve_ambiguous_external
            identity_kind="external metadata", identity=metadata_id.value, matches=len(matches)
        )
    return matches[0]
