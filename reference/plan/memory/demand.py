"""``DynamicResourceDemand`` and ``bind_runtime_limits`` (spec 04 §7.1, spec 05 §7.5, §7.7).

A demand is a provider formula whose scheduler ceilings are bound. Wire: externally
tagged snake_case struct variants (payloads deny unknown fields):

* ``{"fixed": {"bytes"}}``
* ``{"actual_sequences": {"bytes_per_sequence", "maximum_sequences"}}``
* ``{"tokens": {"bytes_per_token", "maximum_tokens"}}``
* ``{"affine": {"fixed_bytes", "bytes_per_sequence", "maximum_sequences", "bytes_per_token",
  "maximum_tokens"}}`` (field names and order: decision D-05M-1)
* ``{"pages": {"bytes_per_page", "maximum_pages"}}``
* ``{"bounded_shape_buckets": {"buckets": [{"maximum_sequences", "maximum_tokens",
  "maximum_pages", "bytes"}, ...]}}``

``validate()`` requires non-zero coefficients and bounds and that every coefficient x bound
product (and the affine sum) fits u64. Evaluation at a shape re-validates, refuses shapes
beyond a bounded variant's maxima, checks every product/sum and refuses a zero result; all
failures are ``InvalidExecutionPlan``. ``bind_runtime_limits`` takes the provider formula's
WIRE form so the resolution layer can call it without a shared type.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import partial
from typing import Any, ClassVar, Final, TypeVar

from reference.errors import Serialization, invalid_plan
from reference.ints import U64_MAX, check_uint, checked_mul, checked_sum
from reference.resolution.formula import (
    MAX_PROVIDER_WORKSPACE_SHAPE_BUCKETS,
    DynamicResourceShapeBucket,
    buckets_are_canonical,
)
from reference.wire import WireObject, read_list, read_tagged

__all__ = [
    "MAX_PROVIDER_WORKSPACE_SHAPE_BUCKETS",
    "ActualSequencesDemand",
    "AffineDemand",
    "BoundedShapeBucketsDemand",
    "DynamicResourceDemand",
    "DynamicResourceShape",
    "DynamicResourceShapeBucket",
    "FixedDemand",
    "PagesDemand",
    "TokensDemand",
    "bind_runtime_limits",
]

_CONTEXT: Final = "decode dynamic resource demand"
D = TypeVar("D", bound="DynamicResourceDemand")


@dataclass(frozen=True, slots=True)
class DynamicResourceShape:
    """Evaluation dimensions ``(sequences u32, tokens u64, pages u64)``."""

    sequences: int
    tokens: int
    pages: int

    def __post_init__(self) -> None:
        check_uint(self.sequences, 32, "DynamicResourceShape.sequences")
        check_uint(self.tokens, 64, "DynamicResourceShape.tokens")
        check_uint(self.pages, 64, "DynamicResourceShape.pages")

    @classmethod
    def new(cls, sequences: int, tokens: int, pages: int) -> DynamicResourceShape:
        """Every dimension non-zero, else ``InvalidExecutionPlan``."""
        shape = cls(sequences, tokens, pages)
        if 0 in (sequences, tokens, pages):
            raise invalid_plan(  # rule: 05.7.7/shape_new_unused
                "dynamic resource shape dimensions must be non-zero"
            )
        return shape

    @classmethod
    def minimum(cls) -> DynamicResourceShape:
        """One sequence, one token, one page."""
        return cls(1, 1, 1)


class DynamicResourceDemand(ABC):
    """Base of the six demand variants; construct through the validating class methods."""

    TAG: ClassVar[str] = ""
    FIELDS: ClassVar[tuple[str, ...]] = ()

    # -- validating constructors -------------------------------------------------
    @staticmethod
    def fixed(bytes_: int) -> FixedDemand:
        return FixedDemand(bytes_).validated()

    @staticmethod
    def actual_sequences(bytes_per_sequence: int, maximum_sequences: int) -> ActualSequencesDemand:
        return ActualSequencesDemand(bytes_per_sequence, maximum_sequences).validated()

    @staticmethod
    def tokens(bytes_per_token: int, maximum_tokens: int) -> TokensDemand:
        return TokensDemand(bytes_per_token, maximum_tokens).validated()

    @staticmethod
    def affine(
        fixed_bytes: int, bytes_per_sequence: int, maximum_sequences: int, bytes_per_token: int, maximum_tokens: int
    ) -> AffineDemand:
        return AffineDemand(
            fixed_bytes, bytes_per_sequence, maximum_sequences, bytes_per_token, maximum_tokens
        ).validated()

    @staticmethod
    def pages(bytes_per_page: int, maximum_pages: int) -> PagesDemand:
        return PagesDemand(bytes_per_page, maximum_pages).validated()

    @staticmethod
    def bounded_shape_buckets(buckets: Iterable[DynamicResourceShapeBucket]) -> BoundedShapeBucketsDemand:
        return BoundedShapeBucketsDemand(tuple(buckets)).validated()

    # -- contract ----------------------------------------------------------------
    @abstractmethod
    def is_valid(self) -> bool:
        """The variant's structural rule (no overflow, non-zero terms)."""

    @abstractmethod
    def _bytes_at(self, shape: DynamicResourceShape) -> int:
        """Logical bytes at ``shape`` (may raise); validity already checked."""

    @abstractmethod
    def theoretical_maximum_shape(self) -> DynamicResourceShape:
        """The largest shape the demand admits."""

    @abstractmethod
    def _payload(self) -> dict[str, Any]: ...

    def validate(self) -> None:
        """``InvalidExecutionPlan`` unless the demand is non-zero, bounded and overflow-free."""
        if not self.is_valid():
            raise invalid_plan(  # rule: 05.7.7/dynamic_demand_validate
                "dynamic resource formula is zero, overflowing, or non-canonical"
            )

    def validated(self: D) -> D:
        self.validate()
        return self

    def minimum_shape(self) -> DynamicResourceShape:
        return DynamicResourceShape.minimum()

    def evaluate_shape_bytes(self, shape: DynamicResourceShape) -> int:
        """Logical bytes at ``shape``: re-validates, bounds-checks, overflow-checks, refuses 0."""
        self.validate()
        result = self._bytes_at(shape)
        if result == 0:
            raise invalid_plan(  # rule: 05.7.7/dynamic_demand_validate
                "dynamic resource request evaluates to zero bytes"
            )
        return result

    @property
    def is_fixed(self) -> bool:
        return isinstance(self, FixedDemand)

    def to_wire(self) -> dict[str, Any]:
        return {self.TAG: self._payload()}

    @staticmethod
    def from_wire(raw: Any, *, context: str = _CONTEXT, path: str = "$") -> DynamicResourceDemand:
        """Strict decode (unknown payload keys refused), then ``validate`` (failure -> ``Serialization``)."""
        demand = _decode_variant(raw, _DEMAND_VARIANTS, context=context, path=path)
        if not demand.is_valid():
            raise Serialization(
                context, f"{path}: dynamic resource formula is zero, overflowing, or non-canonical"
            )  # rule: 05.7.7/dynamic_demand_validate, 05.7.7/descriptor_decoder_reruns_new, 05.7.7/demand_valid
        return demand


def _fits(value: int | None) -> bool:
    return value is not None and value <= U64_MAX


@dataclass(frozen=True, slots=True)
class FixedDemand(DynamicResourceDemand):
    """A constant number of bytes."""

    TAG: ClassVar[str] = "fixed"
    FIELDS: ClassVar[tuple[str, ...]] = ("bytes",)
    bytes: int

    def __post_init__(self) -> None:
        check_uint(self.bytes, 64, "fixed.bytes")

    def is_valid(self) -> bool:
        return self.bytes > 0

    def _bytes_at(self, shape: DynamicResourceShape) -> int:
        return self.bytes

    def theoretical_maximum_shape(self) -> DynamicResourceShape:
        return DynamicResourceShape.minimum()

    def _payload(self) -> dict[str, Any]:
        return {"bytes": self.bytes}


@dataclass(frozen=True, slots=True)
class ActualSequencesDemand(DynamicResourceDemand):
    """``bytes_per_sequence x sequences`` for up to ``maximum_sequences`` sequences."""

    TAG: ClassVar[str] = "actual_sequences"
    FIELDS: ClassVar[tuple[str, ...]] = ("bytes_per_sequence", "maximum_sequences")
    bytes_per_sequence: int
    maximum_sequences: int

    def __post_init__(self) -> None:
        check_uint(self.bytes_per_sequence, 64, "actual_sequences.bytes_per_sequence")
        check_uint(self.maximum_sequences, 32, "actual_sequences.maximum_sequences")

    def is_valid(self) -> bool:
        return (
            self.bytes_per_sequence > 0
            and self.maximum_sequences > 0
            and self.bytes_per_sequence * self.maximum_sequences <= U64_MAX
        )

    def _bytes_at(self, shape: DynamicResourceShape) -> int:
        if shape.sequences > self.maximum_sequences:
            raise invalid_plan(  # rule: 04.7.1/bound_demand_overflow
                "actual invocation shape exceeds its bounded resource formula"
            )
        return checked_mul(  # rule: 05.7.7/demand_product_within_validated_peak
            self.bytes_per_sequence,
            shape.sequences,
            error=partial(invalid_plan, "sequence-scaled resource request overflows"),
        )

    def theoretical_maximum_shape(self) -> DynamicResourceShape:
        return DynamicResourceShape(self.maximum_sequences, 1, 1)

    def _payload(self) -> dict[str, Any]:
        return {"bytes_per_sequence": self.bytes_per_sequence, "maximum_sequences": self.maximum_sequences}


@dataclass(frozen=True, slots=True)
class TokensDemand(DynamicResourceDemand):
    """``bytes_per_token x tokens`` for up to ``maximum_tokens`` tokens."""

    TAG: ClassVar[str] = "tokens"
    FIELDS: ClassVar[tuple[str, ...]] = ("bytes_per_token", "maximum_tokens")
    bytes_per_token: int
    maximum_tokens: int

    def __post_init__(self) -> None:
        check_uint(self.bytes_per_token, 64, "tokens.bytes_per_token")
        check_uint(self.maximum_tokens, 64, "tokens.maximum_tokens")

    def is_valid(self) -> bool:
        return (
            self.bytes_per_token > 0
            and self.maximum_tokens > 0
            and self.bytes_per_token * self.maximum_tokens <= U64_MAX
        )

    def _bytes_at(self, shape: DynamicResourceShape) -> int:
        if shape.tokens > self.maximum_tokens:
            raise invalid_plan(  # rule: 04.7.1/bound_demand_overflow
                "actual invocation shape exceeds its bounded resource formula"
            )
        return checked_mul(  # rule: 05.7.7/demand_product_within_validated_peak
            self.bytes_per_token, shape.tokens, error=partial(invalid_plan, "token-scaled resource request overflows")
        )

    def theoretical_maximum_shape(self) -> DynamicResourceShape:
        return DynamicResourceShape(1, self.maximum_tokens, 1)

    def _payload(self) -> dict[str, Any]:
        return {"bytes_per_token": self.bytes_per_token, "maximum_tokens": self.maximum_tokens}


@dataclass(frozen=True, slots=True)
class AffineDemand(DynamicResourceDemand):
    """``fixed + bytes_per_sequence x sequences + bytes_per_token x tokens`` within both maxima."""

    TAG: ClassVar[str] = "affine"
    FIELDS: ClassVar[tuple[str, ...]] = (
        "fixed_bytes",
        "bytes_per_sequence",
        "maximum_sequences",
        "bytes_per_token",
        "maximum_tokens",
    )
    fixed_bytes: int
    bytes_per_sequence: int
    maximum_sequences: int
    bytes_per_token: int
    maximum_tokens: int

    def __post_init__(self) -> None:
        check_uint(self.fixed_bytes, 64, "affine.fixed_bytes")
        check_uint(self.bytes_per_sequence, 64, "affine.bytes_per_sequence")
        check_uint(self.maximum_sequences, 32, "affine.maximum_sequences")
        check_uint(self.bytes_per_token, 64, "affine.bytes_per_token")
        check_uint(self.maximum_tokens, 64, "affine.maximum_tokens")

    def is_valid(self) -> bool:
        if self.bytes_per_sequence == 0 and self.bytes_per_token == 0:
            return False
        if self.maximum_sequences == 0 or self.maximum_tokens == 0:
            return False
        peak = (
            self.fixed_bytes
            + self.bytes_per_sequence * self.maximum_sequences
            + self.bytes_per_token * self.maximum_tokens
        )
        return _fits(peak)

    def _bytes_at(self, shape: DynamicResourceShape) -> int:
        if shape.sequences > self.maximum_sequences or shape.tokens > self.maximum_tokens:
            raise invalid_plan(  # rule: 04.7.1/bound_demand_overflow
                "actual invocation shape exceeds its bounded resource formula"
            )
        sequences = checked_mul(  # rule: 05.7.7/demand_product_within_validated_peak
            self.bytes_per_sequence,
            shape.sequences,
            error=partial(invalid_plan, "affine sequence resource request overflows"),
        )
        tokens = checked_mul(  # rule: 05.7.7/demand_product_within_validated_peak
            self.bytes_per_token, shape.tokens, error=partial(invalid_plan, "affine token resource request overflows")
        )
        overflow = partial(invalid_plan, "affine resource request overflows")
        return checked_sum((self.fixed_bytes, sequences, tokens), error=overflow)  # rule: 04.7.1/bound_demand_overflow

    def theoretical_maximum_shape(self) -> DynamicResourceShape:
        return DynamicResourceShape(self.maximum_sequences, self.maximum_tokens, 1)

    def _payload(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.FIELDS}


@dataclass(frozen=True, slots=True)
class PagesDemand(DynamicResourceDemand):
    """``bytes_per_page x pages`` for up to ``maximum_pages`` pages."""

    TAG: ClassVar[str] = "pages"
    FIELDS: ClassVar[tuple[str, ...]] = ("bytes_per_page", "maximum_pages")
    bytes_per_page: int
    maximum_pages: int

    def __post_init__(self) -> None:
        check_uint(self.bytes_per_page, 64, "pages.bytes_per_page")
        check_uint(self.maximum_pages, 64, "pages.maximum_pages")

    def is_valid(self) -> bool:
        return (
            self.bytes_per_page > 0 and self.maximum_pages > 0 and self.bytes_per_page * self.maximum_pages <= U64_MAX
        )

    def _bytes_at(self, shape: DynamicResourceShape) -> int:
        if shape.pages > self.maximum_pages:
            raise invalid_plan(  # rule: 04.7.1/bound_demand_overflow
                "actual invocation shape exceeds its bounded resource formula"
            )
        return checked_mul(  # rule: 05.7.7/demand_product_within_validated_peak
            self.bytes_per_page, shape.pages, error=partial(invalid_plan, "page-scaled resource request overflows")
        )

    def theoretical_maximum_shape(self) -> DynamicResourceShape:
        return DynamicResourceShape(1, 1, self.maximum_pages)

    def _payload(self) -> dict[str, Any]:
        return {"bytes_per_page": self.bytes_per_page, "maximum_pages": self.maximum_pages}


@dataclass(frozen=True, slots=True)
class BoundedShapeBucketsDemand(DynamicResourceDemand):
    """The bytes of the first bucket (list order) covering the shape."""

    TAG: ClassVar[str] = "bounded_shape_buckets"
    FIELDS: ClassVar[tuple[str, ...]] = ("buckets",)
    buckets: tuple[DynamicResourceShapeBucket, ...] = field(default=())

    def __post_init__(self) -> None:
        object.__setattr__(self, "buckets", tuple(self.buckets))
        for bucket in self.buckets:
            if not isinstance(bucket, DynamicResourceShapeBucket):
                raise TypeError("bounded_shape_buckets takes DynamicResourceShapeBucket values")

    def is_valid(self) -> bool:
        return buckets_are_canonical(self.buckets)

    def _bytes_at(self, shape: DynamicResourceShape) -> int:
        for bucket in self.buckets:
            if bucket.covers(shape):
                return bucket.bytes
        raise invalid_plan("actual invocation shape exceeds workspace buckets")  # rule: 04.7.1/bound_demand_overflow

    def theoretical_maximum_shape(self) -> DynamicResourceShape:
        last = self.buckets[-1]
        return DynamicResourceShape(last.maximum_sequences, last.maximum_tokens, last.maximum_pages)

    def _payload(self) -> dict[str, Any]:
        return {"buckets": [bucket.to_wire() for bucket in self.buckets]}


_DEMAND_VARIANTS: Final[dict[str, type[DynamicResourceDemand]]] = {
    cls.TAG: cls
    for cls in (FixedDemand, ActualSequencesDemand, TokensDemand, AffineDemand, PagesDemand, BoundedShapeBucketsDemand)
}
_WIDTHS: Final = {"maximum_sequences": 32}


def _decode_variant(
    raw: Any, variants: dict[str, type[DynamicResourceDemand]], *, context: str, path: str
) -> DynamicResourceDemand:
    tag, content = read_tagged(raw, tuple(variants), context=context, path=path)
    cls = variants[tag]
    inner = f"{path}.{tag}"
    obj = WireObject(content, cls.FIELDS, type_name=tag, context=context, path=inner)
    if cls is BoundedShapeBucketsDemand:
        items = read_list(
            obj.raw("buckets"),
            context=context,
            path=obj.at("buckets"),
            max_items=MAX_PROVIDER_WORKSPACE_SHAPE_BUCKETS + 1,
        )
        buckets = tuple(
            DynamicResourceShapeBucket.from_wire(item, context=context, path=f"{obj.at('buckets')}[{i}]")
            for i, item in enumerate(items)
        )
        return BoundedShapeBucketsDemand(buckets)
    values = [obj.u32(name) if _WIDTHS.get(name) == 32 else obj.u64(name) for name in cls.FIELDS]
    return cls(*values)


# -- provider workspace formulas (wire form only) -----------------------------------
_FORMULA_FIELDS: Final = {
    "fixed": ("bytes",),
    "actual_sequences": ("bytes_per_sequence",),
    "tokens": ("bytes_per_token",),
    "affine": ("fixed_bytes", "bytes_per_sequence", "bytes_per_token"),
    "pages": ("bytes_per_page", "maximum_pages"),
    "bounded_shape_buckets": ("buckets",),
}
_FORMULA_CONTEXT: Final = "bind provider workspace formula"


def _formula_is_valid(tag: str, v: dict[str, int]) -> bool:
    if tag in ("fixed", "actual_sequences", "tokens"):
        return next(iter(v.values())) > 0
    if tag == "affine":
        return (v["bytes_per_sequence"] > 0 or v["bytes_per_token"] > 0) and _fits(
            v["fixed_bytes"] + v["bytes_per_sequence"] + v["bytes_per_token"]
        )
    return v["bytes_per_page"] > 0 and v["maximum_pages"] > 0 and _fits(v["bytes_per_page"] * v["maximum_pages"])


def bind_runtime_limits(
    formula_wire: Any, maximum_active_sequences: int, maximum_scheduled_tokens: int
) -> DynamicResourceDemand:
    """Bind a ``ProviderWorkspaceSizeFormula`` (wire form) to the policy ceilings.

    fixed -> fixed; actual_sequences -> (bps, mas); tokens -> (bpt, mst);
    affine -> (fixed, bps, mas, bpt, mst); pages -> unchanged; buckets -> unchanged.
    A malformed wire is ``Serialization``; an invalid formula or a demand whose
    coefficient x ceiling overflows u64 (or a zero ceiling) is ``InvalidExecutionPlan``.
    """
    mas = check_uint(maximum_active_sequences, 32, "maximum_active_sequences")
    mst = check_uint(maximum_scheduled_tokens, 64, "maximum_scheduled_tokens")
    tag, content = read_tagged(formula_wire, tuple(_FORMULA_FIELDS), context=_FORMULA_CONTEXT, path="$")
    obj = WireObject(content, _FORMULA_FIELDS[tag], type_name=tag, context=_FORMULA_CONTEXT, path=f"$.{tag}")
    if tag == "bounded_shape_buckets":
        items = read_list(obj.raw("buckets"), context=_FORMULA_CONTEXT, path=obj.at("buckets"))
        buckets = tuple(
            DynamicResourceShapeBucket.from_wire(item, context=_FORMULA_CONTEXT, path=f"{obj.at('buckets')}[{i}]")
            for i, item in enumerate(items)
        )
        if not buckets_are_canonical(buckets):
            raise invalid_plan(  # rule: 04.7.1/bound_demand_overflow
                "provider workspace formula is zero, overflowing, or non-canonical"
            )
        return DynamicResourceDemand.bounded_shape_buckets(buckets)
    v = {name: obj.u64(name) for name in _FORMULA_FIELDS[tag]}
    if not _formula_is_valid(tag, v):
        raise invalid_plan(  # rule: 04.7.1/bound_demand_overflow
            "provider workspace formula is zero, overflowing, or non-canonical"
        )
    if tag == "fixed":
        return DynamicResourceDemand.fixed(v["bytes"])
    if tag == "actual_sequences":
        return DynamicResourceDemand.actual_sequences(v["bytes_per_sequence"], mas)
    if tag == "tokens":
        return DynamicResourceDemand.tokens(v["bytes_per_token"], mst)
    if tag == "affine":
        return DynamicResourceDemand.affine(v["fixed_bytes"], v["bytes_per_sequence"], mas, v["bytes_per_token"], mst)
    return DynamicResourceDemand.pages(v["bytes_per_page"], v["maximum_pages"])
