"""``AttributeSchema`` (spec 03 §4): closed attribute vocabulary of one operation.

``AttributeSchema(entries)`` validates each spec in key order: only the
(value_kind, constraint) pairs of the §4 table are accepted, else
``InvalidExecutionPlan``. ``validate_values`` checks program attribute values.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from reference.catalog._common import read_struct_variant, read_unit_or_tagged
from reference.errors import Serialization, invalid_plan
from reference.ids import AttributeId
from reference.model.semantic_value import SEMANTIC_VALUE_KINDS, CanonicalRational, SemanticValue
from reference.wire import WireObject, decode_with, read_bool, read_i64, read_list, read_str, read_uint

__all__ = ["AttributeConstraint", "AttributeSchema", "AttributeSpec", "AttributeValueKind"]


class AttributeValueKind:
    """``"bool" | "integer" | "unsigned" | "rational" | "text" | "integers"``."""

    ALL = SEMANTIC_VALUE_KINDS


def rational_le(left: CanonicalRational, right: CanonicalRational) -> bool:
    """``left <= right`` by cross-multiplication (exact, like Rust's i128 arithmetic)."""
    return left.numerator * right.denominator <= right.numerator * left.denominator


_CONSTRAINTS = (
    "none",
    "bool_equals",
    "integer_range",
    "unsigned_range",
    "rational_range",
    "text_choices",
    "integer_list_length",
)


@dataclass(frozen=True, slots=True)
class AttributeConstraint:
    """One constraint. ``kind`` is the snake_case variant; ``minimum``/``maximum`` for ranges,
    ``expected`` for ``bool_equals`` and ``values`` for ``text_choices``."""

    kind: str
    minimum: int | CanonicalRational | None = None
    maximum: int | CanonicalRational | None = None
    expected: bool | None = None
    values: frozenset[str] | None = None

    def __post_init__(self) -> None:
        if self.kind not in _CONSTRAINTS:
            raise TypeError(f"unknown attribute constraint {self.kind!r}")

    @classmethod
    def none(cls) -> AttributeConstraint:
        return cls("none")

    @classmethod
    def bool_equals(cls, expected: bool) -> AttributeConstraint:
        return cls("bool_equals", expected=expected)

    @classmethod
    def integer_range(cls, minimum: int, maximum: int) -> AttributeConstraint:
        return cls("integer_range", minimum, maximum)

    @classmethod
    def unsigned_range(cls, minimum: int, maximum: int) -> AttributeConstraint:
        return cls("unsigned_range", minimum, maximum)

    @classmethod
    def rational_range(cls, minimum: CanonicalRational, maximum: CanonicalRational) -> AttributeConstraint:
        return cls("rational_range", minimum, maximum)

    @classmethod
    def text_choices(cls, values: frozenset[str] | set[str]) -> AttributeConstraint:
        return cls("text_choices", values=frozenset(values))

    @classmethod
    def integer_list_length(cls, minimum: int, maximum: int) -> AttributeConstraint:
        return cls("integer_list_length", minimum, maximum)

    def to_wire(self) -> Any:
        if self.kind == "none":
            return "none"
        if self.kind == "bool_equals":
            return {"bool_equals": self.expected}
        if self.kind == "text_choices":
            return {"text_choices": {"values": sorted(self.values or ())}}
        lo, hi = self.minimum, self.maximum
        if isinstance(lo, CanonicalRational) and isinstance(hi, CanonicalRational):
            return {self.kind: {"minimum": lo.to_wire(), "maximum": hi.to_wire()}}
        return {self.kind: {"minimum": lo, "maximum": hi}}

    @classmethod
    def from_wire(
        cls, raw: Any, *, context: str = "decode attribute constraint", path: str = "$"
    ) -> AttributeConstraint:
        tag, content = read_unit_or_tagged(raw, _CONSTRAINTS, context=context, path=path)
        at = f"{path}.{tag}"
        if tag == "none":
            if content is not None:
                raise Serialization(  # rule: 01.5/enum_variant_shape
                    context, f"{path}: unit variant `none` takes no content"
                )
            return cls.none()
        if content is None:
            raise Serialization(context, f"{path}: variant `{tag}` needs content")  # rule: 01.5/enum_variant_shape
        if tag == "bool_equals":
            return cls.bool_equals(read_bool(content, context=context, path=at))
        if tag == "text_choices":
            obj = read_struct_variant(content, ("values",), variant=tag, context=context, path=path)
            items = read_list(obj["values"], context=context, path=f"{at}.values")
            return cls.text_choices(
                frozenset(read_str(v, context=context, path=f"{at}.values[{i}]") for i, v in enumerate(items))
            )
        obj = read_struct_variant(content, ("minimum", "maximum"), variant=tag, context=context, path=path)
        if tag == "rational_range":
            return cls.rational_range(
                # rule when 01.5/validating_wire_constructor_errors_are_serialization: 03.4/rational_zero_denominator
                CanonicalRational.from_wire(obj["minimum"], context=context, path=f"{at}.minimum"),
                CanonicalRational.from_wire(obj["maximum"], context=context, path=f"{at}.maximum"),
            )

        def bound(name: str) -> int:
            if tag == "integer_range":
                return read_i64(obj[name], context=context, path=f"{at}.{name}")
            bits = 64 if tag == "unsigned_range" else 32
            return read_uint(obj[name], bits=bits, context=context, path=f"{at}.{name}")

        return cls(tag, bound("minimum"), bound("maximum"))


_PAIRS = {
    "bool": "bool_equals",
    "integer": "integer_range",
    "unsigned": "unsigned_range",
    "rational": "rational_range",
    "text": "text_choices",
    "integers": "integer_list_length",
}


@dataclass(frozen=True, slots=True)
class AttributeSpec:
    """``{"value_kind", "required", "constraint"}``; deny_unknown_fields, no validation by itself."""

    value_kind: str
    required: bool
    constraint: AttributeConstraint

    def __post_init__(self) -> None:
        if self.value_kind not in AttributeValueKind.ALL:
            raise TypeError(f"unknown attribute value kind {self.value_kind!r}")

    def check(self, attribute_id: AttributeId) -> None:
        """Reject a (kind, constraint) pair outside the §4 table, or an empty/inverted bound."""
        c = self.constraint
        if c.kind == "none":
            return
        ok = _PAIRS[self.value_kind] == c.kind
        if ok and c.kind == "text_choices":
            ok = bool(c.values) and all(v != "" for v in c.values or ())
        elif ok and c.kind == "rational_range":
            assert isinstance(c.minimum, CanonicalRational) and isinstance(c.maximum, CanonicalRational)
            ok = rational_le(c.minimum, c.maximum)
        elif ok and c.kind != "bool_equals":
            assert isinstance(c.minimum, int) and isinstance(c.maximum, int)
            ok = c.minimum <= c.maximum
        if ok:
            return
        message = f"attribute `{attribute_id}` has an incompatible or invalid constraint"
        if self.value_kind == "bool":
            raise invalid_plan(message)  # rule: 03.4/pair_bool_equals
        if self.value_kind == "integer":
            raise invalid_plan(message)  # rule: 03.4/pair_integer_range
        if self.value_kind == "unsigned":
            raise invalid_plan(message)  # rule: 03.4/pair_unsigned_range
        if self.value_kind == "rational":
            raise invalid_plan(message)  # rule: 03.4/pair_rational_range
        if self.value_kind == "text":
            raise invalid_plan(message)  # rule: 03.4/pair_text_choices
        raise invalid_plan(message)  # rule: 03.4/pair_integer_list_length

    def accepts(self, value: SemanticValue) -> bool:
        """The constraint holds for ``value`` (inclusive ranges, exact rational comparison)."""
        c, v = self.constraint, value.value
        if c.kind == "none":
            return True
        if c.kind == "bool_equals":
            return value.kind == "bool" and v == c.expected
        if c.kind == "text_choices":
            return value.kind == "text" and v in (c.values or frozenset())
        if c.kind == "rational_range":
            assert isinstance(c.minimum, CanonicalRational) and isinstance(c.maximum, CanonicalRational)
            return isinstance(v, CanonicalRational) and rational_le(c.minimum, v) and rational_le(v, c.maximum)
        assert isinstance(c.minimum, int) and isinstance(c.maximum, int)
        if c.kind == "integer_list_length":
            return value.kind == "integers" and isinstance(v, tuple) and c.minimum <= len(v) <= c.maximum
        expected_kind = "integer" if c.kind == "integer_range" else "unsigned"
        return value.kind == expected_kind and isinstance(v, int) and c.minimum <= v <= c.maximum

    def to_wire(self) -> dict[str, Any]:
        return {"value_kind": self.value_kind, "required": self.required, "constraint": self.constraint.to_wire()}

    @classmethod
    def from_wire(cls, raw: Any, *, context: str = "decode attribute spec", path: str = "$") -> AttributeSpec:
        obj = WireObject(
            raw,
            ("value_kind", "required", "constraint"),
            type_name="AttributeSpec",  # rule when 01.3.6/decode_unknown_field: 03.4/attribute_spec_deny_unknown
            context=context,
            path=path,
        )
        return cls(
            obj.enum("value_kind", AttributeValueKind.ALL),
            obj.boolean("required"),
            AttributeConstraint.from_wire(obj.raw("constraint"), context=context, path=obj.at("constraint")),
        )


@dataclass(frozen=True, slots=True, init=False)
class AttributeSchema:
    """``{"entries": {AttributeId: AttributeSpec}}``; every spec checked in key order."""

    entries: Mapping[AttributeId, AttributeSpec]

    def __init__(self, entries: Mapping[AttributeId, AttributeSpec] | None = None) -> None:
        ordered = dict(sorted((entries or {}).items()))
        for attribute_id, spec in ordered.items():
            spec.check(attribute_id)
        object.__setattr__(self, "entries", MappingProxyType(ordered))

    @classmethod
    def empty(cls) -> AttributeSchema:
        return cls({})

    def __eq__(self, other: object) -> bool:
        return isinstance(other, AttributeSchema) and dict(self.entries) == dict(other.entries)

    def __hash__(self) -> int:
        return hash(tuple(self.entries.items()))

    def validate_values(self, values: Mapping[AttributeId, SemanticValue], context: str) -> None:
        """Unknown key, empty text/list, wrong kind, violated constraint; then the first missing required entry."""
        for attribute_id in sorted(values):
            value = values[attribute_id]
            spec = self.entries.get(attribute_id)
            if spec is None:
                raise invalid_plan(  # rule: 03.4/values_unknown_key
                    f"{context} contains unknown attribute `{attribute_id}`"
                )
            value.validate()
            if value.kind != spec.value_kind:
                raise invalid_plan(  # rule: 03.4/values_wrong_kind
                    f"{context} attribute `{attribute_id}` has the wrong value kind"
                )
            if not spec.accepts(value):
                message = f"attribute `{attribute_id}` violates its declared constraint"
                constraint = spec.constraint.kind
                if constraint == "bool_equals":
                    raise invalid_plan(message)  # rule: 03.4/values_bool_equals
                if constraint == "rational_range":
                    raise invalid_plan(message)  # rule: 03.4/values_rational_range
                if constraint == "text_choices":
                    raise invalid_plan(message)  # rule: 03.4/values_text_choices
                if constraint == "integer_list_length":
                    raise invalid_plan(message)  # rule: 03.4/values_list_length
                raise invalid_plan(message)  # rule: 03.4/values_range_inclusive
        for attribute_id, spec in self.entries.items():
            if spec.required and attribute_id not in values:
                raise invalid_plan(  # rule: 03.4/values_missing_required
                    f"{context} is missing required attribute `{attribute_id}`"
                )

    def to_wire(self) -> dict[str, Any]:
        return {"entries": {k.value: v.to_wire() for k, v in self.entries.items()}}

    @classmethod
    def from_wire(cls, raw: Any, *, context: str = "decode attribute schema", path: str = "$") -> AttributeSchema:
        """deny_unknown_fields, then the constructor."""
        obj = WireObject(
            raw,
            ("entries",),
            type_name="AttributeSchema",  # rule when 01.3.6/decode_unknown_field: 03.4/attribute_schema_deny_unknown
            context=context,
            path=path,
        )
        entries_raw = obj.raw("entries")
        if not isinstance(entries_raw, dict):
            raise Serialization(  # rule: 01.5/struct_wrong_json_type
                context, f"{obj.at('entries')}: expected a JSON object"
            )
        entries = {
            AttributeId.from_wire(key, context=context): AttributeSpec.from_wire(
                value, context=context, path=f"{obj.at('entries')}.{key}"
            )
            for key, value in entries_raw.items()
        }
        return decode_with(lambda: cls(entries), context=context, path=path)
