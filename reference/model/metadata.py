"""Semantic metadata: chat template, special tokens, collision policy (spec 02 §11)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any, Final

from reference.canonical import JsonValue, is_canonical_sha256
from reference.errors import InvalidExecutionPlan, InvalidModelConfig
from reference.ids import TokenizerId
from reference.ints import check_uint
from reference.wire import WireObject, decode_with, read_enum, read_list, read_uint

__all__ = [
    "METADATA_FIELD",
    "ModelSemanticMetadata",
    "SpecialTokenCollision",
    "SpecialTokenCollisionPolicy",
    "SpecialTokenMetadata",
    "SpecialTokenRole",
    "TemplateMetadata",
    "TokenizerDescriptor",
    "validate_metadata",
]

METADATA_FIELD: Final = "semantic_metadata"


class SpecialTokenRole(Enum):
    """Ordered bos < eos < pad < stop (declaration order)."""

    BOS = "bos"
    EOS = "eos"
    PAD = "pad"
    STOP = "stop"

    @property
    def rank(self) -> int:
        return _ROLE_RANK[self]


_ROLE_RANK: Final = {role: index for index, role in enumerate(SpecialTokenRole)}


@dataclass(frozen=True, slots=True)
class TemplateMetadata:
    template: str
    source_file: str
    sha256: str

    def to_wire(self) -> JsonValue:
        return {"template": self.template, "source_file": self.source_file, "sha256": self.sha256}

    @classmethod
    def from_wire(cls, raw: Any, context: str, path: str = "$") -> TemplateMetadata:
        f = WireObject(
            raw,
            ("template", "source_file", "sha256"),
            lenient=True,
            type_name="TemplateMetadata",
            context=context,
            path=path,
        )
        return cls(f.string("template"), f.string("source_file"), f.string("sha256"))


@dataclass(frozen=True, slots=True)
class SpecialTokenCollision:
    """An allowed shared token id between two distinct roles, stored with ``first < second``."""

    first: SpecialTokenRole
    second: SpecialTokenRole

    def __post_init__(self) -> None:
        if self.first is self.second:
            raise InvalidExecutionPlan(  # rule: 02.11.1/collision_equal_roles
                reason="a special-token collision needs two distinct roles"
            )
        if self.second.rank < self.first.rank:
            first, second = self.second, self.first
            object.__setattr__(self, "first", first)
            object.__setattr__(self, "second", second)

    def key(self) -> tuple[int, int]:
        return (self.first.rank, self.second.rank)

    def to_wire(self) -> JsonValue:
        return {"first": self.first.value, "second": self.second.value}

    @classmethod
    def from_wire(cls, raw: Any, context: str, path: str = "$") -> SpecialTokenCollision:
        f = WireObject(  # rule when 01.3.6/decode_unknown_field: 02.1/deny_unknown_special_token_collision
            raw, ("first", "second"), type_name="SpecialTokenCollision", context=context, path=path
        )
        roles = [r.value for r in SpecialTokenRole]
        first = SpecialTokenRole(read_enum(f.raw("first"), roles, context=context, path=f.at("first")))
        second = SpecialTokenRole(read_enum(f.raw("second"), roles, context=context, path=f.at("second")))
        return decode_with(lambda: cls(first, second), context=context, path=path, argument_errors=False)


@dataclass(frozen=True, slots=True)
class SpecialTokenCollisionPolicy:
    """The set of allowed collisions (sorted, unique); empty = require distinct ids."""

    allowed: tuple[SpecialTokenCollision, ...] = ()

    def __post_init__(self) -> None:
        unique = {c.key(): c for c in self.allowed}
        object.__setattr__(self, "allowed", tuple(unique[k] for k in sorted(unique)))

    @classmethod
    def require_distinct(cls) -> SpecialTokenCollisionPolicy:
        return cls(())

    def allows(self, first: SpecialTokenRole, second: SpecialTokenRole) -> bool:
        """True iff the ordered pair (first, second) is allowed as given."""
        return any(c.first is first and c.second is second for c in self.allowed)

    def to_wire(self) -> JsonValue:
        return {"allowed": [c.to_wire() for c in self.allowed]}

    @classmethod
    def from_wire(cls, raw: Any, context: str, path: str = "$") -> SpecialTokenCollisionPolicy:
        f = WireObject(  # rule when 01.3.6/decode_unknown_field: 02.1/deny_unknown_special_token_collision_policy
            raw, ("allowed",), type_name="SpecialTokenCollisionPolicy", context=context, path=path
        )
        return cls(f.items("allowed", SpecialTokenCollision.from_wire))


@dataclass(frozen=True, slots=True)
class SpecialTokenMetadata:
    bos_token_id: int | None
    eos_token_ids: tuple[int, ...]
    pad_token_id: int | None
    collision_policy: SpecialTokenCollisionPolicy = SpecialTokenCollisionPolicy()

    def __post_init__(self) -> None:
        if self.bos_token_id is not None:
            check_uint(self.bos_token_id, 32, "bos_token_id")
        if self.pad_token_id is not None:
            check_uint(self.pad_token_id, 32, "pad_token_id")
        object.__setattr__(self, "eos_token_ids", tuple(sorted({check_uint(t, 32, "eos") for t in self.eos_token_ids})))

    def to_wire(self) -> JsonValue:
        return {
            "bos_token_id": self.bos_token_id,
            "eos_token_ids": list(self.eos_token_ids),
            "pad_token_id": self.pad_token_id,
            "collision_policy": self.collision_policy.to_wire(),
        }

    @classmethod
    def from_wire(cls, raw: Any, context: str, path: str = "$") -> SpecialTokenMetadata:
        f = WireObject(
            raw,
            ("eos_token_ids", "collision_policy"),
            ("bos_token_id", "pad_token_id"),
            lenient=True,
            type_name="SpecialTokenMetadata",
            context=context,
            path=path,
        )
        eos = read_list(f.raw("eos_token_ids"), context=context, path=f.at("eos_token_ids"))

        def u32(raw_value: Any, c: str, p: str) -> int:
            return read_uint(raw_value, bits=32, context=c, path=p)

        return cls(
            f.optional("bos_token_id", u32),
            tuple(u32(v, context, f"{f.at('eos_token_ids')}[{i}]") for i, v in enumerate(eos)),
            f.optional("pad_token_id", u32),
            f.nested("collision_policy", SpecialTokenCollisionPolicy.from_wire),
        )


@dataclass(frozen=True, slots=True)
class ModelSemanticMetadata:
    template: TemplateMetadata
    special_tokens: SpecialTokenMetadata

    def to_wire(self) -> JsonValue:
        return {"template": self.template.to_wire(), "special_tokens": self.special_tokens.to_wire()}

    @classmethod
    def from_wire(
        cls, raw: Any, context: str = "decode model semantic metadata", path: str = "$"
    ) -> ModelSemanticMetadata:
        f = WireObject(
            raw,
            ("template", "special_tokens"),
            lenient=True,
            type_name="ModelSemanticMetadata",
            context=context,
            path=path,
        )
        return cls(
            f.nested("template", TemplateMetadata.from_wire), f.nested("special_tokens", SpecialTokenMetadata.from_wire)
        )


@dataclass(frozen=True, slots=True)
class TokenizerDescriptor:
    """Carried, not validated here."""

    tokenizer_id: TokenizerId
    source_file: str
    sha256: str
    vocabulary_size: int

    def __post_init__(self) -> None:
        check_uint(self.vocabulary_size, 64, "vocabulary_size")

    def to_wire(self) -> JsonValue:
        return {
            "tokenizer_id": self.tokenizer_id.to_wire(),
            "source_file": self.source_file,
            "sha256": self.sha256,
            "vocabulary_size": self.vocabulary_size,
        }

    @classmethod
    def from_wire(cls, raw: Any, context: str, path: str = "$") -> TokenizerDescriptor:
        f = WireObject(
            raw,
            ("tokenizer_id", "source_file", "sha256", "vocabulary_size"),
            lenient=True,
            type_name="TokenizerDescriptor",
            context=context,
            path=path,
        )
        return cls(
            f.identity("tokenizer_id", TokenizerId),
            f.string("source_file"),
            f.string("sha256"),
            f.u64("vocabulary_size"),
        )


def _metadata_error(family_id: str, reason: str) -> InvalidModelConfig:
    return InvalidModelConfig(family_id=family_id, field=METADATA_FIELD, reason=reason)


_SOURCE_FILE_REASON: Final = "template source_file must be a clean relative path"


def validate_metadata(family_id: str, metadata: ModelSemanticMetadata) -> None:
    """Template, relative source file, canonical sha256, non-empty eos set -> else ``semantic_metadata``.

    The checks run in the order 02 §11.3 lists them; each refuses at its own site.
    """
    template = metadata.template
    if not template.template:
        raise _metadata_error(family_id, "template must not be empty")  # rule: 02.11.3/template_empty
    source = template.source_file
    if not source:
        raise _metadata_error(  # rule: 02.11.3/source_file_empty, 01.1.4/template_source_file_relative
            family_id, _SOURCE_FILE_REASON
        )
    if source.startswith("/"):
        raise _metadata_error(  # rule: 02.11.3/source_file_absolute, 01.1.4/template_source_file_relative
            family_id, _SOURCE_FILE_REASON
        )
    if "\\" in source:
        raise _metadata_error(  # rule: 02.11.3/source_file_backslash, 01.1.4/template_source_file_relative
            family_id, _SOURCE_FILE_REASON
        )
    segments = source.split("/")
    if "" in segments:
        raise _metadata_error(  # rule: 02.11.3/source_file_empty_segment, 01.1.4/template_source_file_relative
            family_id, _SOURCE_FILE_REASON
        )
    if "." in segments:
        raise _metadata_error(  # rule: 02.11.3/source_file_dot_segment, 01.1.4/template_source_file_relative
            family_id, _SOURCE_FILE_REASON
        )
    if ".." in segments:
        raise _metadata_error(  # rule: 02.11.3/source_file_dotdot_segment, 01.1.4/template_source_file_relative
            family_id, _SOURCE_FILE_REASON
        )
    if not is_canonical_sha256(template.sha256):
        raise _metadata_error(  # rule: 02.11.3/template_sha_not_canonical
            family_id, "template sha256 must be 64 lowercase hex characters"
        )
    if not metadata.special_tokens.eos_token_ids:
        raise _metadata_error(family_id, "at least one eos token id is required")  # rule: 02.11.3/eos_empty
