"""Program states: ``StateSpec`` and its parts (spec 02 §10.1).

``StateSpec`` decoding is strict (deny_unknown_fields) and validating: the tensor,
the capacity demand against the tensor's byte length, and the checkpoint
capability against the lifetime. The checkpoint is omitted from the wire when
unsupported.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any, Final

from reference.canonical import JsonValue
from reference.errors import InvalidExecutionPlan, Serialization
from reference.ids import ProgramValueId, StateId
from reference.ints import check_uint, checked_mul
from reference.model.tensor import ProgramTensorSpec
from reference.versions import ContractVersion
from reference.wire import WireObject, decode_with, read_enum, read_tagged_enum

__all__ = [
    "STATE_CHECKPOINT_CONTRACT_VERSION",
    "CheckpointContents",
    "CheckpointInputDependency",
    "StateCapacityDemand",
    "StateCheckpointCapability",
    "StateInitialization",
    "StateLifetime",
    "StateSpec",
]

STATE_CHECKPOINT_CONTRACT_VERSION: Final = ContractVersion(1, 0)


class StateLifetime(Enum):
    REQUEST = "request"
    SEQUENCE = "sequence"
    STEP = "step"


class StateInitialization(Enum):
    NONE = "none"
    ZERO = "zero"


class CheckpointContents(Enum):
    PREFIX_POSITIONS = "prefix_positions"
    BOUNDARY_VALUE = "boundary_value"


class CheckpointInputDependency(Enum):
    EXACT_TOKEN_PREFIX = "exact_token_prefix"
    ENTIRE_TOKEN_INPUT = "entire_token_input"


@dataclass(frozen=True, slots=True)
class StateCapacityDemand:
    """``"fixed_per_scope"`` (``token_scaled`` None) or ``{"token_scaled": {...}}``."""

    bytes_per_token: int | None = None
    maximum_tokens: int | None = None

    def __post_init__(self) -> None:
        if (self.bytes_per_token is None) != (self.maximum_tokens is None):
            raise ValueError("token_scaled needs both bytes_per_token and maximum_tokens")
        if self.bytes_per_token is not None:
            check_uint(self.bytes_per_token, 64, "bytes_per_token")
            check_uint(self.maximum_tokens, 64, "maximum_tokens")

    @classmethod
    def fixed_per_scope(cls) -> StateCapacityDemand:
        return cls()

    @classmethod
    def token_scaled(cls, bytes_per_token: int, maximum_tokens: int) -> StateCapacityDemand:
        return cls(bytes_per_token, maximum_tokens)

    @property
    def is_token_scaled(self) -> bool:
        return self.bytes_per_token is not None

    def validate(self, tensor_bytes: int) -> None:
        """fixed: tensor bytes > 0; token_scaled: bytes_per_token >= tensor bytes, max tokens > 0, no overflow."""
        if self.bytes_per_token is None or self.maximum_tokens is None:
            if tensor_bytes == 0:
                raise InvalidExecutionPlan(  # rule: 02.10.1/fixed_demand_non_empty
                    reason="fixed state capacity needs a non-empty tensor"
                )
            return
        if self.bytes_per_token < tensor_bytes:
            raise InvalidExecutionPlan(  # rule: 02.10.1/token_scaled_bytes_per_token
                reason="token-scaled state bytes_per_token is below the tensor size"
            )
        if self.maximum_tokens == 0:
            raise InvalidExecutionPlan(  # rule: 02.10.1/token_scaled_maximum_tokens
                reason="token-scaled state maximum_tokens must be non-zero"
            )
        if checked_mul(self.bytes_per_token, self.maximum_tokens) is None:
            raise InvalidExecutionPlan(  # rule: 02.10.1/token_scaled_overflow
                reason="token-scaled state capacity overflows u64"
            )

    def minimum_bytes(self, tensor_bytes: int) -> int:
        return tensor_bytes if self.bytes_per_token is None else self.bytes_per_token

    def theoretical_bytes(self, tensor_bytes: int) -> int:
        if self.bytes_per_token is None or self.maximum_tokens is None:
            return tensor_bytes
        total = checked_mul(self.bytes_per_token, self.maximum_tokens)
        if total is None:
            raise InvalidExecutionPlan(  # rule: 02.10.1/theoretical_bytes_unused
                reason="token-scaled state capacity overflows u64"
            )
        return total

    def to_wire(self) -> JsonValue:
        if self.bytes_per_token is None:
            return "fixed_per_scope"
        return {"token_scaled": {"bytes_per_token": self.bytes_per_token, "maximum_tokens": self.maximum_tokens}}

    @classmethod
    def from_wire(cls, raw: Any, context: str, path: str = "$") -> StateCapacityDemand:
        """Strict decode; validates with a tensor length of 1."""
        tag, content = read_tagged_enum(raw, ("fixed_per_scope",), ("token_scaled",), context=context, path=path)
        if tag == "fixed_per_scope":
            return cls()
        f = WireObject(  # rule when 01.3.6/decode_unknown_field: 02.1/deny_unknown_state_capacity_demand
            content,
            ("bytes_per_token", "maximum_tokens"),
            type_name="token_scaled",
            context=context,
            path=f"{path}.token_scaled",
        )
        demand = cls(f.u64("bytes_per_token"), f.u64("maximum_tokens"))
        decode_with(
            lambda: demand.validate(1),
            context=context,
            path=path,
            argument_errors=False,
        )  # rule when 01.5/validating_wire_constructor_errors_are_serialization: 02.10.1/demand_decode_validates_t1
        return demand


@dataclass(frozen=True, slots=True)
class StateCheckpointCapability:
    """``"unsupported"`` when ``contents`` is None, else a completed-boundary contract (version 1.0)."""

    contents: CheckpointContents | None = None
    input_dependency: CheckpointInputDependency | None = None
    contract_version: ContractVersion = STATE_CHECKPOINT_CONTRACT_VERSION

    def __post_init__(self) -> None:
        if (self.contents is None) != (self.input_dependency is None):
            raise ValueError("a completed boundary needs both contents and input_dependency")

    @classmethod
    def unsupported(cls) -> StateCheckpointCapability:
        return cls()

    @property
    def is_supported(self) -> bool:
        return self.contents is not None

    def validate_lifetime(self, lifetime: StateLifetime) -> None:
        """A supported checkpoint needs ``sequence`` lifetime (bare ``InvalidExecutionPlan``)."""
        if self.is_supported and lifetime is not StateLifetime.SEQUENCE:
            raise InvalidExecutionPlan(  # rule: 02.10.1/checkpoint_requires_sequence
                reason="state checkpoints require sequence lifetime"
            )

    def to_wire(self) -> JsonValue:
        if self.contents is None or self.input_dependency is None:
            return "unsupported"
        return {
            "completed_boundary": {
                "contract_version": self.contract_version.to_wire(),
                "contents": self.contents.value,
                "input_dependency": self.input_dependency.value,
            }
        }

    @classmethod
    def from_wire(cls, raw: Any, context: str, path: str = "$") -> StateCheckpointCapability:
        tag, content = read_tagged_enum(raw, ("unsupported",), ("completed_boundary",), context=context, path=path)
        if tag == "unsupported":
            return cls()
        inner = f"{path}.completed_boundary"
        f = WireObject(  # rule when 01.3.6/decode_unknown_field: 02.1/deny_unknown_state_checkpoint_contract
            content,
            ("contract_version", "contents", "input_dependency"),
            type_name="StateCheckpointContract",
            context=context,
            path=inner,
        )
        version = f.version("contract_version")
        if version != STATE_CHECKPOINT_CONTRACT_VERSION:
            raise Serialization(  # rule: 02.10.1/checkpoint_contract_version
                context, f"{inner}.contract_version: state checkpoint contract must be 1.0"
            )
        contents = CheckpointContents(
            read_enum(f.raw("contents"), [c.value for c in CheckpointContents], context=context, path=f.at("contents"))
        )
        dependency = CheckpointInputDependency(
            read_enum(
                f.raw("input_dependency"),
                [d.value for d in CheckpointInputDependency],
                context=context,
                path=f.at("input_dependency"),
            )
        )
        return cls(contents, dependency, version)


@dataclass(frozen=True, slots=True)
class StateSpec:
    """A program state: id, value id, tensor, lifetime, capacity demand, initialization, checkpoint."""

    id: StateId
    value_id: ProgramValueId
    tensor: ProgramTensorSpec
    lifetime: StateLifetime
    capacity_demand: StateCapacityDemand = StateCapacityDemand()
    initialization: StateInitialization = StateInitialization.ZERO
    checkpoint: StateCheckpointCapability = StateCheckpointCapability()

    def to_wire(self) -> JsonValue:
        out: dict[str, JsonValue] = {
            "id": self.id.to_wire(),
            "value_id": self.value_id.to_wire(),
            "tensor": self.tensor.to_wire(),
            "lifetime": self.lifetime.value,
            "capacity_demand": self.capacity_demand.to_wire(),
            "initialization": self.initialization.value,
        }
        if self.checkpoint.is_supported:
            out["checkpoint"] = self.checkpoint.to_wire()
        return out

    @classmethod
    def decode_parts(cls, raw: Any, context: str, path: str = "$") -> StateSpec:
        """Structural decode (deny_unknown_fields) without the semantic checks."""
        f = WireObject(
            raw,
            ("id", "value_id", "tensor", "lifetime", "capacity_demand", "initialization"),
            ("checkpoint",),
            type_name="StateSpec",  # rule when 01.3.6/decode_unknown_field: 02.1/deny_unknown_state_spec
            context=context,
            path=path,
        )
        lifetime = StateLifetime(
            read_enum(f.raw("lifetime"), [x.value for x in StateLifetime], context=context, path=f.at("lifetime"))
        )
        initialization = StateInitialization(
            read_enum(
                f.raw("initialization"),
                [x.value for x in StateInitialization],
                context=context,
                path=f.at("initialization"),
            )
        )
        checkpoint = (
            f.nested("checkpoint", StateCheckpointCapability.from_wire)
            if "checkpoint" in f
            else StateCheckpointCapability()
        )
        return cls(
            f.identity("id", StateId),
            f.identity("value_id", ProgramValueId),
            f.nested("tensor", ProgramTensorSpec.from_wire),
            lifetime,
            f.nested("capacity_demand", StateCapacityDemand.from_wire),
            initialization,
            checkpoint,
        )

    def validate_spec(self) -> None:
        """The decode-time checks: tensor, capacity demand vs byte length, checkpoint vs lifetime."""
        self.tensor.validate("state_spec.tensor")
        self.capacity_demand.validate(self.tensor.byte_len())
        self.checkpoint.validate_lifetime(self.lifetime)

    @classmethod
    def from_wire(cls, raw: Any, context: str, path: str = "$") -> StateSpec:
        """Strict, validating decode; contract failures become ``Serialization``."""
        spec = cls.decode_parts(raw, context, path)
        decode_with(spec.validate_spec, context=context, path=path, argument_errors=False)
        return spec
