"""Reusable-execution capacity policy (spec 04 §2.4; upstream ``execution/reusable``).

Every rule failure is ``InvalidExecutionPlan``. Wire forms are
``deny_unknown_fields``; decoding runs the same validation and reports any
failure as ``Serialization``. Bucket ids are derived:
``"reusable-bucket/sha256/" + canonical_fingerprint({domain, class_id, capacity})``.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Final

from reference.canonical import JsonValue, fingerprint
from reference.errors import Serialization, invalid_plan
from reference.ints import U64_MAX, check_uint
from reference.wire import WireObject, decode_with, read_list, read_tagged

__all__ = [
    "BUCKET_ID_DOMAIN",
    "BUCKET_ID_PREFIX",
    "MAX_REUSABLE_EXECUTION_BUCKETS",
    "MAX_REUSABLE_EXECUTION_PROGRAM_SHAPES",
    "PrefillShape",
    "ReusableExecutionBucketSpec",
    "ReusableExecutionCapacity",
    "ReusableExecutionCatalogLifetime",
    "ReusableExecutionClassId",
    "ReusableExecutionPolicy",
    "ReusableExecutionProgramPolicy",
    "ReusableExecutionProgramShape",
    "ReusableExecutionProgramSpec",
    "UniformDecodeShape",
    "derive_bucket_id",
]

MAX_REUSABLE_EXECUTION_BUCKETS: Final = 64
MAX_REUSABLE_EXECUTION_PROGRAM_SHAPES: Final = 256
BUCKET_ID_DOMAIN: Final = "ferrum.runtime-vnext.reusable-execution-bucket.v1"
BUCKET_ID_PREFIX: Final = "reusable-bucket/sha256/"
_CLASS_ID: Final = re.compile(r"[A-Za-z0-9._:/-]{1,160}")


@dataclass(frozen=True, order=True, slots=True)
class ReusableExecutionClassId:
    """An opaque workspace class: 1..=160 bytes of ``A-Za-z0-9._:/-``."""

    value: str

    def __post_init__(self) -> None:
        if not isinstance(self.value, str) or not (self.value.isascii() and _CLASS_ID.fullmatch(self.value)):
            raise invalid_plan(  # rule: 04.2.4/class_id_portable
                "reusable execution class id is empty, too long, or non-portable"
            )

    def to_wire(self) -> str:
        return self.value


@dataclass(frozen=True, order=True, slots=True)
class ReusableExecutionCapacity:
    """Bucket capacity; every dimension non-zero. Ordered lexicographically in field order."""

    maximum_sequences: int
    maximum_tokens: int
    maximum_pages: int

    def __post_init__(self) -> None:
        check_uint(self.maximum_sequences, 32, "ReusableExecutionCapacity.maximum_sequences")
        check_uint(self.maximum_tokens, 64, "ReusableExecutionCapacity.maximum_tokens")
        check_uint(self.maximum_pages, 64, "ReusableExecutionCapacity.maximum_pages")
        if 0 in (self.maximum_sequences, self.maximum_tokens, self.maximum_pages):
            raise invalid_plan(  # rule: 04.2.4/capacity_dimensions_nonzero
                "reusable execution capacity dimensions must be non-zero"
            )

    def covers(self, sequences: int, tokens: int, pages: int) -> bool:
        """Non-empty work within every dimension (pages may be zero)."""
        return (
            sequences > 0
            and tokens > 0
            and sequences <= self.maximum_sequences
            and tokens <= self.maximum_tokens
            and pages <= self.maximum_pages
        )

    def strictly_extends(self, previous: ReusableExecutionCapacity) -> bool:
        """At least ``previous`` in all three dimensions and not equal to it."""
        return (
            self.maximum_sequences >= previous.maximum_sequences
            and self.maximum_tokens >= previous.maximum_tokens
            and self.maximum_pages >= previous.maximum_pages
            and self != previous
        )

    def to_wire(self) -> dict[str, JsonValue]:
        return {
            "maximum_sequences": self.maximum_sequences,
            "maximum_tokens": self.maximum_tokens,
            "maximum_pages": self.maximum_pages,
        }

    @classmethod
    def from_wire(cls, raw: Any, *, context: str, path: str = "$") -> ReusableExecutionCapacity:
        obj = WireObject(
            raw,
            ("maximum_sequences", "maximum_tokens", "maximum_pages"),
            type_name="ReusableExecutionCapacity",
            context=context,
            path=path,
        )
        seqs, tokens, pages = obj.u32("maximum_sequences"), obj.u64("maximum_tokens"), obj.u64("maximum_pages")
        return decode_with(lambda: cls(seqs, tokens, pages), context=context, path=path)


def derive_bucket_id(class_id: ReusableExecutionClassId, capacity: ReusableExecutionCapacity) -> str:
    """The only valid bucket id for ``(class_id, capacity)``."""
    material = {"domain": BUCKET_ID_DOMAIN, "class_id": class_id.to_wire(), "capacity": capacity.to_wire()}
    return BUCKET_ID_PREFIX + fingerprint(material, context="fingerprint reusable execution bucket")


@dataclass(frozen=True, slots=True)
class ReusableExecutionBucketSpec:
    """One capacity bucket; ``bucket_id`` must re-derive from class and capacity."""

    bucket_id: str
    class_id: ReusableExecutionClassId
    capacity: ReusableExecutionCapacity

    def __post_init__(self) -> None:
        self.validate()

    @classmethod
    def new(
        cls, class_id: ReusableExecutionClassId, capacity: ReusableExecutionCapacity
    ) -> ReusableExecutionBucketSpec:
        """Build a bucket with its derived id."""
        return cls(derive_bucket_id(class_id, capacity), class_id, capacity)

    def validate(self) -> None:
        if not isinstance(self.bucket_id, str) or self.bucket_id != derive_bucket_id(self.class_id, self.capacity):
            raise invalid_plan(  # rule: 04.2.4/bucket_id_derived
                "reusable execution bucket id is not derived from its class and capacity"
            )

    def to_wire(self) -> dict[str, JsonValue]:
        return {"bucket_id": self.bucket_id, "class_id": self.class_id.to_wire(), "capacity": self.capacity.to_wire()}

    @classmethod
    def from_wire(cls, raw: Any, *, context: str, path: str = "$") -> ReusableExecutionBucketSpec:
        obj = WireObject(
            raw,
            ("bucket_id", "class_id", "capacity"),
            type_name="ReusableExecutionBucketSpec",
            context=context,
            path=path,
        )
        bucket_id = obj.string("bucket_id")
        class_id = _decode_class_id(obj.raw("class_id"), context, obj.at("class_id"))
        capacity = ReusableExecutionCapacity.from_wire(obj.raw("capacity"), context=context, path=obj.at("capacity"))
        return decode_with(lambda: cls(bucket_id, class_id, capacity), context=context, path=path)


def _decode_class_id(raw: Any, context: str, path: str) -> ReusableExecutionClassId:
    return decode_with(lambda: ReusableExecutionClassId(raw), context=context, path=path)


# ----------------------------------------------------------------------------- program shapes


@dataclass(frozen=True, slots=True)
class UniformDecodeShape:
    """``request_capacity`` sequences of ``query_tokens_per_sequence`` tokens each."""

    request_capacity: int
    token_capacity: int
    query_tokens_per_sequence: int

    TOPOLOGY = "uniform_decode"

    def __post_init__(self) -> None:
        check_uint(self.request_capacity, 32, "UniformDecodeShape.request_capacity")
        check_uint(self.token_capacity, 64, "UniformDecodeShape.token_capacity")
        check_uint(self.query_tokens_per_sequence, 32, "UniformDecodeShape.query_tokens_per_sequence")
        if (
            self.request_capacity == 0
            or self.query_tokens_per_sequence == 0
            or self.request_capacity * self.query_tokens_per_sequence != self.token_capacity
        ):
            raise invalid_plan(  # rule: 04.2.4/program_shapes_limit, 04.2.4/program_shape_covered_by_bucket
                "reusable decode program shape is empty or internally inconsistent"
            )

    @classmethod
    def new(cls, request_capacity: int, query_tokens_per_sequence: int) -> UniformDecodeShape:
        tokens = request_capacity * query_tokens_per_sequence
        if tokens > U64_MAX:
            raise invalid_plan(  # rule: 04.2.4/uniform_decode_shape_new_token_overflow
                "reusable decode program token capacity overflows u64"
            )
        return cls(request_capacity, tokens, query_tokens_per_sequence)

    def sort_key(self) -> tuple[int, int, int, int]:
        return (0, self.request_capacity, self.token_capacity, self.query_tokens_per_sequence)

    def request_capacity_value(self) -> int:
        return self.request_capacity

    def to_wire(self) -> dict[str, JsonValue]:
        return {
            "topology": self.TOPOLOGY,
            "request_capacity": self.request_capacity,
            "token_capacity": self.token_capacity,
            "query_tokens_per_sequence": self.query_tokens_per_sequence,
        }


@dataclass(frozen=True, slots=True)
class PrefillShape:
    """A prefill chunk ``[tokens_processed, tokens_processed + token_capacity)`` of a prompt."""

    tokens_processed: int
    token_capacity: int
    total_prompt_tokens: int

    TOPOLOGY = "prefill"

    def __post_init__(self) -> None:
        check_uint(self.tokens_processed, 64, "PrefillShape.tokens_processed")
        check_uint(self.token_capacity, 64, "PrefillShape.token_capacity")
        check_uint(self.total_prompt_tokens, 64, "PrefillShape.total_prompt_tokens")
        end = self.tokens_processed + self.token_capacity
        if self.token_capacity == 0 or self.total_prompt_tokens == 0 or end > U64_MAX or end > self.total_prompt_tokens:
            raise invalid_plan(  # rule: 04.2.4/program_policy_valid
                "reusable prefill program shape is empty or exceeds its prompt frontier"
            )

    def sort_key(self) -> tuple[int, int, int, int]:
        return (1, self.tokens_processed, self.token_capacity, self.total_prompt_tokens)

    def request_capacity_value(self) -> int:
        """Prefill shapes serve exactly one request."""
        return 1

    def to_wire(self) -> dict[str, JsonValue]:
        return {
            "topology": self.TOPOLOGY,
            "tokens_processed": self.tokens_processed,
            "token_capacity": self.token_capacity,
            "total_prompt_tokens": self.total_prompt_tokens,
        }


ReusableExecutionProgramShape = UniformDecodeShape | PrefillShape


def _decode_shape(raw: Any, context: str, path: str) -> ReusableExecutionProgramShape:
    if not isinstance(raw, dict) or "topology" not in raw:
        raise Serialization(  # rule: 04.2.4/reusable_policy_deny_unknown_fields
            context, f"{path}: program shape must be an object tagged by `topology`"
        )
    tag, _ = read_tagged(raw["topology"], ("uniform_decode", "prefill"), context=context, path=f"{path}.topology")
    body = {key: value for key, value in raw.items() if key != "topology"}
    if tag == "uniform_decode":
        obj = WireObject(
            body,
            ("request_capacity", "token_capacity", "query_tokens_per_sequence"),
            type_name="uniform_decode",
            context=context,
            path=path,
        )
        a, b, c = obj.u32("request_capacity"), obj.u64("token_capacity"), obj.u32("query_tokens_per_sequence")
        return decode_with(lambda: UniformDecodeShape(a, b, c), context=context, path=path)
    obj = WireObject(
        body,
        ("tokens_processed", "token_capacity", "total_prompt_tokens"),
        type_name="prefill",
        context=context,
        path=path,
    )
    p, t, total = obj.u64("tokens_processed"), obj.u64("token_capacity"), obj.u64("total_prompt_tokens")
    return decode_with(lambda: PrefillShape(p, t, total), context=context, path=path)


@dataclass(frozen=True, slots=True)
class ReusableExecutionProgramSpec:
    """One exact logical startup case bound to its workspace class."""

    class_id: ReusableExecutionClassId
    shape: ReusableExecutionProgramShape

    def sort_key(self) -> tuple[str, tuple[int, int, int, int]]:
        return (self.class_id.value, self.shape.sort_key())

    def to_wire(self) -> dict[str, JsonValue]:
        return {"class_id": self.class_id.to_wire(), "shape": self.shape.to_wire()}

    @classmethod
    def from_wire(cls, raw: Any, *, context: str, path: str = "$") -> ReusableExecutionProgramSpec:
        obj = WireObject(
            raw, ("class_id", "shape"), type_name="ReusableExecutionProgramSpec", context=context, path=path
        )
        class_id = _decode_class_id(obj.raw("class_id"), context, obj.at("class_id"))
        return cls(class_id, _decode_shape(obj.raw("shape"), context, obj.at("shape")))


class ReusableExecutionCatalogLifetime(StrEnum):
    STARTUP_SEALED = "startup_sealed"
    ON_DEMAND_BOUNDED = "on_demand_bounded"


_SHAPE_SEMANTICS: Final = ("exact",)
_MISS_POLICIES: Final = ("eager_fallback",)


@dataclass(frozen=True, slots=True)
class ReusableExecutionProgramPolicy:
    """Exact startup capture cases (programs strictly ascending, each prefill prefix present)."""

    shape_semantics: str
    catalog_miss_policy: str
    catalog_lifetime: ReusableExecutionCatalogLifetime
    warmup_passes: int
    capture_passes: int
    replay_validation_passes: int
    programs: tuple[ReusableExecutionProgramSpec, ...]

    def __post_init__(self) -> None:
        for name in ("warmup_passes", "capture_passes", "replay_validation_passes"):
            check_uint(getattr(self, name), 32, f"ReusableExecutionProgramPolicy.{name}")
        object.__setattr__(self, "programs", tuple(self.programs))
        self.validate()

    @classmethod
    def exact_startup_sealed(
        cls, warmup: int, capture: int, replay_validation: int, programs: Iterable[ReusableExecutionProgramSpec]
    ) -> ReusableExecutionProgramPolicy:
        """Adds every missing prefill prefix, sorts and deduplicates, then validates."""
        specs = list(programs)
        for spec in list(specs):
            if isinstance(spec.shape, PrefillShape) and spec.shape.tokens_processed > 0:
                prefix = PrefillShape(0, spec.shape.tokens_processed, spec.shape.total_prompt_tokens)
                specs.append(ReusableExecutionProgramSpec(spec.class_id, prefix))
        unique = {spec.sort_key(): spec for spec in specs}
        ordered = tuple(unique[key] for key in sorted(unique))
        return cls(
            "exact", "eager_fallback", ReusableExecutionCatalogLifetime.STARTUP_SEALED, warmup, capture,
            replay_validation, ordered,
        )  # fmt: skip

    @classmethod
    def exact_on_demand(cls, programs: Iterable[ReusableExecutionProgramSpec]) -> ReusableExecutionProgramPolicy:
        sealed = cls.exact_startup_sealed(1, 1, 1, programs)
        return cls(
            "exact", "eager_fallback", ReusableExecutionCatalogLifetime.ON_DEMAND_BOUNDED, 1, 1, 0, sealed.programs
        )

    def validate(self) -> None:
        lifetime_ok = (
            self.replay_validation_passes != 0
            if self.catalog_lifetime is ReusableExecutionCatalogLifetime.STARTUP_SEALED
            else (self.warmup_passes, self.capture_passes, self.replay_validation_passes) == (1, 1, 0)
        )
        if (
            self.shape_semantics not in _SHAPE_SEMANTICS
            or self.catalog_miss_policy not in _MISS_POLICIES
            or self.warmup_passes == 0
            or self.capture_passes == 0
            or not lifetime_ok
            or not self.programs
            or len(self.programs) > MAX_REUSABLE_EXECUTION_PROGRAM_SHAPES
        ):
            raise invalid_plan(  # rule: 04.2.4/program_policy_valid
                "reusable execution program policy has invalid semantics, passes, or shape count"
            )
        keys = [spec.sort_key() for spec in self.programs]
        if any(left >= right for left, right in itertools.pairwise(keys)):
            raise invalid_plan(  # rule: 04.2.4/program_shapes_limit
                "reusable execution program shapes are duplicate or non-canonical"
            )
        seen: dict[tuple[int, int, int, int], str] = {}
        for spec in self.programs:
            if seen.setdefault(spec.shape.sort_key(), spec.class_id.value) != spec.class_id.value:
                raise invalid_plan(  # rule: 04.2.4/program_shapes_limit
                    "reusable execution logical shape is assigned to multiple workspace classes"
                )
        present = set(keys)
        for spec in self.programs:
            shape = spec.shape
            if isinstance(shape, PrefillShape) and shape.tokens_processed > 0:
                prefix = (spec.class_id.value, (1, 0, shape.tokens_processed, shape.total_prompt_tokens))
                if prefix not in present:
                    raise invalid_plan(  # rule: 04.2.4/program_policy_valid
                        "reusable prefill program policy omits a prerequisite prefix shape"
                    )

    def to_wire(self) -> dict[str, JsonValue]:
        return {
            "shape_semantics": self.shape_semantics,
            "catalog_miss_policy": self.catalog_miss_policy,
            "catalog_lifetime": self.catalog_lifetime.value,
            "warmup_passes": self.warmup_passes,
            "capture_passes": self.capture_passes,
            "replay_validation_passes": self.replay_validation_passes,
            "programs": [spec.to_wire() for spec in self.programs],
        }

    @classmethod
    def from_wire(cls, raw: Any, *, context: str, path: str = "$") -> ReusableExecutionProgramPolicy:
        names = (
            "shape_semantics", "catalog_miss_policy", "catalog_lifetime", "warmup_passes", "capture_passes",
            "replay_validation_passes", "programs",
        )  # fmt: skip
        obj = WireObject(raw, names, type_name="ReusableExecutionProgramPolicy", context=context, path=path)
        semantics = obj.enum("shape_semantics", _SHAPE_SEMANTICS)
        miss = obj.enum("catalog_miss_policy", _MISS_POLICIES)
        lifetime = ReusableExecutionCatalogLifetime(
            obj.enum("catalog_lifetime", [item.value for item in ReusableExecutionCatalogLifetime])
        )
        warmup, capture, replay = (
            obj.u32("warmup_passes"),
            obj.u32("capture_passes"),
            obj.u32("replay_validation_passes"),
        )
        programs = tuple(
            ReusableExecutionProgramSpec.from_wire(item, context=context, path=f"{obj.at('programs')}[{i}]")
            for i, item in enumerate(obj.array("programs", max_items=MAX_REUSABLE_EXECUTION_PROGRAM_SHAPES + 1))
        )
        return decode_with(
            lambda: cls(semantics, miss, lifetime, warmup, capture, replay, programs), context=context, path=path
        )


@dataclass(frozen=True, slots=True)
class ReusableExecutionPolicy:
    """Reusable lanes and capacity buckets, validated on construction (no sorting; see ``new``)."""

    maximum_reusable_lanes: int
    buckets: tuple[ReusableExecutionBucketSpec, ...]
    program_policy: ReusableExecutionProgramPolicy | None = field(default=None)

    def __post_init__(self) -> None:
        check_uint(self.maximum_reusable_lanes, 32, "ReusableExecutionPolicy.maximum_reusable_lanes")
        object.__setattr__(self, "buckets", tuple(self.buckets))
        self.validate()

    @classmethod
    def new(
        cls, maximum_reusable_lanes: int, buckets: Sequence[ReusableExecutionBucketSpec]
    ) -> ReusableExecutionPolicy:
        """Sort buckets by ``(class_id, capacity)`` then validate."""
        ordered = sorted(buckets, key=lambda bucket: (bucket.class_id, bucket.capacity))
        return cls(maximum_reusable_lanes, tuple(ordered))

    def with_program_policy(self, program_policy: ReusableExecutionProgramPolicy) -> ReusableExecutionPolicy:
        return ReusableExecutionPolicy(self.maximum_reusable_lanes, self.buckets, program_policy)

    def validate(self) -> None:
        """Lanes non-zero; 1..=64 buckets; ids derive; programs covered; class chains monotonic."""
        counts = "reusable execution policy has an invalid lane or bucket count"
        if self.maximum_reusable_lanes == 0:
            raise invalid_plan(counts)  # rule: 04.2.4/lanes_nonzero
        if not self.buckets or len(self.buckets) > MAX_REUSABLE_EXECUTION_BUCKETS:
            raise invalid_plan(counts)  # rule: 04.2.4/bucket_count_limit
        for bucket in self.buckets:
            bucket.validate()
        if self.program_policy is not None:
            self.program_policy.validate()
            for spec in self.program_policy.programs:
                covering = self.smallest_covering_bucket(
                    spec.class_id, spec.shape.request_capacity_value(), spec.shape.token_capacity, 0
                )
                if covering is None:
                    raise invalid_plan(  # rule: 04.2.4/program_shape_covered_by_bucket
                        "reusable execution program shape has no covering workspace bucket in its class"
                    )
        for left, right in itertools.pairwise(self.buckets):
            if left.class_id > right.class_id or (
                left.class_id == right.class_id and not right.capacity.strictly_extends(left.capacity)
            ):
                raise invalid_plan(  # rule: 04.2.4/buckets_canonical_class_chains
                    "reusable execution buckets are not canonical monotonic class chains"
                )

    def startup_capture_case_count(self) -> int:
        return len(self.program_policy.programs) if self.program_policy is not None else len(self.buckets)

    def smallest_covering_bucket(
        self, class_id: ReusableExecutionClassId, sequences: int, tokens: int, pages: int
    ) -> ReusableExecutionBucketSpec | None:
        """The first bucket of ``class_id`` (policy order) covering the work."""
        for bucket in self.buckets:
            if bucket.class_id == class_id and bucket.capacity.covers(sequences, tokens, pages):
                return bucket
        return None

    def to_wire(self) -> dict[str, JsonValue]:
        """``program_policy`` is omitted when absent."""
        out: dict[str, JsonValue] = {
            "maximum_reusable_lanes": self.maximum_reusable_lanes,
            "buckets": [bucket.to_wire() for bucket in self.buckets],
        }
        if self.program_policy is not None:
            out["program_policy"] = self.program_policy.to_wire()
        return out

    @classmethod
    def from_wire(cls, raw: Any, *, context: str, path: str = "$") -> ReusableExecutionPolicy:
        """deny_unknown_fields; ``program_policy`` may be missing or null."""
        if isinstance(raw, dict) and "program_policy" not in raw:
            raw = {**raw, "program_policy": None}
        obj = WireObject(
            raw,
            ("maximum_reusable_lanes", "buckets", "program_policy"),
            type_name="ReusableExecutionPolicy",
            context=context,
            path=path,
        )
        lanes = obj.u32("maximum_reusable_lanes")
        items = read_list(
            obj.raw("buckets"), context=context, path=obj.at("buckets"), max_items=MAX_REUSABLE_EXECUTION_BUCKETS + 1
        )
        buckets = tuple(
            ReusableExecutionBucketSpec.from_wire(item, context=context, path=f"{obj.at('buckets')}[{i}]")
            for i, item in enumerate(items)
        )
        program = obj.optional(
            "program_policy",
            lambda value, ctx, at: ReusableExecutionProgramPolicy.from_wire(value, context=ctx, path=at),
        )
        return decode_with(lambda: cls(lanes, buckets, program), context=context, path=path)
