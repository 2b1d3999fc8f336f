"""The family-provider protocol (spec 02 §3).

A provider is trusted, in-process code with a typed ``Config``. Python has no
serde, so a provider also says how its config serializes (``config_to_json``).
Any error a provider method raises propagates unchanged.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Generic, TypeVar

from reference.canonical import JsonValue
from reference.ids import ExternalModelMetadataId, ModelFamilyId
from reference.model.metadata import ModelSemanticMetadata
from reference.model.numerical import FamilyNumericalProfiles, NumericalExecutionProfile
from reference.model.program import ModelProgram
from reference.model.weight_schema import WeightSchema

__all__ = ["Config", "ModelFamilyProvider"]

Config = TypeVar("Config")


class ModelFamilyProvider(ABC, Generic[Config]):
    """A model family: config parsing, weight schema, numerical profiles, program and metadata."""

    @abstractmethod
    def family_id(self) -> ModelFamilyId:
        """The internal family identity."""

    @abstractmethod
    def external_metadata_ids(self) -> frozenset[ExternalModelMetadataId]:
        """External catalog names (e.g. an HF ``model_type``) this family answers to; must be non-empty."""

    def validate_config_identity(self, raw: JsonValue, config: Config) -> None:
        """Hook for identity checks; core never calls it (providers call it from the next method)."""
        del raw, config

    @abstractmethod
    def validated_external_metadata_id(self, raw: JsonValue, config: Config) -> ExternalModelMetadataId:
        """The one external id this config represents (must be in ``external_metadata_ids``)."""

    @abstractmethod
    def parse_config(self, raw: JsonValue) -> Config:
        """The typed config, or the provider's error."""

    @abstractmethod
    def config_to_json(self, config: Config) -> JsonValue:
        """The serde serialization of the typed config (called exactly once per ``define``)."""

    @abstractmethod
    def weight_schema(self, config: Config) -> WeightSchema:
        """The checkpoint weight schema."""

    @abstractmethod
    def numerical_profiles(self, config: Config) -> FamilyNumericalProfiles:
        """The profiles this family offers."""

    def specialize_weight_schema(
        self, config: Config, source: WeightSchema, profile: NumericalExecutionProfile
    ) -> WeightSchema:
        """Default: the source schema unchanged. Only logical element types may change."""
        del config, profile
        return source

    @abstractmethod
    def semantic_program(self, config: Config, profile: NumericalExecutionProfile) -> ModelProgram:
        """The program for the selected profile."""

    @abstractmethod
    def semantic_metadata(self, config: Config) -> ModelSemanticMetadata:
        """Template and special tokens."""
