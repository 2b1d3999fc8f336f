"""WeightComponentPayload construction rules and the reference weight sources."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from reference.ids import WeightId
from reference.model.element import ElementType
from reference.model.weight_encoding import Dense, WeightComponentRole, WeightComponentSpec
from reference.weights import InMemoryWeightSource, WeightComponentPayload
from reference.weights.payload import valid_source_file
from seeds.weight_sources import RecordingWeightSource, ZeroWeightSource
from tests.weights.helpers import raises_kind

FILES = ["model-1.safetensors", "model-2.safetensors"]


def packed() -> WeightComponentSpec:
    """The seed's packed gate/up component: f16 [2,2,2], two ordered external names."""
    return WeightComponentSpec(
        WeightId("component.test.gate_up"),
        WeightComponentRole.VALUES,
        ("gate.weight", "up.weight"),
        (2, 2, 2),
        Dense(ElementType.F16),
        True,
    )


def test_packed_payload_preserves_ordered_source_identity() -> None:
    component = packed()
    payload = WeightComponentPayload.from_ordered_sources(
        component, component.external_names, FILES, component.dimensions, ElementType.F16, bytes(16)
    )
    assert payload.external_names == component.external_names
    assert payload.source_files == tuple(FILES)
    assert payload.external_name() == "gate.weight" and payload.source_file() == FILES[0]
    error = raises_kind(
        "invalid_execution_plan",
        lambda: WeightComponentPayload.from_ordered_sources(
            component, component.external_names[::-1], FILES[::-1], component.dimensions, ElementType.F16, bytes(16)
        ),
    )
    assert "differs from its schema" in error.to_dict()["reason"]


@pytest.mark.parametrize(
    ("names", "files", "dims", "dtype", "size"),
    [
        ((), (), (2, 2, 2), ElementType.F16, 16),
        (("gate.weight",), ("a",), (2, 2, 2), ElementType.F16, 16),
        (("gate.weight", "up.weight"), ("a",), (2, 2, 2), ElementType.F16, 16),
        (("gate.weight", "up.weight"), ("a", "b", "c"), (2, 2, 2), ElementType.F16, 16),
        (("gate.weight", "up.weight"), ("a", "/abs"), (2, 2, 2), ElementType.F16, 16),
        (("gate.weight", "up.weight"), ("a", "x\\y"), (2, 2, 2), ElementType.F16, 16),
        (("gate.weight", "up.weight"), ("a", "x/../y"), (2, 2, 2), ElementType.F16, 16),
        (("gate.weight", "up.weight"), ("a", ""), (2, 2, 2), ElementType.F16, 16),
        (("gate.weight", "up.weight"), ("a", "b"), (2, 4), ElementType.F16, 16),
        (("gate.weight", "up.weight"), ("a", "b"), (2, 2, 2), ElementType.BF16, 16),
        (("gate.weight", "up.weight"), ("a", "b"), (2, 2, 2), ElementType.F16, 15),
        (("gate.weight", "up.weight"), ("a", "b"), (2, 2, 2), ElementType.F16, 17),
    ],
)
def test_every_identity_field_is_checked(
    names: tuple[str, ...], files: tuple[str, ...], dims: tuple[int, ...], dtype: ElementType, size: int
) -> None:
    raises_kind(
        "invalid_execution_plan",
        lambda: WeightComponentPayload.from_ordered_sources(packed(), names, files, dims, dtype, bytes(size)),
    )


def test_payload_cannot_be_built_unchecked() -> None:
    with pytest.raises(TypeError):
        WeightComponentPayload(WeightId("a"), ("x",), ("f",), (1,), ElementType.U8, memoryview(b"x"))


_SEGMENT = st.text(alphabet="abcXYZ019_-.", min_size=1, max_size=6).filter(lambda s: s not in (".", ".."))


@given(st.lists(_SEGMENT, min_size=1, max_size=4), st.sampled_from(["", ".", ".."]), st.integers(0, 4))
def test_source_file_rule(segments: list[str], bad: str, at: int) -> None:
    """Relative paths of non-empty, non-dot segments are valid; one bad segment, a leading / or a \\ is not."""
    assert valid_source_file("/".join(segments))
    broken = [*segments]
    broken.insert(min(at, len(broken)), bad)
    assert not valid_source_file("/".join(broken))
    assert not valid_source_file("/" + "/".join(segments))
    assert not valid_source_file("\\".join([*segments, "x"]))


def test_numpy_buffers_are_lent_read_only_and_must_be_contiguous() -> None:
    component = WeightComponentSpec(
        WeightId("w"), WeightComponentRole.VALUES, ("w.bin",), (4,), Dense(ElementType.F32), True
    )
    array = np.arange(4, dtype=np.float32)
    payload = InMemoryWeightSource.from_arrays({"w": array}).component(component)
    assert payload.shares_memory_with(array)
    with pytest.raises(TypeError):
        payload.data[0] = 1
    strided = np.arange(8, dtype=np.float32)[::2]
    raises_kind("invalid_execution_plan", lambda: InMemoryWeightSource({"w": strided}).component(component))
    wrong_size = np.arange(3, dtype=np.float32)
    raises_kind("invalid_execution_plan", lambda: InMemoryWeightSource({"w": wrong_size}).component(component))
    raises_kind("invalid_execution_plan", lambda: InMemoryWeightSource({}).component(component))
    files = InMemoryWeightSource({"w": array}, files={"w": ["shard/0.bin"]}).component(component)
    assert files.source_files == ("shard/0.bin",)


def test_zero_source_reads_one_external_name() -> None:
    one = WeightComponentSpec(WeightId("w"), WeightComponentRole.VALUES, ("w.bin",), (3,), Dense(ElementType.F16), True)
    payload = ZeroWeightSource().component(one)
    assert payload.to_bytes() == bytes(6) and payload.source_files == ("model.safetensors",)
    raises_kind("invalid_execution_plan", lambda: ZeroWeightSource().component(packed()))


def test_recording_source_records_in_order_and_refuses_outside_allow_list() -> None:
    a = WeightComponentSpec(WeightId("a"), WeightComponentRole.VALUES, ("a.bin",), (1,), Dense(ElementType.U8), True)
    b = replace(a, id=WeightId("b"), external_names=("b.bin",))
    source = RecordingWeightSource(ZeroWeightSource(), allowed=["a"])
    source.component(a)
    source.component(a)
    raises_kind("invalid_execution_plan", lambda: source.component(b))
    assert source.requested == [WeightId("a"), WeightId("a")]


def test_payload_equality_compares_bytes() -> None:
    a = WeightComponentSpec(WeightId("a"), WeightComponentRole.VALUES, ("a.bin",), (2,), Dense(ElementType.U8), True)
    x = InMemoryWeightSource({"a": b"\x01\x02"}).component(a)
    assert x == InMemoryWeightSource({"a": bytearray(b"\x01\x02")}).component(a)
    assert x != InMemoryWeightSource({"a": b"\x01\x03"}).component(a)
    assert hash(x) == hash(InMemoryWeightSource({"a": b"\x01\x02"}).component(a))
