"""Unit-variant policy enums (spec 04 §2) and their wire spellings.

All are serde unit variants rendered as JSON strings. ``AttentionExecutionPolicy``
lives in crate ferrum-types and is spelled in kebab-case; the others are
snake_case.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Self

from reference.wire import read_enum

__all__ = [
    "AdmissionFitPolicy",
    "AttentionExecutionPolicy",
    "ExecutionDeterminismRequirement",
    "SchedulingDiscipline",
    "accepts_execution_semantics",
]


class _WireEnum(StrEnum):
    """A unit-variant enum whose wire form is its value string."""

    def to_wire(self) -> str:
        return self.value

    @classmethod
    def from_wire(cls, raw: Any, *, context: str, path: str = "$") -> Self:
        """Decode the exact spelling; anything else is ``Serialization``."""
        return cls(read_enum(raw, [member.value for member in cls], context=context, path=path))


class SchedulingDiscipline(_WireEnum):
    """Scheduling discipline; planning never checks it semantically."""

    FIRST_READY = "first_ready"
    PRIORITY = "priority"
    DEADLINE = "deadline"


class AdmissionFitPolicy(_WireEnum):
    """How much of a sequence must fit to admit it (decodable: decision D-04-3)."""

    IMMEDIATE_ONLY = "immediate_only"
    FULL_INPUT_MUST_FIT = "full_input_must_fit"


class AttentionExecutionPolicy(_WireEnum):
    """Attention family (kebab-case on the wire). ``auto`` is the only unresolved value."""

    AUTO = "auto"
    PORTABLE = "portable"
    NATIVE_ADAPTIVE = "native-adaptive"

    @classmethod
    def default(cls) -> AttentionExecutionPolicy:
        return cls.AUTO

    def is_resolved(self) -> bool:
        """True for every value except ``auto``."""
        return self is not AttentionExecutionPolicy.AUTO

    def resolve(self, native_supported: bool) -> AttentionExecutionPolicy:
        """``auto`` picks native-adaptive when supported, else portable.

        Asking for native-adaptive without support is an error (``ValueError``:
        the error type lives in ferrum-types, outside the vnext catalogue).
        """
        if self is AttentionExecutionPolicy.AUTO:
            return AttentionExecutionPolicy.NATIVE_ADAPTIVE if native_supported else AttentionExecutionPolicy.PORTABLE
        if self is AttentionExecutionPolicy.NATIVE_ADAPTIVE and not native_supported:
            raise ValueError("native-adaptive attention requested but the device does not support it")
        return self


_BITWISE_SAME_RUNTIME = "bitwise_same_runtime"
_BITWISE_EAGER_EQUIVALENT = "bitwise_eager_equivalent"


def _semantics_wire(semantics: Any) -> dict[str, Any]:
    wire = semantics.to_wire() if hasattr(semantics, "to_wire") else semantics
    if not isinstance(wire, dict):
        raise TypeError("execution semantics must be a ProviderExecutionSemantics or its wire object")
    return wire


def accepts_execution_semantics(requirement: ExecutionDeterminismRequirement, semantics: Any) -> bool:
    """Whether ``semantics`` (an object with ``to_wire()`` or its wire dict) meets ``requirement``."""
    wire = _semantics_wire(semantics)
    if wire.get("repeatability") != _BITWISE_SAME_RUNTIME:
        return False
    if requirement is ExecutionDeterminismRequirement.BITWISE_SAME_RUNTIME:
        return True
    return wire.get("replay_equivalence") == _BITWISE_EAGER_EQUIVALENT


class ExecutionDeterminismRequirement(_WireEnum):
    """Minimum repeatability every selected provider must prove."""

    BITWISE_SAME_RUNTIME = "bitwise_same_runtime"
    BITWISE_SAME_RUNTIME_WITH_REPLAY = "bitwise_same_runtime_with_replay"

    def requires_replay_equivalence(self) -> bool:
        return self is ExecutionDeterminismRequirement.BITWISE_SAME_RUNTIME_WITH_REPLAY

    def accepts(self, semantics: Any) -> bool:
        """Repeatability must be bitwise_same_runtime; the replay variant also needs
        replay_equivalence bitwise_eager_equivalent. ``semantics`` is a provider's
        ProviderExecutionSemantics (anything with ``to_wire()``) or its wire dict."""
        return accepts_execution_semantics(self, semantics)
