"""Identity and JSON strategies: valid ids are accepted, hostile ones refused, every malformed class rejected."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reference.canonical import canonical_bytes, is_canonical_sha256, loads_strict
from reference.errors import InvalidIdentity, Serialization
from reference.ids import NodeId, OperationId, ProviderId
from reference.model.config import json_equal
from strategies.ids import hex_digests, identities, non_portable_strings, portable_strings
from strategies.json_values import MALFORMED_CLASSES, compact_bytes, json_values, malformed_json

CONTAINERS = st.one_of(st.dictionaries(st.text(max_size=4), json_values(), min_size=1, max_size=4),
                       st.lists(json_values(), min_size=1, max_size=4))  # fmt: skip


@given(portable_strings(), identities(NodeId, "node"), identities(ProviderId, "provider"))
def test_portable_strings_and_identities_are_accepted(text: str, node: NodeId, provider: ProviderId) -> None:
    assert OperationId(text).value == text
    assert node.value.startswith("node.") and provider.value.startswith("provider.")


@given(non_portable_strings())
def test_non_portable_strings_are_refused_with_their_reason(pair: tuple[str, str]) -> None:
    value, reason = pair
    with pytest.raises(InvalidIdentity) as info:
        NodeId(value)
    assert info.value.to_dict()["reason"] == reason


@given(hex_digests())
def test_hex_digests_are_canonical(digest: str) -> None:
    assert is_canonical_sha256(digest)


@given(json_values(floats=True))
def test_json_values_round_trip_through_the_strict_decoder(value: object) -> None:
    assert json_equal(loads_strict(canonical_bytes(value), context="test"), value)


@pytest.mark.parametrize("klass", sorted(MALFORMED_CLASSES))
@given(data=st.data(), document=CONTAINERS)
def test_every_malformed_class_is_a_serialization_error(klass: str, data: st.DataObject, document: object) -> None:
    limit = len(compact_bytes(document)) + 16
    case = data.draw(malformed_json(document, max_bytes=limit, klass=klass))
    assert case.klass == klass and case.expected_kind == "serialization"
    assert case.data != compact_bytes(document), "the mutation must change the bytes"
    loads_strict(compact_bytes(document), context="test", max_bytes=limit)  # the original is fine
    with pytest.raises(Serialization):
        loads_strict(case.data, context="test", max_bytes=limit)
