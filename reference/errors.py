"""The VNextError catalogue (spec 01 §6) as one exception hierarchy.

Every variant carries its contract fields, a stable machine-readable ``kind``
(the Rust variant name in snake_case) and serializes to
``{"kind": <kind>, <fields>..., "message": <text>}`` for reports and the
harness protocol. Two contract fields are themselves called ``kind``; in the
error object they are spelled ``identity_kind`` (InvalidIdentity) and
``fault_kind`` (DynamicAdmissionContract) so they cannot shadow the variant
kind (docs/decisions.md, D-01-5).

Conformance matches on ``kind`` and the structured fields, never on
``message``.
"""

from __future__ import annotations

import reprlib
from collections.abc import Mapping
from typing import Any, ClassVar, Final

from reference.ints import fits_uint

__all__ = [
    "ERROR_KINDS",
    "AmbiguousModelFamilyRegistration",
    "DeviceCapacityUnavailable",
    "DynamicAdmissionContract",
    "DynamicPoolResidentUnavailable",
    "DynamicResourceAdmissionRequired",
    "IncompatibleOperationVersion",
    "InvalidExecutionPlan",
    "InvalidIdentity",
    "InvalidLeaseTransition",
    "InvalidModelConfig",
    "InvalidResolvedModelPlan",
    "InvalidResourceTransition",
    "PlanHashMismatch",
    "Serialization",
    "UnknownExternalModelMetadata",
    "UnknownModelFamily",
    "UnknownWeightLayout",
    "UnsupportedOperation",
    "UnsupportedPlanSchema",
    "VNextError",
    "WeightMaterializerQualityApprovalRequired",
    "clip",
    "error_from_dict",
    "invalid_plan",
    "preview",
]

#: Characters of one echoed value in a message.
PREVIEW_CHARS: Final = 200
#: Characters of a ``Serialization`` message (its text echoes untrusted input).
MAX_MESSAGE_CHARS: Final = 1024


class _Preview(reprlib.Repr):
    """``repr`` bounded in length and depth, whatever the value (huge strings, deep nesting, long integers)."""

    def __init__(self) -> None:
        super().__init__()
        self.maxlevel = 4
        self.maxstring = PREVIEW_CHARS
        self.maxother = PREVIEW_CHARS
        self.maxlong = 60
        self.maxdict = 6
        self.maxlist = 8

    def repr_int(self, x: int, level: int) -> str:
        if x.bit_length() > 200:  # past ~60 digits; also where str(int) would refuse (4300 digits)
            return f"<{x.bit_length()}-bit integer>"
        text: str = super().repr_int(x, level)
        return text


_PREVIEW: Final = _Preview()


def clip(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, marking the cut."""
    return text if len(text) <= limit else text[: max(limit - 3, 0)] + "..."


def preview(value: object, limit: int = PREVIEW_CHARS) -> str:
    """A bounded ``repr`` of an untrusted value for a message: at most ``limit`` characters, never recursing
    deeper than a few levels (so a deep value cannot exhaust the stack)."""
    return clip(_PREVIEW.repr(value), limit)


class VNextError(Exception):
    """Base of every contract error. Subclasses declare ``kind`` and ``fields``."""

    kind: ClassVar[str] = "vnext_error"
    #: Contract field names, in declaration order, with their JSON types
    #: ("string", "optional_string", "u16", "usize", "u64").
    fields: ClassVar[tuple[tuple[str, str], ...]] = ()

    def __init__(self, **values: Any) -> None:
        expected = {name for name, _ in self.fields}
        unknown = set(values) - expected
        missing = expected - set(values)
        if unknown or missing:
            raise TypeError(
                f"{type(self).__name__} takes fields {sorted(expected)}; "
                f"unknown {sorted(unknown)}, missing {sorted(missing)}"
            )
        for name, type_name in self.fields:
            _check_field(type(self).__name__, name, type_name, values[name])
            object.__setattr__(self, name, values[name])
        super().__init__(self.message)

    @property
    def message(self) -> str:
        """Informational text; never matched by conformance. Each field is shown as a bounded preview, so a
        message never repeats a long value (the value itself stays whole in its field)."""
        parts = ", ".join(f"{name}={preview(getattr(self, name))}" for name, _ in self.fields)
        return f"{self.kind}: {parts}" if parts else self.kind

    def field_values(self) -> dict[str, Any]:
        """The structured fields, in declaration order."""
        return {name: getattr(self, name) for name, _ in self.fields}

    def to_dict(self) -> dict[str, Any]:
        """The error object: ``{"kind", <fields>..., "message"}``."""
        out: dict[str, Any] = {"kind": self.kind}
        out.update(self.field_values())
        out["message"] = self.message
        return out

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, VNextError):
            return NotImplemented
        return self.kind == other.kind and self.field_values() == other.field_values()

    def __hash__(self) -> int:
        return hash((self.kind, tuple(sorted(self.field_values().items(), key=lambda kv: kv[0]))))

    def __repr__(self) -> str:
        parts = ", ".join(f"{name}={preview(getattr(self, name))}" for name, _ in self.fields)
        return f"{type(self).__name__}({parts})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild, (type(self), self.field_values()))


def _rebuild(cls: type[VNextError], values: dict[str, Any]) -> VNextError:
    return cls(**values)


def _check_field(owner: str, name: str, type_name: str, value: Any) -> None:
    ok: bool
    if type_name == "string":
        ok = isinstance(value, str)
    elif type_name == "optional_string":
        ok = value is None or isinstance(value, str)
    elif type_name == "u16":
        ok = fits_uint(value, 16)
    elif type_name in ("usize", "u64"):
        ok = fits_uint(value, 64)
    else:  # pragma: no cover - programming error in a declaration
        raise AssertionError(type_name)
    if not ok:
        raise TypeError(f"{owner}.{name} must be {type_name}, got {preview(value)}")


class InvalidIdentity(VNextError):
    """An identity constructor rejected its input (spec 01 §1)."""

    kind = "invalid_identity"
    fields = (("identity_kind", "string"), ("value", "string"), ("reason", "string"))
    identity_kind: str
    value: str
    reason: str


class UnknownModelFamily(VNextError):
    kind = "unknown_model_family"
    fields = (("family_id", "string"),)
    family_id: str


class UnknownExternalModelMetadata(VNextError):
    kind = "unknown_external_model_metadata"
    fields = (("metadata_id", "string"),)
    metadata_id: str


class AmbiguousModelFamilyRegistration(VNextError):
    """``identity_kind`` is ``internal family`` or ``external metadata``; ``matches >= 2``."""

    kind = "ambiguous_model_family_registration"
    fields = (("identity_kind", "string"), ("identity", "string"), ("matches", "usize"))
    identity_kind: str
    identity: str
    matches: int


class InvalidModelConfig(VNextError):
    kind = "invalid_model_config"
    fields = (("family_id", "string"), ("field", "string"), ("reason", "string"))
    family_id: str
    field: str
    reason: str


class UnknownWeightLayout(VNextError):
    kind = "unknown_weight_layout"
    fields = (("family_id", "string"), ("layout_id", "string"))
    family_id: str
    layout_id: str


class IncompatibleOperationVersion(VNextError):
    """``node_id`` is set when the check is node-scoped."""

    kind = "incompatible_operation_version"
    fields = (
        ("node_id", "optional_string"),
        ("operation_id", "string"),
        ("required_major", "u16"),
        ("required_minor", "u16"),
        ("available_major", "u16"),
        ("available_minor", "u16"),
    )
    node_id: str | None
    operation_id: str
    required_major: int
    required_minor: int
    available_major: int
    available_minor: int


class UnsupportedOperation(VNextError):
    kind = "unsupported_operation"
    fields = (
        ("node_id", "optional_string"),
        ("operation_id", "string"),
        ("device_id", "string"),
        ("reason", "string"),
    )
    node_id: str | None
    operation_id: str
    device_id: str
    reason: str


class InvalidExecutionPlan(VNextError):
    kind = "invalid_execution_plan"
    fields = (("reason", "string"),)
    reason: str


class WeightMaterializerQualityApprovalRequired(VNextError):
    """Declared for completeness; the seed-002 behaviour raises InvalidExecutionPlan."""

    kind = "weight_materializer_quality_approval_required"
    fields = (("materializer_id", "string"),)
    materializer_id: str


class DynamicAdmissionContract(VNextError):
    kind = "dynamic_admission_contract"
    fields = (("fault_kind", "string"), ("reason", "string"))
    fault_kind: str
    reason: str


class DeviceCapacityUnavailable(VNextError):
    kind = "device_capacity_unavailable"
    fields = (("pressure", "string"),)
    pressure: str


class DynamicPoolResidentUnavailable(VNextError):
    kind = "dynamic_pool_resident_unavailable"
    fields = (("pressure", "string"),)
    pressure: str


class DynamicResourceAdmissionRequired(VNextError):
    kind = "dynamic_resource_admission_required"
    fields = (("descriptor_count", "usize"), ("minimum_sequence_bytes", "u64"))
    descriptor_count: int
    minimum_sequence_bytes: int


class UnsupportedPlanSchema(VNextError):
    kind = "unsupported_plan_schema"
    fields = (
        ("expected_major", "u16"),
        ("expected_minor", "u16"),
        ("actual_major", "u16"),
        ("actual_minor", "u16"),
    )
    expected_major: int
    expected_minor: int
    actual_major: int
    actual_minor: int


class PlanHashMismatch(VNextError):
    """``expected`` is the recomputed or rebuilt hash, ``actual`` the carried one."""

    kind = "plan_hash_mismatch"
    fields = (("expected", "string"), ("actual", "string"))
    expected: str
    actual: str


class InvalidResourceTransition(VNextError):
    kind = "invalid_resource_transition"
    fields = (("resource_id", "string"), ("from_state", "string"), ("action", "string"))
    resource_id: str
    from_state: str
    action: str


class InvalidLeaseTransition(VNextError):
    kind = "invalid_lease_transition"
    fields = (("lease_id", "string"), ("from_state", "string"), ("action", "string"))
    lease_id: str
    from_state: str
    action: str


class InvalidResolvedModelPlan(VNextError):
    kind = "invalid_resolved_model_plan"
    fields = (("field", "string"), ("reason", "string"))
    field: str
    reason: str


class Serialization(VNextError):
    """Any failure at a decode or encode boundary, or a wire byte cap exceeded.

    ``message_text`` is free text that often echoes the refused input; it is cut to
    ``MAX_MESSAGE_CHARS`` characters.
    """

    kind = "serialization"
    fields = (("context", "string"), ("message_text", "string"))
    context: str
    message_text: str

    def __init__(self, context: str, message_text: str) -> None:
        text = clip(message_text, MAX_MESSAGE_CHARS) if isinstance(message_text, str) else message_text
        super().__init__(context=context, message_text=text)

    @property
    def message(self) -> str:
        return f"{self.context}: {self.message_text}"

    def to_dict(self) -> dict[str, Any]:
        # The contract field is called ``message``; the object's informational
        # ``message`` is the same text, so it is written once.
        return {"kind": self.kind, "context": self.context, "message": self.message_text}


_ALL: tuple[type[VNextError], ...] = (
    InvalidIdentity,
    UnknownModelFamily,
    UnknownExternalModelMetadata,
    AmbiguousModelFamilyRegistration,
    InvalidModelConfig,
    UnknownWeightLayout,
    IncompatibleOperationVersion,
    UnsupportedOperation,
    InvalidExecutionPlan,
    WeightMaterializerQualityApprovalRequired,
    DynamicAdmissionContract,
    DeviceCapacityUnavailable,
    DynamicPoolResidentUnavailable,
    DynamicResourceAdmissionRequired,
    UnsupportedPlanSchema,
    PlanHashMismatch,
    InvalidResourceTransition,
    InvalidLeaseTransition,
    InvalidResolvedModelPlan,
    Serialization,
)

#: kind string -> variant class, in the contract's declaration order.
ERROR_KINDS: Mapping[str, type[VNextError]] = {cls.kind: cls for cls in _ALL}


def invalid_plan(reason: str) -> InvalidExecutionPlan:
    """``InvalidExecutionPlan{reason}`` (upstream ``invalid_plan``): what every structural planning rule raises."""
    return InvalidExecutionPlan(reason=reason)


def error_from_dict(obj: Mapping[str, Any]) -> VNextError:
    """Rebuild an error from its error object (the harness protocol's form).

    Raises ``Serialization`` when the object is not a well-formed error object.
    """
    if not isinstance(obj, Mapping):
        raise Serialization(  # rule: 01.6/error_object_decode
            "decode error object", "error object must be a JSON object"
        )
    kind = obj.get("kind")
    cls = ERROR_KINDS.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise Serialization(  # rule: 01.6/error_object_decode
            "decode error object", f"unknown error kind {preview(kind, 80)}"
        )
    if cls is Serialization:
        allowed = {"kind", "context", "message"}
        if set(obj) != allowed:
            raise Serialization(  # rule: 01.6/error_object_decode
                "decode error object", "serialization error needs exactly kind, context, message"
            )
        context, message = obj["context"], obj["message"]
        if not isinstance(context, str) or not isinstance(message, str):
            raise Serialization(  # rule: 01.6/error_object_decode
                "decode error object", "context and message must be strings"
            )
        return Serialization(context, message)
    names = [name for name, _ in cls.fields]
    extra = set(obj) - set(names) - {"kind", "message"}
    missing = [name for name in names if name not in obj]
    if extra or missing:
        raise Serialization(  # rule: 01.6/error_object_decode
            "decode error object",
            f"{kind}: unknown fields {sorted(extra)}, missing fields {missing}",
        )
    try:
        return cls(**{name: obj[name] for name in names})
    except TypeError as exc:
        raise Serialization("decode error object", str(exc)) from None  # rule: 01.6/error_object_decode
