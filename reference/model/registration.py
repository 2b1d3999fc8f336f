"""Typed registration and definition (spec 02 §4.2-4.3, §6.1-6.2).

``TypedFamilyRegistration`` wraps one provider and mints a unique authority
token; a ``ModelFamilyDefinition`` only prepares through the registration that
defined it.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Generic

from reference.canonical import JsonValue, canonical_bytes, canonical_json, direct_fingerprint
from reference.errors import InvalidModelConfig
from reference.ids import ExternalModelMetadataId, ModelFamilyId, NumericalProfileId
from reference.model.config import validate_raw_config_consumed
from reference.model.metadata import ModelSemanticMetadata, validate_metadata
from reference.model.numerical import FamilyNumericalProfiles
from reference.model.prepared import PreparedModelFamily
from reference.model.provider import Config, ModelFamilyProvider
from reference.model.weight_schema import WeightSchema

__all__ = ["ModelFamilyDefinition", "TypedFamilyRegistration"]


class _AuthorityToken:
    """A fresh identity per registration instance (compared by identity)."""

    __slots__ = ()


@dataclass(frozen=True, slots=True, eq=False)
class ModelFamilyDefinition:
    """Trusted result of ``define``; carries the authority token and the typed config privately."""

    family_id: ModelFamilyId
    external_metadata_id: ExternalModelMetadataId
    canonical_config: JsonValue
    weight_schema: WeightSchema
    metadata: ModelSemanticMetadata
    numerical_profiles: FamilyNumericalProfiles
    _authority: _AuthorityToken = field(repr=False)
    _config: Any = field(repr=False)

    def parts_wire(self) -> JsonValue:
        """The hashed ``parts`` in declaration order."""
        return {
            "family_id": self.family_id.to_wire(),
            "external_metadata_id": self.external_metadata_id.to_wire(),
            "canonical_config": self.canonical_config,
            "weight_schema": self.weight_schema.to_wire(),
            "metadata": self.metadata.to_wire(),
            "numerical_profiles": self.numerical_profiles.to_wire(),
        }

    def fingerprint(self) -> str:
        return direct_fingerprint(self.parts_wire(), context="serialize model family definition")


class TypedFamilyRegistration(Generic[Config]):
    """Wraps one provider; definitions it makes carry its private authority token."""

    def __init__(self, provider: ModelFamilyProvider[Config]) -> None:
        self.provider = provider
        self._authority = _AuthorityToken()

    def family_id(self) -> ModelFamilyId:
        return self.provider.family_id()

    def external_metadata_ids(self) -> frozenset[ExternalModelMetadataId]:
        return frozenset(self.provider.external_metadata_ids())

    def define(self, raw_config: JsonValue) -> ModelFamilyDefinition:
        """Parse, identify, canonicalize and check the config; build schema, metadata and profiles (§6.1)."""
        provider = self.provider
        family = provider.family_id()
        fid = family.value
        ids = self.external_metadata_ids()
        if not ids:
            raise InvalidModelConfig(  # rule: 02.6.1/empty_external_metadata_ids
                family_id=fid, field="external_metadata_ids", reason="no external metadata ids"
            )
        config = provider.parse_config(raw_config)
        external = provider.validated_external_metadata_id(raw_config, config)
        if external not in ids:
            raise InvalidModelConfig(  # rule: 02.6.1/selected_external_id_undeclared
                family_id=fid, field="external_metadata_id", reason=f"`{external}` is not declared by the family"
            )
        typed = canonical_json(provider.config_to_json(config))
        canonical_bytes(typed, context="serialize typed model configuration")
        validate_raw_config_consumed(fid, raw_config, typed)
        schema = provider.weight_schema(config)
        schema.validate(fid)
        schema = schema.normalize()
        metadata = provider.semantic_metadata(config)
        validate_metadata(  # rule when 02.11.3/template_empty: 02.6.1/metadata_validated
            fid,  # rule when 01.1.4/template_source_file_relative: 02.6.1/metadata_validated
            metadata,  # rule when 02.11.3/template_sha_not_canonical: 02.6.1/metadata_validated
        )  # rule when 02.11.3/eos_empty: 02.6.1/metadata_validated
        profiles = provider.numerical_profiles(config)
        if any(profile.family_id != family for profile in profiles.profiles):
            raise InvalidModelConfig(  # rule: 02.6.1/profiles_foreign_family
                family_id=fid, field="numerical_profiles", reason="a numerical profile belongs to another family"
            )
        return ModelFamilyDefinition(family, external, typed, schema, metadata, profiles, self._authority, config)

    def prepare(self, definition: ModelFamilyDefinition, profile_id: NumericalProfileId | str) -> PreparedModelFamily:
        """Select the profile, specialize and check the schema, build the program, assemble (§6.2)."""
        provider = self.provider
        family = provider.family_id()
        fid = family.value
        if definition._authority is not self._authority or definition.family_id != family:
            raise InvalidModelConfig(  # rule: 02.4.2/definition_bound_to_registration
                family_id=fid, field="definition", reason="definition was produced by another registration"
            )
        pid = profile_id if isinstance(profile_id, NumericalProfileId) else NumericalProfileId(profile_id)
        selected = definition.numerical_profiles.resolve(pid)
        specialized = provider.specialize_weight_schema(definition._config, definition.weight_schema, selected)
        _check_physical_identity(fid, definition.weight_schema, specialized)
        program = provider.semantic_program(definition._config, selected)
        return PreparedModelFamily.from_canonical_config(
            family,
            definition.external_metadata_id,
            definition.canonical_config,
            specialized,
            selected,
            program,
            definition.metadata,
        )

    def prepare_with_profile(self, raw_config: JsonValue, profile_id: NumericalProfileId | str) -> PreparedModelFamily:
        """Exactly ``prepare(define(raw), profile_id)``."""
        return self.prepare(self.define(raw_config), profile_id)


def _check_physical_identity(fid: str, source: WeightSchema, specialized: WeightSchema) -> None:
    """Specialization may change only tensors' logical element types (and list order)."""
    field_name = "numerical_profile.weight_schema"
    copy = specialized.normalize()
    tensors = []
    for tensor in copy.tensors:
        original = source.tensor(tensor.id)
        if original is None:
            raise InvalidModelConfig(  # rule: 02.6.2/specialization_changes_physical, 02.6.2/specialized_tensor_unknown
                family_id=fid, field=field_name, reason=f"specialization added `{tensor.id}`"
            )
        tensors.append(replace(tensor, logical_element_type=original.logical_element_type))
    if replace(copy, tensors=tuple(tensors)) != source:
        raise InvalidModelConfig(  # rule: 02.6.2/specialization_changes_physical
            family_id=fid, field=field_name, reason="specialization changed the physical weight schema"
        )
