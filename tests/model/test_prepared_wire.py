"""Untrusted prepared-family wire: size cap, strict decode, re-serialization equality, revalidation."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import pytest

import schemas
from reference.canonical import direct_bytes
from reference.errors import InvalidModelConfig, Serialization, UnknownModelFamily, VNextError
from reference.model.prepared import (
    MAX_PREPARED_MODEL_FAMILY_WIRE_BYTES,
    PreparedModelFamily,
    UnvalidatedPreparedModelFamily,
)
from reference.model.registration import TypedFamilyRegistration
from reference.model.registry import StaticFamilyRegistry
from reference.model.revalidate import from_json_validated, revalidate
from seeds.families import FIXTURE_PROFILE, OrderedSchemaFamily, TestFamily, TestRegistry

CONTEXT = "decode untrusted prepared model family"


def wire() -> dict[str, Any]:
    return json.loads(TestRegistry().prepare().to_json_bytes())


def encode(value: Any) -> bytes:
    return json.dumps(value, separators=(",", ":")).encode()


def decode_error(data: bytes) -> Serialization:
    with pytest.raises(Serialization) as info:
        UnvalidatedPreparedModelFamily.decode_untrusted(data)
    assert info.value.context == CONTEXT
    return info.value


def test_round_trip_returns_the_rebuilt_family() -> None:
    registry = TestRegistry()
    family = registry.prepare()
    back = from_json_validated(family.to_json_bytes(), registry)
    assert back == family
    assert back.fingerprint() == family.fingerprint()
    schemas.validate("model/prepared_family.json", family.to_wire())


def test_decoding_preserves_every_field() -> None:
    family = TestRegistry().prepare()
    decoded = UnvalidatedPreparedModelFamily.decode_untrusted(family.to_json_bytes())
    assert direct_bytes(decoded.to_wire()) == family.to_json_bytes()


def test_size_cap_is_checked_before_parsing() -> None:
    body = TestRegistry().prepare().to_json_bytes()
    exact = body + b" " * (MAX_PREPARED_MODEL_FAMILY_WIRE_BYTES - len(body))
    assert len(exact) == MAX_PREPARED_MODEL_FAMILY_WIRE_BYTES
    assert UnvalidatedPreparedModelFamily.decode_untrusted(exact).wire_version == 2
    error = decode_error(exact + b" ")
    assert "maximum is 16777216" in error.message_text
    # not even valid JSON: still the size error
    error = decode_error(b"[" * (MAX_PREPARED_MODEL_FAMILY_WIRE_BYTES + 1))
    assert "maximum is 16777216" in error.message_text


def mutate(change: Callable[[dict[str, Any]], None]) -> bytes:
    value = wire()
    change(value)
    return encode(value)


DECODE_REJECTIONS: dict[str, Callable[[dict[str, Any]], None]] = {
    "unknown top-level key": lambda w: w.__setitem__("extra", 1),
    "missing top-level key": lambda w: w.pop("metadata"),
    "unknown nested version key": lambda w: w["weight_schema"]["version"].__setitem__("patch", 0),
    "unknown key in lenient schema": lambda w: w["weight_schema"].__setitem__("note", "x"),
    "unknown key in metadata": lambda w: w["metadata"]["template"].__setitem__("extra", 1),
    "explicit unsupported checkpoint": lambda w: w["program"]["states"][0].__setitem__("checkpoint", "unsupported"),
    "null checkpoint inputs": lambda w: w["program"].__setitem__("checkpoint_inputs", None),
    "missing multiplication type": lambda w: w["numerical_profile"]["operations"][0].pop("multiplication_type"),
    "missing bos": lambda w: w["metadata"]["special_tokens"].pop("bos_token_id"),
    "wire version 1": lambda w: w.__setitem__("wire_version", 1),
    "wire version 3": lambda w: w.__setitem__("wire_version", 3),
    "unsorted eos set": lambda w: w["metadata"]["special_tokens"].__setitem__("eos_token_ids", [3, 2]),
    "duplicate eos": lambda w: w["metadata"]["special_tokens"].__setitem__("eos_token_ids", [2, 2]),
    "reversed collision": lambda w: w["metadata"]["special_tokens"]["collision_policy"].__setitem__(
        "allowed", [{"first": "pad", "second": "bos"}]
    ),
    "equal collision roles": lambda w: w["metadata"]["special_tokens"]["collision_policy"].__setitem__(
        "allowed", [{"first": "pad", "second": "pad"}]
    ),
    "bad profile id": lambda w: w["numerical_profile"].__setitem__("id", "bad id"),
    "bad family id": lambda w: w.__setitem__("family_id", ""),
    "program outputs duplicated": lambda w: w["program"].__setitem__("outputs", ["value.output", "value.output"]),
    "program unknown key": lambda w: w["program"].__setitem__("note", 1),
    "state bad checkpoint version": lambda w: w["program"]["states"][0].__setitem__(
        "checkpoint",
        {
            "completed_boundary": {
                "contract_version": {"major": 1, "minor": 1},
                "contents": "prefix_positions",
                "input_dependency": "exact_token_prefix",
            }
        },
    ),
    "wire version float": lambda w: w.__setitem__("wire_version", 2.0),
}


@pytest.mark.parametrize("name", sorted(DECODE_REJECTIONS))
def test_decode_rejections(name: str) -> None:
    decode_error(mutate(DECODE_REJECTIONS[name]))


def two_states_wire() -> tuple[TypedFamilyRegistration[Any], dict[str, Any]]:
    from reference.documents.family import DeclarativeFamily
    from seeds.families import seed_family_document

    doc = seed_family_document("test")
    second = copy.deepcopy(doc["program"]["states"][0])
    second["id"], second["value_id"] = "state.alpha", "value.alpha"
    doc["program"]["states"].append(second)
    doc["numerical_profiles"]["profiles"][0]["states"].append(second)
    reg = TypedFamilyRegistration(DeclarativeFamily.from_document(doc))
    return reg, json.loads(reg.prepare_with_profile({"width": 4}, FIXTURE_PROFILE).to_json_bytes())


def test_unsorted_program_states_fail_decoding() -> None:
    _, value = two_states_wire()
    assert [s["id"] for s in value["program"]["states"]] == ["state.alpha", "state.cache"]
    value["program"]["states"].reverse()
    decode_error(encode(value))


def test_unsorted_profile_states_fail_revalidation() -> None:
    reg, value = two_states_wire()
    value["numerical_profile"]["states"].reverse()
    decoded = UnvalidatedPreparedModelFamily.decode_untrusted(encode(value))
    with pytest.raises(InvalidModelConfig) as info:
        revalidate(decoded, StaticFamilyRegistry([reg]))
    assert info.value.field == "prepared_package"


def test_duplicate_keys_keep_the_last_value() -> None:
    body = TestRegistry().prepare().to_json_bytes()
    doubled = body.replace(b'"wire_version":2', b'"wire_version":7,"wire_version":2', 1)
    assert UnvalidatedPreparedModelFamily.decode_untrusted(doubled).wire_version == 2


def revalidate_error(change: Callable[[dict[str, Any]], None], registry: Any = None) -> VNextError:
    data = mutate(change)
    with pytest.raises(VNextError) as info:
        from_json_validated(data, registry or TestRegistry())
    return info.value


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (lambda w: w.__setitem__("config_fingerprint", "0" * 64), "prepared_package"),
        (lambda w: w.__setitem__("external_metadata_id", "metadata.synthetic.alias"), "prepared_package"),
        (
            lambda w: w["weight_schema"]["components"][0].__setitem__("external_names", ["other.bin"]),
            "prepared_package",
        ),
        (lambda w: w["metadata"]["template"].__setitem__("sha256", "d" * 64), "prepared_package"),
        (lambda w: w["numerical_profile"]["version"].__setitem__("minor", 1), "prepared_package"),
        (lambda w: w["program"]["blocks"][0].__setitem__("id", "block.other"), "prepared_package"),
        (lambda w: w["numerical_profile"].__setitem__("id", "fixture.f16"), "numerical_profile"),
        (lambda w: w.__setitem__("canonical_config", {"width": 5}), "width"),
        (lambda w: w.__setitem__("canonical_config", {"width": 4, "x": 1}), "/x"),
    ],
)
def test_forged_wires_fail_revalidation(change: Callable[[dict[str, Any]], None], field: str) -> None:
    error = revalidate_error(change)
    assert isinstance(error, InvalidModelConfig)
    assert error.field == field


def test_unknown_family_and_foreign_external_id() -> None:
    error = revalidate_error(lambda w: w.__setitem__("family_id", "family.other"))
    assert isinstance(error, UnknownModelFamily)
    # external id resolving to a different registration
    other = TypedFamilyRegistration(TestFamily())
    alias_only = _AliasOnly()
    registry = StaticFamilyRegistry([other, TypedFamilyRegistration(alias_only)])
    error = revalidate_error(lambda w: w.__setitem__("external_metadata_id", "metadata.alias.only"), registry)
    assert isinstance(error, InvalidModelConfig)
    assert error.field == "external_metadata_id"


class _AliasOnly(TestFamily):
    def family_id(self) -> Any:
        from reference.ids import ModelFamilyId

        return ModelFamilyId("family.alias-only")

    def external_metadata_ids(self) -> Any:
        from reference.ids import ExternalModelMetadataId

        return frozenset({ExternalModelMetadataId("metadata.alias.only")})


class _Impostor:
    """A registration that answers resolve() for one family id but reports another."""

    def __init__(self) -> None:
        self.inner = TypedFamilyRegistration(TestFamily())
        self.calls = 0

    def family_id(self) -> Any:
        self.calls += 1
        from reference.ids import ModelFamilyId

        return ModelFamilyId("family.synthetic" if self.calls == 1 else "family.other")

    def external_metadata_ids(self) -> Any:
        return self.inner.external_metadata_ids()


def test_registration_reporting_another_family_is_rejected() -> None:
    error = revalidate_error(lambda w: None, StaticFamilyRegistry([_Impostor()]))  # type: ignore[list-item]
    assert isinstance(error, InvalidModelConfig)
    assert error.field == "registration.family_id"


def test_registry_with_ordered_family_rejects_test_family_wire() -> None:
    registry = StaticFamilyRegistry([TypedFamilyRegistration(OrderedSchemaFamily())])
    with pytest.raises(InvalidModelConfig) as info:
        from_json_validated(TestRegistry().prepare().to_json_bytes(), registry)
    assert info.value.field == "prepared_package"


def test_prepared_family_cannot_be_constructed_directly() -> None:
    family = TestRegistry().prepare()
    with pytest.raises(TypeError):
        PreparedModelFamily(
            *[
                getattr(family, f)
                for f in (
                    "wire_version",
                    "family_id",
                    "external_metadata_id",
                    "canonical_config",
                    "config_fingerprint",
                    "numerical_profile",
                    "weight_schema",
                    "program",
                    "metadata",
                )
            ]
        )
