"""AttributeSchema (spec 03 §4; property 9)."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reference.catalog import AttributeConstraint, AttributeSchema, AttributeSpec, CanonicalRational, SemanticValue
from reference.errors import Serialization
from reference.ids import AttributeId

from .helpers import raises_kind

R = CanonicalRational
VALID = {
    "bool": AttributeConstraint.bool_equals(True),
    "integer": AttributeConstraint.integer_range(-3, 3),
    "unsigned": AttributeConstraint.unsigned_range(1, 8),
    "rational": AttributeConstraint.rational_range(R(-1, 2), R(3, 4)),
    "text": AttributeConstraint.text_choices({"a", "b"}),
    "integers": AttributeConstraint.integer_list_length(1, 3),
}
KINDS = list(VALID)


@pytest.mark.parametrize(("kind", "constraint_kind"), list(itertools.product(KINDS, KINDS)))
def test_kind_constraint_pairs(kind: str, constraint_kind: str) -> None:
    spec = AttributeSpec(kind, True, VALID[constraint_kind])
    build = lambda: AttributeSchema({AttributeId("attr.x"): spec})  # noqa: E731
    if kind == constraint_kind:
        build()
    else:
        raises_kind("invalid_execution_plan", build)
    AttributeSchema({AttributeId("attr.x"): AttributeSpec(kind, False, AttributeConstraint.none())})


@pytest.mark.parametrize(
    "constraint",
    [
        AttributeConstraint.integer_range(4, 3),
        AttributeConstraint.unsigned_range(9, 8),
        AttributeConstraint.integer_list_length(2, 1),
        AttributeConstraint.rational_range(R(1, 2), R(1, 3)),
        AttributeConstraint.text_choices(set()),
        AttributeConstraint.text_choices({"a", ""}),
    ],
)
def test_invalid_bounds(constraint: AttributeConstraint) -> None:
    kind = {"integer_range": "integer", "unsigned_range": "unsigned", "integer_list_length": "integers"}.get(
        constraint.kind, "rational" if constraint.kind == "rational_range" else "text"
    )
    raises_kind(
        "invalid_execution_plan", lambda: AttributeSchema({AttributeId("a"): AttributeSpec(kind, False, constraint)})
    )


def test_rational_range_uses_exact_cross_multiplication() -> None:
    big = 2**62
    AttributeSchema(
        {AttributeId("a"): AttributeSpec("rational", False, AttributeConstraint.rational_range(R(big, 3), R(big, 2)))}
    )


def _schema() -> AttributeSchema:
    return AttributeSchema({AttributeId(f"attr.{k}"): AttributeSpec(k, k == "bool", v) for k, v in VALID.items()})


def test_validate_values_accepts_in_range() -> None:
    values = {
        AttributeId("attr.bool"): SemanticValue("bool", True),
        AttributeId("attr.integer"): SemanticValue("integer", 3),
        AttributeId("attr.rational"): SemanticValue("rational", R(3, 4)),
        AttributeId("attr.text"): SemanticValue("text", "b"),
        AttributeId("attr.integers"): SemanticValue("integers", (1, 2, 3)),
    }
    _schema().validate_values(values, "ctx")


@pytest.mark.parametrize(
    "values",
    [
        {AttributeId("attr.unknown"): SemanticValue("bool", True)},
        {AttributeId("attr.bool"): SemanticValue("integer", 1)},
        {AttributeId("attr.bool"): SemanticValue("bool", False)},
        {
            AttributeId("attr.bool"): SemanticValue("bool", True),
            AttributeId("attr.integer"): SemanticValue("integer", 4),
        },
        {
            AttributeId("attr.bool"): SemanticValue("bool", True),
            AttributeId("attr.unsigned"): SemanticValue("unsigned", 0),
        },
        {
            AttributeId("attr.bool"): SemanticValue("bool", True),
            AttributeId("attr.rational"): SemanticValue("rational", R(4, 5)),
        },
        {AttributeId("attr.bool"): SemanticValue("bool", True), AttributeId("attr.text"): SemanticValue("text", "c")},
        {AttributeId("attr.bool"): SemanticValue("bool", True), AttributeId("attr.text"): SemanticValue("text", "")},
        {
            AttributeId("attr.bool"): SemanticValue("bool", True),
            AttributeId("attr.integers"): SemanticValue("integers", ()),
        },
        {
            AttributeId("attr.bool"): SemanticValue("bool", True),
            AttributeId("attr.integers"): SemanticValue("integers", (1, 2, 3, 4)),
        },
        {},
    ],
)
def test_validate_values_rejects(values: dict[AttributeId, SemanticValue]) -> None:
    raises_kind("invalid_execution_plan", lambda: _schema().validate_values(values, "ctx"))


@given(st.integers(-10, 10))
def test_integer_range_inclusive(value: int) -> None:
    schema = AttributeSchema(
        {AttributeId("a"): AttributeSpec("integer", True, AttributeConstraint.integer_range(-3, 3))}
    )
    call = lambda: schema.validate_values({AttributeId("a"): SemanticValue("integer", value)}, "c")  # noqa: E731
    if -3 <= value <= 3:
        call()
    else:
        raises_kind("invalid_execution_plan", call)


def test_wire_round_trip_and_strictness() -> None:
    schema = _schema()
    assert AttributeSchema.from_wire(schema.to_wire()) == schema
    assert AttributeSchema.empty().to_wire() == {"entries": {}}
    spec_wire = {"value_kind": "bool", "required": True, "constraint": {"bool_equals": True}}
    with pytest.raises(Serialization):
        AttributeSchema.from_wire({"entries": {"a": {**spec_wire, "x": 1}}})
    with pytest.raises(Serialization):
        AttributeSchema.from_wire({"entries": {}, "x": 1})
    with pytest.raises(Serialization):
        AttributeSchema.from_wire(
            {"entries": {"a": {**spec_wire, "constraint": {"integer_range": {"minimum": 2, "maximum": 1}}}}}
        )
    with pytest.raises(Serialization):
        AttributeSchema.from_wire({"entries": {"bad id": spec_wire}})
    decoded = AttributeSchema.from_wire(
        {
            "entries": {
                "a": {
                    "value_kind": "rational",
                    "required": False,
                    "constraint": {
                        "rational_range": {
                            "minimum": {"numerator": 2, "denominator": 4},
                            "maximum": {"numerator": 1, "denominator": 1},
                        }
                    },
                }
            }
        }
    )
    assert decoded.to_wire()["entries"]["a"]["constraint"]["rational_range"]["minimum"] == {
        "numerator": 1,
        "denominator": 2,
    }
