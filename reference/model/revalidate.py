"""Revalidating an untrusted prepared family against a registry (spec 02 §7.4).

``revalidate(unvalidated, registry)`` resolves the family's registration by family id and by
external metadata id (they must be the same registration), rebuilds the family through it and
requires the rebuilt wire to equal the untrusted one on all nine fields; the rebuilt family is
returned. ``from_json_validated(data, registry)`` is ``decode_untrusted`` then ``revalidate``.
"""

from __future__ import annotations

from reference.errors import InvalidModelConfig
from reference.model.config import json_equal
from reference.model.prepared import PreparedModelFamily, UnvalidatedPreparedModelFamily
from reference.model.registry import ModelFamilyRegistry, resolve, resolve_external

__all__ = ["from_json_validated", "revalidate"]


def revalidate(unvalidated: UnvalidatedPreparedModelFamily, registry: ModelFamilyRegistry) -> PreparedModelFamily:
    """Rebuild through the registry and require equality on all nine fields; return the rebuilt family."""
    fid = unvalidated.family_id.value
    registration = resolve(registry, unvalidated.family_id)
    if registration.family_id() != unvalidated.family_id:
        raise InvalidModelConfig(  # rule: 02.7.5/resolved_registration_answers_its_family
            family_id=fid, field="registration.family_id", reason="registration answers for another family"
        )
    external = resolve_external(registry, unvalidated.external_metadata_id)
    if external is not registration:
        raise InvalidModelConfig(  # rule: 02.7.5/external_id_same_registration, 02.7.5/registration_family_mismatch
            family_id=fid, field="external_metadata_id", reason="external id resolves to another registration"
        )
    rebuilt = registration.prepare_with_profile(unvalidated.canonical_config, unvalidated.numerical_profile.id)
    if not json_equal(rebuilt.to_wire(), unvalidated.to_wire()):
        raise InvalidModelConfig(  # rule: 02.7.5/rebuilt_differs
            family_id=fid, field="prepared_package", reason="wire differs from the family rebuilt by the registry"
        )
    return rebuilt


def from_json_validated(data: bytes | str, registry: ModelFamilyRegistry) -> PreparedModelFamily:
    """``UnvalidatedPreparedModelFamily.decode_untrusted`` then ``revalidate``; the rebuilt family."""
    return revalidate(UnvalidatedPreparedModelFamily.decode_untrusted(data), registry)
