"""Unit-variant policy enums (spec 04 §2) and their wire spellings.

All are serde unit variants rendered as JSON strings. ``AttentionExecutionPolicy``
lives in crate ferrum-types and is spelled in kebab-case; the others are
snake_case. ``ExecutionDeterminismRequirement`` is defined beside the provider
execution semantics it judges (``reference.catalog.execution_semantics``).
"""

from __future__ import annotations

from reference.catalog.execution_semantics import ExecutionDeterminismRequirement, accepts_execution_semantics
from reference.wire import WireEnum

__all__ = [
    "AdmissionFitPolicy",
    "AttentionExecutionPolicy",
    "ExecutionDeterminismRequirement",
    "SchedulingDiscipline",
    "accepts_execution_semantics",
]


class SchedulingDiscipline(WireEnum):
    """Scheduling discipline; planning never checks it semantically."""

    FIRST_READY = "first_ready"
    PRIORITY = "priority"
    DEADLINE = "deadline"


class AdmissionFitPolicy(WireEnum):
    """How much of a sequence must fit to admit it (decodable: decision D-04-3)."""

    IMMEDIATE_ONLY = "immediate_only"
    FULL_INPUT_MUST_FIT = "full_input_must_fit"


class AttentionExecutionPolicy(WireEnum):
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
