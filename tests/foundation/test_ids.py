"""Identity newtypes and contract versions (spec 01 §1, §2)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from reference import ids
from reference.canonical import canonical_bytes, loads_strict
from reference.errors import InvalidExecutionPlan, InvalidIdentity, InvalidResolvedModelPlan, Serialization
from reference.versions import ContractVersion, PlanSchemaVersion

PORTABLE = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._:/-"
PLAIN = sorted(ids.identity_types().items())
KINDS = {
    "CapabilityId": "capability",
    "DeviceId": "device",
    "ExternalModelMetadataId": "external model metadata",
    "ModelFamilyId": "model family",
    "NodeId": "node",
    "OperationId": "operation",
    "PlanId": "plan",
    "ProgramValueId": "program value",
    "ProviderId": "provider",
    "QuantizationFormatId": "quantization format",
    "ResourceId": "resource",
    "StateId": "state",
    "WeightId": "weight",
    "WeightFormatId": "weight format",
    "WeightLayoutId": "weight layout",
    "WeightMaterializerId": "weight materializer",
    "RequestIdentity": "request",
    "RunId": "run",
    "SpanId": "span",
    "TensorId": "tensor",
    "TokenizerId": "tokenizer",
    "TransactionId": "transaction",
}
portable_ids = st.text(alphabet=PORTABLE, min_size=1, max_size=160)
identity_classes = st.sampled_from([cls for _, cls in PLAIN])


def test_kind_table_is_complete() -> None:
    assert {name: cls.KIND for name, cls in PLAIN} == KINDS


@given(identity_classes, portable_ids)
def test_portable_strings_are_accepted_verbatim(cls: type[ids.Identity], value: str) -> None:
    ident = cls(value)
    assert ident.value == value
    assert str(ident) == value
    assert ident.to_wire() == value
    assert cls.from_wire(loads_strict(canonical_bytes(value), context="t")) == ident


@given(identity_classes, st.text(max_size=200))
def test_identity_language_is_exactly_the_documented_regex(cls: type[ids.Identity], value: str) -> None:
    matches = value.isascii() and re.fullmatch(r"[A-Za-z0-9._:/-]{1,160}", value) is not None
    try:
        cls(value)
    except InvalidIdentity as exc:
        assert not matches
        assert exc.identity_kind == cls.KIND
        assert exc.value == value
        size = len(value.encode("utf-8", "surrogatepass"))
        expected = ids.REASON_EMPTY if size == 0 else ids.REASON_TOO_LONG if size > 160 else ids.REASON_CHARSET
        assert exc.reason == expected
    else:
        assert matches


@given(
    identity_classes, portable_ids, st.text(alphabet=" \n\t\x00\x7fé资+@#,%\\\"'", min_size=1, max_size=3), st.data()
)
def test_one_foreign_character_is_rejected(cls: type[ids.Identity], base: str, bad: str, data: st.DataObject) -> None:
    at = data.draw(st.integers(min_value=0, max_value=len(base)))
    value = base[:at] + bad + base[at:]
    assume(len(value.encode()) <= 160)
    with pytest.raises(InvalidIdentity) as info:
        cls(value)
    assert info.value.reason == ids.REASON_CHARSET


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        ("a" * 160, None),
        ("a" * 161, ids.REASON_TOO_LONG),
        ("", ids.REASON_EMPTY),
        ("资" * 67, ids.REASON_TOO_LONG),  # 201 bytes of non-ASCII: length is checked before charset
        ("é" * 80, ids.REASON_CHARSET),  # exactly 160 bytes
        ("a b", ids.REASON_CHARSET),
        ("a\n", ids.REASON_CHARSET),
        ("a\t", ids.REASON_CHARSET),
        ("资源", ids.REASON_CHARSET),
        ("é", ids.REASON_CHARSET),
        ("a+b", ids.REASON_CHARSET),
        ("a@b", ids.REASON_CHARSET),
        ("a#b", ids.REASON_CHARSET),
        ("a,b", ids.REASON_CHARSET),
        ("a%b", ids.REASON_CHARSET),
        ("\x00", ids.REASON_CHARSET),
        ("\x7f", ids.REASON_CHARSET),
        (" node.a", ids.REASON_CHARSET),
        ("/", None),
        ("..", None),
        (":::", None),
        ("-a", None),
        ("a//b", None),
        ("plan/unset", None),
        ("UPPER", None),
        ("0", None),
    ],
)
def test_boundaries_and_reasons(value: str, reason: str | None) -> None:
    if reason is None:
        assert ids.NodeId(value).value == value
    else:
        with pytest.raises(InvalidIdentity) as info:
            ids.NodeId(value)
        assert info.value.reason == reason
        assert info.value.identity_kind == "node"
        assert info.value.value == value


def test_identities_are_case_sensitive_and_not_normalised() -> None:
    assert ids.NodeId("Node.A") != ids.NodeId("node.a")
    assert ids.NodeId("node.a") == ids.NodeId("node.a")
    assert ids.NodeId("node.a") != ids.OperationId("node.a")
    assert hash(ids.NodeId("x")) == hash(ids.NodeId("x"))


def test_identities_are_immutable() -> None:
    node = ids.NodeId("node.a")
    with pytest.raises(AttributeError):
        node.value = "other"  # type: ignore[misc]


@given(st.lists(portable_ids, unique=True, max_size=8), st.randoms(use_true_random=False))
def test_maps_keyed_by_identity_serialise_bytewise(keys: list[str], rng: Any) -> None:
    shuffled = list(keys)
    rng.shuffle(shuffled)
    as_map = {ids.NodeId(k).to_wire(): i for i, k in enumerate(shuffled)}
    out = loads_strict(canonical_bytes(as_map), context="t")
    assert list(out) == sorted(keys, key=lambda k: k.encode())
    assert sorted(ids.NodeId(k) for k in shuffled) == [ids.NodeId(k) for k in sorted(keys)]


@pytest.mark.parametrize("raw", [3, None, {"value": "x"}, ["x"], "a b", "", True])
def test_from_wire_failures_are_serialization(raw: Any) -> None:
    with pytest.raises(Serialization):
        ids.NodeId.from_wire(raw)


def test_escaped_valid_identity_decodes() -> None:
    assert ids.NodeId.from_wire(loads_strict(b'"node\\u002ea"', context="t")) == ids.NodeId("node.a")


# --- identities with their own validators


@pytest.mark.parametrize(
    ("cls", "kind"), [(ids.AttributeId, "operation attribute"), (ids.OperationOracleId, "operation oracle")]
)
def test_single_range_identities(cls: type[ids.Identity], kind: str) -> None:
    assert cls("a" * 160).value == "a" * 160
    for bad in ("", "a" * 161):
        with pytest.raises(InvalidIdentity) as info:
            cls(bad)
        assert info.value.reason == "identity must contain between 1 and 160 bytes"
        assert info.value.identity_kind == kind
    with pytest.raises(InvalidIdentity) as info:
        cls("a b")
    assert info.value.reason == ids.REASON_CHARSET


@given(st.text(max_size=200))
def test_numerical_profile_id_same_language_plain_error(value: str) -> None:
    matches = value.isascii() and re.fullmatch(r"[A-Za-z0-9._:/-]{1,160}", value) is not None
    try:
        ids.NumericalProfileId(value)
    except ids.NumericalProfileIdError as exc:
        assert not matches
        assert str(exc) == "numerical profile identity needs 1..=160 portable ASCII bytes"
        assert not isinstance(exc, InvalidIdentity)
    else:
        assert matches


@pytest.mark.parametrize("bad", ["A" * 64, "a" * 63, "a" * 65, "g" * 64, "a" * 63 + "\n", "", "a" * 63 + "é"])
def test_plan_hash_rejects(bad: str) -> None:
    with pytest.raises(InvalidExecutionPlan) as info:
        ids.PlanHash(bad)
    assert info.value.reason == "plan hash must be a lowercase SHA256"
    with pytest.raises(Serialization):
        ids.PlanHash.from_wire(bad)


def test_plan_hash_and_id() -> None:
    h = ids.PlanHash("0" * 64)
    plan_id = ids.plan_id_for_hash(h)
    assert plan_id.value == "plan/sha256/" + "0" * 64
    assert len(plan_id.value) == 76


@pytest.mark.parametrize(
    ("value", "ok"),
    [
        ("dynamic-pool/sha256/" + "a" * 64, True),
        ("dynamic-pool/sha256/" + "A" * 64, False),
        ("dynamic-pool/sha256/" + "a" * 63, False),
        ("dynamic-pool/sha256/" + "a" * 64 + "x", False),
        ("dynamic-pool:sha256:" + "a" * 64, False),
        ("a" * 84, False),
    ],
)
def test_dynamic_backing_pool_id(value: str, ok: bool) -> None:
    if ok:
        assert ids.DynamicBackingPoolId(value).value == value
    else:
        with pytest.raises(Serialization):
            ids.DynamicBackingPoolId.from_wire(value)


@pytest.mark.parametrize("cls", [ids.ResolutionReasonId, ids.ResolutionArtifactId])
def test_resolution_identities(cls: type[ids.Identity]) -> None:
    field = "resolution_reason_id" if cls is ids.ResolutionReasonId else "resolution_artifact_id"
    with pytest.raises(InvalidResolvedModelPlan) as info:
        cls("")
    assert (info.value.field, info.value.reason) == (field, "must contain between 1 and 160 bytes")
    with pytest.raises(InvalidResolvedModelPlan) as info:
        cls("a b")
    assert info.value.reason == "contains a non-portable character"


# --- ContractVersion

versions = st.builds(ContractVersion, st.integers(0, 65535), st.integers(0, 65535))


@pytest.mark.parametrize(
    ("have", "need", "ok"),
    [
        ((1, 3), (1, 1), True),
        ((1, 0), (1, 0), True),
        ((1, 0), (1, 1), False),
        ((2, 0), (1, 0), False),
        ((1, 9), (2, 0), False),
        ((0, 2), (0, 1), True),
    ],
)
def test_satisfies_vectors(have: tuple[int, int], need: tuple[int, int], ok: bool) -> None:
    assert ContractVersion(*have).satisfies(ContractVersion(*need)) is ok


@given(versions, versions, versions)
def test_satisfies_laws(a: ContractVersion, b: ContractVersion, c: ContractVersion) -> None:
    assert a.satisfies(a)
    assert a.satisfies(b) == (a.major == b.major and a.minor >= b.minor)
    if a.satisfies(b) and b.satisfies(c):
        assert a.satisfies(c)
    if a.major != b.major:
        assert not a.satisfies(b)
    if a.satisfies(b) and b.satisfies(a):
        assert a == b


def test_satisfies_is_not_greater_or_equal() -> None:
    assert ContractVersion(2, 0) >= ContractVersion(1, 5)
    assert not ContractVersion(2, 0).satisfies(ContractVersion(1, 5))


@given(versions)
def test_version_wire_round_trip(v: ContractVersion) -> None:
    assert canonical_bytes(v.to_wire()) == f'{{"major":{v.major},"minor":{v.minor}}}'.encode()
    assert ContractVersion.from_wire(v.to_wire()) == v
    assert str(v) == f"{v.major}.{v.minor}"


@pytest.mark.parametrize(
    "raw",
    [
        b'{"major":65536,"minor":0}',
        b'{"major":-1,"minor":0}',
        b'{"major":1.0,"minor":0}',
        b'{"major":1}',
        b'{"minor":1}',
        b'{"major":true,"minor":0}',
        b'{"major":"1","minor":0}',
        b"[1,0]",
    ],
)
def test_version_decode_rejects(raw: bytes) -> None:
    with pytest.raises(Serialization):
        ContractVersion.from_wire(loads_strict(raw, context="t"))


def test_version_decode_rejects_minus_zero_at_the_strict_decoder() -> None:
    with pytest.raises(Serialization):
        ContractVersion.from_wire(loads_strict(b'{"major":-0,"minor":0}', context="t"))


def test_standalone_version_decode_ignores_extra_keys() -> None:
    assert ContractVersion.from_wire({"major": 1, "minor": 0, "x": 9}) == ContractVersion(1, 0)


def test_plan_schema_version_has_no_satisfies() -> None:
    with pytest.raises(TypeError):
        PlanSchemaVersion(8, 1).satisfies(PlanSchemaVersion(8, 1))
    assert PlanSchemaVersion(8, 1) == PlanSchemaVersion(8, 1)
    assert PlanSchemaVersion.from_wire({"major": 8, "minor": 1}) == PlanSchemaVersion(8, 1)
