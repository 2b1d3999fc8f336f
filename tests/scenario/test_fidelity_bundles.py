"""The corpus bundles and golden vectors of the fidelity behaviours pin what their notes say.

Non-identity materializers (D-04R-14): padded-dense static bytes 64 = identity 48 + 16 with a
32-byte weight row, derived-components bound as ``weight.execution.left/right``; container
formats (D-04R-15): a dense mixed-gptq binding builds, a block-quantized one is
``unsupported_operation``; retention (D-05M-12): one retained row, descriptor unchanged.
"""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest

from conformance.corpus import corpus_dir
from conformance.golden import load
from harness.bundles import load_bundle

FIDELITY_STEMS = (
    "seed_weights_padded_dense_plan",
    "seed_weights_padded_dense_family_bindings",
    "seed_weights_derived_components_plan",
    "seed_container_mixed_gptq_dense",
    "seed_container_quantized_unsupported",
    "seed_retention_output",
    "seed_retention_intermediate",
)


def _expect(stem: str) -> dict[str, Any]:
    expect = load_bundle(corpus_dir() / f"{stem}.json").expect
    assert expect is not None
    return expect


def _payload(stem: str) -> dict[str, Any]:
    result = _expect(stem)["result"]
    payload: dict[str, Any] = json.loads(base64.b64decode(result["wire_base64"]))["payload"]
    return payload


def _weight_row(payload: dict[str, Any]) -> dict[str, Any]:
    (row,) = [a for a in payload["memory"]["static_allocations"] if a["usage"] == "weights"]
    return row


def test_padded_dense_bundle_static_bytes_are_the_identity_plan_plus_16() -> None:
    padded, identity = _payload("seed_weights_padded_dense_plan"), _payload("seed_plan_fixture_0")
    assert identity["memory"]["static_bytes"] == 48
    assert padded["memory"]["static_bytes"] == identity["memory"]["static_bytes"] + 16
    assert _weight_row(padded)["size_bytes"] == 32 and _weight_row(identity)["size_bytes"] == 16
    assert padded["execution_weights"]["materializer_id"] == "weight-materializer.test.padded-dense"


def test_derived_components_bundle_binds_the_execution_components() -> None:
    payload = _payload("seed_weights_derived_components_plan")
    (weight,) = [v for v in payload["nodes"][0]["values"] if v["usage"] == "weights"]
    assert [c["component_id"] for c in weight["storage"]["components"]] == [
        "weight.execution.left",
        "weight.execution.right",
    ]
    assert payload["execution_weights"]["materializer_id"] == "weight-materializer.test.derived-components"
    assert payload["memory"]["static_bytes"] == 64


@pytest.mark.parametrize(
    ("stem", "kind"),
    [
        ("seed_weights_padded_dense_family_bindings", "invalid_execution_plan"),
        ("seed_container_quantized_unsupported", "unsupported_operation"),
    ],
)
def test_rejection_bundles_pin_their_kind(stem: str, kind: str) -> None:
    assert _expect(stem) == {"error": {"kind": kind}}


def test_container_bundle_keeps_the_container_format_on_its_binding() -> None:
    payload = _payload("seed_container_mixed_gptq_dense")
    (weight,) = [v for v in payload["nodes"][0]["values"] if v["usage"] == "weights"]
    assert weight["weight"]["format_id"] == payload["weight_format"] == "weight-format.safetensors.mixed-gptq"


@pytest.mark.parametrize(
    ("stem", "value", "lifetime"),
    [
        ("seed_retention_output", "value.output", "request"),
        ("seed_retention_intermediate", "value.intermediate", "step"),
    ],
)
def test_retention_bundles_record_one_row_and_keep_the_descriptor(stem: str, value: str, lifetime: str) -> None:
    payload = _payload(stem)
    (row,) = payload["retained_completion_values"]
    assert row["value_id"] == value
    (descriptor,) = [d for d in payload["memory"]["dynamic_descriptors"] if d["base_resource_id"] == row["resource_id"]]
    assert (descriptor["lifetime"], descriptor["demand"]) == (lifetime, {"fixed": {"bytes": 16}})


def test_every_fidelity_behaviour_has_a_bundle_and_the_buildable_ones_a_golden_vector() -> None:
    assert all((corpus_dir() / f"{stem}.json").is_file() for stem in FIDELITY_STEMS)
    names = {v["name"] for v in load()["vectors"]}
    assert {
        "weights_padded_dense",
        "weights_derived_components",
        "container_mixed_gptq_dense",
        "retention_output",
        "retention_intermediate",
    } <= names
