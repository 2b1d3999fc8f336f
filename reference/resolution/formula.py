"""``ProviderWorkspaceSizeFormula`` and ``DynamicResourceShapeBucket`` (spec 04 §7.1).

Variants: ``fixed``, ``actual_sequences``, ``tokens``, ``affine``, ``pages``,
``bounded_shape_buckets`` (externally tagged, snake_case; payloads deny unknown
fields). Constructors validate (``InvalidExecutionPlan``); decoding validates too
(``Serialization``). ``evaluate_shape`` re-validates, computes with checked u64
arithmetic and rejects a zero result.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from dataclasses import dataclass
from functools import partial
from typing import Any, ClassVar, Final, Protocol

from reference.canonical import JsonValue
from reference.errors import InvalidExecutionPlan, invalid_plan
from reference.ints import U64_MAX, checked_mul, checked_sum, fits_uint
from reference.resolution.work import WorkShape
from reference.wire import WireObject, decode_with, read_list, read_tagged

__all__ = [
    "MAX_PROVIDER_WORKSPACE_SHAPE_BUCKETS",
    "ActualSequencesFormula",
    "AffineFormula",
    "BoundedShapeBucketsFormula",
    "DynamicResourceShapeBucket",
    "FixedFormula",
    "PagesFormula",
    "ProviderWorkspaceSizeFormula",
    "TokensFormula",
    "buckets_are_canonical",
]

MAX_PROVIDER_WORKSPACE_SHAPE_BUCKETS: Final = 64


class ShapeLike(Protocol):
    """Any evaluation shape: a work shape (04 §6) or a memory-plan demand shape (05 §7.7)."""

    @property
    def sequences(self) -> int: ...

    @property
    def tokens(self) -> int: ...

    @property
    def pages(self) -> int: ...


def _invalid(reason: str) -> InvalidExecutionPlan:
    return InvalidExecutionPlan(reason=f"provider workspace size formula {reason}")


def _uint(value: Any, bits: int, name: str) -> int:
    if not fits_uint(value, bits):
        raise _invalid(f"field `{name}` {value!r} is not a u{bits}")  # rule: 04.7.1/formula_numbers_fixed_width
    return value


@dataclass(frozen=True, slots=True)
class DynamicResourceShapeBucket:
    """An inclusive shape ceiling and the bytes it needs; all four values non-zero."""

    maximum_sequences: int
    maximum_tokens: int
    maximum_pages: int
    bytes: int

    def __post_init__(self) -> None:
        _uint(self.maximum_sequences, 32, "maximum_sequences")
        for name in ("maximum_tokens", "maximum_pages", "bytes"):
            _uint(getattr(self, name), 64, name)
        if 0 in (self.maximum_sequences, self.maximum_tokens, self.maximum_pages, self.bytes):
            raise InvalidExecutionPlan(  # rule: 04.7.1/shape_bucket_values_nonzero
                reason="dynamic resource shape bucket values must be non-zero"
            )

    def covers(self, shape: ShapeLike) -> bool:
        """Every shape dimension is within the bucket maximum."""
        return (
            shape.sequences <= self.maximum_sequences
            and shape.tokens <= self.maximum_tokens
            and shape.pages <= self.maximum_pages
        )

    def to_wire(self) -> dict[str, JsonValue]:
        return {
            "maximum_sequences": self.maximum_sequences,
            "maximum_tokens": self.maximum_tokens,
            "maximum_pages": self.maximum_pages,
            "bytes": self.bytes,
        }

    @classmethod
    def from_wire(
        cls, raw: Any, *, context: str = "decode dynamic resource shape bucket", path: str = "$"
    ) -> DynamicResourceShapeBucket:
        fields = ("maximum_sequences", "maximum_tokens", "maximum_pages", "bytes")
        obj = WireObject(raw, fields, type_name="DynamicResourceShapeBucket", context=context, path=path)
        args = (obj.u32("maximum_sequences"), obj.u64("maximum_tokens"), obj.u64("maximum_pages"), obj.u64("bytes"))
        return decode_with(lambda: cls(*args), context=context, path=path)


class ProviderWorkspaceSizeFormula:
    """Base of the six variants; build through the classmethod constructors."""

    __slots__ = ()
    TAG: ClassVar[str] = ""
    FIELDS: ClassVar[tuple[str, ...]] = ()

    # ------------------------------------------------------------------ constructors

    @staticmethod
    def fixed(bytes_: int) -> FixedFormula:
        return FixedFormula(bytes_)

    @staticmethod
    def actual_sequences(bytes_per_sequence: int) -> ActualSequencesFormula:
        return ActualSequencesFormula(bytes_per_sequence)

    @staticmethod
    def tokens(bytes_per_token: int) -> TokensFormula:
        return TokensFormula(bytes_per_token)

    @staticmethod
    def affine(fixed_bytes: int, bytes_per_sequence: int, bytes_per_token: int) -> AffineFormula:
        return AffineFormula(fixed_bytes, bytes_per_sequence, bytes_per_token)

    @staticmethod
    def pages(bytes_per_page: int, maximum_pages: int) -> PagesFormula:
        return PagesFormula(bytes_per_page, maximum_pages)

    @staticmethod
    def bounded_shape_buckets(buckets: Iterable[DynamicResourceShapeBucket]) -> BoundedShapeBucketsFormula:
        return BoundedShapeBucketsFormula(tuple(buckets))

    # ------------------------------------------------------------------ behaviour

    def validate(self) -> None:
        """Raise ``InvalidExecutionPlan`` unless the variant's validity rule holds."""
        raise NotImplementedError

    def _bytes(self, shape: WorkShape) -> int:
        raise NotImplementedError

    def evaluate_shape(self, shape: WorkShape | tuple[int, int, int]) -> int:
        """Re-validate, evaluate (checked), and reject a zero result."""
        self.validate()
        work = WorkShape(*shape)
        total = self._bytes(work)
        if total == 0:
            raise _invalid(f"evaluates to zero bytes for shape {tuple(work)}")  # rule: 04.7.1/evaluate_zero_result
        return total

    @property
    def is_fixed(self) -> bool:
        return isinstance(self, FixedFormula)

    def fixed_size(self) -> int | None:
        """``bytes`` for ``fixed``, else ``None``."""
        return self.bytes if isinstance(self, FixedFormula) else None

    def valid_for_sequence_scope(self) -> bool:
        """Fixed, Tokens, Pages, Affine without per-sequence bytes, single-sequence buckets."""
        if isinstance(self, FixedFormula | TokensFormula | PagesFormula):
            return True
        if isinstance(self, AffineFormula):
            return self.bytes_per_sequence == 0
        if isinstance(self, BoundedShapeBucketsFormula):
            return all(b.maximum_sequences == 1 for b in self.buckets)
        return False

    def payload(self) -> dict[str, JsonValue]:
        raise NotImplementedError

    def to_wire(self) -> dict[str, JsonValue]:
        return {self.TAG: self.payload()}

    @staticmethod
    def from_wire(
        raw: Any, *, context: str = "decode provider workspace size formula", path: str = "$"
    ) -> ProviderWorkspaceSizeFormula:
        """Externally tagged; payloads deny unknown fields; then validated (``Serialization``)."""
        tag, content = read_tagged(raw, _VARIANTS, context=context, path=path)
        cls = _VARIANTS[tag]
        at = f"{path}.{tag}"
        if tag == "bounded_shape_buckets":
            obj = WireObject(
                # rule when 01.3.6/decode_unknown_field: 04.7.1/formula_payload_deny_unknown_fields
                content,
                cls.FIELDS,
                type_name=tag,
                context=context,
                path=at,
            )
            items = read_list(obj.raw("buckets"), context=context, path=obj.at("buckets"))
            buckets = tuple(
                DynamicResourceShapeBucket.from_wire(b, context=context, path=f"{obj.at('buckets')}[{i}]")
                for i, b in enumerate(items)
            )
            return decode_with(lambda: BoundedShapeBucketsFormula(buckets), context=context, path=path)
        obj = WireObject(
            # rule when 01.3.6/decode_unknown_field: 04.7.1/formula_payload_deny_unknown_fields
            content,
            cls.FIELDS,
            type_name=tag,
            context=context,
            path=at,
        )
        values = [obj.u64(name) for name in cls.FIELDS]
        formula: ProviderWorkspaceSizeFormula = decode_with(lambda: cls(*values), context=context, path=path)
        return formula


@dataclass(frozen=True, slots=True)
class FixedFormula(ProviderWorkspaceSizeFormula):
    """``{"fixed": {"bytes": b}}``, ``b > 0``."""

    bytes: int
    TAG: ClassVar[str] = "fixed"
    FIELDS: ClassVar[tuple[str, ...]] = ("bytes",)

    def __post_init__(self) -> None:
        self.validate()

    def validate(self) -> None:
        if _uint(self.bytes, 64, "bytes") == 0:
            raise _invalid("fixed bytes must be non-zero")  # rule: 04.7.1/fixed_bytes_nonzero

    def _bytes(self, shape: WorkShape) -> int:
        return self.bytes

    def payload(self) -> dict[str, JsonValue]:
        return {"bytes": self.bytes}


@dataclass(frozen=True, slots=True)
class ActualSequencesFormula(ProviderWorkspaceSizeFormula):
    """``bytes_per_sequence x sequences``."""

    bytes_per_sequence: int
    TAG: ClassVar[str] = "actual_sequences"
    FIELDS: ClassVar[tuple[str, ...]] = ("bytes_per_sequence",)

    def __post_init__(self) -> None:
        self.validate()

    def validate(self) -> None:
        if _uint(self.bytes_per_sequence, 64, "bytes_per_sequence") == 0:
            raise _invalid("bytes_per_sequence must be non-zero")  # rule: 04.7.1/actual_sequences_nonzero

    def _bytes(self, shape: WorkShape) -> int:
        return checked_mul(  # rule: 04.7.1/bound_demand_overflow
            self.bytes_per_sequence,
            shape.sequences,
            error=partial(invalid_plan, "actual-sequence workspace bytes overflows u64"),
        )

    def payload(self) -> dict[str, JsonValue]:
        return {"bytes_per_sequence": self.bytes_per_sequence}


@dataclass(frozen=True, slots=True)
class TokensFormula(ProviderWorkspaceSizeFormula):
    """``bytes_per_token x tokens`` (no upper bound at this level)."""

    bytes_per_token: int
    TAG: ClassVar[str] = "tokens"
    FIELDS: ClassVar[tuple[str, ...]] = ("bytes_per_token",)

    def __post_init__(self) -> None:
        self.validate()

    def validate(self) -> None:
        if _uint(self.bytes_per_token, 64, "bytes_per_token") == 0:
            raise _invalid("bytes_per_token must be non-zero")  # rule: 04.7.1/tokens_nonzero

    def _bytes(self, shape: WorkShape) -> int:
        return checked_mul(  # rule: 04.7.1/bound_demand_overflow
            self.bytes_per_token, shape.tokens, error=partial(invalid_plan, "token workspace bytes overflows u64")
        )

    def payload(self) -> dict[str, JsonValue]:
        return {"bytes_per_token": self.bytes_per_token}


@dataclass(frozen=True, slots=True)
class AffineFormula(ProviderWorkspaceSizeFormula):
    """``fixed + per_sequence x sequences + per_token x tokens``; some coefficient non-zero; sum fits u64."""

    fixed_bytes: int
    bytes_per_sequence: int
    bytes_per_token: int
    TAG: ClassVar[str] = "affine"
    FIELDS: ClassVar[tuple[str, ...]] = ("fixed_bytes", "bytes_per_sequence", "bytes_per_token")

    def __post_init__(self) -> None:
        self.validate()

    def validate(self) -> None:
        values = [_uint(getattr(self, n), 64, n) for n in self.FIELDS]
        if self.bytes_per_sequence == 0 and self.bytes_per_token == 0:
            raise _invalid(  # rule: 04.7.1/affine_coefficient_nonzero
                "affine needs a non-zero per-sequence or per-token coefficient"
            )
        if sum(values) > U64_MAX:
            raise _invalid("affine coefficients overflow u64")  # rule: 04.7.1/affine_sum_fits_u64

    def _bytes(self, shape: WorkShape) -> int:
        overflow = partial(invalid_plan, "affine workspace bytes overflows u64")
        per_sequence = checked_mul(  # rule: 04.7.1/bound_demand_overflow
            self.bytes_per_sequence, shape.sequences, error=overflow
        )
        per_token = checked_mul(  # rule: 04.7.1/bound_demand_overflow
            self.bytes_per_token, shape.tokens, error=overflow
        )
        return checked_sum(  # rule: 04.7.1/bound_demand_overflow
            (self.fixed_bytes, per_sequence, per_token), error=overflow
        )

    def payload(self) -> dict[str, JsonValue]:
        return {
            "fixed_bytes": self.fixed_bytes,
            "bytes_per_sequence": self.bytes_per_sequence,
            "bytes_per_token": self.bytes_per_token,
        }


@dataclass(frozen=True, slots=True)
class PagesFormula(ProviderWorkspaceSizeFormula):
    """``bytes_per_page x pages`` while ``pages <= maximum_pages``; both non-zero, product fits u64."""

    bytes_per_page: int
    maximum_pages: int
    TAG: ClassVar[str] = "pages"
    FIELDS: ClassVar[tuple[str, ...]] = ("bytes_per_page", "maximum_pages")

    def __post_init__(self) -> None:
        self.validate()

    def validate(self) -> None:
        per_page = _uint(self.bytes_per_page, 64, "bytes_per_page")
        maximum = _uint(self.maximum_pages, 64, "maximum_pages")
        if per_page == 0 or maximum == 0:
            raise _invalid("pages needs non-zero bytes_per_page and maximum_pages")  # rule: 04.7.1/pages_nonzero
        if per_page * maximum > U64_MAX:
            raise _invalid("pages ceiling overflows u64")  # rule: 04.7.1/pages_product_fits_u64

    def _bytes(self, shape: WorkShape) -> int:
        if shape.pages > self.maximum_pages:
            raise _invalid(  # rule: 04.7.1/evaluate_pages_beyond_maximum
                f"shape needs {shape.pages} pages, more than {self.maximum_pages}"
            )
        return checked_mul(  # rule: 04.7.1/bound_demand_overflow
            self.bytes_per_page, shape.pages, error=partial(invalid_plan, "page workspace bytes overflows u64")
        )

    def payload(self) -> dict[str, JsonValue]:
        return {"bytes_per_page": self.bytes_per_page, "maximum_pages": self.maximum_pages}


def buckets_are_canonical(buckets: tuple[DynamicResourceShapeBucket, ...]) -> bool:
    """1..=64 buckets; each next one >= in all maxima, > in one, and not fewer bytes."""
    if not 1 <= len(buckets) <= MAX_PROVIDER_WORKSPACE_SHAPE_BUCKETS:
        return False
    for prev, nxt in itertools.pairwise(buckets):
        grows = (
            nxt.maximum_sequences >= prev.maximum_sequences
            and nxt.maximum_tokens >= prev.maximum_tokens
            and nxt.maximum_pages >= prev.maximum_pages
        )
        strictly = (
            nxt.maximum_sequences > prev.maximum_sequences
            or nxt.maximum_tokens > prev.maximum_tokens
            or nxt.maximum_pages > prev.maximum_pages
        )
        if not (grows and strictly and nxt.bytes >= prev.bytes):
            return False
    return True


@dataclass(frozen=True, slots=True)
class BoundedShapeBucketsFormula(ProviderWorkspaceSizeFormula):
    """1..=64 buckets, strictly growing shapes and non-decreasing bytes; the first covering bucket wins."""

    buckets: tuple[DynamicResourceShapeBucket, ...]
    TAG: ClassVar[str] = "bounded_shape_buckets"
    FIELDS: ClassVar[tuple[str, ...]] = ("buckets",)

    def __post_init__(self) -> None:
        object.__setattr__(self, "buckets", tuple(self.buckets))
        self.validate()

    def validate(self) -> None:
        if not 1 <= len(self.buckets) <= MAX_PROVIDER_WORKSPACE_SHAPE_BUCKETS:
            raise _invalid(  # rule: 04.7.1/buckets_count_limit
                f"needs 1..={MAX_PROVIDER_WORKSPACE_SHAPE_BUCKETS} buckets"
            )
        if not buckets_are_canonical(self.buckets):
            raise _invalid(  # rule: 04.7.1/buckets_strictly_growing, 04.7.1/buckets_bytes_nondecreasing
                "buckets must grow monotonically with non-decreasing bytes"
            )

    def _bytes(self, shape: WorkShape) -> int:
        for bucket in self.buckets:
            if bucket.covers(shape):
                return bucket.bytes
        raise _invalid(f"no bucket covers shape {tuple(shape)}")  # rule: 04.7.1/evaluate_buckets_none_covering

    def payload(self) -> dict[str, JsonValue]:
        return {"buckets": [b.to_wire() for b in self.buckets]}


_VARIANTS: Final[dict[str, Any]] = {
    cls.TAG: cls
    for cls in (
        FixedFormula,
        ActualSequencesFormula,
        TokensFormula,
        AffineFormula,
        PagesFormula,
        BoundedShapeBucketsFormula,
    )
}
