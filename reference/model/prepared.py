"""``PreparedModelFamily``: assembly, fingerprint, untrusted decode and revalidation (spec 02 §6.3, §7).

``from_canonical_config`` is the only validating constructor. The wire form is
Serialize-only; untrusted bytes decode to ``UnvalidatedPreparedModelFamily``,
which ``revalidate(registry)`` rebuilds through the registry and compares.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

from reference.canonical import (
    JsonValue,
    canonical_json,
    direct_bytes,
    direct_fingerprint,
    loads_last_wins,
)
from reference.errors import InvalidModelConfig, Serialization
from reference.ids import ExternalModelMetadataId, ModelFamilyId
from reference.model.config import config_fingerprint, json_equal
from reference.model.metadata import ModelSemanticMetadata, validate_metadata
from reference.model.numerical import NumericalExecutionProfile
from reference.model.program import ModelProgram
from reference.model.weight_schema import WeightSchema
from reference.wire import WireObject, read_uint

__all__ = [
    "MAX_PREPARED_MODEL_FAMILY_WIRE_BYTES",
    "PREPARED_MODEL_FAMILY_WIRE_VERSION",
    "PreparedModelFamily",
    "UnvalidatedPreparedModelFamily",
]

PREPARED_MODEL_FAMILY_WIRE_VERSION: Final = 2
MAX_PREPARED_MODEL_FAMILY_WIRE_BYTES: Final = 16 * 1024 * 1024
DECODE_CONTEXT: Final = "decode untrusted prepared model family"
_FIELDS: Final = (
    "wire_version",
    "family_id",
    "external_metadata_id",
    "canonical_config",
    "config_fingerprint",
    "numerical_profile",
    "weight_schema",
    "program",
    "metadata",
)
_AUTHORITY: Final = object()


@dataclass(frozen=True, slots=True, eq=False)
class _PreparedFields:
    wire_version: int
    family_id: ModelFamilyId
    external_metadata_id: ExternalModelMetadataId
    canonical_config: JsonValue
    config_fingerprint: str
    numerical_profile: NumericalExecutionProfile
    weight_schema: WeightSchema
    program: ModelProgram
    metadata: ModelSemanticMetadata

    def to_wire(self) -> JsonValue:
        """The nine fields in declaration order (= wire order = hash order)."""
        return {
            "wire_version": self.wire_version,
            "family_id": self.family_id.to_wire(),
            "external_metadata_id": self.external_metadata_id.to_wire(),
            "canonical_config": self.canonical_config,
            "config_fingerprint": self.config_fingerprint,
            "numerical_profile": self.numerical_profile.to_wire(),
            "weight_schema": self.weight_schema.to_wire(),
            "program": self.program.to_wire(),
            "metadata": self.metadata.to_wire(),
        }

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, _PreparedFields):
            return NotImplemented
        return json_equal(self.to_wire(), other.to_wire())

    def __hash__(self) -> int:
        return hash((self.family_id, self.config_fingerprint))


@dataclass(frozen=True, slots=True, eq=False)
class PreparedModelFamily(_PreparedFields):
    """A trusted prepared family; build it with ``from_canonical_config`` (or a registration)."""

    _authority: object = field(default=None, repr=False)
    _fingerprint: str | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        if self._authority is not _AUTHORITY:
            raise TypeError("PreparedModelFamily is built by from_canonical_config or a registration")

    @classmethod
    def from_canonical_config(
        cls,
        family_id: ModelFamilyId,
        external_metadata_id: ExternalModelMetadataId,
        canonical_config: JsonValue,
        weight_schema: WeightSchema,
        numerical_profile: NumericalExecutionProfile,
        program: ModelProgram,
        metadata: ModelSemanticMetadata,
    ) -> PreparedModelFamily:
        """Validate and assemble (spec 02 §6.3, first failure wins)."""
        fid = family_id.value
        if type(canonical_config) is not dict:
            raise InvalidModelConfig(  # rule: 02.6.3/canonical_config_object
                family_id=fid, field="config", reason="canonical config must be a JSON object"
            )
        config = canonical_json(canonical_config)
        fingerprint = config_fingerprint(config)
        weight_schema.validate(fid)
        schema = weight_schema.normalize()
        schema.validate(fid)
        if program.family_id != family_id:
            raise InvalidModelConfig(  # rule: 02.6.3/program_family_mismatch
                family_id=fid, field="program.family_id", reason="program belongs to another family"
            )
        schema.validate_program_references(fid, program)
        profile = numerical_profile.normalize()
        profile.validate_program(program)
        validate_metadata(fid, metadata)
        return cls(
            PREPARED_MODEL_FAMILY_WIRE_VERSION,
            family_id,
            external_metadata_id,
            config,
            fingerprint,
            profile,
            schema,
            program,
            metadata,
            _AUTHORITY,
        )

    def fingerprint(self) -> str:
        """sha256 of the compact declaration-order JSON (what plans carry as ``prepared_family_fingerprint``).

        Computed once: every field is immutable.
        """
        if self._fingerprint is None:
            value = direct_fingerprint(self.to_wire(), context="serialize prepared model family")
            object.__setattr__(self, "_fingerprint", value)
            return value
        return self._fingerprint

    def to_json_bytes(self) -> bytes:
        """The compact wire bytes."""
        return direct_bytes(self.to_wire(), context="serialize prepared model family")

    @staticmethod
    def decode_untrusted(data: bytes | str) -> UnvalidatedPreparedModelFamily:
        return UnvalidatedPreparedModelFamily.decode_untrusted(data)


@dataclass(frozen=True, slots=True, eq=False)
class UnvalidatedPreparedModelFamily(_PreparedFields):
    """The nine decoded fields of an untrusted wire; never trusted until ``revalidate``."""

    @classmethod
    def decode_untrusted(cls, data: bytes | str) -> UnvalidatedPreparedModelFamily:
        """Size cap, parse, strict field decode, re-serialization equality, wire version (spec 02 §7.4)."""
        raw_bytes = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else bytes(data)
        if len(raw_bytes) > MAX_PREPARED_MODEL_FAMILY_WIRE_BYTES:
            raise Serialization(  # rule: 01.5/prepared_family_wire_cap, 02.7.4/wire_size_cap
                DECODE_CONTEXT,
                f"wire is {len(raw_bytes)} bytes; maximum is {MAX_PREPARED_MODEL_FAMILY_WIRE_BYTES}",
            )
        raw = loads_last_wins(raw_bytes, context=DECODE_CONTEXT)
        f = WireObject(raw, _FIELDS, type_name="PreparedModelFamily", context=DECODE_CONTEXT, path="$")
        decoded = cls(
            read_uint(raw["wire_version"], bits=32, context=DECODE_CONTEXT, path="$.wire_version"),
            f.identity("family_id", ModelFamilyId),
            f.identity("external_metadata_id", ExternalModelMetadataId),
            raw["canonical_config"],
            f.string("config_fingerprint"),
            NumericalExecutionProfile.from_wire(raw["numerical_profile"], DECODE_CONTEXT, "$.numerical_profile"),
            WeightSchema.from_wire(raw["weight_schema"], DECODE_CONTEXT, "$.weight_schema"),
            ModelProgram.from_wire(raw["program"], DECODE_CONTEXT, "$.program"),
            ModelSemanticMetadata.from_wire(raw["metadata"], DECODE_CONTEXT, "$.metadata"),
        )
        if not json_equal(decoded.to_wire(), raw):
            raise Serialization(  # rule: 02.7.4/reserialization_rejects_missing_option_keys
                DECODE_CONTEXT, "wire is not the canonical serialization of its decoded value"
            )
        if decoded.wire_version != PREPARED_MODEL_FAMILY_WIRE_VERSION:
            raise Serialization(  # rule: 02.7.4/wire_version_not_two
                DECODE_CONTEXT, f"unsupported prepared model family wire version {decoded.wire_version}"
            )
        return decoded
