"""Storage layout-class names (01 UNRESOLVED 10; decision D-05M-13).

Tensor layout classes are the snake_case ``contiguous``, ``strided{byte_strides}`` and
``blocked{block, axis_order, padding: exact | zero_fill}``; the workspace class is
``"opaque_bytes_v1"``; each layout fingerprint is the canonical fingerprint of that class value.
"""

from __future__ import annotations

import pytest

from reference.canonical import JsonValue, fingerprint
from reference.plan.memory.storage import tensor_layout_fingerprint, workspace_layout_fingerprint

#: (resolved tensor layout wire, its class value, the class fingerprint)
CASES: list[tuple[JsonValue, JsonValue, str]] = [
    ("contiguous", "contiguous", "2ee77f83e72ffcea31cc6ac29a81070a45403f9fe3e3d76aa284ffc351ead457"),
    (
        {"strided": {"byte_strides": [4, 16]}},
        {"strided": {"byte_strides": [4, 16]}},
        "c676b9a50836953608fc56d567dc2b74cbbd24eac0994751432997215227d9a9",
    ),
    (
        {"blocked": {"block": [2], "axis_order": [0], "padding": "exact"}},
        {"blocked": {"block": [2], "axis_order": [0], "padding": "exact"}},
        "ebd0f40900808f87b9339d484641ad8a66a49f01b82830172aac649818f63d4e",
    ),
    (
        {"blocked": {"block": [3], "axis_order": [0], "padding": {"zero_fill": {"physical_dimensions": [6]}}}},
        {"blocked": {"block": [3], "axis_order": [0], "padding": "zero_fill"}},
        "998514d762a6179f29a5ef1c9cda97f47622211afc47c17d677d73a4cd60dc07",
    ),
]


@pytest.mark.parametrize(("layout", "layout_class", "expected"), CASES)
def test_tensor_layout_classes_and_vectors(layout: JsonValue, layout_class: JsonValue, expected: str) -> None:
    assert tensor_layout_fingerprint(layout) == expected
    assert fingerprint(layout_class, context="layout class") == expected


def test_workspace_layout_class_is_opaque_bytes_v1() -> None:
    expected = "309780bb231c537e8511cd06c6de0030f971c09499f8c0504e3bdee811fad897"
    assert workspace_layout_fingerprint() == expected == fingerprint("opaque_bytes_v1", context="layout class")
