"""Numerical profiles (spec 02 §9): per-operation arithmetic contracts, execution profiles, family profile sets.

``NumericalExecutionProfile`` is unvalidated on construction and decode; its
``validate``/``validate_program`` raise ``InvalidModelConfig{field="numerical_profile"}``
with ``family_id`` = the profile's family. ``FamilyNumericalProfiles`` validates
on construction and stores profiles sorted by id.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any, Final

from reference.canonical import JsonValue, direct_fingerprint
from reference.errors import InvalidModelConfig, Serialization
from reference.ids import ModelFamilyId, NumericalProfileId, OperationId, ProgramValueId
from reference.model.element import FLOAT_TYPES, ElementType
from reference.model.program import ModelProgram
from reference.model.state import StateSpec
from reference.versions import ContractVersion
from reference.wire import WireObject, read_identity

__all__ = [
    "FIELD",
    "FamilyNumericalProfiles",
    "NumericalExecutionPolicy",
    "NumericalExecutionProfile",
    "NumericalOperationContract",
]

FIELD: Final = "numerical_profile"


def _element(raw: Any, context: str, path: str) -> ElementType:
    return ElementType.from_wire(raw, context=context, path=path)


@dataclass(frozen=True, slots=True)
class NumericalOperationContract:
    """The arithmetic contract of one operation version (types optional)."""

    operation_id: OperationId
    version: ContractVersion
    multiplication_type: ElementType | None = None
    accumulation_type: ElementType | None = None

    def to_wire(self) -> JsonValue:
        return {
            "operation_id": self.operation_id.to_wire(),
            "version": self.version.to_wire(),
            "multiplication_type": None if self.multiplication_type is None else self.multiplication_type.to_wire(),
            "accumulation_type": None if self.accumulation_type is None else self.accumulation_type.to_wire(),
        }

    @classmethod
    def from_wire(cls, raw: Any, context: str, path: str = "$") -> NumericalOperationContract:
        f = WireObject(  # rule when 01.3.6/decode_unknown_field: 02.1/deny_unknown_numerical_operation_contract
            raw,
            ("operation_id", "version"),
            ("multiplication_type", "accumulation_type"),
            type_name="NumericalOperationContract",
            context=context,
            path=path,
        )
        return cls(
            f.identity("operation_id", OperationId),
            f.version("version"),
            f.optional("multiplication_type", _element),
            f.optional("accumulation_type", _element),
        )


@dataclass(frozen=True, slots=True, eq=False)
class NumericalExecutionProfile:
    """A selectable numerical profile of a family: boundaries, states and operation contracts."""

    id: NumericalProfileId
    version: ContractVersion
    family_id: ModelFamilyId
    primary_activation: ProgramValueId
    boundaries: Mapping[ProgramValueId, ElementType]
    states: tuple[StateSpec, ...] = ()
    operations: tuple[NumericalOperationContract, ...] = ()

    def __post_init__(self) -> None:
        boundaries = dict(self.boundaries)
        object.__setattr__(self, "boundaries", MappingProxyType({k: boundaries[k] for k in sorted(boundaries)}))
        object.__setattr__(self, "states", tuple(self.states))
        object.__setattr__(self, "operations", tuple(self.operations))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, NumericalExecutionProfile):
            return NotImplemented
        return bool(self.to_wire() == other.to_wire())

    def __hash__(self) -> int:
        return hash((self.id, self.family_id))

    def _fail(self, reason: str) -> InvalidModelConfig:
        return InvalidModelConfig(family_id=self.family_id.value, field=FIELD, reason=reason)

    def validate(self) -> None:
        """Version, operations, primary activation boundary, unique ops/states, state tensors and demands."""
        reason = "numerical profile needs a non-zero major version and at least one operation"
        if self.version.major == 0:
            raise self._fail(reason)  # rule: 02.9.2/profile_version_major_zero
        if not self.operations:
            raise self._fail(reason)  # rule: 02.9.2/profile_no_operations
        primary = self.boundaries.get(self.primary_activation)
        if primary is None:
            raise self._fail("primary activation must be a float boundary")  # rule: 02.9.2/primary_activation_missing
        if primary not in FLOAT_TYPES:
            raise self._fail("primary activation must be a float boundary")  # rule: 02.9.2/primary_activation_not_float
        seen_ops: set[OperationId] = set()
        for operation in self.operations:
            reason = f"operation `{operation.operation_id}` is duplicated or has version 0.x"
            if operation.version.major == 0:
                raise self._fail(reason)  # rule: 02.9.2/operation_version_major_zero
            if operation.operation_id in seen_ops:
                raise self._fail(reason)  # rule: 02.9.2/duplicate_operation_id
            seen_ops.add(operation.operation_id)
            reason = f"operation `{operation.operation_id}` arithmetic types must be float"
            multiplication, accumulation = operation.multiplication_type, operation.accumulation_type
            if multiplication is not None and multiplication not in FLOAT_TYPES:
                raise self._fail(reason)  # rule: 02.9.2/multiplication_type_not_float
            if accumulation is not None and accumulation not in FLOAT_TYPES:
                raise self._fail(reason)  # rule: 02.9.2/accumulation_type_not_float
        state_ids: set[Any] = set()
        value_ids: set[ProgramValueId] = set()
        for state in self.states:
            if state.id in state_ids:
                raise self._fail(f"state `{state.id}` is duplicated")  # rule: 02.9.2/duplicate_state_id
            if state.value_id in value_ids:
                raise self._fail(f"state `{state.id}` is duplicated")  # rule: 02.9.2/duplicate_state_value_id
            state_ids.add(state.id)
            value_ids.add(state.value_id)
            state.tensor.validate(  # rule when 02.10.1/program_tensor_validate: 02.9.2/state_tensor_bare
                "numerical_profile.states.tensor"
            )
            state.capacity_demand.validate(  # rule when 02.10.1/token_scaled_bytes_per_token: 02.9.2/state_demand_bare
                state.tensor.byte_len()
            )

    def normalize(self) -> NumericalExecutionProfile:
        """States sorted by id, operations by operation id."""
        return replace(
            self,
            states=tuple(sorted(self.states, key=lambda s: s.id)),
            operations=tuple(sorted(self.operations, key=lambda o: o.operation_id)),
        )

    def fingerprint(self) -> str:
        self.validate()
        return direct_fingerprint(self.normalize().to_wire(), context="serialize numerical execution profile")

    def activation_type(self) -> ElementType:
        self.validate()
        return self.boundaries[self.primary_activation]

    def validate_program(self, program: ModelProgram) -> None:
        """Operations, boundaries and states must match the program exactly (spec 02 §9.2)."""
        self.validate()
        if program.family_id != self.family_id:
            raise self._fail("program belongs to another family")  # rule: 02.9.2/program_family_differs
        declared = {op.operation_id: op for op in self.operations}
        used: set[OperationId] = set()
        for node in program.nodes():
            contract = declared.get(node.operation_id)
            if contract is None or contract.version != node.required_version:
                raise self._fail(  # rule: 02.9.2/node_operation_undeclared, 02.9.2/node_version_exact
                    f"node `{node.id}` operation `{node.operation_id}` is not declared at its version"
                )
            used.add(node.operation_id)
        if set(declared) != used:
            raise self._fail("profile declares operations no node uses")  # rule: 02.9.2/operation_unused
        if set(self.boundaries) != set(program.node_outputs()):
            raise self._fail(  # rule: 02.9.2/boundaries_equal_node_outputs
                "profile boundaries must equal the set of node outputs"
            )
        mine = {state.id: state for state in self.states}
        theirs = {state.id: state for state in program.states}
        if mine != theirs:
            raise self._fail("profile states differ from program states")  # rule: 02.9.2/states_equal

    def validate_inferred_boundaries(self, values: Mapping[ProgramValueId, ElementType]) -> None:
        """Every boundary value must have been inferred with its declared element type."""
        for value_id, expected in self.boundaries.items():
            if values.get(value_id) is not expected:
                raise self._fail(  # rule: 02.9.2/inferred_boundaries
                    f"boundary `{value_id}` has a different inferred element type"
                )

    def to_wire(self) -> JsonValue:
        return {
            "id": self.id.to_wire(),
            "version": self.version.to_wire(),
            "family_id": self.family_id.to_wire(),
            "primary_activation": self.primary_activation.to_wire(),
            "boundaries": {key.value: value.to_wire() for key, value in self.boundaries.items()},
            "states": [s.to_wire() for s in self.states],
            "operations": [o.to_wire() for o in self.operations],
        }

    @classmethod
    def from_wire(
        cls,
        raw: Any,
        context: str = "decode numerical execution profile",
        path: str = "$",
        *,
        validate_states: bool = True,
    ) -> NumericalExecutionProfile:
        """Strict decode (deny_unknown_fields), no profile validation."""
        f = WireObject(
            raw,
            ("id", "version", "family_id", "primary_activation", "boundaries", "states", "operations"),
            type_name="NumericalExecutionProfile",
            context=context,
            path=path,
        )
        raw_boundaries = f.raw("boundaries")
        if not isinstance(raw_boundaries, dict):
            raise Serialization(  # rule: 02.1/deny_unknown_numerical_execution_profile
                context, f"{f.at('boundaries')}: expected an object"
            )
        boundaries = {
            read_identity(key, ProgramValueId, context=context, path=f"{f.at('boundaries')}.{key}"): _element(
                value, context, f"{f.at('boundaries')}.{key}"
            )
            for key, value in raw_boundaries.items()
        }
        return cls(
            f.identity("id", NumericalProfileId),
            f.version("version"),
            f.identity("family_id", ModelFamilyId),
            f.identity("primary_activation", ProgramValueId),
            boundaries,
            f.items("states", StateSpec.from_wire if validate_states else StateSpec.decode_parts),
            f.items("operations", NumericalOperationContract.from_wire),
        )


@dataclass(frozen=True, slots=True)
class NumericalExecutionPolicy:
    """``auto`` (``require`` None) or ``{"require": "<profile id>"}``."""

    require: NumericalProfileId | None = None

    @classmethod
    def parse(cls, text: str) -> NumericalExecutionPolicy:
        """The text ``auto`` is Auto; any other text is Require(id)."""
        return cls(None) if text == "auto" else cls(NumericalProfileId(text))

    def to_wire(self) -> JsonValue:
        return "auto" if self.require is None else {"require": self.require.to_wire()}


@dataclass(frozen=True, slots=True, eq=False)
class FamilyNumericalProfiles:
    """The profiles a family offers (sorted by id) and its ordered auto preference."""

    version: ContractVersion
    profiles: tuple[NumericalExecutionProfile, ...]
    auto_preference: tuple[NumericalProfileId, ...]
    _family: ModelFamilyId | None = field(default=None, repr=False)

    @classmethod
    def new(
        cls,
        family_id: ModelFamilyId,
        version: ContractVersion,
        profiles: Sequence[NumericalExecutionProfile],
        auto_preference: Sequence[NumericalProfileId],
    ) -> FamilyNumericalProfiles:
        """Validate every profile, their family and uniqueness, and the auto preference (spec 02 §9.3)."""

        def fail(reason: str) -> InvalidModelConfig:
            return InvalidModelConfig(family_id=family_id.value, field=FIELD, reason=reason)

        reason = "family numerical profiles need a non-zero major version and at least one profile"
        if version.major == 0:
            raise fail(reason)  # rule: 02.9.3/profiles_version_major_zero
        if not profiles:
            raise fail(reason)  # rule: 02.9.3/profiles_empty
        normalized: dict[NumericalProfileId, NumericalExecutionProfile] = {}
        for profile in profiles:
            profile.validate()
            profile = profile.normalize()
            reason = f"profile `{profile.id}` belongs to another family or is duplicated"
            if profile.family_id != family_id:
                raise fail(reason)  # rule: 02.9.3/profile_foreign_family
            if profile.id in normalized:
                raise fail(reason)  # rule: 02.9.3/duplicate_profile_id
            normalized[profile.id] = profile
        preference = tuple(auto_preference)
        reason = "auto preference must list declared profiles once each"
        if any(pid not in normalized for pid in preference):
            raise fail(reason)  # rule: 02.9.3/auto_preference_undeclared
        if len(set(preference)) != len(preference):
            raise fail(reason)  # rule: 02.9.3/auto_preference_duplicate
        ordered = tuple(normalized[pid] for pid in sorted(normalized))
        return cls(version, ordered, preference, family_id)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, FamilyNumericalProfiles):
            return NotImplemented
        return bool(self.to_wire() == other.to_wire())

    def __hash__(self) -> int:
        return hash(tuple(p.id for p in self.profiles))

    def resolve(self, profile_id: NumericalProfileId) -> NumericalExecutionProfile:
        """The profile with that id; unknown id -> ``InvalidModelConfig{field="numerical_profile"}``."""
        for profile in self.profiles:
            if profile.id == profile_id:
                return profile
        family = self.profiles[0].family_id.value if self.profiles else ""
        raise InvalidModelConfig(  # rule: 02.6.2/unknown_profile, 02.9.3/resolve_first_match
            family_id=family, field=FIELD, reason=f"unknown numerical profile `{profile_id}`"
        )

    def candidates(self, policy: NumericalExecutionPolicy) -> tuple[NumericalExecutionProfile, ...]:
        """Auto: the auto preference in order (empty is an error); Require(id): that profile."""
        if policy.require is not None:
            return (self.resolve(policy.require),)
        if not self.auto_preference:
            family = self.profiles[0].family_id.value if self.profiles else ""
            raise InvalidModelConfig(  # rule: 02.6.2/auto_candidates_unused
                family_id=family, field=FIELD, reason="family has no automatic profile"
            )
        return tuple(self.resolve(pid) for pid in self.auto_preference)

    def to_wire(self) -> JsonValue:
        return {
            "version": self.version.to_wire(),
            "profiles": [p.to_wire() for p in self.profiles],
            "auto_preference": [p.to_wire() for p in self.auto_preference],
        }
