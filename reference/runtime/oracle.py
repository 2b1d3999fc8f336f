"""What ``OracleSpec::Exact`` computes for the reference operations: one exact elementwise function.

Decision 08-runtime D4 (docs/decisions/08-runtime.md). Every operation the
reference runtime executes computes ``exact_elementwise`` over the *bit
patterns* of its operands, so results are exact, portable and independent of
floating-point behaviour:

* a binding's bytes are its storage components concatenated in storage order;
  its lanes are the little-endian unsigned integers of its tensor element type's
  size (trailing bytes that do not fill an element are ignored);
* ``salt = u64_le(sha256("vnext-conformance/exact-elementwise/v1\\0" + op)[:8])``
  where ``op`` is the operation id, or the final target of its
  ``reference_operation`` oracle chain (a reference oracle judges by its target);
* output ``j`` (ordinal order) element ``i``: ``acc = salt ^ ((j + 1) * 0x9E3779B97F4A7C15)``,
  then for every input ``k`` in ordinal order (``x`` = lane ``i mod n_k`` of the
  input, ``0`` when it has no lane) ``acc = (rotl64(acc, 5) ^ x) * 0x100000001B3``,
  all mod 2^64; the element is ``acc`` truncated to the output width (``bool``: ``acc & 1``);
* every ``read_write`` input ``k`` is then overwritten lane by lane with
  ``(lane_i + acc_0(i mod n_0)) mod 2^width`` where ``acc_0`` is output 0's
  accumulator (``bool``: ``& 1``); outputs are written first, then updates.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

import numpy as np

from reference.catalog.catalog import CapabilityCatalog
from reference.catalog.tensor_contract import TensorAccess
from reference.ids import NodeId, OperationId
from reference.model.element import ElementType
from reference.runtime.buffer import ReferenceBuffer

__all__ = [
    "ORACLE_DOMAIN",
    "KernelLaunch",
    "KernelOperand",
    "OperandValue",
    "exact_elementwise",
    "oracle_operation_id",
    "operation_salt",
]

ORACLE_DOMAIN: Final = b"vnext-conformance/exact-elementwise/v1\x00"
_GOLDEN: Final = 0x9E3779B97F4A7C15
_PRIME: Final = 0x100000001B3
_MASK64: Final = (1 << 64) - 1
_LE_DTYPES: Final[dict[int, np.dtype[Any]]] = {1: np.dtype("<u1"), 2: np.dtype("<u2"), 4: np.dtype("<u4")}

U64Array = np.ndarray[Any, np.dtype[np.uint64]]


@dataclass(frozen=True, slots=True)
class OperandValue:
    """One operand at value level: element type, access and bytes."""

    element_type: ElementType
    access: TensorAccess
    data: bytes


def operation_salt(operation_id: OperationId) -> int:
    digest = hashlib.sha256(ORACLE_DOMAIN + operation_id.value.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "little")


def oracle_operation_id(catalog: CapabilityCatalog, operation_id: OperationId) -> OperationId:
    """Follow ``reference_operation`` oracles to their final target (the catalog bounds chains at 64)."""
    current = operation_id
    for _ in range(65):
        oracle = catalog.operation(current).oracle
        if not oracle.is_reference or oracle.operation_id is None or oracle.operation_id == current:
            return current
        current = oracle.operation_id
    return current


def _lanes(element_type: ElementType, data: bytes) -> U64Array:
    size = element_type.size_bytes
    count = len(data) // size
    lanes: U64Array = np.frombuffer(data, dtype=_LE_DTYPES[size], count=count).astype(np.uint64)
    return lanes


def _mask(element_type: ElementType) -> int:
    return 1 if element_type is ElementType.BOOL else (1 << (8 * element_type.size_bytes)) - 1


def _to_bytes(element_type: ElementType, lanes: U64Array) -> bytes:
    masked = lanes & np.uint64(_mask(element_type))
    data: bytes = masked.astype(_LE_DTYPES[element_type.size_bytes]).tobytes()
    return data


def _accumulate(salt: int, ordinal: int, inputs: Sequence[U64Array], index: np.ndarray[Any, Any]) -> U64Array:
    seed = (salt ^ (((ordinal + 1) * _GOLDEN) & _MASK64)) & _MASK64
    acc = np.full(index.shape, seed, dtype=np.uint64)
    five, fifty_nine, prime = np.uint64(5), np.uint64(59), np.uint64(_PRIME)
    for lanes in inputs:
        x = lanes[index % lanes.size] if lanes.size else np.zeros(index.shape, dtype=np.uint64)
        acc = (((acc << five) | (acc >> fifty_nine)) ^ x) * prime
    return acc


def exact_elementwise(
    salt: int, inputs: Sequence[OperandValue], outputs: Sequence[tuple[ElementType, int]]
) -> tuple[list[bytes], dict[int, bytes]]:
    """Output bytes (``outputs`` = element type and byte length per output) and updated read-write inputs."""
    lanes = [_lanes(op.element_type, op.data) for op in inputs]
    results: list[bytes] = []
    first_count = 0
    for ordinal, (element_type, length) in enumerate(outputs):
        count = length // element_type.size_bytes
        if ordinal == 0:
            first_count = count
        acc = _accumulate(salt, ordinal, lanes, np.arange(count, dtype=np.uint64))
        data = _to_bytes(element_type, acc)
        results.append(data + bytes(length - len(data)))
    updates: dict[int, bytes] = {}
    for k, operand in enumerate(inputs):
        if operand.access is not TensorAccess.READ_WRITE or first_count == 0 or lanes[k].size == 0:
            continue
        index = np.arange(lanes[k].size, dtype=np.uint64) % np.uint64(first_count)
        acc0 = _accumulate(salt, 0, lanes, index)
        data = _to_bytes(operand.element_type, lanes[k] + acc0)
        updates[k] = data + operand.data[len(data) :]
    return results, updates


@dataclass(frozen=True, slots=True)
class KernelOperand:
    """A bound operand: element type, access and its (buffer, offset, length) ranges in storage order."""

    element_type: ElementType
    access: TensorAccess
    ranges: tuple[tuple[ReferenceBuffer, int, int], ...]

    @property
    def byte_length(self) -> int:
        return sum(length for _, _, length in self.ranges)

    def read(self) -> bytes:
        return b"".join(bytes(buffer.data[offset : offset + length]) for buffer, offset, length in self.ranges)

    def write(self, data: bytes) -> None:
        cursor = 0
        for buffer, offset, length in self.ranges:
            buffer.data[offset : offset + length] = np.frombuffer(data, dtype=np.uint8, count=length, offset=cursor)
            cursor += length


@dataclass(frozen=True, slots=True)
class KernelLaunch:
    """One node invocation: the salt of its exact function and its bound operands."""

    node_id: NodeId
    salt: int
    inputs: tuple[KernelOperand, ...]
    outputs: tuple[KernelOperand, ...]

    def buffers(self) -> tuple[ReferenceBuffer, ...]:
        return tuple(b for operand in (*self.inputs, *self.outputs) for b, _, _ in operand.ranges)

    def run(self) -> None:
        """Read every input, compute, write outputs then read-write updates."""
        values = [OperandValue(op.element_type, op.access, op.read()) for op in self.inputs]
        outputs, updates = exact_elementwise(
            self.salt, values, [(op.element_type, op.byte_length) for op in self.outputs]
        )
        for operand, data in zip(self.outputs, outputs, strict=True):
            operand.write(data)
        for k, data in sorted(updates.items()):
            self.inputs[k].write(data)
