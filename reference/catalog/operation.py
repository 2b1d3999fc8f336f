"""``OperationDescriptor`` (spec 03 §5): one operation's versioned contract.

Constructing or decoding a descriptor does not validate it (public fields,
derived serde, unknown top-level keys ignored); ``validate()`` runs the §5.3
checks and ``fingerprint()`` = sha256 of the struct-order (direct) JSON bytes
after ``validate()``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from reference.canonical import direct_fingerprint
from reference.catalog._common import OrderedEnum, identity_set_from_wire, identity_set_to_wire
from reference.catalog.attributes import AttributeSchema
from reference.catalog.element_type import ElementType
from reference.catalog.oracle import OracleSpec
from reference.catalog.resources import ResourceRequirements
from reference.catalog.tensor_contract import NoAlias, TensorAccess, TensorContract
from reference.errors import invalid_plan
from reference.ids import AttributeId, CapabilityId, OperationId
from reference.ints import is_power_of_two
from reference.model.semantic_value import SemanticValue
from reference.versions import ContractVersion
from reference.wire import WireObject

__all__ = ["OperationDescriptor", "ProfilePhase", "ProviderRequirement"]


class ProfilePhase(OrderedEnum):
    """``load`` | ``prepare`` | ``forward`` | ``prefill`` | ``decode`` | ``transfer`` | ``synchronize``."""

    LOAD = "load"
    PREPARE = "prepare"
    FORWARD = "forward"
    PREFILL = "prefill"
    DECODE = "decode"
    TRANSFER = "transfer"
    SYNCHRONIZE = "synchronize"


@dataclass(frozen=True, slots=True)
class ProviderRequirement:
    """What every provider of the operation must offer; derived serde, unknown keys ignored."""

    minimum_version: ContractVersion
    required_capabilities: frozenset[CapabilityId]

    def to_wire(self) -> dict[str, Any]:
        return {
            "minimum_version": self.minimum_version.to_wire(),
            "required_capabilities": identity_set_to_wire(self.required_capabilities),
        }

    @classmethod
    def from_wire(
        cls, raw: Any, *, context: str = "decode provider requirement", path: str = "$"
    ) -> ProviderRequirement:
        fields = ("minimum_version", "required_capabilities")
        obj = WireObject(raw, fields, type_name="ProviderRequirement", context=context, path=path, lenient=True)
        return cls(
            ContractVersion.from_wire(obj.raw("minimum_version"), context=context),
            identity_set_from_wire(
                obj.raw("required_capabilities"), CapabilityId, context=context, path=obj.at("required_capabilities")
            ),
        )


OPERATION_WIRE_FIELDS: Final = (
    "id",
    "version",
    "inputs",
    "outputs",
    "attributes",
    "resources",
    "oracle",
    "provider",
    "profile_phase",
)


@dataclass(frozen=True, slots=True)
class OperationDescriptor:
    """Public-field struct; nothing is validated until ``validate``/``fingerprint``/a catalog."""

    id: OperationId
    version: ContractVersion
    inputs: tuple[TensorContract, ...]
    outputs: tuple[TensorContract, ...]
    attributes: AttributeSchema
    resources: ResourceRequirements
    oracle: OracleSpec
    provider: ProviderRequirement
    profile_phase: ProfilePhase
    _fingerprint: list[str] = field(default_factory=list, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "inputs", tuple(self.inputs))
        object.__setattr__(self, "outputs", tuple(self.outputs))

    def validate(self) -> None:
        """§5.3 in order; the first failure raises ``InvalidExecutionPlan``."""
        oid = self.id.value
        if self.version.major == 0:
            raise invalid_plan(  # rule: 03.5.3/version_major_zero
                f"operation `{oid}` has an unstable zero major version"
            )
        if not self.outputs:
            raise invalid_plan(f"operation `{oid}` has no outputs")  # rule: 03.5.3/no_outputs
        for index, contract in enumerate(self.inputs):
            contract.validate(f"operation.{oid}.inputs[{index}]")
            semantics = f"operation `{oid}` input {index} has invalid access or alias semantics"
            if contract.access not in (TensorAccess.READ, TensorAccess.READ_WRITE):
                raise invalid_plan(semantics)  # rule: 03.5.3/input_not_readable
            if not isinstance(contract.alias, NoAlias):
                raise invalid_plan(semantics)  # rule: 03.5.3/input_aliased
        for index, contract in enumerate(self.outputs):
            contract.validate(f"operation.{oid}.outputs[{index}]")
            if contract.access not in (TensorAccess.WRITE, TensorAccess.READ_WRITE):
                raise invalid_plan(  # rule: 03.5.3/output_not_writable
                    f"operation `{oid}` output {index} is not writable"
                )
            target = contract.alias.tensor_index
            if target is not None and target >= len(self.inputs):
                raise invalid_plan(  # rule: 03.5.3/output_alias_out_of_range
                    f"operation `{oid}` output {index} aliases no input"
                )
        alignment = self.resources.minimum_value_alignment_bytes
        if alignment == 0:
            raise invalid_plan(f"operation `{oid}` has invalid resource requirements")  # rule: 03.5.3/alignment_zero
        if not is_power_of_two(alignment):
            raise invalid_plan(  # rule: 03.5.3/alignment_not_power_of_two
                f"operation `{oid}` has invalid resource requirements"
            )
        tolerance = self.oracle.tolerance
        if tolerance is not None:
            if tolerance.numerator < 0:
                raise invalid_plan(  # rule: 03.5.3/negative_tolerance
                    f"operation `{oid}` has a negative oracle tolerance"
                )
            if any(ElementType.BOOL in out.element_types for out in self.outputs):
                raise invalid_plan(  # rule: 03.5.3/tolerance_bool_output
                    f"operation `{oid}` applies numeric oracle tolerance to a possible boolean output"
                )
        if self.provider.minimum_version.major == 0:
            raise invalid_plan(  # rule: 03.5.3/provider_minimum_major_zero
                f"operation `{oid}` has a zero provider major version"
            )
        if self.provider.minimum_version.major != self.version.major:
            raise invalid_plan(  # rule: 03.5.3/provider_major_mismatch
                f"operation `{oid}` version and provider minimum version have incompatible majors"
            )

    def fingerprint(self) -> str:
        """``validate()`` then sha256 of the struct-order compact JSON (once: the descriptor is immutable)."""
        if not self._fingerprint:
            self.validate()
            self._fingerprint.append(direct_fingerprint(self.to_wire(), context="serialize operation descriptor"))
        return self._fingerprint[0]

    def validate_attributes(self, values: Mapping[AttributeId, SemanticValue]) -> None:
        """``attributes.validate_values(values, "operation.<id>.attributes")``."""
        self.attributes.validate_values(values, f"operation.{self.id.value}.attributes")

    def to_wire(self) -> dict[str, Any]:
        return {
            "id": self.id.value,
            "version": self.version.to_wire(),
            "inputs": [c.to_wire() for c in self.inputs],
            "outputs": [c.to_wire() for c in self.outputs],
            "attributes": self.attributes.to_wire(),
            "resources": self.resources.to_wire(),
            "oracle": self.oracle.to_wire(),
            "provider": self.provider.to_wire(),
            "profile_phase": self.profile_phase.to_wire(),
        }

    @classmethod
    def from_wire(
        cls, raw: Any, *, context: str = "decode operation descriptor", path: str = "$"
    ) -> OperationDescriptor:
        """Derived decode: unknown top-level keys are ignored and ``validate`` is NOT run."""
        obj = WireObject(
            raw, OPERATION_WIRE_FIELDS, type_name="OperationDescriptor", context=context, path=path, lenient=True
        )
        return cls(
            id=obj.identity("id", OperationId),
            version=ContractVersion.from_wire(obj.raw("version"), context=context),
            inputs=tuple(
                TensorContract.from_wire(c, context=context, path=f"{obj.at('inputs')}[{i}]")
                for i, c in enumerate(obj.array("inputs"))
            ),
            outputs=tuple(
                TensorContract.from_wire(c, context=context, path=f"{obj.at('outputs')}[{i}]")
                for i, c in enumerate(obj.array("outputs"))
            ),
            attributes=AttributeSchema.from_wire(obj.raw("attributes"), context=context, path=obj.at("attributes")),
            resources=ResourceRequirements.from_wire(obj.raw("resources"), context=context, path=obj.at("resources")),
            oracle=OracleSpec.from_wire(obj.raw("oracle"), context=context, path=obj.at("oracle")),
            provider=ProviderRequirement.from_wire(obj.raw("provider"), context=context, path=obj.at("provider")),
            profile_phase=ProfilePhase.from_wire(
                obj.raw("profile_phase"), context=context, path=obj.at("profile_phase")
            ),
        )
