"""The exact elementwise oracle (decision 08-runtime D4) against a scalar re-implementation."""

from __future__ import annotations

import hashlib

from hypothesis import given
from hypothesis import strategies as st

from reference.catalog.tensor_contract import TensorAccess
from reference.ids import OperationId
from reference.model.element import ElementType
from reference.runtime.oracle import ORACLE_DOMAIN, OperandValue, exact_elementwise, operation_salt

M64 = (1 << 64) - 1


def _scalar(
    salt: int, inputs: list[OperandValue], outputs: list[tuple[ElementType, int]]
) -> tuple[list[bytes], dict[int, bytes]]:
    def lanes(op: OperandValue) -> list[int]:
        size = op.element_type.size_bytes
        return [int.from_bytes(op.data[i : i + size], "little") for i in range(0, len(op.data) // size * size, size)]

    def mask(et: ElementType) -> int:
        return 1 if et is ElementType.BOOL else (1 << (8 * et.size_bytes)) - 1

    all_lanes = [lanes(op) for op in inputs]

    def acc(ordinal: int, i: int) -> int:
        a = salt ^ (((ordinal + 1) * 0x9E3779B97F4A7C15) & M64)
        for ls in all_lanes:
            x = ls[i % len(ls)] if ls else 0
            a = ((((a << 5) | (a >> 59)) & M64) ^ x) * 0x100000001B3 & M64
        return a

    outs = []
    for j, (et, length) in enumerate(outputs):
        n = length // et.size_bytes
        data = b"".join((acc(j, i) & mask(et)).to_bytes(et.size_bytes, "little") for i in range(n))
        outs.append(data + bytes(length - len(data)))
    n0 = outputs[0][1] // outputs[0][0].size_bytes if outputs else 0
    updates = {}
    for k, op in enumerate(inputs):
        if op.access is TensorAccess.READ_WRITE and n0 and all_lanes[k]:
            size = op.element_type.size_bytes
            data = b"".join(
                ((x + acc(0, i % n0)) & mask(op.element_type)).to_bytes(size, "little")
                for i, x in enumerate(all_lanes[k])
            )
            updates[k] = data + op.data[len(data) :]
    return outs, updates


elements = st.sampled_from(list(ElementType))
operands = st.builds(
    OperandValue,
    elements,
    st.sampled_from([TensorAccess.READ, TensorAccess.READ_WRITE]),
    st.binary(max_size=24),
)
outputs = st.lists(st.tuples(elements, st.integers(1, 24)), min_size=1, max_size=3)


@given(salt=st.integers(0, M64), inputs=st.lists(operands, max_size=4), outs=outputs)
def test_vectorized_oracle_equals_the_scalar_definition(
    salt: int, inputs: list[OperandValue], outs: list[tuple[ElementType, int]]
) -> None:
    assert exact_elementwise(salt, inputs, outs) == _scalar(salt, inputs, outs)


def test_salt_is_the_documented_hash() -> None:
    digest = hashlib.sha256(ORACLE_DOMAIN + b"operation.main").digest()
    assert operation_salt(OperationId("operation.main")) == int.from_bytes(digest[:8], "little")
    assert operation_salt(OperationId("operation.main")) != operation_salt(OperationId("operation.graph.alias"))


def test_bool_outputs_are_zero_or_one_and_inputs_matter() -> None:
    x = OperandValue(ElementType.F32, TensorAccess.READ, bytes(range(16)))
    y = OperandValue(ElementType.F32, TensorAccess.READ, bytes(range(1, 17)))
    (out,), _ = exact_elementwise(7, [x], [(ElementType.BOOL, 32)])
    assert set(out) <= {0, 1}
    assert exact_elementwise(7, [x], [(ElementType.F32, 16)]) != exact_elementwise(7, [y], [(ElementType.F32, 16)])
