"""Identifier newtypes (spec 01 §1) and contract versions (spec 01 §2).

The portable-identity rule: 1..=160 UTF-8 bytes, each in ``A-Za-z0-9._:/-``;
checks run in that order and the first failure names the reason. Nothing is
normalised. Identities order, compare and hash as their strings.
"""

from __future__ import annotations

import re
from functools import total_ordering
from typing import Any, ClassVar, Final, TypeVar

from reference.errors import InvalidExecutionPlan, InvalidIdentity, InvalidResolvedModelPlan, Serialization
from reference.versions import ContractVersion, PlanSchemaVersion

__all__ = [
    "IDENTITY_MAX_BYTES",
    "IDENTITY_PATTERN",
    "AttributeId",
    "CapabilityId",
    "ContractVersion",
    "DeviceId",
    "DynamicBackingPoolId",
    "ExternalModelMetadataId",
    "Identity",
    "ModelFamilyId",
    "NodeId",
    "NumericalProfileId",
    "NumericalProfileIdError",
    "OperationId",
    "OperationOracleId",
    "PlanHash",
    "PlanId",
    "PlanSchemaVersion",
    "ProgramValueId",
    "ProviderId",
    "QuantizationFormatId",
    "ResolutionArtifactId",
    "ResolutionReasonId",
    "ResourceId",
    "StateId",
    "WeightFormatId",
    "WeightId",
    "WeightLayoutId",
    "WeightMaterializerId",
    "check_portable_string",
    "identity_types",
    "plan_id_for_hash",
]

IDENTITY_MAX_BYTES: Final = 160
IDENTITY_PATTERN: Final = "^[A-Za-z0-9._:/-]{1,160}$"
_PORTABLE: Final = re.compile(r"[A-Za-z0-9._:/-]+")
_HEX64: Final = re.compile(r"[0-9a-f]{64}")

REASON_EMPTY: Final = "identity must not be empty"
REASON_TOO_LONG: Final = "identity exceeds 160 bytes"
REASON_CHARSET: Final = "identity contains a non-portable character"
REASON_LENGTH_RANGE: Final = "identity must contain between 1 and 160 bytes"

IdT = TypeVar("IdT", bound="Identity")


#: ``_portable_reason`` of short strings met lately (a pure function of the string; cleared when it is full).
_REASONS: Final[dict[str, str | None]] = {}
_REASONS_LIMIT: Final = 1 << 16


def _portable_reason(value: str) -> str | None:
    """The first failing §1.1 check of ``value``, or None when it is portable."""
    try:
        return _REASONS[value]
    except KeyError:
        pass
    reason = _first_failing_check(value)
    if len(value) <= IDENTITY_MAX_BYTES:  # only strings an identity may be (a longer one is never portable)
        if len(_REASONS) >= _REASONS_LIMIT:
            _REASONS.clear()
        _REASONS[value] = reason
    return reason


def _first_failing_check(value: str) -> str | None:
    size = len(value.encode("utf-8", "surrogatepass"))
    if size < 1:
        return REASON_EMPTY
    if size > IDENTITY_MAX_BYTES:
        return REASON_TOO_LONG
    if not (value.isascii() and _PORTABLE.fullmatch(value)):
        return REASON_CHARSET
    return None


def check_portable_string(value: str) -> str | None:
    """For owner-validated plain strings: ``None`` if portable, else a short reason.

    Reasons are ``must contain between 1 and 160 bytes`` or
    ``contains a non-portable character`` (the resolved-layer spelling).
    """
    if not isinstance(value, str):
        return "contains a non-portable character"
    size = len(value.encode("utf-8", "surrogatepass"))
    if size < 1 or size > IDENTITY_MAX_BYTES:
        return "must contain between 1 and 160 bytes"
    if not (value.isascii() and _PORTABLE.fullmatch(value)):
        return "contains a non-portable character"
    return None


@total_ordering
class Identity:
    """A validated, immutable identity string. Subclasses set ``KIND``."""

    KIND: ClassVar[str] = "identity"
    __slots__ = ("_hash", "value")
    value: str
    _hash: int

    def __init__(self, value: str) -> None:
        if not isinstance(value, str):
            raise TypeError(f"{type(self).__name__} takes a str, got {type(value).__name__}")
        self._validate(value)
        object.__setattr__(self, "value", value)
        object.__setattr__(self, "_hash", hash((type(self).__name__, value)))

    @classmethod
    def _validate(cls, value: str) -> None:
        reason = _portable_reason(value)
        if reason is not None:
            raise InvalidIdentity(identity_kind=cls.KIND, value=value, reason=reason)  # rule: 01.1.1/identity_empty

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")

    def __eq__(self, other: object) -> bool:
        if type(other) is type(self):
            return self.value == other.value
        return NotImplemented

    def __lt__(self, other: object) -> bool:
        if type(other) is type(self):
            return self.value < other.value
        return NotImplemented

    def __hash__(self) -> int:
        return self._hash

    def __str__(self) -> str:
        return self.value

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.value!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.value,))

    def to_wire(self) -> str:
        """The wire form: a bare JSON string."""
        return self.value

    @classmethod
    def from_wire(cls: type[IdT], raw: object, *, context: str = "decode identity") -> IdT:
        """Decode a wire value; any failure is ``Serialization``."""
        if not isinstance(raw, str):
            raise Serialization(  # rule: 01.1.1/identity_decode_non_string
                context, f"{cls.__name__} must be a JSON string, got {type(raw).__name__}"
            )
        try:
            return cls(raw)
        except (InvalidIdentity, InvalidExecutionPlan, InvalidResolvedModelPlan, NumericalProfileIdError) as exc:
            raise Serialization(  # rule: 01.3.6/decode_invalid_identity
                context, f"invalid {cls.__name__}: {exc}"
            ) from None


class CapabilityId(Identity):
    """Stable identity, kind ``capability``."""

    KIND = "capability"
    __slots__ = ()


class DeviceId(Identity):
    """Stable identity, kind ``device``."""

    KIND = "device"
    __slots__ = ()


class ExternalModelMetadataId(Identity):
    """Stable identity, kind ``external model metadata``."""

    KIND = "external model metadata"
    __slots__ = ()


class ModelFamilyId(Identity):
    """Stable identity, kind ``model family``."""

    KIND = "model family"
    __slots__ = ()


class NodeId(Identity):
    """Stable identity, kind ``node``."""

    KIND = "node"
    __slots__ = ()


class OperationId(Identity):
    """Stable identity, kind ``operation``."""

    KIND = "operation"
    __slots__ = ()


class PlanId(Identity):
    """Stable identity, kind ``plan``."""

    KIND = "plan"
    __slots__ = ()


class ProgramValueId(Identity):
    """Stable identity, kind ``program value``."""

    KIND = "program value"
    __slots__ = ()


class ProviderId(Identity):
    """Stable identity, kind ``provider``."""

    KIND = "provider"
    __slots__ = ()


class QuantizationFormatId(Identity):
    """Stable identity, kind ``quantization format``."""

    KIND = "quantization format"
    __slots__ = ()


class ResourceId(Identity):
    """Stable identity, kind ``resource``."""

    KIND = "resource"
    __slots__ = ()


class StateId(Identity):
    """Stable identity, kind ``state``."""

    KIND = "state"
    __slots__ = ()


class WeightId(Identity):
    """Stable identity, kind ``weight``."""

    KIND = "weight"
    __slots__ = ()


class WeightFormatId(Identity):
    """Stable identity, kind ``weight format``."""

    KIND = "weight format"
    __slots__ = ()


class WeightLayoutId(Identity):
    """Stable identity, kind ``weight layout``."""

    KIND = "weight layout"
    __slots__ = ()


class WeightMaterializerId(Identity):
    """Stable identity, kind ``weight materializer``. The kind is decided in docs/decisions.md (D-01-1)."""

    KIND = "weight materializer"
    __slots__ = ()


class RequestIdentity(Identity):
    """Stable identity, kind ``request``."""

    KIND = "request"
    __slots__ = ()


class RunId(Identity):
    """Stable identity, kind ``run``."""

    KIND = "run"
    __slots__ = ()


class SpanId(Identity):
    """Stable identity, kind ``span``."""

    KIND = "span"
    __slots__ = ()


class TensorId(Identity):
    """Stable identity, kind ``tensor``."""

    KIND = "tensor"
    __slots__ = ()


class TokenizerId(Identity):
    """Stable identity, kind ``tokenizer``."""

    KIND = "tokenizer"
    __slots__ = ()


class TransactionId(Identity):
    """Stable identity, kind ``transaction``."""

    KIND = "transaction"
    __slots__ = ()


class _SingleRangeIdentity(Identity):
    """Own validator: empty and too long are one check (spec 01 §1.3)."""

    __slots__ = ()

    @classmethod
    def _validate(cls, value: str) -> None:
        size = len(value.encode("utf-8", "surrogatepass"))
        if size < 1 or size > IDENTITY_MAX_BYTES:
            raise InvalidIdentity(  # rule: 01.1.3/attribute_id_length_one_check
                identity_kind=cls.KIND, value=value, reason=REASON_LENGTH_RANGE
            )
        if not (value.isascii() and _PORTABLE.fullmatch(value)):
            raise InvalidIdentity(  # rule: 01.1.3/attribute_id_charset
                identity_kind=cls.KIND, value=value, reason=REASON_CHARSET
            )


class AttributeId(_SingleRangeIdentity):
    """Operation attribute identity, kind ``operation attribute``."""

    KIND = "operation attribute"
    __slots__ = ()


class OperationOracleId(_SingleRangeIdentity):
    """Operation oracle identity, kind ``operation oracle``."""

    KIND = "operation oracle"
    __slots__ = ()


class NumericalProfileIdError(ValueError):
    """``NumericalProfileId`` failures are plain strings, not VNextError (spec 01 §1.3)."""

    TEXT: ClassVar[str] = "numerical profile identity needs 1..=160 portable ASCII bytes"


class NumericalProfileId(Identity):
    """Numerical profile identity (ferrum_types); errors are ``NumericalProfileIdError``."""

    KIND = "numerical profile"
    __slots__ = ()

    @classmethod
    def _validate(cls, value: str) -> None:
        if _portable_reason(value) is not None:
            raise NumericalProfileIdError(NumericalProfileIdError.TEXT)


class _ResolutionIdentity(Identity):
    FIELD: ClassVar[str] = ""
    __slots__ = ()

    @classmethod
    def _validate(cls, value: str) -> None:
        reason = check_portable_string(value)
        if reason is not None:
            raise InvalidResolvedModelPlan(field=cls.FIELD, reason=reason)  # rule: 01.1.3/resolution_reason_id_length


class ResolutionReasonId(_ResolutionIdentity):
    KIND = "resolution reason"
    FIELD = "resolution_reason_id"
    __slots__ = ()


class ResolutionArtifactId(_ResolutionIdentity):
    KIND = "resolution artifact"
    FIELD = "resolution_artifact_id"
    __slots__ = ()


class PlanHash(Identity):
    """Exactly 64 lowercase hex characters; built by core, else only decoded."""

    KIND = "plan hash"
    __slots__ = ()

    @classmethod
    def _validate(cls, value: str) -> None:
        if not (len(value) == 64 and _HEX64.fullmatch(value)):
            raise InvalidExecutionPlan(  # rule: 01.1.3/plan_hash_decode_rejects_non_canonical, 05.8.1/plan_hash_canonical_on_decode  # noqa: E501
                reason="plan hash must be a lowercase SHA256"
            )


class DynamicBackingPoolId(Identity):
    """``dynamic-pool/sha256/`` followed by exactly 64 lowercase hex characters."""

    KIND = "dynamic backing pool"
    PREFIX: ClassVar[str] = "dynamic-pool/sha256/"
    __slots__ = ()

    @classmethod
    def _validate(cls, value: str) -> None:
        digest = value[len(cls.PREFIX) :]
        if not (value.startswith(cls.PREFIX) and len(digest) == 64 and _HEX64.fullmatch(digest)):
            raise InvalidExecutionPlan(  # rule: 01.1.3/dynamic_backing_pool_id_exact_form
                reason="dynamic backing pool id must be dynamic-pool/sha256/<lowercase sha256>"
            )


PLAN_ID_PREFIX: Final = "plan/sha256/"
PLAN_ID_PLACEHOLDER: Final = "plan/unset"


def plan_id_for_hash(plan_hash: PlanHash) -> PlanId:
    """``plan/sha256/<hash>``: the plan id derived from its hash."""
    return PlanId(PLAN_ID_PREFIX + plan_hash.value)


def identity_types() -> dict[str, type[Identity]]:
    """Every identity type that follows the plain §1.1 rule, keyed by class name."""
    plain = [
        CapabilityId,
        DeviceId,
        ExternalModelMetadataId,
        ModelFamilyId,
        NodeId,
        OperationId,
        PlanId,
        ProgramValueId,
        ProviderId,
        QuantizationFormatId,
        ResourceId,
        StateId,
        WeightId,
        WeightFormatId,
        WeightLayoutId,
        WeightMaterializerId,
        RequestIdentity,
        RunId,
        SpanId,
        TensorId,
        TokenizerId,
        TransactionId,
    ]
    return {cls.__name__: cls for cls in plain}


__all__ += ["PLAN_ID_PLACEHOLDER", "PLAN_ID_PREFIX", "REASON_CHARSET", "REASON_EMPTY", "REASON_LENGTH_RANGE"]
__all__ += ["REASON_TOO_LONG", "RequestIdentity", "RunId", "SpanId", "TensorId", "TokenizerId", "TransactionId"]
