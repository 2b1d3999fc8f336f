"""The error catalogue: kinds, structured fields, error objects and their schema."""

from __future__ import annotations

import pickle
import re
from typing import Any

import jsonschema
import pytest
from hypothesis import given
from hypothesis import strategies as st

import schemas
from reference import errors
from reference.errors import ERROR_KINDS, VNextError, error_from_dict

DECLARED = [
    "InvalidIdentity",
    "UnknownModelFamily",
    "UnknownExternalModelMetadata",
    "AmbiguousModelFamilyRegistration",
    "InvalidModelConfig",
    "UnknownWeightLayout",
    "IncompatibleOperationVersion",
    "UnsupportedOperation",
    "InvalidExecutionPlan",
    "WeightMaterializerQualityApprovalRequired",
    "DynamicAdmissionContract",
    "DeviceCapacityUnavailable",
    "DynamicPoolResidentUnavailable",
    "DynamicResourceAdmissionRequired",
    "UnsupportedPlanSchema",
    "PlanHashMismatch",
    "InvalidResourceTransition",
    "InvalidLeaseTransition",
    "InvalidResolvedModelPlan",
    "Serialization",
]


def snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def test_catalogue_order_and_kinds() -> None:
    assert [cls.__name__ for cls in ERROR_KINDS.values()] == DECLARED
    for kind, cls in ERROR_KINDS.items():
        assert kind == snake(cls.__name__)
        assert issubclass(cls, VNextError)


field_values = {
    "string": st.text(max_size=20),
    "optional_string": st.one_of(st.none(), st.text(max_size=20)),
    "u16": st.integers(0, 65535),
    "usize": st.integers(0, 2**64 - 1),
    "u64": st.integers(0, 2**64 - 1),
}


@st.composite
def any_error(draw: st.DrawFn) -> VNextError:
    cls = draw(st.sampled_from(list(ERROR_KINDS.values())))
    if cls is errors.Serialization:
        return errors.Serialization(draw(st.text(max_size=20)), draw(st.text(max_size=20)))
    return cls(**{name: draw(field_values[t]) for name, t in cls.fields})


@given(any_error())
def test_error_objects_validate_and_round_trip(err: VNextError) -> None:
    obj = err.to_dict()
    assert obj["kind"] == err.kind
    assert isinstance(obj["message"], str)
    schemas.validate("error.json", obj)
    back = error_from_dict(obj)
    assert back == err
    assert type(back) is type(err)
    assert pickle.loads(pickle.dumps(err)) == err


def test_schema_rejects_wrong_field_types() -> None:
    bad = {"kind": "plan_hash_mismatch", "expected": "a", "actual": 3, "message": "m"}
    with pytest.raises(jsonschema.ValidationError):
        schemas.validate("error.json", bad)
    with pytest.raises(jsonschema.ValidationError):
        schemas.validate("error.json", {"kind": "no_such_kind", "message": "m"})
    with pytest.raises(jsonschema.ValidationError):
        schemas.validate("error.json", {"kind": "invalid_execution_plan", "reason": "r", "extra": 1, "message": "m"})


def test_structured_fields() -> None:
    err = errors.IncompatibleOperationVersion(
        node_id="node.main",
        operation_id="operation.main",
        required_major=1,
        required_minor=2,
        available_major=1,
        available_minor=1,
    )
    assert err.to_dict()["node_id"] == "node.main"
    assert (err.required_major, err.required_minor, err.available_major, err.available_minor) == (1, 2, 1, 1)
    with pytest.raises(TypeError):
        errors.IncompatibleOperationVersion(  # u16 range is enforced
            node_id=None,
            operation_id="o",
            required_major=70000,
            required_minor=0,
            available_major=0,
            available_minor=0,
        )
    with pytest.raises(TypeError):
        errors.InvalidExecutionPlan(reason="r", extra="x")  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        errors.PlanHashMismatch(expected="a")  # type: ignore[call-arg]


def test_equality_is_kind_and_fields_not_message() -> None:
    assert errors.InvalidExecutionPlan(reason="a") == errors.InvalidExecutionPlan(reason="a")
    assert errors.InvalidExecutionPlan(reason="a") != errors.InvalidExecutionPlan(reason="b")
    assert errors.UnknownModelFamily(family_id="x") != errors.UnknownExternalModelMetadata(metadata_id="x")


@pytest.mark.parametrize(
    "obj",
    [
        None,
        [],
        {"kind": 3},
        {"kind": "nope"},
        {"kind": "invalid_execution_plan"},
        {"kind": "invalid_execution_plan", "reason": 1},
        {"kind": "invalid_execution_plan", "reason": "r", "surprise": True},
        {"kind": "serialization", "context": "c"},
        {"kind": "serialization", "context": "c", "message": "m", "x": 1},
    ],
)
def test_malformed_error_objects_are_serialization(obj: Any) -> None:
    with pytest.raises(errors.Serialization):
        error_from_dict(obj)
