"""``CanonicalRational`` and ``SemanticValue`` (program node attribute values; spec 02 §10.1)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from math import gcd
from typing import Any, Final

from reference.canonical import JsonValue
from reference.errors import InvalidExecutionPlan
from reference.ints import U64_MAX, check_bool, check_i64, check_uint, fits_i64
from reference.wire import (
    WireObject,
    decode_with,
    read_bool,
    read_i64,
    read_list,
    read_str,
    read_tagged_enum,
    read_uint,
)

__all__ = ["SEMANTIC_VALUE_KINDS", "CanonicalRational", "SemanticValue"]

_DECIMAL: Final = re.compile(r"([+-]?)(\d+)(?:\.(\d*))?(?:[eE]([+-]?\d+))?|([+-]?)\.(\d+)(?:[eE]([+-]?\d+))?")


@dataclass(frozen=True, slots=True)
class CanonicalRational:
    """``numerator / denominator`` reduced by their gcd; ``0/d`` becomes ``0/1``.

    A zero denominator is a bare ``InvalidExecutionPlan``.
    """

    numerator: int
    denominator: int

    def __post_init__(self) -> None:
        check_i64(self.numerator, "numerator")
        check_uint(self.denominator, 64, "denominator")
        if self.denominator == 0:
            raise InvalidExecutionPlan(  # rule: 02.10.1/rational_zero_denominator
                reason="rational denominator must be non-zero"
            )
        divisor = max(gcd(abs(self.numerator), self.denominator), 1)
        object.__setattr__(self, "numerator", self.numerator // divisor)
        object.__setattr__(self, "denominator", self.denominator // divisor)

    def to_wire(self) -> JsonValue:
        return {"numerator": self.numerator, "denominator": self.denominator}

    @classmethod
    def from_wire(cls, raw: Any, context: str, path: str = "$") -> CanonicalRational:
        """Strict decode (deny_unknown_fields); non-reduced input is normalized."""
        f = WireObject(  # rule when 01.3.6/decode_unknown_field: 02.1/deny_unknown_canonical_rational
            raw, ("numerator", "denominator"), type_name="CanonicalRational", context=context, path=path
        )
        numerator, denominator = f.i64("numerator"), f.u64("denominator")
        return decode_with(lambda: cls(numerator, denominator), context=context, path=path, argument_errors=False)

    @classmethod
    def parse(cls, text: str) -> CanonicalRational:
        """Exact rational from a decimal or scientific string (no floats involved)."""
        match = _DECIMAL.fullmatch(text.strip())
        if match is None:
            raise InvalidExecutionPlan(  # rule: 02.10.1/rational_parse_decimal
                reason=f"`{text}` is not a decimal number"
            )
        if match.group(2) is not None:
            sign, whole, frac, exp = match.group(1), match.group(2), match.group(3) or "", match.group(4)
        else:
            sign, whole, frac, exp = match.group(5), "0", match.group(6), match.group(7)
        exponent = int(exp) if exp else 0
        if abs(exponent) > 40:
            raise InvalidExecutionPlan(  # rule: 02.10.1/rational_parse_decimal
                reason=f"`{text}` is outside the rational range"
            )
        numerator = int(whole + frac) * (-1 if sign == "-" else 1)
        denominator = 10 ** len(frac)
        if exponent >= 0:
            numerator *= 10**exponent
        else:
            denominator *= 10 ** (-exponent)
        divisor = max(gcd(abs(numerator), denominator), 1)
        numerator //= divisor
        denominator //= divisor
        if not fits_i64(numerator) or denominator > U64_MAX:
            raise InvalidExecutionPlan(  # rule: 02.10.1/rational_parse_decimal
                reason=f"`{text}` is outside the rational range"
            )
        return cls(numerator, denominator)


SEMANTIC_VALUE_KINDS: Final = ("bool", "integer", "unsigned", "rational", "text", "integers")


@dataclass(frozen=True, slots=True)
class SemanticValue:
    """Externally tagged attribute value; ``kind`` is the variant name.

    Payloads: bool -> bool, integer -> i64, unsigned -> u64, rational ->
    CanonicalRational, text -> str, integers -> tuple of i64.
    """

    kind: str
    value: bool | int | str | CanonicalRational | tuple[int, ...]

    def __post_init__(self) -> None:
        kind, value = self.kind, self.value
        if kind == "bool":
            check_bool(value, "bool")
        elif kind == "integer":
            check_i64(value, "integer")
        elif kind == "unsigned":
            check_uint(value, 64, "unsigned")
        elif kind == "rational":
            if not isinstance(value, CanonicalRational):
                raise ValueError("rational payload must be a CanonicalRational")
        elif kind == "text":
            if not isinstance(value, str):
                raise ValueError("text payload must be a str")
        elif kind == "integers":
            if not isinstance(value, tuple | list):
                raise ValueError("integers payload must be a sequence of i64")
            object.__setattr__(self, "value", tuple(check_i64(v, "integers") for v in value))
        else:
            raise ValueError(f"unknown semantic value kind {kind!r}")

    def validate(self) -> None:
        """Empty text or an empty integer list is a bare ``InvalidExecutionPlan``."""
        if self.kind == "text" and self.value == "":
            raise InvalidExecutionPlan(  # rule: 02.10.1/semantic_text_non_empty
                reason="text attribute value must not be empty"
            )
        if self.kind == "integers" and self.value == ():
            raise InvalidExecutionPlan(  # rule: 02.10.1/semantic_integers_non_empty
                reason="integer list attribute value must not be empty"
            )

    def to_wire(self) -> JsonValue:
        value = self.value
        if isinstance(value, CanonicalRational):
            return {"rational": value.to_wire()}
        if isinstance(value, tuple):
            return {"integers": list(value)}
        return {self.kind: value}

    @classmethod
    def from_wire(cls, raw: Any, context: str, path: str = "$") -> SemanticValue:
        tag, content = read_tagged_enum(raw, (), SEMANTIC_VALUE_KINDS, context=context, path=path)
        inner = f"{path}.{tag}"
        if tag == "bool":
            return cls(tag, read_bool(content, context=context, path=inner))
        if tag == "integer":
            return cls(tag, read_i64(content, context=context, path=inner))
        if tag == "unsigned":
            return cls(tag, read_uint(content, bits=64, context=context, path=inner))
        if tag == "rational":
            return cls(tag, CanonicalRational.from_wire(content, context, inner))
        if tag == "text":
            return cls(tag, read_str(content, context=context, path=inner))
        items = read_list(content, context=context, path=inner)
        return cls(tag, tuple(read_i64(v, context=context, path=f"{inner}[{i}]") for i, v in enumerate(items)))
