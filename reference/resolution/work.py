"""Work shapes (spec 04 §6): ``TokenSpanWork`` and ``ResourceWorkShape``, with their fingerprints.

Neither type decodes from JSON; ``to_wire`` gives the serialize form. A
``WorkShape`` triple ``(sequences, tokens, pages)`` is what size formulas evaluate.
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Final, NamedTuple

from reference.canonical import JsonValue, direct_bytes
from reference.errors import InvalidExecutionPlan, invalid_plan
from reference.ints import U32_MAX, checked_sum, fits_uint

__all__ = [
    "RESOURCE_WORK_SHAPE_DOMAIN",
    "TOKEN_SPAN_WORK_DOMAIN",
    "CommittedPageWork",
    "ResourceWorkShape",
    "TokenSpanWork",
    "WorkShape",
]

TOKEN_SPAN_WORK_DOMAIN: Final = b"ferrum.runtime-vnext.token-span-work.v1\x00"
RESOURCE_WORK_SHAPE_DOMAIN: Final = "ferrum.runtime-vnext.resource-work-shape.v1"


class WorkShape(NamedTuple):
    """``(sequences, tokens, pages)`` as formulas see it."""

    sequences: int
    tokens: int
    pages: int


@dataclass(frozen=True, slots=True)
class TokenSpanWork:
    """One sequence's span: immediate tokens, full input tokens, and the byte-recipe fingerprint."""

    immediate_tokens: int
    full_input_tokens: int
    fingerprint: str

    @classmethod
    def from_token_ids(cls, full_input: Sequence[int], start: int, end: int) -> TokenSpanWork:
        """``full_input`` non-empty, ``start < end <= len(full_input)``; tokens are u32."""
        tokens = list(full_input)
        if not tokens:
            raise InvalidExecutionPlan(  # rule: 04.6.1/token_span_empty_input, 04.6.1/token_span_range_out_of_bounds
                reason="token span work needs a non-empty input"
            )
        if not 0 <= start < end:
            raise InvalidExecutionPlan(reason="token span work range is empty")  # rule: 04.6.1/token_span_empty_range
        if end > len(tokens):
            raise InvalidExecutionPlan(  # rule: 04.6.1/token_span_range_out_of_bounds, 04.6.1/token_span_empty_range
                reason="token span work range exceeds the input"
            )
        if not all(fits_uint(t, 32) for t in tokens):
            raise InvalidExecutionPlan(reason="token ids must be u32")  # rule: 01.5/unsigned_rejects_out_of_range
        digest = hashlib.sha256(TOKEN_SPAN_WORK_DOMAIN)
        digest.update(struct.pack("<QQQ", len(tokens), start, end))
        digest.update(struct.pack(f"<{len(tokens)}I", *tokens))
        return cls(end - start, len(tokens), digest.hexdigest())

    def to_wire(self) -> dict[str, JsonValue]:
        return {
            "immediate_tokens": self.immediate_tokens,
            "full_input_tokens": self.full_input_tokens,
            "fingerprint": self.fingerprint,
        }


@dataclass(frozen=True, slots=True)
class CommittedPageWork:
    """Committed page evidence (crate-internal upstream; never produced by the public constructors)."""

    pages: int
    fingerprint: str

    def to_wire(self) -> dict[str, JsonValue]:
        return {"pages": self.pages, "fingerprint": self.fingerprint}


@dataclass(frozen=True, slots=True)
class ResourceWorkShape:
    """Per-call work: spans, committed pages, immediate and fit triples, and the shape fingerprint."""

    token_spans: tuple[TokenSpanWork, ...]
    committed_pages: tuple[CommittedPageWork, ...]
    immediate_sequences: int
    immediate_tokens: int
    immediate_pages: int
    fit_sequences: int
    fit_tokens: int
    fit_pages: int
    fingerprint: str

    @classmethod
    def from_token_spans(cls, spans: Iterable[TokenSpanWork]) -> ResourceWorkShape:
        """At least one and at most ``u32::MAX`` spans; sums checked."""
        items = tuple(spans)
        if not items:
            raise InvalidExecutionPlan(  # rule: 04.6.2/work_shape_needs_spans
                reason="resource work shape needs at least one token span"
            )
        if len(items) > U32_MAX:
            raise InvalidExecutionPlan(  # rule: 04.6.2/work_shape_needs_spans
                reason="resource work shape has too many token spans"
            )
        immediate = checked_sum(  # rule: 04.6.2/work_shape_token_sums_checked, 04.6.2/work_shape_needs_spans
            (s.immediate_tokens for s in items), error=partial(invalid_plan, "immediate token count overflows u64")
        )
        fit = checked_sum(  # rule: 04.6.2/work_shape_token_sums_checked, 04.6.2/work_shape_needs_spans
            (s.full_input_tokens for s in items), error=partial(invalid_plan, "fit token count overflows u64")
        )
        material: JsonValue = {
            "domain": RESOURCE_WORK_SHAPE_DOMAIN,
            "token_spans": [s.to_wire() for s in items],
            "committed_pages": [],
        }
        digest = hashlib.sha256(direct_bytes(material, context="fingerprint resource work shape")).hexdigest()
        return cls(items, (), len(items), immediate, 0, len(items), fit, 0, digest)

    @classmethod
    def single(cls, span: TokenSpanWork) -> ResourceWorkShape:
        return cls.from_token_spans([span])

    def immediate_shape(self) -> WorkShape:
        return WorkShape(self.immediate_sequences, self.immediate_tokens, self.immediate_pages)

    def fit_shape(self) -> WorkShape:
        return WorkShape(self.fit_sequences, self.fit_tokens, self.fit_pages)

    def to_wire(self) -> dict[str, JsonValue]:
        return {
            "token_spans": [s.to_wire() for s in self.token_spans],
            "committed_pages": [p.to_wire() for p in self.committed_pages],
            "immediate_sequences": self.immediate_sequences,
            "immediate_tokens": self.immediate_tokens,
            "immediate_pages": self.immediate_pages,
            "fit_sequences": self.fit_sequences,
            "fit_tokens": self.fit_tokens,
            "fit_pages": self.fit_pages,
            "fingerprint": self.fingerprint,
        }
